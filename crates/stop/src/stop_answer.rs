//! What a Stop hook prints, for both pipelines: at most one JSON object on stdout (a dispatch
//! or instruction that continues the session, a line relayed once, a message for the user), and
//! diagnostics for stderr; the hook always exits 0. A hook never fails: every problem becomes an
//! allow, with a line on stderr and, when the user must act, a `systemMessage`.

use std::fmt::Display;

use self_repair_engine::{Audience, Channel, continue_with, say_line};
use self_repair_store::StoreError;
use serde_json::json;

/// What a hook prints: at most one JSON object on stdout, diagnostics on stderr; exit 0.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StopAnswer {
    pub stdout: Option<String>,
    pub stderr: Vec<String>,
}

impl StopAnswer {
    /// Lets the session stop, saying nothing.
    #[must_use]
    pub fn allow() -> StopAnswer {
        StopAnswer::default()
    }

    /// Lets the session stop with one line on stderr.
    #[must_use]
    pub fn note(line: String) -> StopAnswer {
        StopAnswer {
            stdout: None,
            stderr: vec![line],
        }
    }

    /// Lets the session stop after `error` of self-repair itself, said on stderr: the run is
    /// left as it is, and the next stop tries again.
    #[must_use]
    pub fn failed(error: impl Display) -> StopAnswer {
        StopAnswer::note(format!("self-repair hook stop: {error}; allowing the stop"))
    }

    /// Lets the session stop and tells the user `message` (`systemMessage`).
    #[must_use]
    pub fn tell(message: &str) -> StopAnswer {
        StopAnswer {
            stdout: Some(json!({ "systemMessage": message }).to_string()),
            stderr: Vec::new(),
        }
    }

    /// Says once how the run ended, paused or stalled: at a terminal the user reads it once and
    /// the stop is allowed; unattended the session is asked to end its turn with the line, so
    /// `claude -p` shows it too (design notes 15 and 48).
    #[must_use]
    pub fn relay(line: &str, audience: Audience) -> StopAnswer {
        StopAnswer::relay_by(line, audience, Channel::Context)
    }

    /// [`StopAnswer::relay`] by the session's `channel`: a triage session that follows only
    /// `decision: block` is asked by a block to end its turn with the line.
    #[must_use]
    pub fn relay_by(line: &str, audience: Audience, channel: Channel) -> StopAnswer {
        StopAnswer {
            stdout: Some(say_line(line, audience, channel).to_string()),
            stderr: Vec::new(),
        }
    }

    /// Keeps the session going with an instruction: the Stop event's `additionalContext`, which
    /// the client shows as "Stop hook says", not as a problem (design note 48).
    #[must_use]
    pub fn block(reason: &str) -> StopAnswer {
        StopAnswer {
            stdout: Some(continue_with(reason).to_string()),
            stderr: Vec::new(),
        }
    }

    /// Allows the stop and tells the user, not only stderr: the run cannot go on until they run
    /// `self-repair doctor` (the error says so).
    #[must_use]
    pub fn needs_doctor(e: &StoreError) -> StopAnswer {
        StopAnswer {
            stdout: Some(json!({ "systemMessage": format!("self-repair: {e}") }).to_string()),
            stderr: vec![format!("self-repair hook stop: {e}")],
        }
    }

    /// The answer with each text the client reads (`systemMessage`, a block `reason`,
    /// `hookSpecificOutput.additionalContext`) within the client's hook text limit
    /// ([`self_repair_engine::HOOK_TEXT_LIMIT`]): a longer one would be saved to a file and
    /// shown as a preview. A dispatch is never cut (its waves split to fit); a run summary or
    /// line that grew past the limit is cut with a note naming `self-repair status`.
    #[must_use]
    pub fn fit_hook_limit(mut self) -> StopAnswer {
        let Some(mut value) = self
            .stdout
            .as_deref()
            .and_then(|text| serde_json::from_str::<serde_json::Value>(text).ok())
        else {
            return self;
        };
        let mut cut = false;
        for pointer in [
            "/systemMessage",
            "/reason",
            "/hookSpecificOutput/additionalContext",
        ] {
            if let Some(field) = value.pointer_mut(pointer)
                && let Some(text) = field.as_str()
                && let std::borrow::Cow::Owned(fitted) = self_repair_engine::fit_hook_text(text)
            {
                *field = fitted.into();
                cut = true;
            }
        }
        if cut {
            self.stdout = Some(value.to_string());
        }
        self
    }

    /// Adds `message` for the user to whatever this answer prints.
    pub fn announce(&mut self, message: &str) {
        let mut object = self
            .stdout
            .as_deref()
            .and_then(|text| serde_json::from_str::<serde_json::Value>(text).ok())
            .and_then(|value| value.as_object().cloned())
            .unwrap_or_default();
        let text = match object.get("systemMessage").and_then(|v| v.as_str()) {
            Some(existing) => format!("{message}\n{existing}"),
            None => message.to_owned(),
        };
        object.insert("systemMessage".to_owned(), text.into());
        self.stdout = Some(serde_json::Value::Object(object).to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stdout(answer: &StopAnswer) -> serde_json::Value {
        serde_json::from_str(answer.stdout.as_deref().expect("a JSON answer")).unwrap()
    }

    #[test]
    fn each_answer_prints_what_its_name_says() {
        assert_eq!(StopAnswer::allow(), StopAnswer::default());
        assert_eq!(
            StopAnswer::note("a line".into()),
            StopAnswer {
                stdout: None,
                stderr: vec!["a line".into()]
            }
        );
        assert_eq!(
            StopAnswer::failed("disk full"),
            StopAnswer::note("self-repair hook stop: disk full; allowing the stop".into())
        );
        assert_eq!(
            stdout(&StopAnswer::tell("run r complete")),
            json!({"systemMessage": "run r complete"})
        );
        assert_eq!(
            stdout(&StopAnswer::block("launch these")),
            json!({"hookSpecificOutput": {"hookEventName": "Stop", "additionalContext": "launch these"}})
        );
        let e = StoreError::RunExists("r-1".into());
        let doctor = StopAnswer::needs_doctor(&e);
        assert_eq!(
            stdout(&doctor),
            json!({"systemMessage": format!("self-repair: {e}")})
        );
        assert_eq!(doctor.stderr, [format!("self-repair hook stop: {e}")]);
    }

    #[test]
    fn a_line_is_relayed_by_audience_and_channel() {
        let attended = StopAnswer::relay("run r stalled", Audience::Attended);
        assert_eq!(stdout(&attended), json!({"systemMessage": "run r stalled"}));
        assert!(attended.stderr.is_empty());
        let unattended = stdout(&StopAnswer::relay("run r stalled", Audience::Unattended));
        assert_eq!(unattended["systemMessage"], "run r stalled");
        let context = unattended
            .pointer("/hookSpecificOutput/additionalContext")
            .and_then(|v| v.as_str())
            .unwrap();
        assert!(context.starts_with("run r stalled\n"), "{context}");
        let by_block = stdout(&StopAnswer::relay_by(
            "run r stalled",
            Audience::Unattended,
            Channel::Block,
        ));
        assert_eq!(by_block["decision"], "block");
        assert!(
            by_block["reason"]
                .as_str()
                .unwrap()
                .starts_with("run r stalled\n")
        );
    }

    #[test]
    fn an_announcement_goes_before_what_the_answer_already_says() {
        let mut silent = StopAnswer::allow();
        silent.announce("new version");
        assert_eq!(stdout(&silent), json!({"systemMessage": "new version"}));
        let mut told = StopAnswer::tell("run r complete");
        told.announce("new version");
        assert_eq!(
            stdout(&told),
            json!({"systemMessage": "new version\nrun r complete"})
        );
        let mut block = StopAnswer::block("launch these");
        block.announce("new version");
        let value = stdout(&block);
        assert_eq!(value["systemMessage"], "new version");
        assert_eq!(
            value["hookSpecificOutput"]["additionalContext"],
            "launch these"
        );
    }

    #[test]
    fn a_text_past_the_clients_limit_is_cut_and_a_short_one_is_kept() {
        let long = "x".repeat(30_000);
        let answer = StopAnswer {
            stdout: Some(
                json!({"systemMessage": long, "hookSpecificOutput":
                {"hookEventName": "SessionStart", "additionalContext": "é".repeat(12_000)}})
                .to_string(),
            ),
            stderr: Vec::new(),
        }
        .fit_hook_limit();
        let value: serde_json::Value =
            serde_json::from_str(answer.stdout.as_deref().unwrap()).unwrap();
        for pointer in ["/systemMessage", "/hookSpecificOutput/additionalContext"] {
            let text = value.pointer(pointer).and_then(|v| v.as_str()).unwrap();
            assert_eq!(
                text.chars().count(),
                self_repair_engine::HOOK_TEXT_LIMIT,
                "{pointer}"
            );
            assert!(
                text.ends_with("`self-repair status` shows it all)"),
                "{pointer}"
            );
        }
        let short = StopAnswer::tell("run r complete");
        assert_eq!(short.clone().fit_hook_limit(), short);
    }
}
