//! The main session's `Agent` tool calls and the completion notifications of its background
//! agents, read incrementally from its transcript: each stop reads only the bytes written since
//! the previous one, so the cost stays flat however long the session grows.

use std::path::Path;

use serde_json::Value;

use crate::TranscriptError;
use crate::new_lines::{contains, new_lines};

/// One `Agent` tool call, as the main session sent it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentCall {
    /// The `tool_use` id: a background agent's completion notification names it.
    pub id: String,
    pub description: String,
    pub prompt: String,
    /// `None` when the call had no `model`: the agent definition's default runs.
    pub model: Option<String>,
    /// `None` when the call named no `subagent_type`: the client runs a fork of the main
    /// session (its whole context, every tool), not one of the plugin's agents.
    pub subagent_type: Option<String>,
    /// The client's `toolDenialKind` when it refused the call before its agent ran
    /// (`user-rejected`, `permission-rule`, `automode-blocked`, `interrupted`, ...).
    pub refused: Option<String>,
    /// True once a tool result naming the call was read (its agent's answer, a background
    /// launch, a refusal).
    pub answered: bool,
    /// The model provider refused the (foreground) agent: its error result says the provider's
    /// safeguards stopped it (or, on older clients, the Usage Policy refusal).
    pub provider_refused: bool,
}

/// An `Agent` call the client ran in the background (its tool result says `async_launched`):
/// its end arrives later as a `<task-notification>` naming `tool_use`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AsyncLaunch {
    pub tool_use: String,
    /// The client's id for the agent (`agentId`): its transcript is
    /// `<session>/subagents/agent-<id>.jsonl`.
    pub agent_id: Option<String>,
    pub description: String,
    pub prompt: String,
}

/// What one read of the main transcript found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentActivity {
    pub calls: Vec<AgentCall>,
    /// The calls the client launched in the background (whatever `run_in_background` said: it
    /// is the client's default).
    pub async_launches: Vec<AsyncLaunch>,
    /// The `tool_use` ids named by the `<task-notification>` rows read: those background
    /// agents' ends have reached the main session.
    pub notified: Vec<String>,
    /// The client version the last row read that carries one says (`"version":"2.1.330"`).
    pub client: Option<String>,
    /// The offset to resume from.
    pub end: u64,
}

/// The `Agent` calls, background launches and task notifications in `path` after byte `offset`, and the offset to
/// resume from (the end of the last complete line). A transcript shorter than `offset` was
/// replaced: it is read from the start. Rows are filtered by a substring before any JSON is
/// parsed.
pub fn read_agent_activity(path: &Path, offset: u64) -> Result<AgentActivity, TranscriptError> {
    let mut activity = AgentActivity {
        end: offset,
        ..AgentActivity::default()
    };
    read_more(path, &mut activity)?;
    Ok(activity)
}

/// Reads on from `activity.end`, adding what the new rows show: new calls, the results of
/// calls already read (a refusal the client wrote a moment after the stop began), background
/// launches and notifications.
pub fn read_more(path: &Path, activity: &mut AgentActivity) -> Result<(), TranscriptError> {
    let read = new_lines(path, activity.end)?;
    activity.end = read.end;
    if let Some(client) = last_version(&read.bytes) {
        activity.client = Some(client);
    }
    for line in read.lines() {
        let call_row = contains(line, b"\"Agent\"");
        let notice_row = contains(line, NOTIFICATION_TAG.as_bytes());
        let async_row = contains(line, b"\"async_launched\"");
        let denial_row = contains(line, DENIAL_KEY.as_bytes());
        if contains(line, b"\"tool_result\"") {
            for call in activity.calls.iter_mut().filter(|c| !c.answered) {
                call.answered = !call.id.is_empty() && contains(line, call.id.as_bytes());
            }
            let safeguards = contains(line, crate::provider_refusal::SAFEGUARDS_WORDS.as_bytes())
                || contains(line, crate::provider_refusal::POLICY_WORDS.as_bytes());
            if safeguards && let Ok(row) = serde_json::from_slice::<Value>(line) {
                mark_provider_refused(&row, &mut activity.calls);
            }
        }
        if !call_row && !notice_row && !async_row && !denial_row {
            continue;
        }
        let Ok(row) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        if notice_row {
            // Delivered: a turn of its own (a user row), or attached to the model's next
            // request mid-turn (an attachment row). A `queue-operation` row only queued it.
            let delivered = match row["type"].as_str() {
                Some("user") => &row["message"]["content"],
                Some("attachment") => &row["attachment"]["prompt"],
                _ => &Value::Null,
            };
            activity.notified.extend(notified_ids(delivered));
        }
        if async_row && let Some(launch) = async_launch(&row) {
            activity.async_launches.push(launch);
        }
        if call_row {
            push_calls(&row, &mut activity.calls);
        }
        if denial_row
            && let Some((tool_use, kind)) = denial(&row)
            && let Some(call) = activity.calls.iter_mut().find(|c| c.id == tool_use)
        {
            call.refused = Some(kind);
            call.answered = true;
        }
    }
    Ok(())
}

/// The field a tool result row carries when the client refused the call before it ran
/// (2.1.330: `"toolDenialKind": "user-rejected"` beside `"toolUseResult": "User rejected tool
/// use"`, with an `is_error` `tool_result` block naming the call).
const DENIAL_KEY: &str = "\"toolDenialKind\"";

/// The refused call's `tool_use` id and the denial's kind, from a user row.
fn denial(row: &Value) -> Option<(String, String)> {
    let kind = row["toolDenialKind"].as_str()?;
    if row["type"] != "user" {
        return None;
    }
    let tool_use = row["message"]["content"]
        .as_array()?
        .iter()
        .find(|block| block["type"] == "tool_result")?["tool_use_id"]
        .as_str()?;
    Some((tool_use.to_owned(), kind.to_owned()))
}

/// Marks the calls whose error result in this user row says the provider's safeguards stopped
/// their agent.
fn mark_provider_refused(row: &Value, calls: &mut [AgentCall]) {
    if row["type"] != "user" {
        return;
    }
    let Some(blocks) = row["message"]["content"].as_array() else {
        return;
    };
    for block in blocks {
        if block["type"] != "tool_result" || block["is_error"] != true {
            continue;
        }
        let text = match &block["content"] {
            Value::String(text) => text.clone(),
            Value::Array(parts) => parts
                .iter()
                .filter_map(|p| p["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n"),
            _ => continue,
        };
        let refused = text.contains(crate::provider_refusal::SAFEGUARDS_WORDS)
            || text.contains(crate::provider_refusal::POLICY_WORDS);
        if let Some(call) = calls
            .iter_mut()
            .find(|c| refused && block["tool_use_id"] == c.id.as_str())
        {
            call.provider_refused = true;
        }
    }
}

/// The key every row the client writes carries its version under.
const VERSION_KEY: &[u8] = b"\"version\":\"";

/// The client version the last line of `bytes` that names one says: read from the bytes, no
/// JSON parse (a row's own `version` is the one outside any nested object, and the client writes
/// it as a plain `2.1.330`).
fn last_version(bytes: &[u8]) -> Option<String> {
    let at = bytes
        .windows(VERSION_KEY.len())
        .rposition(|w| w == VERSION_KEY)?
        + VERSION_KEY.len();
    let rest = &bytes[at..];
    let end = rest.iter().position(|&b| b == b'"')?;
    let version = std::str::from_utf8(&rest[..end]).ok()?;
    let plain = !version.is_empty()
        && version.len() <= 32
        && version
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-');
    plain.then(|| version.to_owned())
}

/// The client version the end of the transcript at `path` shows (its last 64 KiB): what a
/// first read from the end, which reads no row, learns of the session's client.
pub fn client_version(path: &Path) -> Option<String> {
    use std::io::{Read, Seek, SeekFrom};
    const TAIL: u64 = 64 * 1024;
    let mut file = std::fs::File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    file.seek(SeekFrom::Start(len.saturating_sub(TAIL))).ok()?;
    let mut bytes = Vec::new();
    file.take(TAIL).read_to_end(&mut bytes).ok()?;
    last_version(&bytes)
}

/// How the client wraps a background agent's completion in the main session.
const NOTIFICATION_TAG: &str = "<task-notification>";

/// The `Agent` tool calls of one assistant row, each once (one response may be written as
/// several rows).
fn push_calls(row: &Value, calls: &mut Vec<AgentCall>) {
    let Some(blocks) = row["message"]["content"].as_array() else {
        return;
    };
    for block in blocks {
        if block["type"] != "tool_use" || block["name"] != "Agent" {
            continue;
        }
        let id = block["id"].as_str().unwrap_or_default().to_owned();
        if !id.is_empty() && calls.iter().any(|c| c.id == id) {
            continue;
        }
        let input = &block["input"];
        calls.push(AgentCall {
            id,
            description: input["description"].as_str().unwrap_or_default().to_owned(),
            prompt: input["prompt"].as_str().unwrap_or_default().to_owned(),
            model: input["model"].as_str().map(str::to_owned),
            subagent_type: input["subagent_type"]
                .as_str()
                .filter(|t| !t.is_empty())
                .map(str::to_owned),
            refused: None,
            answered: false,
            provider_refused: false,
        });
    }
}

/// The background launch a user row's `toolUseResult` records (2.1.330: `status:
/// "async_launched"` beside the `tool_result` block that names the call).
fn async_launch(row: &Value) -> Option<AsyncLaunch> {
    let result = &row["toolUseResult"];
    if row["type"] != "user" || result["status"] != "async_launched" {
        return None;
    }
    let tool_use = row["message"]["content"]
        .as_array()?
        .iter()
        .find(|block| block["type"] == "tool_result")?["tool_use_id"]
        .as_str()?
        .to_owned();
    Some(AsyncLaunch {
        tool_use,
        agent_id: result["agentId"].as_str().map(str::to_owned),
        description: result["description"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        prompt: result["prompt"].as_str().unwrap_or_default().to_owned(),
    })
}

/// The `<tool-use-id>` of every `<task-notification>` in a user message's content (a string,
/// or text blocks).
fn notified_ids(content: &Value) -> Vec<String> {
    let texts: Vec<&str> = match content {
        Value::String(text) => vec![text.as_str()],
        Value::Array(blocks) => blocks.iter().filter_map(|b| b["text"].as_str()).collect(),
        _ => Vec::new(),
    };
    let mut ids = Vec::new();
    for text in texts {
        for notice in text.split(NOTIFICATION_TAG).skip(1) {
            let notice = notice
                .split("</task-notification>")
                .next()
                .unwrap_or_default();
            if let Some(id) = notice
                .split_once("<tool-use-id>")
                .and_then(|(_, rest)| rest.split_once("</tool-use-id>"))
                .map(|(id, _)| id.trim())
                .filter(|id| !id.is_empty())
            {
                ids.push(id.to_owned());
            }
        }
    }
    ids
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
    fn the_client_version_is_the_last_rows_and_a_call_without_subagent_type_is_a_fork() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let fork = row(
            "toolu_1",
            r#"{"description":"triage t-00001","prompt":"self-repair item t-00001 --run r","model":"sonnet"}"#,
        );
        let ours = row(
            "toolu_2",
            r#"{"description":"triage t-00002","prompt":"self-repair item t-00002 --run r","subagent_type":"self-repair:triage-investigator","model":"sonnet"}"#,
        );
        let old = "{\"type\":\"user\",\"version\":\"2.1.120\"}\n";
        let new = "{\"type\":\"user\",\"version\":\"2.1.330\",\"message\":{\"content\":\"x\"}}\n";
        std::fs::write(&path, format!("{old}{fork}{new}{ours}")).unwrap();
        let read = read_agent_activity(&path, 0).unwrap();
        assert_eq!(read.client.as_deref(), Some("2.1.330"));
        assert_eq!(read.calls[0].subagent_type, None);
        assert_eq!(
            read.calls[1].subagent_type.as_deref(),
            Some("self-repair:triage-investigator")
        );
        assert_eq!(client_version(&path).as_deref(), Some("2.1.330"));
        let none = dir.path().join("none.jsonl");
        std::fs::write(&none, "{\"type\":\"user\"}\n").unwrap();
        assert_eq!(client_version(&none), None);
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
        let read = read_agent_activity(&path, 0).unwrap();
        let (calls, offset) = (read.calls, read.end);
        assert_eq!(calls.len(), 2, "{calls:?}");
        assert_eq!(calls[0].model.as_deref(), Some("sonnet"));
        assert_eq!(calls[1].model, None);
        assert_eq!(calls[1].description, "triage t-00002");
        let again = read_agent_activity(&path, offset).unwrap();
        assert!(again.calls.is_empty());
        assert_eq!(again.end, offset, "the partial row is left for later");
    }

    /// The rows 2.1.330 wrote when the user answered "No" to the permission prompt for an
    /// `Agent` call (interactive session, `permissions.ask: ["Agent"]`), trimmed of ids and
    /// paths.
    const USER_REJECTED: &str = r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.","is_error":true,"tool_use_id":"toolu_1"}]},"toolUseResult":"User rejected tool use","toolDenialKind":"user-rejected","toolDenialBeforeRun":true,"version":"2.1.330"}"#;

    #[test]
    fn an_agent_call_the_user_refused_at_the_permission_prompt_is_read_as_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let call = row(
            "toolu_1",
            r#"{"description":"triage t-00001","prompt":"self-repair item t-00001 --run r","model":"sonnet"}"#,
        );
        let ran = row(
            "toolu_2",
            r#"{"description":"triage t-00002","prompt":"self-repair item t-00002 --run r","model":"sonnet"}"#,
        );
        let interrupted = r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user for tool use]"}]}}"#;
        std::fs::write(
            &path,
            format!("{call}{ran}{USER_REJECTED}\n{interrupted}\n"),
        )
        .unwrap();
        let calls = read_agent_activity(&path, 0).unwrap().calls;
        assert_eq!(calls[0].refused.as_deref(), Some("user-rejected"));
        assert_eq!(calls[1].refused, None);
    }

    /// Recorded: the real 2.1.330 client's main transcript, a foreground `Agent` call and its
    /// error result after the provider's safeguards stopped the agent (tests/fixtures/README.md).
    #[test]
    fn a_foreground_agent_the_provider_refused_is_read_from_its_error_result() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/main-foreground-refused-2.1.330.jsonl");
        let calls = read_agent_activity(&path, 0).unwrap().calls;
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].description, "triage t-00001");
        assert!(calls[0].answered && calls[0].provider_refused);
        assert_eq!(calls[0].refused, None, "not the user's refusal");
    }

    #[test]
    fn an_agent_that_answered_is_not_refused_by_the_provider() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let call = row(
            "toolu_1",
            r#"{"description":"triage t-00001","prompt":"self-repair item t-00001 --run r"}"#,
        );
        let answer = r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"t-00001: submitted.","tool_use_id":"toolu_1"}]},"toolUseResult":{"status":"completed"}}"#;
        std::fs::write(&path, format!("{call}{answer}\n")).unwrap();
        let calls = read_agent_activity(&path, 0).unwrap().calls;
        assert!(calls[0].answered && !calls[0].provider_refused);
    }

    #[test]
    fn a_refusal_written_after_the_read_is_found_by_reading_on() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let call = row(
            "toolu_1",
            r#"{"description":"triage t-00001","prompt":"self-repair item t-00001 --run r"}"#,
        );
        std::fs::write(&path, &call).unwrap();
        let mut activity = read_agent_activity(&path, 0).unwrap();
        assert!(!activity.calls[0].answered, "no result row yet");
        std::fs::write(&path, format!("{call}{USER_REJECTED}\n")).unwrap();
        read_more(&path, &mut activity).unwrap();
        assert_eq!(activity.calls.len(), 1);
        assert!(activity.calls[0].answered);
        assert_eq!(activity.calls[0].refused.as_deref(), Some("user-rejected"));
    }

    #[test]
    fn a_background_launch_and_its_notification_are_paired_by_tool_use_id() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        // The client's own rows, as 2.1.330 writes them (trimmed): the launch's tool result
        // (no `run_in_background` in the call: background is the client's default), then the
        // notification that starts a later turn.
        let launched = r#"{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_7","type":"tool_result","content":[{"type":"text","text":"Async agent launched successfully."}]}]},"toolUseResult":{"isAsync":true,"status":"async_launched","agentId":"a4dea45dcc48337db","description":"write task tw-g2","prompt":"self-repair item tw-g2 --run r"}}"#;
        let foreground = r#"{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_8","type":"tool_result","content":"t-00001: submitted."}]},"toolUseResult":{"status":"completed"}}"#;
        let notice = r#"{"type":"user","origin":{"kind":"task-notification"},"message":{"role":"user","content":"<task-notification>\n<task-id>a4dea45dcc48337db</task-id>\n<tool-use-id>toolu_7</tool-use-id>\n<status>completed</status>\n<summary>Agent \"write task tw-g2\" finished</summary>\n<result>tw-g2: submitted.</result>\n</task-notification>"}}"#;
        let queued = r#"{"type":"queue-operation","operation":"enqueue","content":"<task-notification>\n<tool-use-id>toolu_7</tool-use-id>\n</task-notification>"}"#;
        std::fs::write(&path, format!("{launched}\n{foreground}\n{queued}\n")).unwrap();
        let first = read_agent_activity(&path, 0).unwrap();
        assert_eq!(
            first.async_launches,
            [AsyncLaunch {
                tool_use: "toolu_7".to_owned(),
                agent_id: Some("a4dea45dcc48337db".to_owned()),
                description: "write task tw-g2".to_owned(),
                prompt: "self-repair item tw-g2 --run r".to_owned(),
            }]
        );
        assert!(first.notified.is_empty(), "queued is not delivered");
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str(notice);
        text.push('\n');
        std::fs::write(&path, text).unwrap();
        let second = read_agent_activity(&path, first.end).unwrap();
        assert!(second.calls.is_empty() && second.async_launches.is_empty());
        assert_eq!(second.notified, ["toolu_7"]);
        // Delivered mid-turn, attached to the next request.
        let attached = r#"{"type":"attachment","attachment":{"type":"queued_command","prompt":"<task-notification>\n<tool-use-id>toolu_9</tool-use-id>\n<status>completed</status>\n</task-notification>","commandMode":"task-notification"}}"#;
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str(attached);
        text.push('\n');
        std::fs::write(&path, text).unwrap();
        let third = read_agent_activity(&path, second.end).unwrap();
        assert_eq!(third.notified, ["toolu_9"]);
    }
}
