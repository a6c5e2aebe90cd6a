//! Microsoft's SARIF Multitool (`validate`, npm `@microsoft/sarif-multitool`) on what
//! `export sarif` writes for real runs (issue 26): one over the SARIF the real Ruff writes for
//! Jinja2 3.1.6 (tests/fixtures/corpus), one over the CodeQL-style log; 0 errors each, and the
//! export fed back to `start` reads no dismissed finding. Compiled with the feature
//! `real-tools` only (scripts/e2e.sh runs it); Ruff and the Multitool come from
//! scripts/install-tools.sh, and a missing one fails the test: it is never skipped.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::export::project_with_dismissals;
use crate::harness::TestProject;

/// A binary `scripts/install-tools.sh --print-env` names (`export NAME=...`).
pub(crate) fn installed(name: &str) -> PathBuf {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/install-tools.sh");
    let out = Command::new("bash")
        .arg(&script)
        .arg("--print-env")
        .output()
        .expect("run scripts/install-tools.sh");
    assert!(
        out.status.success(),
        "scripts/install-tools.sh failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let prefix = format!("export {name}=");
    let value = text
        .lines()
        .find_map(|l| l.strip_prefix(prefix.as_str()))
        .unwrap_or_else(|| panic!("{name} in --print-env output:\n{text}"));
    PathBuf::from(value.trim_matches('"').trim_matches('\''))
}

/// `Sarif.Multitool validate FILE`: the messages of its log, errors and the rest.
fn validate(file: &Path) -> (Vec<String>, Vec<String>) {
    let log = file.with_extension("validation.sarif");
    let out = Command::new(installed("SARIF_MULTITOOL_BIN"))
        .arg("validate")
        .arg(file)
        .arg("--output")
        .arg(&log)
        .env("DOTNET_CLI_TELEMETRY_OPTOUT", "1")
        .output()
        .expect("run the SARIF Multitool");
    let text = std::fs::read_to_string(&log).unwrap_or_else(|_| {
        panic!(
            "the Multitool wrote no log (exit {:?}): {}{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let log: Value = serde_json::from_str(&text).expect("the Multitool's log is JSON");
    let mut errors = Vec::new();
    let mut others = Vec::new();
    for result in log["runs"][0]["results"].as_array().into_iter().flatten() {
        let line = format!("{} {}", result["ruleId"], result["message"]);
        // SARIF's default level is `warning`.
        if result["level"] == "error" {
            errors.push(line);
        } else {
            others.push(line);
        }
    }
    (errors, others)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Counts of `start --dry-run`'s first line: `read N finding(s) from FILE as FORMAT`.
fn findings_read(project: &TestProject, file: &str) -> usize {
    let out = project.cmd(&["start", file, "--dry-run"]).run().success();
    out.stdout
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in: {}", out.stdout))
}

#[test]
fn multitool_validates_the_export_of_a_run_over_real_ruff_sarif() {
    let project = TestProject::new();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/corpus/jinja2-3.1.6/src"),
        &project.path().join("src"),
    );
    let ruff = Command::new(installed("RUFF_BIN"))
        .args([
            "check",
            "--select",
            "ALL",
            "--isolated",
            "--no-fix",
            "--no-cache",
        ])
        .args(["--output-format", "sarif", "src"])
        .current_dir(project.path())
        .output()
        .expect("run ruff");
    assert_eq!(ruff.status.code(), Some(1), "ruff found nothing?");
    project.write("ruff.sarif", &String::from_utf8_lossy(&ruff.stdout));
    let read = findings_read(&project, "ruff.sarif");
    assert!(read > 2_000, "ruff reported {read} findings");
    project
        .cmd(&["start", "ruff.sarif", "--run-id", "r-1"])
        .run()
        .success();
    for (item, verdict) in [("t-00001", "false_positive"), ("t-00002", "intended")] {
        project
            .cmd(&[
                "known",
                "add",
                item,
                "--verdict",
                verdict,
                "--reason",
                "decided here",
            ])
            .run()
            .success();
    }
    project
        .cmd(&["start", "ruff.sarif", "--run-id", "r-2", "--replace"])
        .run()
        .success();
    project
        .cmd(&["export", "sarif", "--run", "r-2", "-o", "export.sarif"])
        .run()
        .success();
    let exported: Value =
        serde_json::from_str(&project.read("export.sarif")).expect("the export is JSON");
    let dismissed = exported["runs"][0]["results"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| r["suppressions"][0]["status"] == "accepted")
        .count();
    assert!(dismissed >= 2, "{dismissed} results dismissed");
    let (errors, others) = validate(&project.path().join("export.sarif"));
    assert!(errors.is_empty(), "{} errors: {errors:#?}", errors.len());
    eprintln!(
        "Ruff SARIF export: {read} results, {dismissed} dismissed; Multitool: 0 errors, {} warnings",
        others.len()
    );
    assert_eq!(findings_read(&project, "export.sarif"), read - dismissed);
}

#[test]
fn multitool_validates_the_export_of_a_run_over_codeql_style_sarif() {
    let project = project_with_dismissals();
    project
        .cmd(&["export", "sarif", "--run", "r-2", "-o", "export.sarif"])
        .run()
        .success();
    let (errors, others) = validate(&project.path().join("export.sarif"));
    assert!(errors.is_empty(), "{} errors: {errors:#?}", errors.len());
    eprintln!(
        "CodeQL-style export: Multitool: 0 errors, {} warnings",
        others.len()
    );
}
