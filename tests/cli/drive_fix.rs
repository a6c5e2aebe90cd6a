//! `drive` on a fix queue (issue 26 item 5): `self-repair fix` from a terminal makes the queue,
//! `self-repair drive` runs it headless. The stand-in `claude` is a session made of the real
//! commands: it adopts the run its prompt names and stops through the real Stop hook, making
//! the fix each instruction asks for; the real client runs it in the e2e scenario `ci-recipe-fix`.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::harness::{Outcome, TestProject, binary};
use crate::verify_task::{fixed_run_project, ruff_now_without};
use self_repair_app::ExitStatus;

const NORMAL_STREAM: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/crates/drive/tests/fixtures/stream/normal.jsonl"
);

/// A stand-in `claude -p PROMPT ...`: logs the run its prompt adopts, adopts it, then stops up
/// to `$FAKE_TURNS` times through `self-repair hook stop`, going on while the hook's answer
/// keeps the session going (a block, or the Stop event's `additionalContext`); an answer that
/// asks for a task's fix attempt gets that task's fix (unless the task is
/// `$FAKE_SKIP`); with `$FAKE_CANCEL` set, the session cancels the run first, as a user would.
/// Prints a recorded stream and exits 0.
const FAKE_CLAUDE: &str = r#"#!/bin/sh
run=$(printf '%s\n' "$2" | sed -n 's/^\$ self-repair adopt --run //p')
echo "$run" >> adopted.log
export CLAUDE_CODE_SESSION_ID="fake-$$"
self-repair adopt --run "$run" > /dev/null || exit 1
[ -n "$FAKE_CANCEL" ] && self-repair cancel --run "$run" > /dev/null
turn=0
while [ "$turn" -lt "${FAKE_TURNS:-12}" ]; do
  turn=$((turn + 1))
  answer=$(printf '{"session_id":"%s","hook_event_name":"Stop","stop_hook_active":true,"cwd":"%s"}' "$CLAUDE_CODE_SESSION_ID" "$PWD" | self-repair hook stop)
  case "$answer" in *'"decision":"block"'* | *'"additionalContext"'*) ;; *) break ;; esac
  case "$answer" in
    *"verify-task task-1 "*FAILED*) [ "$FAKE_SKIP" = task-1 ] || { sed -i '/^import os$/d' mod.py; cp ruff-after-1.json ruff-now.json; } ;;
    *"verify-task task-2 "*FAILED*) [ "$FAKE_SKIP" = task-2 ] || { sed -i 's/x == None/x is None/' mod.py; cp ruff-after-2.json ruff-now.json; } ;;
  esac
done
cat "$FAKE_STREAM"
"#;

/// The triage run `r-fix` with its two tasks (F401, E711), the analyzer's output after each
/// fix, and the stand-in `claude`.
fn project_with_tasks() -> (TestProject, PathBuf) {
    let (project, _) = fixed_run_project();
    ruff_now_without(&project, &["F401"]);
    std::fs::rename(
        project.path().join("ruff-now.json"),
        project.path().join("ruff-after-1.json"),
    )
    .unwrap();
    ruff_now_without(&project, &["F401", "E711"]);
    std::fs::rename(
        project.path().join("ruff-now.json"),
        project.path().join("ruff-after-2.json"),
    )
    .unwrap();
    ruff_now_without(&project, &[]);
    project.write(".bin/claude", FAKE_CLAUDE);
    let claude = project.path().join(".bin/claude");
    std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755)).unwrap();
    (project, claude)
}

/// `self-repair drive ARGS` from a terminal, `self-repair` on the stand-in's PATH.
fn drive(project: &TestProject, claude: &Path, args: &[&str], env: &[(&str, &str)]) -> Outcome {
    let mut all = vec!["drive", "--claude", claude.to_str().unwrap()];
    all.extend_from_slice(args);
    let bin = binary();
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = project
        .terminal(&all)
        .env("PATH", path)
        .env("FAKE_STREAM", NORMAL_STREAM)
        .env("SELF_REPAIR_DRIVE_BACKOFF_SCALE", "0");
    for (key, value) in env {
        cmd = cmd.env(key, value);
    }
    cmd.run()
}

fn queue(project: &TestProject) -> Value {
    serde_json::from_str(&project.read(".self-repair/runs/r-fix/fix.json")).unwrap()
}

fn statuses(project: &TestProject) -> Vec<String> {
    queue(project)["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["status"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn drive_runs_the_fix_queue_across_sessions_each_adopting_the_running_tasks_repair_run() {
    let (project, claude) = project_with_tasks();
    project
        .terminal(&["fix", "--all", "--tiers", "main"])
        .run()
        .success();
    // Two stops a session: the first session fixes task 1 and ends as task 2's run starts,
    // bound to it; the second adopts that run from it and fixes task 2.
    let out = drive(&project, &claude, &[], &[("FAKE_TURNS", "2")]).success();
    assert!(
        out.stdout
            .starts_with("drive: the fix queue of run r-fix is complete after 2 sessions"),
        "{}",
        out.stdout
    );
    assert_eq!(statuses(&project), ["fixed", "fixed"]);
    assert_eq!(
        project.read("adopted.log"),
        "fix-r-fix-task-1-1\nfix-r-fix-task-2-1\n"
    );
    assert!(
        out.stderr.contains("phase fix task-1 attempt 0"),
        "{}",
        out.stderr
    );
    // Each session is a line of the triage run's drive log, progress counted by attempts.
    let log = project.read(".self-repair/runs/r-fix/drive.jsonl");
    let sessions: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v.get("event").is_none())
        .collect();
    assert_eq!(sessions.len(), 2, "{log}");
    assert!(sessions.iter().all(|s| s["progressed"] == true), "{log}");
    // Driving a finished queue again starts nothing.
    let again = drive(&project, &claude, &["r-fix"], &[]).success();
    assert!(
        again.stdout.contains("after 0 sessions"),
        "{}",
        again.stdout
    );
}

#[test]
fn a_fix_queue_that_ends_with_a_task_not_fixed_exits_6_as_fix_does() {
    let (project, claude) = project_with_tasks();
    project
        .terminal(&["fix", "--all", "--tiers", "main", "--max-attempts", "1"])
        .run()
        .success();
    let out = drive(&project, &claude, &[], &[("FAKE_SKIP", "task-2")]).code(ExitStatus::GaveUp);
    assert!(out.stdout.contains("[quarantined]"), "{}", out.stdout);
    assert_eq!(statuses(&project), ["fixed", "quarantined"]);
}

#[test]
fn sessions_that_never_fix_open_the_circuit_with_exit_21() {
    let (project, claude) = project_with_tasks();
    project
        .terminal(&["fix", "--all", "--tiers", "main"])
        .run()
        .success();
    // Sessions that adopt the run and end without a stop: no attempt asked, no task settled.
    let out = drive(&project, &claude, &[], &[("FAKE_TURNS", "0")]).code(ExitStatus::CircuitOpen);
    assert!(
        out.stdout
            .contains("stopped driving the fix queue of run r-fix")
            && out.stdout.contains("3 sessions in a row made no progress"),
        "{}",
        out.stdout
    );
    assert_eq!(statuses(&project), ["running", "open"]);
}

#[test]
fn fail_on_real_and_a_plain_check_run_are_refused_saying_what_drive_takes() {
    let (project, claude) = project_with_tasks();
    project
        .terminal(&["fix", "--all", "--tiers", "main"])
        .run()
        .success();
    let gate = drive(&project, &claude, &["--fail-on-real"], &[]).code(ExitStatus::Usage);
    assert!(
        gate.stderr.contains("exit 6 when a task is not fixed"),
        "{}",
        gate.stderr
    );
    project
        .terminal(&["cancel", "--run", "fix-r-fix-task-1-1"])
        .run()
        .success();
    // After a cancel the queue waits for the user: drive starts nothing (exit 22).
    let paused = drive(&project, &claude, &["r-fix"], &[]).code(ExitStatus::LimitReached);
    assert!(
        paused
            .stdout
            .contains("Run `self-repair fix --run r-fix`, then"),
        "{}",
        paused.stdout
    );
    // Not even the next task: the queue keeps the cancelled one and waits.
    assert_eq!(
        statuses(&project),
        ["quarantined", "open"],
        "{}",
        paused.stdout
    );
    // A repair run of `self-repair check` is not a fix queue's: `tick` drives it.
    project.terminal(&["check", "--", "false"]).run().success();
    let check = drive(&project, &claude, &[], &[]).code(ExitStatus::Usage);
    assert!(
        check
            .stderr
            .contains("a check goes on with `self-repair tick`"),
        "{}",
        check.stderr
    );
}

/// A cancel made inside a session (the user stopping the task's repair run) pauses the queue
/// for the user: once that session ends, `drive` starts no next task and exits 22, though the
/// cancel left no task running and the next one open.
#[test]
fn a_cancel_inside_a_session_leaves_the_next_task_for_the_user() {
    let (project, claude) = project_with_tasks();
    project
        .terminal(&["fix", "--all", "--tiers", "main"])
        .run()
        .success();
    let out = drive(&project, &claude, &["r-fix"], &[("FAKE_CANCEL", "1")]);
    assert_eq!(
        out.code,
        i32::from(ExitStatus::LimitReached.code()),
        "{}\n{}",
        out.stdout,
        out.stderr
    );
    assert_eq!(
        statuses(&project),
        ["quarantined", "open"],
        "{}",
        out.stdout
    );
    assert_eq!(project.read("adopted.log").lines().count(), 1);
}
