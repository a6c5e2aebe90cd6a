//! Issue 11, item 6: engine defects a real session hits (re-routes, partly launched batches,
//! dropped models, stalled runs).

use serde_json::Value;

use crate::harness::TestProject;
use crate::pipeline::{drive, started};
use crate::scripted_agent::{ScriptedAgent, launched};
use self_repair_app::ExitStatus;

const SESSION: &str = "s1";

fn agent(project: &TestProject) -> ScriptedAgent<'_> {
    ScriptedAgent {
        project,
        run: "r-test".into(),
    }
}

/// The block reason of a stop, or `None` when it allowed.
fn block(project: &TestProject, running: &[&str]) -> Option<(String, Vec<String>)> {
    let out = project.stop(SESSION, running);
    let answer: Value = serde_json::from_str(&out.stdout).ok()?;
    self_repair_engine::continuation(&answer).map(launched)
}

#[test]
fn a_rerouted_item_takes_the_rerouted_agents_verdict_instead_of_refusing_it() {
    let project = started(3);
    let agent = agent(&project);
    let (_, first) = block(&project, &[]).expect("triage dispatch");
    assert_eq!(first, ["t-00001", "t-00002", "t-00003"]);
    agent
        .submit(
            "t-00001",
            r#"{"confidence": 0.9, "verdict":"unsure","root_cause":"needs a security look","reason":"reads user input","reroute":"security"}"#,
        )
        .success();
    agent.work("t-00002").success();
    agent.work("t-00003").success();
    let (_, again) = block(&project, &[]).expect("the re-routed item is dispatched again");
    assert_eq!(again, ["t-00001"]);
    let verdict = agent.work("t-00001").success();
    assert!(
        verdict.stdout.starts_with("recorded t-00001: real"),
        "{}",
        verdict.stdout
    );
    // The first answer is kept; resubmitting it is harmless, a third answer is refused.
    let history = project.read(".self-repair/runs/r-test/items/t-00001.reroute.json");
    assert!(history.contains("\"reroute\": \"security\""), "{history}");
    let late = agent
        .submit(
            "t-00001",
            r#"{"confidence": 0.9, "verdict":"unsure","root_cause":"needs a security look","reason":"reads user input","reroute":"security"}"#,
        )
        .success();
    assert!(
        late.stdout.starts_with("already recorded"),
        "{}",
        late.stdout
    );
    agent
        .submit(
            "t-00001",
            r#"{"confidence": 0.9, "verdict":"intended","root_cause":"kept on purpose","reason":"the second agent changed its mind"}"#,
        )
        .code(ExitStatus::Conflict);

    drive(&project, &agent, SESSION, usize::MAX);
    let state = crate::harness::run_state(&project, "r-test");
    let item = &state.items[0];
    assert_eq!(item.status, self_repair_engine::ItemStatus::Done);
    assert_eq!(
        item.attempts,
        0,
        "no attempt was burnt: {:?}",
        item.errors()
    );
    let report: Value =
        serde_json::from_str(&project.read(".self-repair/runs/r-test/report.json")).unwrap();
    let finding = &report["findings"][0];
    assert_eq!(finding["item"], "t-00001");
    assert_eq!(finding["verdict"], "real");
    assert_eq!(finding["rerouted_from"]["reroute"], "security");
    assert_eq!(report["quarantined"], serde_json::json!([]));
    let markdown = project.read(".self-repair/runs/r-test/report.md");
    assert!(!markdown.contains("ended without submitting"), "{markdown}");
    assert!(
        markdown.contains("re-routed it to `security`"),
        "{markdown}"
    );
}

#[test]
fn foreground_entries_the_session_never_launched_are_not_blamed_escalated_or_circuit_broken() {
    let project = started(10);
    let agent = agent(&project);
    let (_, first) = block(&project, &[]).expect("triage dispatch");
    assert_eq!(first.len(), 8);
    // The session launches three of the eight: two answer, one reads its task and dies.
    agent.work("t-00001").success();
    agent.work("t-00002").success();
    agent.show("t-00003");
    let (_, second) = block(&project, &[]).expect("next dispatch");
    let state = crate::harness::run_state(&project, "r-test");
    let by_id = |id: &str| state.items.iter().find(|i| i.id == id).unwrap().clone();
    assert_eq!(
        by_id("t-00003").attempts,
        1,
        "it ran (showed its task) and failed"
    );
    assert_eq!(by_id("t-00003").tier, self_repair_engine::Tier::Sonnet);
    for id in ["t-00004", "t-00005", "t-00006", "t-00007", "t-00008"] {
        let item = by_id(id);
        assert_eq!(
            item.attempts,
            0,
            "{id} was never launched: {:?}",
            item.errors()
        );
        assert_eq!(item.tier, self_repair_engine::Tier::Haiku, "{id}");
        assert!(second.contains(&id.to_owned()), "{id} dispatched again");
    }
    // Three more rounds of the same habit: only launched entries ever count.
    for _ in 0..3 {
        let Some((_, ids)) = block(&project, &[]) else {
            break;
        };
        for id in ids.iter().take(2) {
            agent.work(id).success();
        }
    }
    let state = crate::harness::run_state(&project, "r-test");
    assert_eq!(
        state.status,
        self_repair_engine::RunStatus::Active,
        "{:?}",
        state.pause
    );
    assert!(
        state
            .items
            .iter()
            .filter(|i| i.id != "t-00003")
            .all(|i| i.attempts == 0),
        "{:?}",
        state
            .items
            .iter()
            .map(|i| (i.id.to_string(), i.attempts))
            .collect::<Vec<_>>()
    );
}

/// A stop that starts a turn (`stop_hook_active: false`): the user sent a prompt.
fn new_turn_stop(project: &TestProject) -> Value {
    let input = serde_json::json!({"session_id": SESSION, "hook_event_name": "Stop",
        "stop_hook_active": false, "cwd": project.path(), "background_tasks": []});
    let out = project
        .cmd(&["hook", "stop"])
        .stdin(input.to_string())
        .run()
        .success();
    serde_json::from_str(&out.stdout).unwrap_or(Value::Null)
}

#[test]
fn a_stalled_run_says_to_run_resume_and_carry_on_in_a_new_turn_resumes_it() {
    let project = started(3);
    let mut message = None;
    for _ in 0..10 {
        let out = project.stop(SESSION, &[]);
        let answer: Value = serde_json::from_str(&out.stdout).unwrap_or(Value::Null);
        // The first block also says this session took the run over; the stall comes later.
        if let Some(m) = answer["systemMessage"]
            .as_str()
            .filter(|m| m.contains("stalled"))
        {
            message = Some(m.to_owned());
            break;
        }
    }
    let message = message.expect("the no-progress guard stalls the run");
    assert!(message.contains("stalled"), "{message}");
    assert!(message.contains("run `self-repair resume`"), "{message}");
    assert!(message.contains("carry on"), "{message}");
    // Within the same turn it stays stalled.
    assert_eq!(project.stop(SESSION, &[]).stdout, "");
    // A resumed session is told exactly what to run.
    let input = serde_json::json!({"session_id": SESSION, "hook_event_name": "SessionStart",
        "source": "resume", "cwd": project.path()});
    let out = project
        .cmd(&["hook", "session-start"])
        .stdin(input.to_string())
        .run()
        .success();
    let context: Value = serde_json::from_str(&out.stdout).unwrap();
    let context = context["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(context.contains("status stalled"), "{context}");
    assert!(
        context.contains("run `self-repair resume --run r-test`, then end your turn"),
        "{context}"
    );
    // The user says "carry on": the first stop of that turn resumes the run and dispatches.
    let answer = new_turn_stop(&project);
    assert!(
        self_repair_engine::continuation(&answer).is_some(),
        "{answer}"
    );
    let state = crate::harness::run_state(&project, "r-test");
    assert_eq!(state.status, self_repair_engine::RunStatus::Active);
}

/// A stop of `SESSION` whose transcript is `transcript` (no agent running).
fn stop_with_transcript(project: &TestProject, transcript: &std::path::Path) -> Value {
    let input = serde_json::json!({"session_id": SESSION, "hook_event_name": "Stop",
        "stop_hook_active": true, "cwd": project.path(), "background_tasks": [],
        "transcript_path": transcript});
    let out = project
        .cmd(&["hook", "stop"])
        .stdin(input.to_string())
        .run()
        .success();
    serde_json::from_str(&out.stdout).unwrap_or(Value::Null)
}

/// The main session's `Agent` call for `item`, as its transcript records it.
fn launch_row(transcript: &std::path::Path, item: &str, model: Option<&str>) {
    use std::io::Write;
    let mut input = serde_json::json!({"subagent_type": "self-repair:triage-investigator",
        "description": format!("triage {item}"), "prompt": format!("self-repair item {item} --run r-test")});
    if let Some(model) = model {
        input["model"] = model.into();
    }
    let row = serde_json::json!({"type": "assistant", "message": {"role": "assistant",
        "content": [{"type": "tool_use", "id": format!("toolu_{}", rand_id(transcript)), "name": "Agent", "input": input}]}});
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(transcript)
        .unwrap();
    writeln!(file, "{row}").unwrap();
}

fn rand_id(transcript: &std::path::Path) -> u64 {
    std::fs::metadata(transcript).map_or(0, |m| m.len())
}

#[test]
fn a_retry_launched_without_its_model_is_not_reported_as_the_escalated_tier_and_is_redispatched_insisting_on_it()
 {
    let project = started(1);
    let agent = agent(&project);
    let transcript = project.path().join(".home/session.jsonl");
    project.write(".home/session.jsonl", "");
    let first = stop_with_transcript(&project, &transcript);
    assert!(
        self_repair_engine::continuation(&first)
            .unwrap()
            .contains("\"model\":\"haiku\"")
    );
    // Attempt 1 at haiku: launched as dispatched, reads its task, dies.
    launch_row(&transcript, "t-00001", Some("haiku"));
    agent.show("t-00001");
    let second = stop_with_transcript(&project, &transcript);
    let reason = self_repair_engine::continuation(&second).unwrap();
    assert!(
        reason.contains("\"model\":\"sonnet\""),
        "escalated: {reason}"
    );
    // The main session drops `model`: the agent definition's haiku runs, and dies too.
    launch_row(&transcript, "t-00001", None);
    agent.show("t-00001");
    let third = stop_with_transcript(&project, &transcript);
    let reason = self_repair_engine::continuation(&third).unwrap();
    assert!(reason.contains("\"model\":\"sonnet\""), "{reason}");
    assert!(
        reason.contains(
            "t-00001 MUST keep \"model\": \"sonnet\" (its last launch dropped it and ran on haiku)"
        ),
        "{reason}"
    );
    let state = crate::harness::run_state(&project, "r-test");
    assert_eq!(
        state.items[0].attempts, 1,
        "the haiku run is not sonnet's attempt"
    );
    assert_eq!(state.items[0].tier, self_repair_engine::Tier::Sonnet);
    assert!(
        state.items[0]
            .errors()
            .iter()
            .any(|e| e.contains("ran on haiku")),
        "{:?}",
        state.items[0].errors()
    );
    // Launched at sonnet this time, it answers.
    launch_row(&transcript, "t-00001", Some("sonnet"));
    agent.work("t-00001").success();
    stop_with_transcript(&project, &transcript);
    drive(&project, &agent, SESSION, usize::MAX);
    let report: Value =
        serde_json::from_str(&project.read(".self-repair/runs/r-test/report.json")).unwrap();
    assert_eq!(
        report["findings"][0]["ran_model"], "sonnet",
        "{}",
        report["findings"][0]
    );
    let findings = project
        .cmd(&["status", "--findings", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(findings[0]["ran_model"], "sonnet", "{findings}");
}

/// The row 2.1.330 writes when the user answers "No" at the permission prompt for the `Agent`
/// call `tool_use` (measured in an interactive session, trimmed of ids and paths).
fn refusal_row(transcript: &std::path::Path, tool_use: &str) {
    use std::io::Write;
    let row = serde_json::json!({"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "content": "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.",
         "is_error": true, "tool_use_id": tool_use}]},
        "toolUseResult": "User rejected tool use", "toolDenialKind": "user-rejected",
        "toolDenialBeforeRun": true});
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(transcript)
        .unwrap();
    writeln!(file, "{row}").unwrap();
}

/// A stop of `SESSION` reading `transcript`, ending a turn the user started (`new_turn`) or
/// one a block started.
fn stop_in_turn(project: &TestProject, transcript: &std::path::Path, new_turn: bool) -> Value {
    let input = serde_json::json!({"session_id": SESSION, "hook_event_name": "Stop",
        "stop_hook_active": !new_turn, "cwd": project.path(), "background_tasks": [],
        "transcript_path": transcript});
    let out = project
        .cmd(&["hook", "stop"])
        .stdin(input.to_string())
        .run()
        .success();
    serde_json::from_str(&out.stdout).unwrap_or(Value::Null)
}

/// Issue 24: the user answered "No" at the permission prompt for the run's `Agent` launches;
/// when they then said "continue", the hook counted each as a failed agent (an attempt, an
/// escalation to sonnet, `MUST keep` claims). Nothing is charged. In the interactive UI the "No"
/// interrupts the turn, so the first stop after it ends the user's next prompt, their answer:
/// the same items go out again at the same tier (e2e `interactive-refused-continue`), with no
/// second "continue" asked for.
#[test]
fn a_launch_refused_at_the_permission_prompt_is_the_users_decision_not_a_failed_attempt() {
    let project = started(2);
    let transcript = project.path().join(".home/session.jsonl");
    project.write(".home/session.jsonl", "");
    let first = stop_with_transcript(&project, &transcript);
    assert!(
        self_repair_engine::continuation(&first)
            .unwrap()
            .contains("\"model\":\"haiku\"")
    );
    let length = std::fs::metadata(&transcript).unwrap().len();
    launch_row(&transcript, "t-00001", Some("haiku"));
    refusal_row(&transcript, &format!("toolu_{length}"));
    // The interrupted turn has no stop; the user's next prompt ends with one.
    let resumed = stop_in_turn(&project, &transcript, true);
    let reason = self_repair_engine::continuation(&resumed).unwrap_or_default();
    assert!(reason.contains("t-00001"), "{resumed}");
    assert!(reason.contains("\"model\":\"haiku\""), "{resumed}");
    assert!(!reason.contains("\"model\":\"sonnet\""), "{reason}");
    assert!(!reason.contains("MUST keep"), "{reason}");
    let state = crate::harness::run_state(&project, "r-test");
    assert_eq!(state.status, self_repair_engine::RunStatus::Active);
    assert!(
        state
            .items
            .iter()
            .all(|i| i.attempts == 0 && i.tier == self_repair_engine::Tier::Haiku),
        "{:?}",
        state.items
    );
}

/// Issue 24: a second opinion whose launch dropped `model` (haiku for a sonnet `vf-`) still
/// confirmed the dismissal. In a foreground run its answer arrives before the stop that reads
/// the launch: that stop sets the answer aside, the verifier goes out again at its tier with a
/// true MUST-keep line, and `submit` takes the new answer, which settles the verdict.
#[test]
fn a_second_opinion_launched_without_its_model_is_set_aside_and_asked_again_at_its_tier() {
    let project = TestProject::new();
    project.write("findings.jsonl", &crate::harness::jsonl_findings(1));
    project.write(
        ".self-repair/config.json",
        r#"{"triage_batch": 1, "survey_min": 0, "verify_below": 0.95}"#,
    );
    project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-test"])
        .run()
        .success();
    let agent = agent(&project);
    let transcript = project.path().join(".home/session.jsonl");
    project.write(".home/session.jsonl", "");
    stop_with_transcript(&project, &transcript);
    launch_row(&transcript, "t-00001", Some("haiku"));
    let dismissal = |verdict: &str| {
        format!(
            r#"{{"confidence": 0.6, "verdict": "{verdict}", "root_cause": "unused import", "reason": "the name is read only by a test fixture"}}"#
        )
    };
    agent
        .submit("t-00001", &dismissal("false_positive"))
        .success();
    let verify = stop_with_transcript(&project, &transcript);
    assert!(
        self_repair_engine::continuation(&verify)
            .unwrap()
            .contains("\"model\":\"sonnet\",\"description\":\"verify vf-00001\""),
        "{verify}"
    );
    launch_row(&transcript, "vf-00001", None);
    agent
        .submit("vf-00001", &dismissal("false_positive"))
        .success();
    let again = stop_with_transcript(&project, &transcript);
    let reason = self_repair_engine::continuation(&again).unwrap_or_default();
    assert!(
        reason.contains(
            "vf-00001 MUST keep \"model\": \"sonnet\" (its last launch dropped it and ran on haiku)"
        ),
        "{again}"
    );
    assert!(
        project
            .path()
            .join(".self-repair/runs/r-test/items/vf-00001.set-aside.json")
            .exists(),
        "the answer set aside is kept"
    );
    launch_row(&transcript, "vf-00001", Some("sonnet"));
    let second = agent.submit("vf-00001", &dismissal("real")).success();
    assert!(second.stdout.starts_with("recorded"), "{}", second.stdout);
    stop_with_transcript(&project, &transcript);
    drive(&project, &agent, SESSION, usize::MAX);
    let report: Value =
        serde_json::from_str(&project.read(".self-repair/runs/r-test/report.json")).unwrap();
    let finding = &report["findings"][0];
    assert_eq!(finding["verdict"], "real", "{finding}");
    assert_eq!(finding["verification"]["outcome"], "kept_real", "{finding}");
    assert_eq!(
        finding["verification"]["second"]["model"], "sonnet",
        "{finding}"
    );
}

/// A session that leaves an `additionalContext` dispatch alone gets the next one as a
/// `decision: block`, and keeps it while it follows it; `status` says which channel and why
/// (design note 63).
#[test]
fn a_session_that_never_launches_an_additional_context_dispatch_gets_the_next_as_a_block() {
    let project = started(3);
    let agent = agent(&project);
    let transcript = project.path().join(".home/session.jsonl");
    project.write(
        ".home/session.jsonl",
        "{\"type\":\"user\",\"version\":\"2.1.330\"}\n",
    );
    let first = stop_with_transcript(&project, &transcript);
    assert!(first.get("decision").is_none(), "{first}");
    let asked = launched(self_repair_engine::continuation(&first).unwrap()).1;
    // Nothing of it launched: the next dispatch is a block with the same entries.
    let second = stop_with_transcript(&project, &transcript);
    assert_eq!(second["decision"], "block", "{second}");
    let again = launched(self_repair_engine::continuation(&second).unwrap()).1;
    assert_eq!(again, asked);
    // Followed: each launched and answered; the run goes on by block.
    for item in &again {
        launch_row(&transcript, item, Some("haiku"));
        agent.work(item).success();
    }
    let third = stop_with_transcript(&project, &transcript);
    assert_eq!(third["decision"], "block", "{third}");
    let status: Value =
        serde_json::from_str(&project.cmd(&["status", "--json"]).run().success().stdout).unwrap();
    let channel = &status["channels"][0];
    assert_eq!(
        (
            channel["channel"].as_str(),
            channel["reason"].as_str(),
            channel["client"].as_str(),
            channel["ignored"].as_u64(),
            channel["switches"].as_u64()
        ),
        (
            Some("block"),
            Some("ignored"),
            Some("2.1.330"),
            Some(1),
            Some(1)
        ),
        "{channel}"
    );
    let text = project.cmd(&["status"]).run().success().stdout;
    assert!(
        text.contains(
            "dispatch channel, session s1: block (an additionalContext dispatch was never launched), client 2.1.330"
        ),
        "{text}"
    );
}

/// A client older than 2.1.163 rejects Stop `additionalContext`: its session gets
/// `decision: block` from the first dispatch, read from the transcript's `version`.
#[test]
fn a_client_that_rejects_stop_additional_context_gets_a_block_from_the_first_stop() {
    let project = started(3);
    let transcript = project.path().join(".home/session.jsonl");
    project.write(
        ".home/session.jsonl",
        "{\"type\":\"user\",\"version\":\"2.1.120\"}\n",
    );
    let first = stop_with_transcript(&project, &transcript);
    assert_eq!(first["decision"], "block", "{first}");
}
