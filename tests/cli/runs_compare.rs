//! `runs --compare` (issue 36 item 4): two runs of a changed project, finding by finding; the
//! counts are the hand count of the three inputs below.

use crate::harness::{TestProject, filters};

/// A JSONL finding: `rule` in `path`.
fn line(rule: &str, path: &str, message: &str) -> String {
    format!(
        r#"{{"tool":"ruff","rule_id":"{rule}","level":"error","message":"{message}","path":"{path}","line":1}}"#
    )
}

/// Three runs: r-1 {A, B, C}; r-2 {B, C, D} (A fixed); r-3 {A, C, D, E} (A back, B fixed).
fn project_with_three_runs() -> TestProject {
    let find_a = line("F401", "a.py", "`os` imported but unused");
    let find_b = line(
        "E711",
        "b.py",
        "Comparison to `None` should be `cond is None`",
    );
    let find_c = line(
        "F841",
        "c.py",
        "Local variable `x` is assigned to but never used",
    );
    let find_d = line("F401", "d.py", "`sys` imported but unused");
    let find_e = line("E712", "e.py", "Avoid equality comparisons to `True`");
    let project = TestProject::new();
    project
        .write(
            "r1.jsonl",
            &[&find_a, &find_b, &find_c].map(String::as_str).join("\n"),
        )
        .write(
            "r2.jsonl",
            &[&find_b, &find_c, &find_d].map(String::as_str).join("\n"),
        )
        .write(
            "r3.jsonl",
            &[&find_a, &find_c, &find_d, &find_e]
                .map(String::as_str)
                .join("\n"),
        );
    project
        .cmd(&["start", "r1.jsonl", "--run-id", "r-1"])
        .run()
        .success();
    // C is intended from r-2 on: the registry decides it.
    let findings: serde_json::Value =
        serde_json::from_str(&project.read(".self-repair/runs/r-1/findings.json")).expect("JSON");
    let c_print = findings
        .as_array()
        .into_iter()
        .flatten()
        .find(|r| r["finding"]["path"] == "c.py")
        .and_then(|r| r["fingerprint"].as_str())
        .expect("c.py's fingerprint")
        .to_owned();
    project
        .cmd(&[
            "known",
            "add",
            &c_print,
            "--verdict",
            "intended",
            "--reason",
            "kept for the debugger",
        ])
        .run()
        .success();
    for (input, id) in [("r2.jsonl", "r-2"), ("r3.jsonl", "r-3")] {
        project
            .cmd(&["start", input, "--run-id", id, "--replace"])
            .run()
            .success();
    }
    project
}

#[test]
fn runs_compare_counts_new_persisting_resolved_and_reappeared_as_a_hand_count() {
    let project = project_with_three_runs();
    // Default: the last two runs, r-2 -> r-3. By hand: E new; C, D persisting; B resolved; A
    // reappeared (in r-1, not in r-2).
    let json = project
        .cmd(&["runs", "--compare", "--json"])
        .run()
        .success()
        .stdout;
    let value: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(value["schema_version"], 1);
    assert_eq!(
        (value["from"].as_str(), value["to"].as_str()),
        (Some("r-2"), Some("r-3"))
    );
    assert_eq!(
        value["counts"],
        serde_json::json!({"new": 1, "persisting": 2, "resolved": 1, "reappeared": 1})
    );
    // r-1 -> r-2, named: D new; B, C persisting; A resolved; nothing came back.
    let named = project
        .cmd(&["runs", "--compare", "r-1", "r-2", "--json"])
        .run()
        .success()
        .stdout;
    let named: serde_json::Value = serde_json::from_str(&named).expect("JSON");
    assert_eq!(
        named["counts"],
        serde_json::json!({"new": 1, "persisting": 2, "resolved": 1, "reappeared": 0})
    );
    let text = project.cmd(&["runs", "--compare"]).run().success().stdout;
    let settings = filters(&project);
    let _guard = settings.bind_to_scope();
    insta::assert_snapshot!("runs_compare", text);
}

#[test]
fn runs_compare_with_one_run_says_how_to_get_a_second() {
    let project = TestProject::new();
    project.write(
        "r1.jsonl",
        &line("F401", "a.py", "`os` imported but unused"),
    );
    project
        .cmd(&["start", "r1.jsonl", "--run-id", "r-1"])
        .run()
        .success();
    let out = project.cmd(&["runs", "--compare"]).run();
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("needs two triage runs and this project has 1"),
        "{}",
        out.stderr
    );
    let one = project.cmd(&["runs", "--compare", "r-1"]).run();
    assert!(one.stderr.contains("takes two runs"), "{}", one.stderr);
}

#[test]
fn the_report_of_a_run_names_the_counts_against_the_previous_run() {
    let project = project_with_three_runs();
    let report = |run: &str| -> (serde_json::Value, String) {
        project
            .cmd(&["finalize", "--partial", "--run", run])
            .run()
            .success();
        let json = project.read(&format!(".self-repair/runs/{run}/report.json"));
        let markdown = project.read(&format!(".self-repair/runs/{run}/report.md"));
        (serde_json::from_str(&json).expect("JSON"), markdown)
    };
    // r-3 against r-2, by hand: E new; C, D persisting; B resolved; A reappeared (in r-1).
    let (json, markdown) = report("r-3");
    assert_eq!(
        json["since_previous"],
        serde_json::json!({"run": "r-2",
            "counts": {"new": 1, "persisting": 2, "resolved": 1, "reappeared": 1}})
    );
    assert!(
        markdown.contains(
            "Since the previous run `r-2`: 1 new, 2 persisting, 1 resolved, 1 reappeared \
             (`self-repair runs --compare r-2 r-3` lists them)."
        ),
        "{markdown}"
    );
    // The report's head: title, summary, intake, then the counts.
    let head: String = markdown
        .split("\n## ")
        .next()
        .unwrap_or_default()
        .to_owned();
    let settings = filters(&project);
    let _guard = settings.bind_to_scope();
    insta::assert_snapshot!("report_since_previous_run", head);
    // r-2 against r-1: D new; B, C persisting; A resolved; nothing came back.
    let (json, _) = report("r-2");
    assert_eq!(
        json["since_previous"],
        serde_json::json!({"run": "r-1",
            "counts": {"new": 1, "persisting": 2, "resolved": 1, "reappeared": 0}})
    );
    // The project's first run has no previous one: the report says nothing of it.
    let (json, markdown) = report("r-1");
    assert!(json.get("since_previous").is_none(), "{json}");
    assert!(!markdown.contains("Since the previous run"), "{markdown}");
}
