//! `pull-requests`: after `fix --commit`, each fixed task as its own branch and draft pull
//! request through a scripted `gh` that records its calls and answers `pr list` from the pull
//! requests it opened; a rerun edits them and opens none (reference/fix.md).

use std::path::Path;

use serde_json::{Value, json};

use crate::harness::{TestProject, filters};
use crate::pipeline::drive;
use crate::scripted_agent::ScriptedAgent;
use crate::verify_task::{git, git_repository, remove_unused_import, ruff_now, ruff_now_without};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/formats");

/// The scripted GitHub CLI: every call appended to `$GH_SHIM_DIR/calls.log` (each argument cut to
/// 60 characters, on one line), the body of each `pr create`/`pr edit` kept as `body-N.md`, and
/// `pr list --head BRANCH` answered from the branches `pr create` saw (`prs`, one a line: the
/// line number is the pull request's number).
pub(crate) const GH_SHIM: &str = r#"#!/bin/sh
state="$GH_SHIM_DIR"
{ printf 'gh'; for a in "$@"; do printf ' %s' "$(printf '%s' "$a" | head -c 60 | tr '\n' ' ')"; done; printf '\n'; } >> "$state/calls.log"
eval "body=\${$#}"
case "$1 $2" in
  "pr list")
    n=$(grep -F -x -n -- "$4" "$state/prs" 2>/dev/null | head -n 1 | cut -d: -f1)
    if [ -n "$n" ]; then printf '[{"number":%s,"url":"https://github.com/o/r/pull/%s"}]\n' "$n" "$n"; else echo '[]'; fi ;;
  "pr create")
    echo "$5" >> "$state/prs"
    n=$(wc -l < "$state/prs" | tr -d ' ')
    printf '%s\n' "$body" > "$state/body-$n.md"
    echo "https://github.com/o/r/pull/$n" ;;
  "pr edit")
    printf '%s\n' "$body" > "$state/body-$3.md"
    echo "https://github.com/o/r/pull/$3" ;;
  *) echo "scripted gh: unexpected call: $*" >&2; exit 1 ;;
esac
"#;

/// Installs [`GH_SHIM`] as `gh` in `dir`.
pub(crate) fn install_gh_shim(dir: &Path) {
    let gh = dir.join("gh");
    std::fs::write(&gh, GH_SHIM).unwrap();
    let mut mode = std::fs::metadata(&gh).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut mode, 0o755);
    std::fs::set_permissions(&gh, mode).unwrap();
}

/// A finished triage run of Ruff's real output plus one more finding (S602 at mod.py:10), so
/// three tasks: F401, E711, S602. The detector never reports S602: its task is not reproduced,
/// so not fixed.
fn three_task_project() -> TestProject {
    let project = TestProject::new();
    let read = |name: &str| std::fs::read_to_string(format!("{FIXTURES}/{name}")).unwrap();
    project.write("mod.py", &read("python-input-mod.py"));
    let mut entries: Vec<Value> = serde_json::from_str(&read("ruff-0.17.6.json")).unwrap();
    let mut shell = entries[0].clone();
    shell["code"] = json!("S602");
    shell["name"] = json!("subprocess-popen-with-shell-equals-true");
    shell["message"] = json!("`subprocess` call with `shell=True` identified, security issue");
    shell["fix"] = Value::Null;
    shell["location"] = json!({"column": 5, "row": 10});
    shell["end_location"] = json!({"column": 15, "row": 10});
    shell["noqa_row"] = json!(10);
    entries.push(shell);
    project.write(
        "ruff.json",
        &serde_json::to_string_pretty(&entries).unwrap(),
    );
    project.write("tests/test_mod.py", "def test_used():\n    assert True\n");
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
    let titles: Vec<&str> = state.tasks.iter().map(|t| t.title.as_str()).collect();
    assert_eq!(titles.len(), 3, "{titles:?}");
    project.write(
        ".self-repair/config.json",
        r#"{"detectors": [{"name": "ruff", "argv": ["cat", "ruff-now.json"], "format": "ruff"}],
            "checks": {"test": {"command": ["test", "!", "-e", "broken"]}}}"#,
    );
    ruff_now(&project, None);
    git_repository(&project);
    // The analyzer's output "now" is not the project's: the fix commits leave it out.
    git(&project, &["rm", "-q", "--cached", "ruff-now.json"]);
    let exclude = project.path().join(".git/info/exclude");
    std::fs::write(&exclude, "ruff-now.json\n").unwrap();
    git(&project, &["commit", "-qm", "untrack ruff-now.json"]);
    project
}

/// Drives `fix --all --commit` with stops: task 1 (F401) and task 2 (E711) fixed by the
/// scripted fixer's edits, task 3 (S602) not reproduced.
fn fix_two_of_three(project: &TestProject) {
    project
        .cmd(&["fix", "--all", "--tiers", "main", "--commit"])
        .run()
        .success();
    project.stop("s1", &[]);
    remove_unused_import(project);
    project.stop("s1", &[]);
    project.stop("s1", &[]);
    let text = project.read("mod.py").replace("x == None", "x is None");
    project.write("mod.py", &text);
    ruff_now_without(project, &["F401", "E711"]);
    let ended = project.stop("s1", &[]);
    assert!(
        ended.stdout.contains("fix done: 2 of 3 task(s) fixed"),
        "{}",
        ended.stdout
    );
}

#[test]
fn two_fixed_tasks_of_three_open_two_draft_pull_requests_and_a_rerun_edits_them() {
    let project = three_task_project();
    // The remote the branches go to, its `main` the commit the fix started from.
    let remote = tempfile::tempdir().unwrap();
    git(
        &project,
        &["init", "-q", "--bare", &remote.path().display().to_string()],
    );
    git(
        &project,
        &[
            "remote",
            "add",
            "origin",
            &remote.path().display().to_string(),
        ],
    );
    git(&project, &["push", "-q", "-u", "origin", "HEAD:main"]);
    fix_two_of_three(&project);

    let shim = tempfile::tempdir().unwrap();
    install_gh_shim(shim.path());
    let path = format!(
        "{}:{}",
        shim.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let publish = || {
        project
            .cmd(&["pull-requests"])
            .env("PATH", &path)
            .env("GH_SHIM_DIR", shim.path())
            .run()
            .success()
    };
    let first = publish();
    let mut settings = filters(&project);
    settings.add_filter(r"\([0-9a-f]{7} on origin\)", "([BASE] on origin)");
    settings.bind(|| insta::assert_snapshot!("pull_requests_first_run", first.stdout));
    let calls = std::fs::read_to_string(shim.path().join("calls.log")).unwrap();
    let creates: Vec<&str> = calls
        .lines()
        .filter(|l| l.starts_with("gh pr create --draft"))
        .collect();
    assert_eq!(creates.len(), 2, "{calls}");
    assert!(
        creates[0].contains("--head self-repair/r-fix/task-1 --base main"),
        "{calls}"
    );
    assert!(
        creates[1].contains("--head self-repair/r-fix/task-2 --base main"),
        "{calls}"
    );
    assert!(
        !calls.contains("task-3") && !calls.contains("pr edit"),
        "{calls}"
    );

    // Each branch is its task's change alone on main, the task file left out.
    let main = crate::harness::git(project.path(), &["rev-parse", "origin/main"]);
    for (n, rule) in [(1, "F401"), (2, "E711")] {
        let branch = format!("self-repair/r-fix/task-{n}");
        let remote_path = remote.path();
        let parent = crate::harness::git(remote_path, &["rev-parse", &format!("{branch}^")]);
        assert_eq!(parent, main, "{branch} starts at main");
        let files = crate::harness::git(remote_path, &["diff", "--name-only", "main", &branch]);
        assert!(files.lines().any(|f| f == "mod.py"), "{files}");
        assert!(!files.contains("backlog/"), "{files}");
        let body = std::fs::read_to_string(shim.path().join(format!("body-{n}.md"))).unwrap();
        assert!(
            body.contains("## Verification")
                && body.contains(&format!(
                    "`self-repair verify-task task-{n} --run r-fix --base "
                ))
                && body.contains("PASSED")
                && body.contains("The tests: `test '!' -e broken`")
                && body.contains(&format!("| ruff | {rule} | `mod.py:")),
            "{body}"
        );
    }
    assert!(
        crate::harness::git(
            remote.path(),
            &["branch", "--list", "self-repair/r-fix/task-3"]
        )
        .is_empty()
    );

    // Again: the same branches pushed, the two pull requests edited, none opened.
    let second = publish();
    assert!(
        second.stdout.contains("task-1: pull request #1 updated")
            && second.stdout.contains("task-2: pull request #2 updated"),
        "{}",
        second.stdout
    );
    let calls = std::fs::read_to_string(shim.path().join("calls.log")).unwrap();
    assert_eq!(calls.matches("gh pr create").count(), 2, "{calls}");
    assert_eq!(calls.matches("gh pr edit").count(), 2, "{calls}");
    assert!(calls.contains("gh pr edit 1 --title") && calls.contains("gh pr edit 2 --title"));
}

#[test]
fn a_run_without_a_fix_queue_says_to_fix_first() {
    let project = three_task_project();
    let out = project
        .cmd(&["pull-requests", "--base", "main"])
        .run()
        .code(self_repair_app::ExitStatus::NotFound);
    assert!(
        out.stderr
            .contains("run r-fix has no fix queue: run `self-repair fix --commit`"),
        "{}",
        out.stderr
    );
}
