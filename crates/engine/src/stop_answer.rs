//! How the Stop hook's answers are written for Claude Code (reference/design-notes.md, note 48).
//! Measured on 2.1.330 and 2.1.332, in the interactive UI (tmux) and in `claude -p`: a
//! `decision: block` shows as "Stop hook reported a problem" and sets the footer to "stop hook
//! problem"; the Stop event's `hookSpecificOutput.additionalContext` continues the turn the same
//! way (the model is called again with the text, `stop_hook_active` is true at the next stop,
//! the client's cap of 8 consecutive continuations holds) and shows as "Stop hook says: ...".

use serde_json::{Value, json};

/// Who reads the session as it runs: a user at the interactive terminal, or nobody
/// (`claude -p`, the SDK). Claude Code tells its hooks with `CLAUDE_CODE_SESSION_ATTENDED`
/// (`1` in the terminal UI, `0` for `claude -p`, on both ends of the tested range).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Audience {
    /// Someone watches the terminal: what the hook says with `systemMessage` is seen.
    Attended,
    /// Nobody does (or the client did not say): only the session's own last message is.
    #[default]
    Unattended,
}

impl Audience {
    /// From the value of `CLAUDE_CODE_SESSION_ATTENDED` (unset or anything but `1`: unattended).
    pub fn from_variable(value: Option<&str>) -> Audience {
        if value == Some("1") {
            Audience::Attended
        } else {
            Audience::Unattended
        }
    }
}

/// The answer that keeps the session going with `text` (a dispatch): the Stop event's
/// `additionalContext`, which the client shows as progress, not as a problem.
pub fn continue_with(text: &str) -> Value {
    json!({"hookSpecificOutput": {"hookEventName": "Stop", "additionalContext": text}})
}

/// The answer that keeps the session going with a dispatch, by the session's channel
/// ([`crate::SessionChannel`]): [`continue_with`], or `decision: block` with the text as its
/// `reason` (for a session that did not act on `additionalContext`, or a client that rejects
/// it).
pub fn dispatch_answer(text: &str, channel: crate::Channel) -> Value {
    match channel {
        crate::Channel::Context => continue_with(text),
        crate::Channel::Block => json!({"decision": "block", "reason": text}),
    }
}

/// The answer that says the run's one line `line` (complete, paused, stalled, waiting for the
/// go). At a terminal the user reads it once, as the hook's `systemMessage`, and the stop is
/// allowed; unattended, the session is asked to end with it as its reply, because a
/// `systemMessage` reaches neither the model nor `claude -p` output (note 15); the
/// `systemMessage` stays for a client that shows it. The relay goes by the session's
/// `channel`, the one it follows (a stall line sent by a channel it ignores would be lost).
pub fn say_line(line: &str, audience: Audience, channel: crate::Channel) -> Value {
    match audience {
        Audience::Attended => json!({ "systemMessage": line }),
        Audience::Unattended => {
            let mut answer = dispatch_answer(&crate::relay_reason(line), channel);
            answer["systemMessage"] = Value::from(line);
            answer
        }
    }
}

/// The text a Stop hook answer continues the session with (either shape: `additionalContext`,
/// or a `decision: block` reason); `None` for an answer that lets the session stop.
pub fn continuation(answer: &Value) -> Option<&str> {
    answer
        .pointer("/hookSpecificOutput/additionalContext")
        .and_then(Value::as_str)
        .or_else(|| {
            (answer.get("decision").and_then(Value::as_str) == Some("block"))
                .then(|| answer.get("reason").and_then(Value::as_str))
                .flatten()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dispatch_continues_the_session_without_a_block() {
        let answer = continue_with("{\"self_repair\":2,\"launch\":[]}");
        assert_eq!(answer.get("decision"), None);
        assert_eq!(
            continuation(&answer),
            Some("{\"self_repair\":2,\"launch\":[]}")
        );
    }

    #[test]
    fn the_closing_line_is_shown_once_at_a_terminal_and_relayed_otherwise() {
        let line = "self-repair run r complete: 4 findings";
        let attended = say_line(line, Audience::Attended, crate::Channel::Block);
        assert_eq!(attended, json!({"systemMessage": line}));
        assert_eq!(continuation(&attended), None);
        let unattended = say_line(line, Audience::Unattended, crate::Channel::Context);
        assert_eq!(unattended["systemMessage"], line);
        assert_eq!(
            continuation(&unattended),
            Some(crate::relay_reason(line).as_str())
        );
        let by_block = say_line(line, Audience::Unattended, crate::Channel::Block);
        assert_eq!(by_block["decision"], "block");
        assert_eq!(by_block["systemMessage"], line);
        assert_eq!(
            continuation(&by_block),
            Some(crate::relay_reason(line).as_str())
        );
    }

    #[test]
    fn only_an_attended_session_says_1() {
        assert_eq!(Audience::from_variable(Some("1")), Audience::Attended);
        assert_eq!(Audience::from_variable(Some("0")), Audience::Unattended);
        assert_eq!(Audience::from_variable(None), Audience::Unattended);
    }

    #[test]
    fn a_block_reason_still_reads_as_a_continuation() {
        let block = json!({"decision": "block", "reason": "go on"});
        assert_eq!(continuation(&block), Some("go on"));
        assert_eq!(continuation(&json!({"systemMessage": "x"})), None);
    }
}
