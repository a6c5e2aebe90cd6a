//! Issue 11, item 7: forgiving input, exact errors. A model's commonest JSON slips are
//! repaired and named; input that cannot be a run says what to give instead.

use crate::harness::TestProject;
use crate::pipeline::dispatched;
use crate::scripted_agent::ScriptedAgent;
use self_repair_app::ExitStatus;

#[test]
fn a_fenced_json_answer_with_raw_newlines_in_its_reason_is_accepted_and_the_repair_is_named() {
    let project = dispatched(3);
    let agent = ScriptedAgent {
        project: &project,
        run: "r-test".into(),
    };
    let sloppy = "```json\n{\"confidence\": 0.9, \"verdict\": \"real\", \"root_cause\": \"unused import\",\n \"reason\": \"the name is imported\nand never used\"}\n```\n";
    let out = agent.submit("t-00001", sloppy).success();
    assert!(
        out.stdout.starts_with("recorded t-00001: real"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("removed the ``` fence"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("escaped 1 raw control character(s)"),
        "{}",
        out.stdout
    );
    let stored = project.read(".self-repair/runs/r-test/items/t-00001.json");
    let value: serde_json::Value = serde_json::from_str(&stored).unwrap();
    assert_eq!(value["reason"], "the name is imported\nand never used");
    // The same answer sent cleanly is the same result.
    let clean = r#"{"confidence": 0.9, "verdict":"real","root_cause":"unused import","reason":"the name is imported\nand never used"}"#;
    let again = agent.submit("t-00001", clean).success();
    assert!(
        again.stdout.starts_with("already recorded"),
        "{}",
        again.stdout
    );
    // Input that is still not JSON after the repairs is rejected as before (exit 3).
    agent
        .submit("t-00002", "```json\nverdict: real\n```")
        .code(ExitStatus::Rejected);
}

#[test]
fn an_empty_findings_file_or_a_file_that_is_not_findings_creates_no_run() {
    let project = TestProject::new();
    project.write("empty.json", "");
    let out = project
        .cmd(&["start", "empty.json"])
        .run()
        .code(ExitStatus::Usage);
    assert!(
        out.stderr
            .contains("empty.json is empty, not an analyzer's report"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("no run was created"), "{}", out.stderr);
    project.write(
        "Cargo.toml",
        "[package]\nname = \"x\"\nversion = \"0.1.0\"\n",
    );
    let out = project
        .cmd(&["start", "Cargo.toml"])
        .run()
        .code(ExitStatus::Usage);
    assert!(out.stderr.contains("Cargo.toml"), "{}", out.stderr);
    assert!(
        out.stderr.contains("self-repair start"),
        "says what to run instead: {}",
        out.stderr
    );
    assert!(
        !project.path().join(".self-repair/runs").exists()
            || project.cmd(&["runs"]).run().stdout.contains("no runs")
    );
}
