//! Issue 23 item 4, a bill the user decides on: `start` prints one likely figure that `status`
//! then counts the same way, and a run above `confirm_above_usd` waits for the user's go.

use serde_json::Value;

use crate::harness::{TestProject, jsonl_findings};
use self_repair_app::ExitStatus;

fn project(findings: usize, config: &str) -> TestProject {
    let project = TestProject::new();
    project.write(".self-repair/config.json", config);
    project.write("findings.jsonl", &jsonl_findings(findings));
    project
}

fn state(project: &TestProject) -> Value {
    serde_json::from_str(&project.read(".self-repair/runs/r-test/state.json")).unwrap()
}

/// The bug: `start` said 64-1,017 triage agents while `status` a moment later said 5,151
/// agents left (it counted the findings a rule survey holds as agents).
#[test]
fn status_and_start_agree_at_the_start_of_a_run_with_surveyed_rules() {
    // 60 findings over 5 rules: each rule's 12 are surveyed (`survey_min` 10).
    let project = project(60, r#"{"confirm_above_usd": null}"#);
    let start = project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-test", "--json"])
        .run()
        .success()
        .json();
    let estimate = &start["estimate"];
    let likely = estimate["agents_likely"].as_u64().unwrap();
    assert!(likely > 0 && likely < 60, "{estimate}");
    let status = project.cmd(&["status", "--json"]).run().success().json();
    let progress = &status["progress"];
    assert_eq!(progress["agents_left"].as_u64(), Some(likely), "{progress}");
    let usd = estimate["usd_likely"].as_f64().unwrap();
    let estimated = progress["estimated_usd"].as_f64().unwrap();
    assert!((usd - estimated).abs() < 1e-9, "{usd} vs {estimated}");
    // The text says the same figure.
    let text = project.cmd(&["status"]).run().success().stdout;
    assert!(text.contains(&format!("{likely} agents left")), "{text}");
    assert!(text.contains(&format!("likely ${usd:.2} ahead")), "{text}");
}

/// Above the threshold the run is created waiting: the Stop hook dispatches nothing, says the
/// estimate once for the session to ask, and only `resume --confirm` starts it.
#[test]
fn a_run_above_confirm_above_usd_dispatches_nothing_until_resume_confirm() {
    let project = project(
        12,
        r#"{"confirm_above_usd": 0.5, "triage_batch": 1, "survey_min": 0}"#,
    );
    let out = project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-test"])
        .run()
        .success()
        .stdout;
    assert!(out.contains("the run waits for your go"), "{out}");
    assert!(out.contains("self-repair resume --confirm"), "{out}");
    assert_eq!(state(&project)["pause"]["by"], "confirm");

    // The first stop asks, once, through the session; nothing is launched.
    let first = project.stop("s1", &[]).stdout;
    let answer: Value = serde_json::from_str(&first).unwrap();
    let reason = self_repair_engine::continuation(&answer).unwrap();
    assert!(
        !first.contains(r#"\"launch\""#),
        "dispatched before the go: {first}"
    );
    insta::assert_snapshot!("confirm_waiting_block_reason", reason);
    assert!(reason.contains("waits for your go"), "{reason}");
    assert!(reason.contains("self-repair resume --confirm"), "{reason}");
    assert!(answer["systemMessage"].as_str().unwrap().contains("likely"));
    for _ in 0..3 {
        assert_eq!(project.stop("s1", &[]).stdout, "", "said once, then silent");
    }
    let status = project.cmd(&["status"]).run().success().stdout;
    assert!(status.contains("waits for your go"), "{status}");
    // Waiting is its own state wherever a person reads it (`state.json` keeps `paused`).
    assert!(status.contains("status waiting,"), "{status}");
    let json = project.cmd(&["status", "--json"]).run().success().json();
    assert_eq!(json["status"], "waiting");
    let next = project.cmd(&["next"]).run().success().stdout;
    assert!(next.contains("waiting for your go"), "{next}");

    // A plain `resume` is not the go: it changes nothing, exits 23 and names the go.
    let plain = project.cmd(&["resume"]).run().code(ExitStatus::NeedsGo);
    assert!(
        plain.stderr.contains("resume --confirm"),
        "{}",
        plain.stderr
    );
    assert_eq!(state(&project)["status"], "paused");
    let go = project.cmd(&["resume", "--confirm"]).run().success().stdout;
    assert!(go.contains("confirmed"), "{go}");
    let dispatch = project.stop("s1", &[]).stdout;
    assert!(dispatch.contains(r#"\"launch\":["#), "{dispatch}");
    assert!(dispatch.contains("t-00001"), "{dispatch}");
}

/// A budget is a decision too: a run started with one never waits.
#[test]
fn a_run_started_with_a_budget_does_not_wait() {
    let project = project(12, r#"{"confirm_above_usd": 0.5}"#);
    let out = project
        .cmd(&[
            "start",
            "findings.jsonl",
            "--run-id",
            "r-test",
            "--budget",
            "3",
        ])
        .run()
        .success()
        .stdout;
    assert!(!out.contains("waits for your go"), "{out}");
    assert_eq!(state(&project)["status"], "active");
}

/// Headless, nobody can be asked: `drive` refuses a waiting run without `--yes` or `--budget`
/// (exit 23, reference/cli.md) and leaves it waiting.
#[test]
fn drive_refuses_a_waiting_run_without_yes_or_budget_with_exit_23() {
    let project = project(12, r#"{"confirm_above_usd": 0.5}"#);
    project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-test"])
        .run()
        .success();
    let out = project
        .cmd(&["drive", "--claude", "/bin/true"])
        .run()
        .code(ExitStatus::NeedsGo);
    assert!(out.stderr.contains("waits for your go"), "{}", out.stderr);
    assert!(out.stderr.contains("--yes"), "{}", out.stderr);
    assert!(out.stderr.contains("--budget USD"), "{}", out.stderr);
    assert_eq!(state(&project)["pause"]["by"], "confirm");
    // `--budget USD` is the go with that cap: the run is started before the first session.
    project
        .cmd(&[
            "drive",
            "--claude",
            "/bin/true",
            "--budget",
            "3",
            "--max-sessions",
            "1",
        ])
        .env("SELF_REPAIR_DRIVE_BACKOFF_SCALE", "0")
        .run()
        .code(ExitStatus::CircuitOpen);
    let after = state(&project);
    assert_eq!(after["status"], "active", "{after}");
    assert_eq!(after["config"]["budget_usd"], 3.0);
}

/// `resume --budget USD` alone is no go (the main session may run it without a prompt, the go
/// is the user's): the waiting run takes the cap and still waits; `resume --confirm --budget
/// USD` starts it with that cap.
#[test]
fn resume_confirm_budget_starts_a_waiting_run_with_that_cap_and_budget_alone_does_not() {
    let project = project(12, r#"{"confirm_above_usd": 0.5, "triage_batch": 1}"#);
    project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-test"])
        .run()
        .success();
    // Adopt does not lift the wait either.
    project.cmd(&["adopt", "--session", "s2"]).run().success();
    assert_eq!(state(&project)["pause"]["by"], "confirm");
    let capped = project
        .cmd(&["resume", "--budget", "2"])
        .run()
        .success()
        .stdout;
    assert!(capped.contains("still waits"), "{capped}");
    assert_eq!(state(&project)["pause"]["by"], "confirm");
    assert!(
        !project.stop("s2", &[]).stdout.contains(r#"\"launch\""#),
        "no dispatch before the go"
    );
    project
        .cmd(&["resume", "--confirm", "--budget", "3"])
        .run()
        .success();
    let after = state(&project);
    assert_eq!(after["status"], "active");
    assert_eq!(after["config"]["budget_usd"], 3.0);
    assert!(project.stop("s2", &[]).stdout.contains(r#"\"launch\":["#));
}

/// A run started from a terminal and waiting for the go: the go does not start anything by
/// itself, so it says how the run gets driven (a session adopts it, or `drive`).
#[test]
fn the_go_on_a_run_no_session_drives_says_how_to_drive_it() {
    let project = project(12, r#"{"confirm_above_usd": 0.5}"#);
    project
        .terminal(&["start", "findings.jsonl", "--run-id", "r-test"])
        .run()
        .success();
    let line = project
        .terminal(&["status", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(line["status"], "waiting");
    let go = project
        .terminal(&["resume", "--confirm"])
        .run()
        .success()
        .stdout;
    assert!(go.contains("confirmed"), "{go}");
    assert!(
        go.contains("self-repair adopt") && go.contains("self-repair drive"),
        "{go}"
    );
}
