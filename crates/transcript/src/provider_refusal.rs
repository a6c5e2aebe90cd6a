//! Whether the model provider refused a sub-agent: its transcript
//! (`<session>/subagents/agent-<id>.jsonl`, beside the main one) ends with a response whose
//! `stop_reason` is `"refusal"` (the provider's safety classifier stopped it), or with the
//! client's own Usage Policy message that stands for one. Only the transcript's tail is read:
//! the refusal is its last response.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::TranscriptError;
use crate::new_lines::contains;

/// How much of an agent transcript's end is read: its last responses, not its history.
const TAIL_BYTES: u64 = 64 * 1024;

/// What older clients wrote in place of a refused answer ("API Error: Claude Code is unable to
/// respond to this request, which appears to violate our Usage Policy (...)").
pub(crate) const POLICY_WORDS: &str = "violate our Usage Policy";

/// What 2.1.330 hands the main session as a foreground agent's result when the provider's
/// safeguards stopped it (measured: "Agent terminated early due to an API error: API Error:
/// Opus 4.8's safeguards flagged this message. ... Safeguards stopped this agent. ...").
pub(crate) const SAFEGUARDS_WORDS: &str = "Safeguards stopped this agent";

/// The transcript of sub-agent `agent_id` (the `agentId` of its launch) of the session whose
/// transcript is `main`.
pub fn agent_transcript(main: &Path, agent_id: &str) -> PathBuf {
    main.with_extension("")
        .join("subagents")
        .join(format!("agent-{agent_id}.jsonl"))
}

/// Whether the last response in the agent transcript at `path` was refused by the model
/// provider. A refusal the client recovered from (a `model_refusal_fallback` retry on another
/// model whose response went on) is not one: the last response decides.
///
/// # Errors
/// The transcript could not be read (missing: the agent wrote nothing yet).
pub fn refused_by_provider(path: &Path) -> Result<bool, TranscriptError> {
    let tail = read_tail(path)?;
    let mut refused = false;
    for line in tail.split(|&b| b == b'\n') {
        let relevant =
            contains(line, b"\"stop_reason\"") || contains(line, POLICY_WORDS.as_bytes());
        if !relevant || !contains(line, b"\"assistant\"") {
            continue;
        }
        let Ok(row) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        if let Some(ended) = response_refused(&row) {
            refused = ended;
        }
    }
    Ok(refused)
}

/// `Some(true)` for a refused response or the client's refusal message, `Some(false)` for any
/// other finished response, `None` for rows that say nothing about it (a response still
/// streaming, the client's other synthetic messages).
fn response_refused(row: &Value) -> Option<bool> {
    if row["type"] != "assistant" {
        return None;
    }
    let message = &row["message"];
    if message["model"] == "<synthetic>" {
        // 2.1.330, once its own retries are spent: a `<synthetic>` message with
        // `stop_reason: "refusal"` ("API Error: Opus 4.8's safeguards flagged this message ...").
        if message["stop_reason"] == "refusal" {
            return Some(true);
        }
        let says_policy = message["content"].as_array().is_some_and(|blocks| {
            blocks
                .iter()
                .filter_map(|b| b["text"].as_str())
                .any(|t| t.contains(POLICY_WORDS))
        });
        return says_policy.then_some(true);
    }
    let reason = message["stop_reason"].as_str()?;
    Some(reason == "refusal")
}

/// The complete lines of the last [`TAIL_BYTES`] of `path`.
fn read_tail(path: &Path) -> Result<Vec<u8>, TranscriptError> {
    let error = |source| TranscriptError::Read {
        path: path.to_path_buf(),
        source,
    };
    let mut file = std::fs::File::open(path).map_err(error)?;
    let len = file.metadata().map_err(error)?.len();
    let start = len.saturating_sub(TAIL_BYTES);
    file.seek(SeekFrom::Start(start)).map_err(error)?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).map_err(error)?;
    if start > 0 {
        // The first line was cut: drop it.
        let first = bytes
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |at| at + 1);
        bytes.drain(..first);
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name)
    }

    #[test]
    fn a_response_that_ended_with_stop_reason_refusal_is_a_refusal_by_the_provider() {
        assert!(refused_by_provider(&fixture("agent-refused.jsonl")).unwrap());
    }

    /// Recorded: the real 2.1.330 client against the scripted API refusing the agent of
    /// `t-00001` at every request (tests/fixtures/README.md).
    #[test]
    fn the_real_clients_transcript_of_a_refused_agent_is_a_refusal() {
        assert!(refused_by_provider(&fixture("agent-refused-2.1.330.jsonl")).unwrap());
    }

    #[test]
    fn the_clients_usage_policy_message_alone_is_a_refusal() {
        assert!(refused_by_provider(&fixture("agent-policy-message-only.jsonl")).unwrap());
    }

    #[test]
    fn a_refusal_the_client_recovered_from_on_another_model_is_not_one() {
        assert!(!refused_by_provider(&fixture("agent-refused-then-answered.jsonl")).unwrap());
    }

    #[test]
    fn an_agent_that_answered_is_not_refused_and_a_missing_transcript_is_an_error() {
        let answered = Path::new(env!("CARGO_MANIFEST_DIR")).join(
            "../../tests/fixtures/claude-code/transcript/projects/-home-dev-acme/\
             0b7c2f4e-3d1a-4c8e-9f10-2a6b5c7d8e9f/subagents/agent-a4d2c8f1e0b3a297.jsonl",
        );
        assert!(!refused_by_provider(&answered).unwrap());
        assert!(refused_by_provider(&fixture("agent-none.jsonl")).is_err());
    }

    #[test]
    fn only_the_tail_of_a_long_transcript_is_read_and_a_cut_first_line_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("agent-x.jsonl");
        let filler = format!(
            "{{\"type\":\"user\",\"message\":{{\"content\":\"{}\"}}}}\n",
            "a".repeat(1000)
        );
        let refused = std::fs::read_to_string(fixture("agent-refused.jsonl")).unwrap();
        std::fs::write(&path, format!("{}{refused}", filler.repeat(100))).unwrap();
        assert!(refused_by_provider(&path).unwrap());
    }

    #[test]
    fn an_agent_transcript_lies_in_the_sessions_subagents_folder() {
        assert_eq!(
            agent_transcript(Path::new("/p/s-1.jsonl"), "a9f3"),
            Path::new("/p/s-1/subagents/agent-a9f3.jsonl")
        );
    }
}
