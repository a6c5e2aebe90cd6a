//! `verify-task`: the fix loop's composite check on a finished triage run of Ruff's real output:
//! the group's findings gone, the tests passing, and no weakened check (reference/fix.md).

use crate::harness::{Outcome, TestProject, filters};
use crate::pipeline::drive;
use crate::scripted_agent::ScriptedAgent;
use self_repair_app::ExitStatus;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/formats");

/// A git project with `mod.py`, a finished triage run of Ruff's real JSON on it (task 1: F401,
/// task 2: E711), a detector that prints `ruff-now.json` (the analyzer's output "now", written
/// by each test), and a test that fails while a file `broken` exists.
pub(crate) fn fixed_run_project() -> (TestProject, String) {
    let project = TestProject::new();
    let read = |name: &str| std::fs::read_to_string(format!("{FIXTURES}/{name}")).unwrap();
    project.write("mod.py", &read("python-input-mod.py"));
    project.write("ruff.json", &read("ruff-0.17.6.json"));
    project.write("tests/test_mod.py", "def test_used():\n    assert True\n");
    project.write(
        "pyproject.toml",
        "[project]\nname = \"demo\"\nversion = \"0.1.0\"\n",
    );
    project
        .cmd(&[
            "start",
            "ruff.json",
            "--run-id",
            "r-fix",
            "--base",
            "/home/dev/samples/py",
        ])
        .run()
        .success();
    let agent = ScriptedAgent {
        project: &project,
        run: "r-fix".into(),
    };
    drive(&project, &agent, "s1", usize::MAX);
    let state = crate::harness::run_state(&project, "r-fix");
    assert_eq!(state.tasks.len(), 2, "{:?}", state.tasks);
    assert_eq!(state.tasks[0].group, "g1");
    project.write(
        ".self-repair/config.json",
        r#"{"detectors": [{"name": "ruff", "argv": ["cat", "ruff-now.json"], "format": "ruff"}],
            "checks": {"test": {"command": ["test", "!", "-e", "broken"]}}}"#,
    );
    ruff_now(&project, None);
    git_repository(&project);
    (project, state.tasks[0].task_id.clone())
}

/// Makes the project a git repository of its own (the harness's `.git` placeholder removed)
/// with every file committed as `start`: what `fix` compares a task's changes with.
pub(crate) fn git_repository(project: &TestProject) {
    std::fs::remove_dir(project.path().join(".git")).unwrap();
    git(project, &["init", "-q"]);
    git(project, &["config", "user.name", "t"]);
    git(project, &["config", "user.email", "t@localhost"]);
    git(project, &["add", "-A"]);
    git(project, &["commit", "-qm", "start"]);
}

/// Writes Ruff's real output with the project's own path, without the entries of `fixed`.
pub(crate) fn ruff_now(project: &TestProject, fixed: Option<&str>) {
    ruff_now_without(project, fixed.as_slice());
}

/// Writes Ruff's real output with the project's own path, without the entries of `fixed` rules.
pub(crate) fn ruff_now_without(project: &TestProject, fixed: &[&str]) {
    let text = std::fs::read_to_string(format!("{FIXTURES}/ruff-0.17.6.json")).unwrap();
    let mut entries: Vec<serde_json::Value> = serde_json::from_str(&text.replace(
        "/home/dev/samples/py",
        &project.path().display().to_string(),
    ))
    .unwrap();
    entries.retain(|e| !fixed.contains(&e["code"].as_str().unwrap_or_default()));
    project.write(
        "ruff-now.json",
        &serde_json::to_string_pretty(&entries).unwrap(),
    );
}

pub(crate) fn git(project: &TestProject, args: &[&str]) {
    self_repair_test_support::git(project.path(), args);
}

/// The fixer's real edit for F401: the unused import removed.
pub(crate) fn remove_unused_import(project: &TestProject) {
    let text = project.read("mod.py").replacen("import os\n", "", 1);
    project.write("mod.py", &text);
    ruff_now(project, Some("F401"));
}

fn verify(project: &TestProject, task: &str, extra: &[&str]) -> Outcome {
    let mut args = vec!["verify-task", task, "--run", "r-fix"];
    args.extend(extra);
    project.cmd(&args).run()
}

#[test]
fn a_task_is_verified_once_the_analyzer_no_longer_reports_its_group_and_the_tests_pass() {
    let (project, task) = fixed_run_project();
    let before = verify(&project, &task, &[]).code(ExitStatus::GaveUp);
    assert!(
        before
            .stdout
            .contains("FAILED: 1 of the group's findings still reported"),
        "{}",
        before.stdout
    );
    remove_unused_import(&project);
    let after = verify(&project, &task, &[]).success();
    let settings = filters(&project);
    let _guard = settings.bind_to_scope();
    insta::assert_snapshot!("verify_task_passed", after.stdout);
    // The other task's finding (E711) is untouched: its check still fails.
    verify(&project, "task-2", &[]).code(ExitStatus::GaveUp);
}

#[test]
fn a_fix_that_breaks_a_test_is_not_verified() {
    let (project, task) = fixed_run_project();
    remove_unused_import(&project);
    project.write("broken", "");
    let out = verify(&project, &task, &[]).code(ExitStatus::GaveUp);
    assert!(
        out.stdout.contains("FAILED: the tests fail (exit 1)"),
        "{}",
        out.stdout
    );
}

#[test]
fn deleting_the_test_or_ignoring_the_rule_is_refused_as_a_pass() {
    let (project, task) = fixed_run_project();
    // The "fix" silences Ruff through the config instead of removing the import.
    project.write(
        "pyproject.toml",
        "[project]\nname = \"demo\"\nversion = \"0.1.0\"\n\n[tool.ruff.lint]\nignore = [\"F401\"]\n",
    );
    ruff_now(&project, Some("F401"));
    let ignored = verify(&project, &task, &[]).code(ExitStatus::GaveUp);
    let settings = filters(&project);
    let _guard = settings.bind_to_scope();
    insta::assert_snapshot!("verify_task_weakened", ignored.stdout);
    // Unless the group's decided fix is that configuration change.
    verify(&project, &task, &["--allow-config"]).success();

    // An inline suppression is configuration too.
    git(&project, &["checkout", "-q", "--", "pyproject.toml"]);
    let text = project
        .read("mod.py")
        .replacen("import os\n", "import os  # noqa: F401\n", 1);
    project.write("mod.py", &text);
    let noqa = verify(&project, &task, &[]).code(ExitStatus::GaveUp);
    assert!(
        noqa.stdout
            .contains("weakened: mod.py: inline suppression added (`# noqa`)"),
        "{}",
        noqa.stdout
    );

    // Deleting the failing test is never a fix, configuration allowed or not.
    git(&project, &["checkout", "-q", "--", "mod.py"]);
    remove_unused_import(&project);
    std::fs::remove_file(project.path().join("tests/test_mod.py")).unwrap();
    let deleted = verify(&project, &task, &["--allow-config"]).code(ExitStatus::GaveUp);
    assert!(
        deleted
            .stdout
            .contains("weakened: tests/test_mod.py: test file deleted"),
        "{}",
        deleted.stdout
    );
}

#[test]
fn a_detector_that_does_not_report_the_group_before_any_change_proves_nothing() {
    let (project, task) = fixed_run_project();
    ruff_now(&project, Some("F401"));
    git(
        &project,
        &["commit", "-qam", "the detector no longer selects F401"],
    );
    let out = verify(&project, &task, &[]).code(ExitStatus::GaveUp);
    assert!(
        out.stdout.contains("FAILED: not reproduced: nothing changed since the base, yet the detector does not report 1 of the group's findings"),
        "{}",
        out.stdout
    );
}

/// Found by a review: a findings file kept untracked in the project (`start ruff.json` in the
/// root) counted as a file the fix added, so a task with no change at all looked changed,
/// and its detector's silence passed it.
#[test]
fn the_findings_file_the_run_read_is_never_a_change_of_the_fix() {
    let (project, task) = fixed_run_project();
    git(&project, &["rm", "-q", "--cached", "ruff.json"]);
    ruff_now(&project, Some("F401"));
    git(
        &project,
        &[
            "commit",
            "-qam",
            "ruff.json untracked; F401 no longer selected",
        ],
    );
    assert!(project.path().join("ruff.json").is_file());
    let out = verify(&project, &task, &[]).code(ExitStatus::GaveUp);
    assert!(
        out.stdout.contains("files changed: none")
            && out
                .stdout
                .contains("FAILED: not reproduced: nothing changed since the base"),
        "{}",
        out.stdout
    );
}

#[test]
fn an_unknown_task_names_the_run_s_tasks() {
    let (project, _) = fixed_run_project();
    let out = verify(&project, "task-99", &[]).code(ExitStatus::NotFound);
    assert!(
        out.stderr
            .contains("no task `task-99` in run r-fix: its tasks are task-1, task-2"),
        "{}",
        out.stderr
    );
}

/// A detector whose output cannot be read is an error that names it, never a detector that
/// found nothing (which would prove the fix); one that prints nothing found nothing.
#[test]
fn a_detector_output_that_cannot_be_read_is_an_error_and_an_empty_one_is_no_finding() {
    let (project, task) = fixed_run_project();
    project.write("ruff-now.json", "ruff: error: unrecognized arguments\n");
    let out = verify(&project, &task, &[]).code(ExitStatus::Usage);
    assert!(
        out.stderr
            .contains("detector `ruff`: its output cannot be read"),
        "{}",
        out.stderr
    );
    // Printing nothing is the analyzer's way to say it found nothing: the group is gone.
    project.write("ruff-now.json", "\n");
    let empty = verify(&project, &task, &[]).success();
    assert!(
        empty
            .stdout
            .contains("analyzer (ruff): 1 of 1 finding(s) of the group gone"),
        "{}",
        empty.stdout
    );
}
