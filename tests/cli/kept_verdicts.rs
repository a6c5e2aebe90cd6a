//! Every decided verdict outlives its run (issue 41): after N verdicts, a run cancelled,
//! replaced, left stalled or partially finalized leaves them in `known.json`, and the next
//! `start` over the same findings sends N fewer to agents, saying from which run.

use serde_json::Value;

use crate::harness::{TestProject, mark_dispatched};
use crate::pipeline::started;

/// Submits verdict `real` for `t-00001` .. `t-0000n` of the active run.
fn submit_real(project: &TestProject, n: usize) {
    for i in 1..=n {
        let body = serde_json::json!({"confidence": 0.9, "verdict": "real",
            "root_cause": "unused import", "reason": format!("checked by reading item {i}")});
        project
            .cmd(&["submit", &format!("t-{i:05}")])
            .stdin(body.to_string())
            .run()
            .success();
    }
}

/// A 10-finding run bound to `s1`, every item dispatched, with `n` verdicts submitted.
fn run_with_verdicts(n: usize) -> TestProject {
    let project = started(10);
    project.stop("s1", &[]);
    mark_dispatched(&project, "r-test", 10);
    submit_real(&project, n);
    project
}

fn start_json(project: &TestProject, args: &[&str]) -> Value {
    let mut all = vec!["start", "findings.jsonl", "--json"];
    all.extend_from_slice(args);
    project.cmd(&all).run().success().json()
}

#[test]
fn after_n_verdicts_cancel_then_start_sends_n_fewer_findings_to_agents() {
    let project = run_with_verdicts(4);
    let cancel = project.cmd(&["cancel"]).run().success();
    assert!(
        cancel
            .stdout
            .contains("its 4 decided verdict(s) are kept in known.json"),
        "{}",
        cancel.stdout
    );
    let known = project.read(".self-repair/known.json");
    assert_eq!(known.matches("\"source\":\"r-test\"").count(), 4, "{known}");
    assert!(
        known.contains("\"item\":\"t-00001\""),
        "who decided: {known}"
    );
    assert!(known.contains("\"model\":"), "at which tier: {known}");
    assert!(known.contains("\"decided_at\":"), "when: {known}");

    let next = start_json(&project, &["--run-id", "r-2"]);
    assert_eq!(next["intake"]["known"], 4, "{next}");
    assert_eq!(next["intake"]["routed"], 6, "{next}");
    assert_eq!(
        next["known_from"],
        serde_json::json!([["r-test", 4]]),
        "{next}"
    );
    let text = project.cmd(&["status"]).run().success().stdout;
    assert!(text.contains("decided by known registry 4"), "{text}");
}

#[test]
fn after_n_verdicts_start_replace_sends_n_fewer_and_says_from_which_run() {
    let project = run_with_verdicts(3);
    let replaced = project
        .cmd(&["start", "findings.jsonl", "--replace", "--run-id", "r-2"])
        .run()
        .success();
    // The whole message, as a user reads it: what was kept, from which run, what is left.
    insta::assert_snapshot!("start_replace_with_kept_verdicts", replaced.stdout);
    assert!(
        replaced
            .stdout
            .contains("decided without an agent by known.json: 3 from run r-test"),
        "{}",
        replaced.stdout
    );
    assert!(
        replaced.stdout.contains("7 go to triage agents"),
        "{}",
        replaced.stdout
    );
    assert!(
        replaced.stdout.contains("replaced run r-test"),
        "{}",
        replaced.stdout
    );
    let runs = project.cmd(&["runs", "--json"]).run().success().json();
    let status = |id: &str| {
        runs.as_array()
            .unwrap()
            .iter()
            .find(|r| r["run"] == id)
            .map(|r| r["status"].clone())
    };
    assert_eq!(status("r-test"), Some("cancelled".into()), "{runs}");
    assert_eq!(status("r-2"), Some("active".into()), "{runs}");
}

#[test]
fn a_run_left_without_a_cancel_keeps_its_verdicts_for_the_next_start() {
    // Stalled, waiting and left, a killed `drive`: nothing says the run ended. The next start
    // reads what it decided (here, a second run started detached beside it: a share).
    let project = run_with_verdicts(5);
    project.cmd(&["pause"]).run().success();
    let next = start_json(&project, &["--replace", "--run-id", "r-2"]);
    assert_eq!(next["intake"]["known"], 5, "{next}");
    assert_eq!(
        next["kept_from"],
        serde_json::json!([["r-test", 5]]),
        "{next}"
    );
    // Read once: a third start does not read the run again.
    let third = start_json(&project, &["--replace", "--run-id", "r-3"]);
    assert_eq!(third["intake"]["known"], 5, "{third}");
    assert!(third.get("kept_from").is_none(), "{third}");
}

#[test]
fn finalize_partial_keeps_the_verdicts_so_far() {
    let project = run_with_verdicts(2);
    let out = project.cmd(&["finalize", "--partial"]).run().success();
    assert!(
        out.stdout
            .contains("2 decided verdict(s) kept in known.json"),
        "{}",
        out.stdout
    );
    let known = project.read(".self-repair/known.json");
    assert_eq!(known.matches("\"source\":\"r-test\"").count(), 2, "{known}");
}

#[test]
fn runs_compare_calls_a_finding_the_later_run_has_not_decided_undecided_not_changed() {
    let project = run_with_verdicts(2);
    project
        .cmd(&["start", "findings.jsonl", "--replace", "--run-id", "r-2"])
        .run()
        .success();
    let text = project.cmd(&["runs", "--compare"]).run().success().stdout;
    assert!(!text.contains("undecided (changed)"), "{text}");
    assert!(
        text.contains("real -> real"),
        "the kept verdicts decide: {text}"
    );
}

#[test]
fn a_security_dismissal_not_yet_confirmed_decides_nothing_in_the_next_run() {
    let project = TestProject::new();
    project.write(
        ".self-repair/config.json",
        r#"{"triage_batch": 1, "survey_min": 0}"#,
    );
    let finding = serde_json::json!({"tool": "ruff", "rule_id": "S101", "level": "warning",
        "message": "Use of assert detected", "path": "src/a.py", "line": 3});
    project.write("findings.jsonl", &finding.to_string());
    project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-test"])
        .run()
        .success();
    project.stop("s1", &[]);
    mark_dispatched(&project, "r-test", 1);
    let body = serde_json::json!({"confidence": 0.95, "verdict": "false_positive",
        "root_cause": "test assert", "reason": "the assert is in a test helper, checked"});
    project
        .cmd(&["submit", "t-00001"])
        .stdin(body.to_string())
        .run()
        .success();
    project.cmd(&["cancel"]).run().success();
    let next = start_json(&project, &["--run-id", "r-2"]);
    assert_eq!(next["intake"]["known"], 0, "{next}");
    assert_eq!(next["intake"]["routed"], 1, "{next}");
}
