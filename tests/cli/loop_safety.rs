//! Loop safety: bounded blocks without progress, foreign sessions untouched.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::pipeline::started;

#[test]
fn a_thousand_stops_without_submissions_block_at_most_k_times_then_stall() {
    let project = started(5);
    let mut blocks = 0;
    let mut messages = Vec::new();
    for _ in 0..1000 {
        let out = project.stop("s1", &[]);
        if out.stdout.contains(r#"{\"self_repair\":"#) {
            assert!(messages.is_empty(), "dispatched again after the stall");
            blocks += 1;
        } else if !out.stdout.is_empty() {
            // The stall is said once, as a block asking the session to end its turn with the
            // line (a systemMessage alone never reaches `claude -p` output).
            messages.push(out.stdout);
        }
    }
    assert_eq!(blocks, 3, "K = 3 blocks without progress");
    assert_eq!(
        messages.len(),
        1,
        "the stall is announced once: {messages:?}"
    );
    assert!(messages[0].contains("stalled") && messages[0].contains("self-repair resume"));
    // The stall is relayed through one block: the line, then the relay instruction.
    let relayed: Value = serde_json::from_str(&messages[0]).unwrap();
    let _guard = crate::harness::filters(&project).bind_to_scope();
    insta::assert_snapshot!(
        "stall_relayed_reason",
        self_repair_engine::continuation(&relayed).unwrap()
    );
    let state: Value =
        serde_json::from_str(&project.read(".self-repair/runs/r-test/state.json")).unwrap();
    assert_eq!(state["status"], "stalled");
    // `resume` gives it another K blocks.
    project.cmd(&["resume"]).run().success();
    assert!(project.stop("s1", &[]).stdout.contains("additionalContext"));
}

fn snapshot_dir(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let meta = std::fs::metadata(&path).unwrap();
                let mut bytes = std::fs::read(&path).unwrap();
                bytes.extend(format!("{:?}", meta.modified().unwrap()).into_bytes());
                files.insert(path.display().to_string(), bytes);
            }
        }
    }
    files
}

#[test]
fn a_foreign_session_is_never_blocked_and_writes_nothing() {
    let project = started(5);
    assert!(project.stop("s1", &[]).stdout.contains("additionalContext"));
    let before = snapshot_dir(&project.path().join(".self-repair"));
    for _ in 0..5 {
        let out = project.stop("someone-else", &[]);
        assert_eq!(out.stdout, "");
    }
    let after = snapshot_dir(&project.path().join(".self-repair"));
    assert_eq!(before, after, "the state directory changed");
}

#[test]
fn stop_hook_active_true_with_pending_work_still_blocks() {
    let project = started(2);
    let input = serde_json::json!({"session_id": "s1", "hook_event_name": "Stop", "stop_hook_active": true,
        "cwd": project.path(), "background_tasks": []});
    let out = project
        .cmd(&["hook", "stop"])
        .stdin(input.to_string())
        .run()
        .success();
    assert!(
        out.stdout.contains("\"additionalContext\""),
        "{}",
        out.stdout
    );
}

#[test]
fn a_paused_run_is_never_blocked_and_a_cancel_is_not_undone_by_the_hook() {
    let project = started(3);
    project.cmd(&["pause"]).run().success();
    assert_eq!(project.stop("s1", &[]).stdout, "");
    project.cmd(&["resume"]).run().success();
    assert!(project.stop("s1", &[]).stdout.contains("additionalContext"));
    project.cmd(&["cancel"]).run().success();
    for _ in 0..3 {
        assert_eq!(project.stop("s1", &[]).stdout, "");
    }
    let state: Value =
        serde_json::from_str(&project.read(".self-repair/runs/r-test/state.json")).unwrap();
    assert_eq!(state["status"], "cancelled");
}

#[test]
fn a_sub_agents_stop_failure_does_not_pause_the_run() {
    let project = started(3);
    assert!(project.stop("s1", &[]).stdout.contains("additionalContext"));
    let failure = serde_json::json!({"session_id": "s1", "hook_event_name": "StopFailure", "cwd": project.path(),
        "error": "server_error", "agent_id": "a1b2", "agent_type": "self-repair:triage-investigator"});
    project
        .cmd(&["hook", "stop-failure"])
        .stdin(failure.to_string())
        .run()
        .success();
    let state: Value =
        serde_json::from_str(&project.read(".self-repair/runs/r-test/state.json")).unwrap();
    assert_eq!(state["status"], "active");
}

#[test]
fn stop_failure_pauses_and_the_next_normal_stop_resumes() {
    let project = started(3);
    assert!(project.stop("s1", &[]).stdout.contains("additionalContext"));
    let failure = serde_json::json!({"session_id": "s1", "hook_event_name": "StopFailure", "cwd": project.path(),
        "error": "rate_limit", "error_details": "429 Too Many Requests"});
    let out = project
        .cmd(&["hook", "stop-failure"])
        .stdin(failure.to_string())
        .run()
        .success();
    assert_eq!(out.stdout, "");
    let state: Value =
        serde_json::from_str(&project.read(".self-repair/runs/r-test/state.json")).unwrap();
    assert_eq!(state["status"], "paused");
    assert_eq!(state["pause"]["error"], "rate_limit: 429 Too Many Requests");
    assert!(project.stop("s1", &[]).stdout.contains("additionalContext"));
}

/// The hook rewrote its transcript cursor (a rename) on every stop, even when the session's
/// transcript had not grown: a steady stop must write nothing (design note 2).
#[test]
fn a_steady_stop_whose_transcript_did_not_grow_writes_nothing() {
    let project = started(3);
    let transcript = project.path().join("session.jsonl");
    std::fs::write(
        &transcript,
        "{\"type\":\"user\",\"message\":{\"content\":\"hi\"}}\n",
    )
    .unwrap();
    let stop = |running: &[&str]| {
        let tasks: Vec<Value> = running
            .iter()
            .map(|id| {
                serde_json::json!({"id": format!("a-{id}"), "type": "subagent",
                "status": "running", "description": format!("triage {id}")})
            })
            .collect();
        let input = serde_json::json!({"session_id": "s1", "hook_event_name": "Stop",
            "stop_hook_active": true, "cwd": project.path(), "transcript_path": transcript,
            "background_tasks": tasks});
        project
            .cmd(&["hook", "stop"])
            .stdin(input.to_string())
            .run()
            .success()
    };
    assert!(stop(&[]).stdout.contains("additionalContext"));
    let running = ["t-00001", "t-00002", "t-00003"];
    stop(&running);
    let run = project.path().join(".self-repair/runs/r-test");
    let before = snapshot_dir(&run);
    assert_eq!(stop(&running).stdout, "");
    assert_eq!(
        snapshot_dir(&run),
        before,
        "a steady stop changed the run folder"
    );
}

/// A finalize that fails says so on every stop as a `systemMessage` and never blocks: only the
/// engine's one-time messages (complete, paused, stalled) are relayed through a block.
#[test]
fn a_failing_finalize_is_told_on_every_stop_and_never_blocks() {
    let project = crate::pipeline::started(3);
    // backlog/ cannot be a folder: the tasks cannot be written.
    project.write("backlog", "not a folder\n");
    let agent = crate::scripted_agent::ScriptedAgent {
        project: &project,
        run: "r-test".into(),
    };
    let driven = crate::pipeline::drive(&project, &agent, "s1", usize::MAX);
    let message = driven.final_message.unwrap_or_default();
    assert!(message.contains("finalize failed"), "{message}");
    for _ in 0..3 {
        let out = project.stop("s1", &[]).stdout;
        assert!(out.contains("finalize failed"), "{out}");
        assert!(
            !out.contains("\"decision\""),
            "a failure is never relayed: {out}"
        );
    }
}

/// The stalled run's stops within the turn are answered from `state.head.json` (nothing
/// decoded, nothing written); a submission in the journal is news the head cannot see, so the
/// next stop loads the state, folds it and resumes the run.
#[test]
fn a_stalled_run_whose_journal_gets_a_submission_is_not_answered_from_its_head() {
    let project = started(12);
    let run = ".self-repair/runs/r-test";
    for _ in 0..10 {
        project.stop("s1", &[]);
        if crate::harness::run_state(&project, "r-test").status
            == self_repair_engine::RunStatus::Stalled
        {
            break;
        }
    }
    let head: Value =
        serde_json::from_str(&project.read(&format!("{run}/state.head.json"))).unwrap();
    assert_eq!(head["head"]["status"], "stalled", "{head}");
    // Quiet stops: allowed silently, the state and its head untouched.
    let state = project.read(&format!("{run}/state.json"));
    let before = snapshot_dir(&project.path().join(run));
    for _ in 0..3 {
        assert_eq!(project.stop("s1", &[]).stdout, "");
    }
    assert_eq!(
        snapshot_dir(&project.path().join(run)),
        before,
        "a quiet stop wrote"
    );
    // An agent of the stalled run submits: progress since the stall.
    project.write(
        ".v",
        r#"{"confidence": 0.9, "verdict":"real","root_cause":"unused import","reason":"nothing in the module uses the import"}"#,
    );
    project
        .cmd(&["submit", "t-00001", "--run", "r-test", "--file", ".v"])
        .run()
        .success();
    assert_eq!(
        project.read(&format!("{run}/state.json")),
        state,
        "submit wrote the state"
    );
    let out = project.stop("s1", &[]);
    assert!(
        out.stdout.contains(r#"{\"self_repair\":"#),
        "the stop after a submission did not resume the stalled run: {}",
        out.stdout
    );
    let resumed = crate::harness::run_state(&project, "r-test");
    assert_eq!(resumed.status, self_repair_engine::RunStatus::Active);
    let head: Value =
        serde_json::from_str(&project.read(&format!("{run}/state.head.json"))).unwrap();
    assert_eq!(
        head["head"]["status"], "active",
        "the head follows the saved state: {head}"
    );
}

/// A `StopFailure` the run must not act on writes nothing: one from another session than the
/// run's (the run stays active for its own), or the run's own once it is no longer active
/// (paused by hand, cancelled: the failure pauses nothing and is not journaled).
#[test]
fn a_stop_failure_of_another_session_or_of_a_run_not_active_writes_nothing() {
    for (session, before) in [
        ("someone-else", None),
        ("s1", Some("pause")),
        ("s1", Some("cancel")),
    ] {
        let project = started(3);
        assert!(project.stop("s1", &[]).stdout.contains("additionalContext"));
        if let Some(command) = before {
            project.cmd(&[command]).run().success();
        }
        let files = snapshot_dir(&project.path().join(".self-repair"));
        let failure = serde_json::json!({"session_id": session, "hook_event_name": "StopFailure",
            "cwd": project.path(), "error": "rate_limit", "error_details": "429 Too Many Requests"});
        let out = project
            .cmd(&["hook", "stop-failure"])
            .stdin(failure.to_string())
            .run()
            .success();
        assert_eq!(out.stdout, "", "{session} after {before:?}");
        assert_eq!(
            files,
            snapshot_dir(&project.path().join(".self-repair")),
            "{session} after {before:?}: the state directory changed"
        );
    }
}
