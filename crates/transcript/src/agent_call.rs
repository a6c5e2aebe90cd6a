//! The main session's `Agent` tool calls, read incrementally from its transcript: each stop
//! reads only the bytes written since the previous one, so the cost stays flat however long
//! the session grows.

use std::path::Path;

use serde_json::Value;

use crate::TranscriptError;
use crate::new_lines::{contains, new_lines};

/// One `Agent` tool call, as the main session sent it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentCall {
    pub description: String,
    pub prompt: String,
    /// `None` when the call had no `model`: the agent definition's default runs.
    pub model: Option<String>,
}

/// The `Agent` calls in `path` after byte `offset`, and the offset to resume from (the end of
/// the last complete line). A transcript shorter than `offset` was replaced: it is read from
/// the start. Rows are filtered by a substring before any JSON is parsed.
pub fn read_agent_calls(
    path: &Path,
    offset: u64,
) -> Result<(Vec<AgentCall>, u64), TranscriptError> {
    let read = new_lines(path, offset)?;
    let mut calls = Vec::new();
    let mut seen_ids: Vec<String> = Vec::new();
    for line in read.lines() {
        if !contains(line, b"\"Agent\"") {
            continue;
        }
        let Ok(row) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        let Some(blocks) = row["message"]["content"].as_array() else {
            continue;
        };
        for block in blocks {
            if block["type"] != "tool_use" || block["name"] != "Agent" {
                continue;
            }
            // One response may be written as several rows: count each call once.
            let id = block["id"].as_str().unwrap_or_default().to_owned();
            if !id.is_empty() {
                if seen_ids.contains(&id) {
                    continue;
                }
                seen_ids.push(id);
            }
            let input = &block["input"];
            calls.push(AgentCall {
                description: input["description"].as_str().unwrap_or_default().to_owned(),
                prompt: input["prompt"].as_str().unwrap_or_default().to_owned(),
                model: input["model"].as_str().map(str::to_owned),
            });
        }
    }
    Ok((calls, read.end))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: &str, input: &str) -> String {
        format!(
            "{{\"type\":\"assistant\",\"message\":{{\"role\":\"assistant\",\"content\":[{{\"type\":\"tool_use\",\"id\":\"{id}\",\"name\":\"Agent\",\"input\":{input}}}]}}}}\n"
        )
    }

    #[test]
    fn agent_calls_are_read_once_each_from_where_the_last_read_ended() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let first = row(
            "toolu_1",
            r#"{"description":"triage t-00001","prompt":"self-repair item t-00001 --run r","subagent_type":"self-repair:triage-investigator","model":"sonnet"}"#,
        );
        let dropped = row(
            "toolu_2",
            r#"{"description":"triage t-00002","prompt":"self-repair item t-00002 --run r","subagent_type":"self-repair:triage-investigator"}"#,
        );
        let other = "{\"type\":\"user\",\"message\":{\"content\":\"hello\"}}\n";
        std::fs::write(&path, format!("{other}{first}{first}{dropped}{{\"partial")).unwrap();
        let (calls, offset) = read_agent_calls(&path, 0).unwrap();
        assert_eq!(calls.len(), 2, "{calls:?}");
        assert_eq!(calls[0].model.as_deref(), Some("sonnet"));
        assert_eq!(calls[1].model, None);
        assert_eq!(calls[1].description, "triage t-00002");
        let (again, same) = read_agent_calls(&path, offset).unwrap();
        assert!(again.is_empty());
        assert_eq!(same, offset, "the partial row is left for later");
    }
}
