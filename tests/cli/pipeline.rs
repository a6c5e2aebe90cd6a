//! The whole pipeline through the binary: hook → dispatch → show → submit → hook ... → complete.

use serde_json::Value;

use crate::harness::{TestProject, filters, jsonl_findings};
use crate::scripted_agent::{ScriptedAgent, launched};

/// What driving a run did.
#[derive(Debug, Default)]
pub(crate) struct Drive {
    /// Every item launched, in order.
    pub launches: Vec<String>,
    /// The first block reason of each phase.
    pub first_blocks: Vec<(String, String)>,
    /// The `systemMessage` of the last stop, if any.
    pub final_message: Option<String>,
}

/// Drives the run with stops of `session` until the hook allows; stops early after
/// `max_launches` launched items (to simulate a session that dies), leaving them in flight.
pub(crate) fn drive(
    project: &TestProject,
    agent: &ScriptedAgent,
    session: &str,
    max_launches: usize,
) -> Drive {
    let mut drive = Drive::default();
    for _ in 0..10_000 {
        let out = project.stop(session, &[]);
        if out.stdout.trim().is_empty() {
            break;
        }
        let answer: Value =
            serde_json::from_str(&out.stdout).expect("hook stdout is one JSON object");
        let Some(reason) = crate::scripted_agent::dispatch_reason(&answer) else {
            drive.final_message = answer["systemMessage"].as_str().map(str::to_owned);
            break;
        };
        assert!(self_repair_engine::continuation(&answer).is_some());
        let (phase, ids) = launched(reason);
        if !drive.first_blocks.iter().any(|(p, _)| *p == phase) {
            drive.first_blocks.push((phase, reason.to_owned()));
        }
        for id in &ids {
            assert!(!drive.launches.contains(id), "{id} launched twice");
        }
        // While they run, a stop (their notifications) must not launch anything again.
        let running: Vec<&str> = ids.iter().map(String::as_str).collect();
        let idle = project.stop(session, &running);
        assert_eq!(idle.stdout, "", "a stop while agents run dispatched again");
        drive.launches.extend(ids.iter().cloned());
        if drive.launches.len() >= max_launches {
            return drive;
        }
        for id in &ids {
            agent.work(id).success();
        }
    }
    drive
}

/// Journal `submitted` events per item.
pub(crate) fn submissions(
    project: &TestProject,
    run: &str,
) -> std::collections::HashMap<String, usize> {
    let journal =
        std::fs::read_to_string(project.run_dir(run).join("journal.jsonl")).expect("journal");
    let mut counts = std::collections::HashMap::new();
    for line in journal.lines() {
        let entry: Value = serde_json::from_str(line).expect("journal line");
        if entry["event"] == "submitted" {
            *counts
                .entry(entry["item"].as_str().expect("item").to_owned())
                .or_default() += 1;
        }
    }
    counts
}

/// A project with `count` findings and a run `r-test` whose first stop (session `s1`) dispatched
/// the first batch, so those items take submissions.
pub(crate) fn dispatched(count: usize) -> TestProject {
    let project = started(count);
    project.stop("s1", &[]);
    project
}

/// A started run `r-test` of `count` findings, one triage agent per finding (`triage_batch: 1`)
/// and waves of 8 (`fan_out: 8`): the tests of the hook's and `submit`'s mechanics address items
/// one by one and count in waves.
pub(crate) fn started(count: usize) -> TestProject {
    let project = TestProject::new();
    project.write(
        ".self-repair/config.json",
        r#"{"triage_batch": 1, "fan_out": 8, "survey_min": 0}"#,
    );
    project.write("findings.jsonl", &jsonl_findings(count));
    project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-test"])
        .run()
        .success();
    project
}

#[test]
fn full_pipeline_on_60_findings_reaches_complete_with_every_item_done_once() {
    let project = TestProject::new();
    project.write("findings.jsonl", &jsonl_findings(60));
    // Batched triage of every finding, without a rule survey in front (rule_survey.rs).
    project.write(".self-repair/config.json", r#"{"survey_min": 0}"#);
    let settings = filters(&project);
    let _guard = settings.bind_to_scope();
    let start = project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-test"])
        .run()
        .success();
    insta::assert_snapshot!("pipeline_start", start.stdout);

    let agent = ScriptedAgent {
        project: &project,
        run: "r-test".into(),
    };
    let driven = drive(&project, &agent, "s1", usize::MAX);

    let phases: Vec<&str> = driven
        .first_blocks
        .iter()
        .map(|(p, _)| p.as_str())
        .collect();
    assert_eq!(phases, ["triage", "aggregate", "rule_review", "plan"]);
    for (phase, reason) in &driven.first_blocks {
        insta::assert_snapshot!(format!("pipeline_first_block_{phase}"), reason);
    }
    let message = driven.final_message.expect("completion summary");
    insta::assert_snapshot!("pipeline_complete_message", message);

    let status = project.cmd(&["status"]).run().success();
    insta::assert_snapshot!("pipeline_status", status.stdout);
    let state: Value =
        serde_json::from_str(&project.read(".self-repair/runs/r-test/state.json")).unwrap();
    assert_eq!(state["status"], "complete");
    let items = crate::harness::run_state(&project, "r-test").items;
    assert!(
        items
            .iter()
            .all(|i| i.status == self_repair_engine::ItemStatus::Done),
        "every item done"
    );
    // The 60 findings went out in 8 batches (`triage_batch` 8): their triage items were
    // decided by their batch's one submission, never dispatched on their own. The reviews ask
    // for no change, so every revise step was settled by code, without an agent.
    let revise_steps: Vec<&self_repair_engine::WorkItem> = items
        .iter()
        .filter(|i| i.kind == self_repair_engine::ItemKind::Revise)
        .collect();
    assert_eq!(revise_steps.len(), 4);
    assert!(revise_steps.iter().all(|i| i.dispatches == 0));
    let dispatched: Vec<&self_repair_engine::WorkItem> = items
        .iter()
        .filter(|i| {
            !matches!(
                i.kind,
                self_repair_engine::ItemKind::Triage | self_repair_engine::ItemKind::Revise
            )
        })
        .collect();
    let batches = dispatched
        .iter()
        .filter(|i| i.kind == self_repair_engine::ItemKind::TriageBatch)
        .count();
    assert_eq!(batches, 8);
    assert_eq!(
        driven.launches.len(),
        dispatched.len(),
        "one launch per batch and later item, no relaunch, no triage item alone"
    );
    let counts = submissions(&project, "r-test");
    assert_eq!(counts.len(), dispatched.len());
    assert!(
        counts.values().all(|n| *n == 1),
        "every item submitted once"
    );

    // 60 findings: 12 eqeqeq are false positives; 4 real root causes → 4 groups, 4 tasks.
    let tasks = state["tasks"].as_array().unwrap();
    assert_eq!(tasks.len(), 4);
    let first = tasks[0]["file"].as_str().unwrap();
    insta::assert_snapshot!("pipeline_task_file", project.read(first));
    assert!(project.path().join("backlog/config.yml").is_file());
    let report: Value =
        serde_json::from_str(&project.read(".self-repair/runs/r-test/report.json")).unwrap();
    assert_eq!(report["schema_version"], 1);
    assert_eq!(report["findings"].as_array().unwrap().len(), 60);
    assert_eq!(report["verdicts"]["false_positive"], 12);
    assert_eq!(report["findings"][0]["batch"], "tb-00001");
    assert_eq!(report["cost"]["triage"]["launches"], 8);
    assert_eq!(report["cost"]["triage"]["items"], 60);

    // A repeated run: every finding is in known.json now, so no agent runs at all.
    let again = project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-known"])
        .run()
        .success();
    assert!(
        again
            .stdout
            .contains("known registry decided 60, rules decided 0, 0 go to triage agents"),
        "{}",
        again.stdout
    );
    let out = project.stop("s1", &[]);
    assert!(out.stdout.contains("complete"), "{}", out.stdout);

    // Without the registry, a repeated run forms the same groups and writes no duplicate task.
    std::fs::remove_file(project.path().join(".self-repair/known.json")).unwrap();
    project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-again"])
        .run()
        .success();
    let again = ScriptedAgent {
        project: &project,
        run: "r-again".into(),
    };
    drive(&project, &again, "s1", usize::MAX);
    let state: Value =
        serde_json::from_str(&project.read(".self-repair/runs/r-again/state.json")).unwrap();
    let tasks = state["tasks"].as_array().unwrap();
    assert_eq!(tasks.len(), 4);
    assert!(tasks.iter().all(|t| t["existing"] == true), "{tasks:?}");
    let files = std::fs::read_dir(project.path().join("backlog/tasks"))
        .unwrap()
        .count();
    assert_eq!(files, 4);
}

#[test]
fn run_whose_findings_need_no_agent_completes_at_the_first_stop() {
    let project = TestProject::new();
    project.write("findings.jsonl", &jsonl_findings(1));
    project.write(
        ".self-repair/rules.json",
        r#"{"schema_version": 1, "rules": [
            {"id": "all-ruff", "name": "ruff is noise here", "when": {"tool": "ruff"},
             "verdict": "false_positive", "reason": "generated code", "status": "accepted"}]}"#,
    );
    project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-empty"])
        .run()
        .success();
    let out = project.stop("s1", &[]);
    let answer: Value = serde_json::from_str(&out.stdout).unwrap();
    assert!(
        answer["systemMessage"]
            .as_str()
            .unwrap()
            .contains("complete"),
        "{answer}"
    );
    assert!(project.run_dir("r-empty").join("report.md").is_file());
}
