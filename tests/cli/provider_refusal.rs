//! Issue 34, item 3: an agent the model provider refused (`stop_reason: "refusal"` in its own
//! transcript) is not a failed attempt: its item ends quarantined "refused by the model
//! provider", unescalated and out of the circuit, and `status` and the reports count it apart.

use std::io::Write;
use std::path::Path;

use serde_json::{Value, json};

use crate::harness::TestProject;
use crate::pipeline::started;
use crate::scripted_agent::ScriptedAgent;

const SESSION: &str = "s1";

/// A stop of `SESSION` reading `transcript`, with `running` listed in `background_tasks`.
fn stop(project: &TestProject, transcript: &Path, running: &[&str]) -> Value {
    let tasks: Vec<Value> = running
        .iter()
        .map(|item| json!({"id": format!("b-{item}"), "type": "subagent", "status": "running",
            "description": format!("triage {item}"), "agent_type": "self-repair:triage-investigator"}))
        .collect();
    let input = json!({"session_id": SESSION, "hook_event_name": "Stop",
        "stop_hook_active": true, "cwd": project.path(), "background_tasks": tasks,
        "transcript_path": transcript});
    let out = project
        .cmd(&["hook", "stop"])
        .stdin(input.to_string())
        .run()
        .success();
    serde_json::from_str(&out.stdout).unwrap_or(Value::Null)
}

/// The main session's background `Agent` call for `item` and the client's `async_launched`
/// result naming its agent `agent` (2.1.330's rows, trimmed).
fn background_launch(transcript: &Path, item: &str, agent: &str) {
    let tool_use = format!("toolu_{agent}");
    let input = json!({"subagent_type": "self-repair:triage-investigator", "model": "haiku",
        "description": format!("triage {item}"), "prompt": format!("self-repair item {item} --run r-test")});
    let call = json!({"type": "assistant", "message": {"role": "assistant",
        "content": [{"type": "tool_use", "id": tool_use, "name": "Agent", "input": input}]}});
    let result = json!({"type": "user", "message": {"role": "user", "content": [
        {"tool_use_id": tool_use, "type": "tool_result",
         "content": [{"type": "text", "text": "Async agent launched successfully."}]}]},
        "toolUseResult": {"isAsync": true, "status": "async_launched", "agentId": agent,
            "description": input["description"], "prompt": input["prompt"]}});
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(transcript)
        .unwrap();
    writeln!(file, "{call}\n{result}").unwrap();
}

#[test]
fn an_agent_the_provider_refused_is_quarantined_unescalated_and_named_by_status_and_the_report() {
    let project = started(2);
    let agent = ScriptedAgent {
        project: &project,
        run: "r-test".into(),
    };
    let transcript = project.path().join(".home/session.jsonl");
    project.write(".home/session.jsonl", "");
    let first = stop(&project, &transcript, &[]);
    let reason = self_repair_engine::continuation(&first).unwrap_or_default();
    assert!(
        reason.contains("t-00001") && reason.contains("t-00002"),
        "{first}"
    );
    background_launch(&transcript, "t-00001", "arefused01");
    background_launch(&transcript, "t-00002", "aanswered02");
    stop(&project, &transcript, &["t-00001", "t-00002"]);
    // t-00001's agent read its item, then the provider refused it; t-00002's answered.
    agent.show("t-00001");
    agent.work("t-00002").success();
    let refused = include_str!("../../crates/transcript/tests/fixtures/agent-refused.jsonl");
    project.write(".home/session/subagents/agent-arefused01.jsonl", refused);
    stop(&project, &transcript, &[]);
    let state = crate::harness::run_state(&project, "r-test");
    let item = &state.items[0];
    assert_eq!(item.status, self_repair_engine::ItemStatus::Quarantined);
    assert_eq!(
        (item.attempts, item.tier),
        (0, self_repair_engine::Tier::Haiku),
        "{:?}",
        item.errors()
    );
    assert!(item.refused_by_provider(), "{:?}", item.errors());
    assert_eq!(state.provider_refusals, 1);
    assert!(state.streak.items.is_empty());
    let status = project.cmd(&["status"]).run().success().stdout;
    assert!(
        status.contains("refused by the model provider: 1 agent(s)"),
        "{status}"
    );
    let status_json = project.cmd(&["status", "--json"]).run().success().json();
    assert_eq!(status_json["provider_refusals"], 1);
    project.cmd(&["finalize", "--partial"]).run().success();
    let report = project.read(".self-repair/runs/r-test/report.md");
    assert!(
        report.contains("## Refused by the model provider"),
        "{report}"
    );
    assert!(report.contains("- `t-00001` "), "{report}");
    assert!(
        !report.contains("(refused by the model provider): refused by the model provider"),
        "said once: {report}"
    );
    let json: Value =
        serde_json::from_str(&project.read(".self-repair/runs/r-test/report.json")).unwrap();
    assert_eq!(json["provider_refusals"], 1);
    assert_eq!(json["findings"][0]["ended"], "refused");
    assert!(json["findings"][1].get("ended").is_none());
}
