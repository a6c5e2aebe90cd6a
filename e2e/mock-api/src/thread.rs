//! Which conversation a request belongs to: the main session, a sub-agent (and its item), or
//! a side request of the client.

use crate::conversation::Conversation;

/// What Claude Code 2.1.330 puts in a sub-agent's first system block
/// (`x-anthropic-billing-header: cc_version=...; cc_entrypoint=sdk-cli; cc_is_subagent=true;`).
pub const SUB_AGENT_BILLING_FLAG: &str = "cc_is_subagent=true";

/// The judged conversation of one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Thread {
    /// The main session: its request offers the `Agent` tool and no sub-agent marker.
    Main,
    /// A sub-agent: its system prompt carries the marker; `item` from `self-repair item <id>`.
    SubAgent {
        /// The item id of the agent's prompt, when there is one.
        item: Option<String>,
    },
    /// The client's request to summarize the main session before it compacts its context.
    Compaction,
    /// Anything else the client asks (no tools offered, or a system prompt we do not know).
    Aux,
}

/// The instruction Claude Code 2.1.330 sends (as the last user message) when it compacts a
/// session's context.
pub(crate) const COMPACTION_REQUEST: &str = "create a detailed summary of the conversation so far";

impl Thread {
    /// Judges a request: the marker in the system prompt, or the client's billing line
    /// `cc_is_subagent=true`, means sub-agent; otherwise a request that offers tools is the
    /// main thread; the rest is auxiliary.
    pub fn judge(conversation: &Conversation<'_>, marker: &str) -> Thread {
        let asks_summary = conversation
            .last_user_index()
            .is_some_and(|i| conversation.text_at(i).contains(COMPACTION_REQUEST));
        if asks_summary {
            return Thread::Compaction;
        }
        let system = conversation.system_text();
        if system.contains(marker) || system.contains(SUB_AGENT_BILLING_FLAG) {
            return Thread::SubAgent {
                item: item_of_prompt(&conversation.first_user_text()),
            };
        }
        if conversation.tool_names().is_empty() {
            Thread::Aux
        } else {
            Thread::Main
        }
    }

    /// A short label for records: `main`, `item:<id>`, `sub_agent`, `aux`.
    pub fn label(&self) -> String {
        match self {
            Thread::Main => "main".to_owned(),
            Thread::SubAgent { item: Some(id) } => format!("item:{id}"),
            Thread::SubAgent { item: None } => "sub_agent".to_owned(),
            Thread::Compaction => "compaction".to_owned(),
            Thread::Aux => "aux".to_owned(),
        }
    }
}

/// The id after the last `self-repair item ` in `text` (a `--run <run>` after it is allowed:
/// `self-repair item t-00042 --run r-20261122-0930`).
pub fn item_of_prompt(text: &str) -> Option<String> {
    let at = text.rfind("self-repair item ")? + "self-repair item ".len();
    let id = word_at(&text[at..]);
    (!id.is_empty()).then_some(id)
}

/// The run of the last `self-repair item <id> --run <run>` in `text`, if the prompt names one.
pub fn run_of_prompt(text: &str) -> Option<String> {
    let at = text.rfind("self-repair item ")? + "self-repair item ".len();
    let rest = &text[at..];
    let after_id = rest.trim_start_matches(|c: char| is_word_char(c));
    let run = word_at(after_id.strip_prefix(" --run ")?);
    (!run.is_empty()).then_some(run)
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')
}

fn word_at(text: &str) -> String {
    text.chars().take_while(|c| is_word_char(*c)).collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{COMPACTION_REQUEST, Thread};
    use crate::conversation::Conversation;

    #[test]
    fn the_clients_summary_request_is_a_compaction_even_with_tools_offered() {
        let body = json!({
            "system": "You are Claude Code",
            "tools": [{"name": "Agent"}, {"name": "Bash"}],
            "messages": [
                {"role": "user", "content": "Start the run."},
                {"role": "assistant", "content": "Started."},
                {"role": "user", "content": format!("Your task is to {COMPACTION_REQUEST}, paying attention...")}
            ]
        });
        let conversation = Conversation::new(&body);
        assert_eq!(Thread::judge(&conversation, "marker"), Thread::Compaction);
        let main = json!({"system": "You are Claude Code", "tools": [{"name": "Agent"}],
            "messages": [{"role": "user", "content": "Start the run."}]});
        assert_eq!(
            Thread::judge(&Conversation::new(&main), "marker"),
            Thread::Main
        );
    }
}
