//! `export sarif` and `export github-dismissals` through the binary (issue 26 item 1): the run
//! keeps its SARIF input, the export carries the run's dismissals, and fed back to `start` it
//! leaves nothing to triage for them.

use crate::harness::{TestProject, filters};

/// A project holding the files the CodeQL-style log names, a first run over the log, and two
/// of its findings dismissed in `known.json`; the second run decides them from the registry.
pub(crate) fn project_with_dismissals() -> TestProject {
    let project = TestProject::new();
    project
        .write(
            "app/views.py",
            "import os\nimport sys\n\n\n\n\n\n\ndef view(request):\n    return request\n",
        )
        .write(
            "app/db.py",
            "import sys\nimport sqlite3\n\n\n\n\n\n\n\n\n\ndef q(c, v):\n    c.execute(v)\n",
        )
        .write(
            "tests/test_views.py",
            "def test_x():\n\n\n    password = \"pw\"\n    print(password)\n",
        )
        // The test-file finding goes to triage here (`known add t-00003` below), as the
        // project judges its tests' security findings (issue 40's test_paths rule aside).
        .write(
            ".self-repair/config.json",
            r#"{"security_in_scope": ["tests"]}"#,
        )
        .write(
            "codeql.sarif",
            &std::fs::read_to_string(
                std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("tests/fixtures/export/codeql-style.sarif"),
            )
            .expect("fixture"),
        );
    project
        .cmd(&["start", "codeql.sarif", "--run-id", "r-1"])
        .run()
        .success();
    let index = project.read(".self-repair/runs/r-1/inputs/index.json");
    assert!(index.contains(r#""copy":"inputs/1.sarif""#), "{index}");
    project
        .cmd(&[
            "known",
            "add",
            "t-00002",
            "--verdict",
            "false_positive",
            "--reason",
            "os is loaded through importlib",
        ])
        .run()
        .success();
    project
        .cmd(&[
            "known",
            "add",
            "t-00003",
            "--verdict",
            "intended",
            "--reason",
            "a fixture password",
        ])
        .run()
        .success();
    project
        .cmd(&["start", "codeql.sarif", "--run-id", "r-2", "--replace"])
        .run()
        .success();
    project
}

/// Issue 26's round trip: the export fed back to `start` yields no finding to triage for the
/// dismissed ones; the one left open is still read.
#[test]
fn export_sarif_fed_back_to_start_leaves_nothing_to_triage_for_dismissed_findings() {
    let project = project_with_dismissals();
    let out = project
        .cmd(&["export", "sarif", "--run", "r-2", "-o", "export.sarif"])
        .run()
        .success();
    let settings = filters(&project);
    let _guard = settings.bind_to_scope();
    insta::assert_snapshot!("export_sarif_summary", out.stdout);
    let exported: serde_json::Value =
        serde_json::from_str(&project.read("export.sarif")).expect("the export is JSON");
    let results = exported["runs"][0]["results"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        results.len(),
        4,
        "every result of the input, the suppressed one included"
    );
    assert_eq!(results[1]["suppressions"][0]["status"], "accepted");
    assert_eq!(
        results[1]["partialFingerprints"]["primaryLocationLineHash"],
        "3b0b8e2d4f1c9a07:1"
    );
    let again = project
        .cmd(&[
            "start",
            "export.sarif",
            "--run-id",
            "r-3",
            "--replace",
            "--dry-run",
        ])
        .run()
        .success();
    assert!(
        again
            .stdout
            .contains("read 1 finding(s) from export.sarif as sarif"),
        "{}",
        again.stdout
    );
    assert!(
        again.stdout.contains("1 go to triage agents"),
        "{}",
        again.stdout
    );
}

#[test]
fn export_sarif_without_a_file_prints_the_sarif() {
    let project = project_with_dismissals();
    let out = project.cmd(&["export", "sarif"]).run().success();
    let exported: serde_json::Value = serde_json::from_str(&out.stdout).expect("SARIF on stdout");
    assert_eq!(exported["version"], "2.1.0");
}

#[test]
fn export_github_dismissals_prints_one_call_per_dismissed_finding() {
    let project = project_with_dismissals();
    let out = project
        .cmd(&["export", "github-dismissals", "--run", "r-2"])
        .run()
        .success();
    let settings = filters(&project);
    let _guard = settings.bind_to_scope();
    insta::assert_snapshot!("export_github_dismissals", out.stdout);
}

/// A run started before runs kept their inputs still exports, from `findings.json`, and says
/// what is missing.
#[test]
fn export_sarif_of_a_run_without_kept_inputs_says_what_is_missing() {
    let project = project_with_dismissals();
    std::fs::remove_dir_all(project.run_dir("r-2").join("inputs")).expect("remove inputs");
    let out = project
        .cmd(&["export", "sarif", "--run", "r-2", "-o", "old.sarif"])
        .run()
        .success();
    assert!(
        out.stdout.contains("started before runs kept their inputs"),
        "{}",
        out.stdout
    );
    let exported: serde_json::Value =
        serde_json::from_str(&project.read("old.sarif")).expect("the export is JSON");
    assert_eq!(exported["runs"][0]["tool"]["driver"]["name"], "codeql");
    assert_eq!(
        exported["runs"][0]["results"].as_array().map(Vec::len),
        Some(3)
    );
}

/// Piped to standard output, the SARIF stays the whole of it: what the user should know goes
/// to standard error as notes, printed once by the binary (`Output::notes`).
#[test]
fn export_sarif_to_stdout_keeps_its_notes_on_stderr() {
    let project = project_with_dismissals();
    std::fs::remove_dir_all(project.run_dir("r-2").join("inputs")).expect("remove inputs");
    let out = project
        .cmd(&["export", "sarif", "--run", "r-2"])
        .run()
        .success();
    let exported: serde_json::Value = serde_json::from_str(&out.stdout).expect("SARIF alone");
    assert_eq!(exported["version"], "2.1.0");
    assert_eq!(
        out.stderr
            .lines()
            .filter(|l| l.starts_with("self-repair: note: ") && l.contains("kept their inputs"))
            .count(),
        1,
        "{}",
        out.stderr
    );
}

/// A damaged `inputs/index.json` is refused (exit 2) with the run's folder and the file to
/// delete named.
#[test]
fn export_sarif_with_a_damaged_index_names_the_file_to_delete() {
    let project = project_with_dismissals();
    let index = project.run_dir("r-2").join("inputs/index.json");
    std::fs::write(&index, "{not json").expect("damage the index");
    let out = project
        .cmd(&["export", "sarif", "--run", "r-2", "-o", "x.sarif"])
        .run()
        .code(self_repair_app::ExitStatus::Usage);
    assert!(
        out.stderr.contains(&index.display().to_string()),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("delete it"), "{}", out.stderr);
    std::fs::remove_file(&index).expect("delete the index as told");
    project
        .cmd(&["export", "sarif", "--run", "r-2", "-o", "x.sarif"])
        .run()
        .success();
}

/// A run that took one share of its SARIF input (`--partition`) exports every result of the
/// log: its own findings with the run's word on them, the other shares' copied through as the
/// analyzer wrote them (inputs/index.json places only the share's findings).
#[test]
fn export_sarif_of_a_partitioned_run_copies_the_other_shares_results_through() {
    let project = project_with_dismissals();
    let input: serde_json::Value =
        serde_json::from_str(&project.read("codeql.sarif")).expect("the fixture is SARIF");
    let results_in = |log: &serde_json::Value| -> usize {
        log["runs"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|run| run["results"].as_array().map_or(0, Vec::len))
            .sum()
    };
    for share in ["hash:1/2", "hash:2/2"] {
        project
            .cmd(&["start", "codeql.sarif", "--replace", "--partition", share])
            .run()
            .success();
        let out = project.cmd(&["export", "sarif"]).run().success();
        let exported: serde_json::Value =
            serde_json::from_str(&out.stdout).expect("SARIF on stdout");
        assert_eq!(results_in(&exported), results_in(&input), "{share}");
        let run = project.cmd(&["status", "--json"]).run().success().json();
        let index: serde_json::Value = serde_json::from_str(&project.read(&format!(
            ".self-repair/runs/{}/inputs/index.json",
            run["run"].as_str().expect("run id")
        )))
        .expect("index.json");
        let placed = index["inputs"][0]["findings"]
            .as_array()
            .expect("placements")
            .len();
        let unique = run["intake"]["unique"].as_u64().expect("unique findings") as usize;
        assert!(
            placed >= unique,
            "{share}: {placed} placed, {unique} in the run"
        );
        assert!(
            index["inputs"][0]["findings"]
                .as_array()
                .expect("placements")
                .iter()
                .all(|at| at[0].as_u64().is_some_and(|r| (r as usize) < unique)),
            "{share}: a placement names a record the run does not have: {index}"
        );
    }
}

/// Issue 36 item 1: a run started on the code scanning alerts themselves (`gh api --paginate`
/// output, two pages back to back) keeps each finding's alert number, and its dismissals are
/// printed by those numbers: nothing to look up, no jq.
#[test]
fn export_github_dismissals_of_a_run_over_alerts_dismisses_by_alert_number() {
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let read = |path: &str| std::fs::read_to_string(fixtures.join(path)).expect("fixture");
    let project = TestProject::new();
    project
        .write("mod.py", &read("formats/python-input-mod.py"))
        .write("alerts.json", &read("github-alerts/ruff-two-pages.json"));
    let started = project
        .cmd(&["start", "alerts.json", "--run-id", "r-1"])
        .run()
        .success();
    assert!(
        started
            .stdout
            .contains("read 2 finding(s) from alerts.json as github-alerts"),
        "{}",
        started.stdout
    );
    let index = project.read(".self-repair/runs/r-1/inputs/index.json");
    assert!(index.contains(r#""alerts":[12,10]"#), "{index}");
    for (item, verdict, reason) in [
        (
            "t-00001",
            "false_positive",
            "os is imported for its side effect",
        ),
        ("t-00002", "intended", "the comparison is on purpose"),
    ] {
        project
            .cmd(&[
                "known",
                "add",
                item,
                "--verdict",
                verdict,
                "--reason",
                reason,
            ])
            .run()
            .success();
    }
    project
        .cmd(&["start", "alerts.json", "--run-id", "r-2", "--replace"])
        .run()
        .success();
    let out = project
        .cmd(&["export", "github-dismissals", "--run", "r-2"])
        .run()
        .success();
    assert!(!out.stdout.contains("jq"), "{}", out.stdout);
    let settings = filters(&project);
    let _guard = settings.bind_to_scope();
    insta::assert_snapshot!("export_github_dismissals_by_alert_number", out.stdout);
}
