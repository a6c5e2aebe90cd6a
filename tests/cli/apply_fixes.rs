//! `apply-fixes`: the fix loop's tool-agnostic autofix. Clippy's real machine-applicable
//! suggestions and Ruff's real SARIF fixes (marked safe), kept at `start` with the text they
//! expect, applied by self-repair itself as a task's autofix step: the task is fixed and Done
//! with no model called (reference/fix.md).

use self_repair_engine::RunState;
use serde_json::Value;

use crate::harness::{TestProject, filters};
use crate::pipeline::drive;
use crate::scripted_agent::ScriptedAgent;
use crate::verify_task::git_repository;
use self_repair_app::ExitStatus;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/formats");

fn read_fixture(name: &str) -> String {
    std::fs::read_to_string(format!("{FIXTURES}/{name}")).unwrap()
}

/// Run `run` started on `input` and triaged to its end by the scripted agent.
fn triaged(project: &TestProject, input: &str, run: &str) -> RunState {
    project
        .cmd(&["start", input, "--run-id", run])
        .run()
        .success();
    let agent = ScriptedAgent {
        project,
        run: run.into(),
    };
    drive(project, &agent, "s1", usize::MAX);
    crate::harness::run_state(project, run)
}

/// A git project with `src/main.rs` (the input clippy 1.95 ran on) and a finished triage run of
/// the lines of clippy's real output for its two machine-applicable lints (`useless_vec`,
/// `len_zero`): one group, task 1, written by code. The detector prints each lint's line while
/// `src/main.rs` still has the code it flags, as clippy would.
fn clippy_project() -> TestProject {
    let project = clippy_project_outside_git();
    git_repository(&project);
    project
}

/// [`clippy_project`] in a folder that is not a git work tree.
fn clippy_project_outside_git() -> TestProject {
    let project = TestProject::new();
    project.write("src/main.rs", &read_fixture("rust-input-main.rs"));
    let mut fixable = read_fixture("cargo-clippy-1.95.jsonl")
        .lines()
        .filter(|line| line.contains("clippy::useless_vec") || line.contains("clippy::len_zero"))
        .collect::<Vec<_>>()
        .join("\n");
    fixable.push('\n');
    assert_eq!(fixable.lines().count(), 2);
    project.write("clippy.jsonl", &fixable);
    let state = triaged(&project, "clippy.jsonl", "r-clippy");
    assert_eq!(state.tasks.len(), 1, "{:?}", state.tasks);
    assert_eq!(state.groups[0].depth.as_str(), "analyzer_fix");
    for (rule, flagged) in [
        ("useless_vec", "vec!\\[1, 2, 3\\]"),
        ("len_zero", "v.len() == 0"),
    ] {
        let line = fixable.lines().find(|l| l.contains(rule)).unwrap();
        project.write(&format!("clippy-{rule}.jsonl"), &format!("{line}\n"));
        project.write(
            &format!("bin/clippy-{rule}"),
            &format!("grep -q '{flagged}' src/main.rs && cat clippy-{rule}.jsonl\n"),
        );
    }
    project.write(
        "bin/clippy",
        "#!/bin/sh\nsh bin/clippy-useless_vec\nsh bin/clippy-len_zero\nexit 0\n",
    );
    project.write(
        ".self-repair/config.json",
        r#"{"detectors": [{"name": "clippy", "argv": ["sh", "bin/clippy"], "format": "clippy"}],
            "checks": {"test": {"command": ["test", "!", "-e", "broken"]}}}"#,
    );
    project
}

const FIXED_MAIN: &str = "fn unused_fn() -> i32 { 1 }\n\nfn main() {\n    let v = [1, 2, 3];\n    let n = v.is_empty();\n    println!(\"{n}\");\n}\n";

#[test]
fn a_group_of_clippy_s_machine_applicable_fixes_is_fixed_by_apply_fixes_with_no_model_call() {
    let project = clippy_project();
    let findings = project.read(".self-repair/runs/r-clippy/findings.json");
    assert!(
        findings.contains(r#""replacement":"v.is_empty()""#),
        "{findings}"
    );
    let out = project
        .cmd(&["fix", "--all", "--tiers", "main", "--commit"])
        .run()
        .success();
    assert!(
        out.stdout.contains("task-1: fixed (0 attempt(s))")
            && out.stdout.contains("fix done: 1 of 1 task(s) fixed"),
        "{}",
        out.stdout
    );
    assert_eq!(project.read("src/main.rs"), FIXED_MAIN);
    let queue: Value =
        serde_json::from_str(&project.read(".self-repair/runs/r-clippy/fix.json")).unwrap();
    let task = project.read(queue["tasks"][0]["file"].as_str().unwrap());
    assert!(
        task.contains("status: Done")
            && task.contains("tiers: autofix.")
            && task.contains("apply-fixes task-1 --run r-clippy"),
        "{task}"
    );
    // No attempt: the hook has nothing to drive, no model was asked.
    assert!(project.stop("s2", &[]).stdout.is_empty());
}

#[test]
fn apply_fixes_skips_an_edit_whose_text_changed_and_exits_6() {
    let project = clippy_project();
    // The `len_zero` line was edited since clippy ran; the `vec!` line was not.
    let main = project.read("src/main.rs");
    project.write(
        "src/main.rs",
        &main.replace("v.len() == 0", "v.len() == 0 || false"),
    );
    let out = project
        .cmd(&["apply-fixes", "task-1", "--run", "r-clippy"])
        .run()
        .code(ExitStatus::GaveUp);
    assert_eq!(
        project.read("src/main.rs"),
        main.replace("vec![1, 2, 3]", "[1, 2, 3]")
            .replace("v.len() == 0", "v.len() == 0 || false")
    );
    let settings = filters(&project);
    let _guard = settings.bind_to_scope();
    insta::assert_snapshot!("apply_fixes_stale_edit", out.stdout);

    let out = project
        .cmd(&["apply-fixes", "task-9", "--run", "r-clippy"])
        .run()
        .code(ExitStatus::NotFound);
    assert!(out.stderr.contains("task-9"), "{}", out.stderr);
}

#[test]
fn apply_fixes_outside_a_git_work_tree_is_refused_like_fix_and_writes_nothing() {
    let project = clippy_project_outside_git();
    let main = project.read("src/main.rs");
    let out = project
        .cmd(&["apply-fixes", "task-1", "--run", "r-clippy"])
        .run()
        .code(ExitStatus::Usage);
    assert_eq!(project.read("src/main.rs"), main);
    let settings = filters(&project);
    let _guard = settings.bind_to_scope();
    insta::assert_snapshot!("apply_fixes_outside_git", out.stderr);
    // `fix` refuses the same folder with the same shape of message and the same exit code.
    let fix = project
        .cmd(&["fix", "--all", "--tiers", "main"])
        .run()
        .code(ExitStatus::Usage);
    let shape = "needs a git work tree with a commit: ";
    assert!(
        out.stderr
            .starts_with("self-repair: `apply-fixes` needs a git work tree with a commit: ")
            && fix.stderr.contains(&format!("self-repair: `fix` {shape}"))
            && out.stderr.contains("(`git init`, `git commit`); ")
            && fix
                .stderr
                .trim_end()
                .ends_with("(`git init`, `git commit`)"),
        "apply-fixes: {}\nfix: {}",
        out.stderr,
        fix.stderr
    );
    assert_eq!(project.read("src/main.rs"), main);
}

#[test]
fn apply_fixes_dry_run_prints_the_diff_and_changes_nothing_in_git_or_outside_it() {
    for project in [clippy_project(), clippy_project_outside_git()] {
        let main = project.read("src/main.rs");
        let out = project
            .cmd(&["apply-fixes", "task-1", "--run", "r-clippy", "--dry-run"])
            .run()
            .success();
        assert_eq!(project.read("src/main.rs"), main);
        let settings = filters(&project);
        let _guard = settings.bind_to_scope();
        insta::assert_snapshot!("apply_fixes_dry_run", out.stdout);
    }
    // A stale edit: the dry run says so and exits 6, as the real run would.
    let project = clippy_project();
    let main = project.read("src/main.rs");
    let stale = main.replace("v.len() == 0", "v.len() == 0 || false");
    project.write("src/main.rs", &stale);
    let out = project
        .cmd(&["apply-fixes", "task-1", "--run", "r-clippy", "--dry-run"])
        .run()
        .code(ExitStatus::GaveUp);
    assert_eq!(project.read("src/main.rs"), stale);
    assert!(
        out.stdout
            .contains("DRY RUN: 1 of 2 finding(s)' fixes would apply; nothing was written"),
        "{}",
        out.stdout
    );
}

/// Ruff's real SARIF for `mod.py` with both fixes marked safe in their property bags (SARIF
/// states no applicability) and its URIs relative to the project; `keep` selects the results.
fn ruff_sarif(keep: &[&str]) -> String {
    let mut log: Value = serde_json::from_str(&read_fixture("ruff-0.17.6.sarif")).unwrap();
    let text = log.to_string().replace("file:///home/dev/samples/py/", "");
    log = serde_json::from_str(&text).unwrap();
    let results = log["runs"][0]["results"].as_array_mut().unwrap();
    results.retain(|r| keep.contains(&r["ruleId"].as_str().unwrap()));
    for result in results.iter_mut() {
        result["fixes"][0]["properties"] = serde_json::json!({"applicability": "safe"});
    }
    log.to_string()
}

#[test]
fn sarif_fixes_marked_safe_are_applied_by_apply_fixes_with_no_model_call() {
    let project = TestProject::new();
    project.write("mod.py", &read_fixture("python-input-mod.py"));
    project.write("ruff.sarif", &ruff_sarif(&["F401", "E711"]));
    let state = triaged(&project, "ruff.sarif", "r-sarif");
    assert_eq!(state.tasks.len(), 2, "{:?}", state.tasks);
    assert!(
        state
            .groups
            .iter()
            .all(|g| g.depth.as_str() == "analyzer_fix")
    );
    // The detector reports each result while `mod.py` still has the code it flags.
    for (name, keep) in [
        ("both", &["F401", "E711"][..]),
        ("f401", &["F401"][..]),
        ("e711", &["E711"][..]),
        ("none", &[][..]),
    ] {
        project.write(&format!("sarif/{name}.sarif"), &ruff_sarif(keep));
    }
    project.write(
        "bin/detect",
        "#!/bin/sh\nf=0; e=0\ngrep -q '^import os' mod.py && f=1\ngrep -q 'x == None' mod.py && e=1\n\
         case $f$e in 11) cat sarif/both.sarif ;; 10) cat sarif/f401.sarif ;; 01) cat sarif/e711.sarif ;; *) cat sarif/none.sarif ;; esac\n",
    );
    project.write(
        ".self-repair/config.json",
        r#"{"detectors": [{"name": "ruff-sarif", "argv": ["sh", "bin/detect"], "format": "sarif"}],
            "checks": {"test": {"command": ["test", "!", "-e", "broken"]}}}"#,
    );
    git_repository(&project);

    let out = project
        .cmd(&["fix", "--all", "--tiers", "main"])
        .run()
        .success();
    assert!(
        out.stdout.contains("fix done: 2 of 2 task(s) fixed")
            && out.stdout.matches("fixed (0 attempt(s))").count() == 2,
        "{}",
        out.stdout
    );
    let original = read_fixture("python-input-mod.py");
    assert_eq!(
        project.read("mod.py"),
        original
            .replacen("import os\n", "", 1)
            .replace("x == None", "x is None")
    );
    assert!(project.stop("s2", &[]).stdout.is_empty(), "no model asked");
}

#[test]
fn fix_outside_a_git_work_tree_is_refused_before_any_detector_runs() {
    let project = clippy_project_outside_git();
    // The detector leaves a mark when it runs: outside git it must never run (before, `fix`
    // ran every detector and only then found there was no commit to guard the change with).
    project.write(
        "bin/clippy",
        "#!/bin/sh\ntouch detector-ran\nsh bin/clippy-useless_vec\nsh bin/clippy-len_zero\nexit 0\n",
    );
    let out = project
        .cmd(&["fix", "--all", "--tiers", "main"])
        .run()
        .code(ExitStatus::Usage);
    assert!(
        out.stderr
            .contains("self-repair: `fix` needs a git work tree with a commit: "),
        "{}",
        out.stderr
    );
    assert!(
        !project.path().join("detector-ran").exists(),
        "a detector ran before the git check"
    );
}
