//! The main session's `Agent` calls, their results and the client version: cases the crate's
//! mutation run found untested (reference/mutants.md).
#![cfg(test)]

use std::io::Write;
use std::path::Path;

use self_repair_transcript::{client_version, read_agent_activity};
use serde_json::{Value, json};

const SAFEGUARDS: &str = "Safeguards stopped this agent";

fn call_row(blocks: &[Value]) -> String {
    json!({"type": "assistant", "message": {"role": "assistant", "content": blocks}}).to_string()
}

fn agent_call(id: &str) -> Value {
    json!({"type": "tool_use", "id": id, "name": "Agent",
           "input": {"description": format!("triage {id}"), "prompt": "self-repair item x"}})
}

fn results_row(blocks: &[Value]) -> String {
    json!({"type": "user", "message": {"role": "user", "content": blocks}}).to_string()
}

fn write(path: &Path, rows: &[String]) {
    let mut file = std::fs::File::create(path).unwrap();
    for row in rows {
        writeln!(file, "{row}").unwrap();
    }
}

#[test]
fn a_tool_result_answers_only_the_call_it_names() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    write(
        &path,
        &[
            call_row(&[agent_call("toolu_a"), agent_call("toolu_b")]),
            results_row(&[
                json!({"type": "tool_result", "tool_use_id": "toolu_a", "content": "done"}),
            ]),
        ],
    );
    let calls = read_agent_activity(&path, 0).unwrap().calls;
    let answered: Vec<(&str, bool)> = calls.iter().map(|c| (c.id.as_str(), c.answered)).collect();
    assert_eq!(answered, [("toolu_a", true), ("toolu_b", false)]);
}

#[test]
fn only_an_error_result_that_says_safeguards_stopped_it_is_a_provider_refusal() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let ids = ["toolu_a", "toolu_b", "toolu_c", "toolu_d"];
    let calls: Vec<Value> = ids.iter().map(|id| agent_call(id)).collect();
    write(
        &path,
        &[
            call_row(&calls),
            results_row(&[
                // An error without the words: the agent failed, not refused.
                json!({"type": "tool_result", "tool_use_id": "toolu_a", "is_error": true,
                       "content": "boom"}),
                // The words as text blocks of an error result: refused.
                json!({"type": "tool_result", "tool_use_id": "toolu_b", "is_error": true,
                       "content": [{"type": "text", "text": "API Error"},
                                   {"type": "text", "text": SAFEGUARDS}]}),
                // The words in a result that is not an error: the agent quoted them.
                json!({"type": "tool_result", "tool_use_id": "toolu_c",
                       "content": SAFEGUARDS}),
                // The words in an error that is not a tool result.
                json!({"type": "text", "tool_use_id": "toolu_d", "is_error": true,
                       "text": SAFEGUARDS}),
            ]),
        ],
    );
    let calls = read_agent_activity(&path, 0).unwrap().calls;
    let refused: Vec<(&str, bool)> = calls
        .iter()
        .map(|c| (c.id.as_str(), c.provider_refused))
        .collect();
    assert_eq!(
        refused,
        [
            ("toolu_a", false),
            ("toolu_b", true),
            ("toolu_c", false),
            ("toolu_d", false)
        ]
    );
}

#[test]
fn only_agent_tool_uses_are_agent_calls() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    write(
        &path,
        &[call_row(&[
            json!({"type": "tool_use", "id": "toolu_bash", "name": "Bash",
                   "input": {"command": "ls"}}),
            json!({"type": "text", "id": "toolu_text", "name": "Agent", "text": "Agent"}),
            agent_call("toolu_a"),
        ])],
    );
    let calls = read_agent_activity(&path, 0).unwrap().calls;
    let ids: Vec<&str> = calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["toolu_a"]);
}

#[test]
fn a_background_launch_is_a_user_row_whose_result_says_async_launched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let block = json!({"type": "tool_result", "tool_use_id": "toolu_a",
                       "content": "async_launched? no"});
    let mut completed = json!({"type": "user", "message": {"role": "user", "content": [block]},
                               "toolUseResult": {"status": "completed"}});
    let mut not_user = completed.clone();
    not_user["type"] = json!("assistant");
    not_user["toolUseResult"]["status"] = json!("async_launched");
    let mut launched = completed.clone();
    launched["toolUseResult"]["status"] = json!("async_launched");
    completed["toolUseResult"]["agentId"] = json!("a1");
    write(
        &path,
        &[
            completed.to_string(),
            not_user.to_string(),
            launched.to_string(),
        ],
    );
    let found = read_agent_activity(&path, 0).unwrap().async_launches;
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].tool_use, "toolu_a");
}

#[test]
fn the_client_version_is_plain_or_none() {
    let long = "1".repeat(33);
    let cases = [
        ("2.1.330", Some("2.1.330")),
        ("2.1.0-beta", Some("2.1.0-beta")),
        ("", None),
        (long.as_str(), None),
        ("2.1 x", None),
        ("2.1/x", None),
    ];
    for (version, expected) in cases {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        write(
            &path,
            &[format!(r#"{{"type":"user","version":"{version}"}}"#)],
        );
        assert_eq!(
            read_agent_activity(&path, 0).unwrap().client.as_deref(),
            expected,
            "{version:?}"
        );
        assert_eq!(client_version(&path).as_deref(), expected, "{version:?}");
    }
}

#[test]
fn the_client_version_is_found_in_the_last_64_kib() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let filler = json!({"type": "progress", "data": "x".repeat(200)}).to_string();
    let mut rows = vec![r#"{"type":"user","version":"2.1.330"}"#.to_owned()];
    // About 20 KiB after the row that names the version.
    rows.extend(std::iter::repeat_n(filler, 100));
    write(&path, &rows);
    assert_eq!(client_version(&path).as_deref(), Some("2.1.330"));
    // More than 64 KiB after it: not found from the end.
    let filler = json!({"type": "progress", "data": "x".repeat(1000)}).to_string();
    rows.extend(std::iter::repeat_n(filler, 70));
    write(&path, &rows);
    assert_eq!(client_version(&path), None);
}

#[test]
fn a_notification_in_text_blocks_names_its_call() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let notice = "<task-notification>\n<tool-use-id>toolu_7</tool-use-id>\n</task-notification>";
    write(
        &path,
        &[
            json!({"type": "user", "message": {"role": "user", "content": [
            {"type": "text", "text": "first"},
            {"type": "text", "text": notice}]}})
            .to_string(),
        ],
    );
    assert_eq!(read_agent_activity(&path, 0).unwrap().notified, ["toolu_7"]);
}
