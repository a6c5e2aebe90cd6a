//! The standing protocol is said once per session (design note 45): in `start`'s output when
//! `start` binds the run to its session, else in the bound session's first block; every other
//! dispatch block is its JSON alone.

use self_repair_engine::{DISPATCH_START, PROTOCOL};
use serde_json::Value;

use crate::harness::{TestProject, jsonl_findings};

/// Four findings, one agent each, two at a time.
fn project() -> TestProject {
    let project = TestProject::new();
    project.write(
        ".self-repair/config.json",
        r#"{"triage_batch": 1, "fan_out": 2, "survey_min": 0}"#,
    );
    project.write("findings.jsonl", &jsonl_findings(4));
    project
}

/// The block reason of a Stop hook call that dispatches.
fn dispatch(project: &TestProject, session: &str) -> String {
    let out = project.stop(session, &[]);
    let answer: Value = serde_json::from_str(&out.stdout).expect("the hook blocks");
    self_repair_engine::continuation(&answer)
        .expect("a reason")
        .to_owned()
}

#[test]
fn start_in_a_session_says_the_protocol_and_that_sessions_blocks_are_their_json() {
    let project = project();
    let out = project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-test"])
        .env("CLAUDE_CODE_SESSION_ID", "s1")
        .run()
        .success();
    assert!(out.stdout.contains(PROTOCOL), "{}", out.stdout);
    let reason = dispatch(&project, "s1");
    assert!(reason.starts_with(DISPATCH_START), "{reason}");
    assert!(!reason.contains('\n'), "one line: {reason}");
}

#[test]
fn a_run_started_from_a_terminal_says_the_protocol_in_its_first_block_and_to_an_adopter() {
    let project = project();
    let out = project
        .terminal(&["start", "findings.jsonl", "--run-id", "r-test"])
        .run()
        .success();
    assert!(!out.stdout.contains(PROTOCOL), "{}", out.stdout);
    // A terminal's run is driven by no session until one adopts it.
    project.cmd(&["adopt"]).run().success();
    let first = dispatch(&project, "s1");
    assert!(
        first.starts_with(&format!("{PROTOCOL}\n{DISPATCH_START}")),
        "{first}"
    );
    // The two agents never ran (no background task, no submission): sent again, bare.
    let again = dispatch(&project, "s1");
    assert!(again.starts_with(DISPATCH_START), "{again}");
    project
        .cmd(&["adopt"])
        .env("CLAUDE_CODE_SESSION_ID", "s2")
        .run()
        .success();
    let adopted = dispatch(&project, "s2");
    assert!(adopted.starts_with(PROTOCOL), "{adopted}");
}
