//! `self-repair fix`: a triage run's tasks fixed one at a time, each a repair run driven by the
//! Stop hook and checked by `verify-task`; the task files updated, one commit per task.

use serde_json::Value;

use crate::harness::{Outcome, TestProject};
use crate::verify_task::{fixed_run_project, git, remove_unused_import, ruff_now_without};
use self_repair_app::ExitStatus;

fn answer(out: &Outcome) -> Value {
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout))
}

/// The instruction that keeps the session going: the Stop event's `additionalContext`, never
/// a `decision: block` (which the client shows as "Stop hook reported a problem").
fn block_reason(out: &Outcome) -> String {
    let a = answer(out);
    assert_eq!(a.get("decision"), None, "{a}");
    self_repair_engine::continuation(&a)
        .unwrap_or_else(|| panic!("the session is not kept going: {a}"))
        .to_owned()
}

fn queue(project: &TestProject) -> Value {
    serde_json::from_str(&project.read(".self-repair/runs/r-fix/fix.json")).unwrap()
}

#[test]
fn fix_all_fixes_each_task_in_turn_updates_the_task_files_and_commits_each() {
    let (project, _) = fixed_run_project();
    let out = project
        .cmd(&["fix", "--all", "--tiers", "main", "--commit"])
        .run()
        .success();
    assert!(
        out.stdout
            .contains("self-repair fix, run r-fix: 2 task(s) in order: task-1, task-2"),
        "{}",
        out.stdout
    );
    assert_eq!(queue(&project)["tasks"][0]["status"], "running");

    // Attempt 1 of task 1: the feedback is verify-task's report, which names the task file.
    let reason = block_reason(&project.stop("s1", &[]));
    assert!(
        reason.contains("FAILED: 1 of the group's findings still reported")
            && reason.contains("task: backlog/tasks/task-1"),
        "{reason}"
    );
    remove_unused_import(&project);
    // The recheck passes: task 1 is done and committed, task 2's run starts at once.
    let ended = answer(&project.stop("s1", &[]));
    let note = ended["systemMessage"].as_str().unwrap();
    assert!(
        note.contains("self-repair fix: task-1: fixed (1 attempt(s))")
            && note.contains("task-2: repair run fix-r-fix-task-2-1 started"),
        "{ended}"
    );
    assert_eq!(queue(&project)["tasks"][0]["status"], "fixed");
    assert_eq!(queue(&project)["tasks"][1]["status"], "running");

    // Task 2 (E711): the next stop asks its first attempt.
    let reason = block_reason(&project.stop("s1", &[]));
    assert!(reason.contains("verify-task task-2"), "{reason}");
    let text = project.read("mod.py").replace("x == None", "x is None");
    project.write("mod.py", &text);
    ruff_now_without(&project, &["F401", "E711"]);
    let ended = answer(&project.stop("s1", &[]));
    assert!(
        ended["systemMessage"]
            .as_str()
            .unwrap()
            .contains("fix done: 2 of 2 task(s) fixed"),
        "{ended}"
    );

    // One commit per task, never a push; the task files say Done with their criteria ticked.
    let log = crate::harness::git(project.path(), &["log", "--format=%s"]);
    let subjects: Vec<&str> = log.lines().collect();
    assert_eq!(subjects.len(), 3, "{log}");
    assert!(subjects[0].starts_with("fix: TASK-2 "), "{log}");
    assert!(
        subjects[1].starts_with("fix: TASK-1 Apply ruff's safe fixes for F401"),
        "{log}"
    );
    // The real Backlog.md CLI reads both as Done (feature `real-tools`, run by `just e2e`).
    #[cfg(feature = "real-tools")]
    {
        let listed = crate::backlog_cli::backlog_task_list(project.path());
        let statuses: Vec<&str> = listed["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["status"].as_str().unwrap())
            .collect();
        assert_eq!(statuses, ["Done", "Done"], "{listed}");
    }
    let task1 = project.read(queue(&project)["tasks"][0]["file"].as_str().unwrap());
    assert!(
        task1.contains("- [x] #1 `ruff check --select F401 mod.py`"),
        "{task1}"
    );
    assert!(
        task1.contains("- [x] #2 The project's tests pass"),
        "{task1}"
    );
    assert!(task1.contains("## Implementation Notes"), "{task1}");
    // `status` and report.md show each task's outcome.
    let status = project.cmd(&["status", "--run", "r-fix"]).run().success();
    assert_eq!(
        status.stdout.matches("[fixed]").count(),
        2,
        "{}",
        status.stdout
    );
    let json = project
        .cmd(&["status", "--run", "r-fix", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(json["fixes"][1]["status"], "fixed", "{json}");
    let report = project.read(".self-repair/runs/r-fix/report.md");
    assert_eq!(
        report.matches("## Fixes (`self-repair fix`)").count(),
        1,
        "{report}"
    );
    assert!(
        report.contains("| task-1 | Apply ruff's safe fixes for F401 (1 finding) | fixed (commit "),
        "{report}"
    );
    // known.json records how each fixed finding was closed.
    let known: Value = project.known();
    let fixes: Vec<(&str, bool)> = known["entries"]
        .as_object()
        .unwrap()
        .values()
        .filter_map(|e| {
            let fixed = e.get("fixed")?;
            Some((fixed["task"].as_str()?, fixed["commit"].is_string()))
        })
        .collect();
    assert!(
        fixes.iter().any(|(task, _)| *task == "task-1")
            && fixes.iter().any(|(t, _)| *t == "task-2"),
        "{known}"
    );
    assert!(fixes.iter().all(|(_, committed)| *committed), "{known}");
    // Nothing left: a second `fix` says so.
    let again = project.cmd(&["fix"]).run().success();
    assert!(
        again.stdout.contains("no open task to fix"),
        "{}",
        again.stdout
    );
}

#[test]
fn a_fixer_that_deletes_the_test_is_refused_and_the_task_is_quarantined_with_its_hand_off() {
    let (project, _) = fixed_run_project();
    project
        .cmd(&["fix", "task-1", "--tiers", "main", "--max-attempts", "1"])
        .run()
        .success();
    block_reason(&project.stop("s1", &[]));
    remove_unused_import(&project);
    std::fs::remove_file(project.path().join("tests/test_mod.py")).unwrap();
    let ended = answer(&project.stop("s1", &[]));
    let note = ended["systemMessage"].as_str().unwrap();
    assert!(
        note.contains("task-1: not fixed (quarantined); hand-off: .self-repair/runs/fix-r-fix-task-1-1/handoff/report.md")
            && note.contains("fix done: 0 of 1 task(s) fixed"),
        "{ended}"
    );
    let report = project.read(".self-repair/runs/fix-r-fix-task-1-1/handoff/report.md");
    let errors = std::fs::read_dir(
        project
            .path()
            .join(".self-repair/runs/fix-r-fix-task-1-1/handoff/errors"),
    )
    .unwrap()
    .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
    .collect::<String>();
    assert!(
        errors.contains("check weakened: tests/test_mod.py: test file deleted"),
        "{report}\n{errors}"
    );
    let task = project.read(queue(&project)["tasks"][0]["file"].as_str().unwrap());
    assert!(task.contains("status: To Do"), "{task}");
    assert_eq!(queue(&project)["tasks"][0]["status"], "quarantined");
    let status = project.cmd(&["status", "--run", "r-fix"]).run().success();
    assert!(status.stdout.contains("[quarantined]"), "{}", status.stdout);
    let report = project.read(".self-repair/runs/r-fix/report.md");
    assert!(
        report.contains("| quarantined (hand-off: .self-repair/runs/fix-r-fix-task-1-1/handoff/report.md) | fix-r-fix-task-1-1 |"),
        "{report}"
    );
}

/// The findings file the run was started from, untracked in the project's root, is no change
/// of the fix: the hand-off's diff of a task not fixed leaves it out (it showed as a new file).
#[test]
fn a_quarantined_task_s_hand_off_diff_leaves_out_the_run_s_findings_file() {
    let (project, _) = fixed_run_project();
    git(&project, &["rm", "-q", "--cached", "ruff.json"]);
    git(&project, &["commit", "-qm", "ruff.json untracked"]);
    project
        .cmd(&["fix", "task-1", "--tiers", "main", "--max-attempts", "1"])
        .run()
        .success();
    block_reason(&project.stop("s1", &[]));
    project.write(
        "mod.py",
        &project
            .read("mod.py")
            .replace("import os\n", "import os, sys\n"),
    );
    project.stop("s1", &[]);
    assert_eq!(queue(&project)["tasks"][0]["status"], "quarantined");
    let diff = project.read(".self-repair/runs/fix-r-fix-task-1-1/handoff/diff.patch");
    assert!(
        diff.contains("mod.py") && !diff.contains("ruff.json"),
        "{diff}"
    );
}

/// Found on the real client (e2e `fix-loop-refused`): the queue's closing line was only a
/// `systemMessage`, which never reaches `claude -p` output, so the session's last message was the
/// last task's own outcome and never said how many tasks were fixed.
#[test]
fn the_stop_that_ends_the_queue_has_the_session_relay_the_fix_loops_line() {
    let (project, _) = fixed_run_project();
    project
        .cmd(&["fix", "task-1", "--tiers", "main"])
        .run()
        .success();
    block_reason(&project.stop("s1", &[]));
    remove_unused_import(&project);
    let out = project.stop("s1", &[]);
    let (ended, reason) = (answer(&out), block_reason(&out));
    let mut lines = reason.lines();
    let relayed = lines.next().unwrap_or_default();
    assert!(
        relayed.starts_with("self-repair fix: task-1: fixed (1 attempt(s))")
            && relayed.contains("fix done: 1 of 1 task(s) fixed"),
        "{reason}"
    );
    assert_eq!(
        lines.next(),
        Some(self_repair_engine::RELAY_INSTRUCTION),
        "{reason}"
    );
    assert!(
        ended["systemMessage"]
            .as_str()
            .unwrap()
            .contains("fix done")
    );
    // Said once: the next stop is silent.
    assert!(project.stop("s1", &[]).stdout.is_empty());
}

/// A `ruff` on the detector's path that answers from the state of `mod.py`: Ruff's real JSON
/// while `import os` is there, the same without its F401 entry once it is gone; `check --fix`
/// removes the import, as Ruff's safe fix does, and appends its arguments to the project's
/// `.git/ruff-fix-argv` (outside the work tree).
fn install_ruff_script(project: &TestProject) {
    ruff_now_without(project, &[]);
    let all = project.read("ruff-now.json");
    ruff_now_without(project, &["F401"]);
    let fixed = project.read("ruff-now.json");
    project.write("ruff-all.json", &all);
    project.write("ruff-fixed.json", &fixed);
    let log = project.path().join(".git/ruff-fix-argv");
    project.write(
        "bin/ruff",
        &format!(
            "#!/bin/sh\nif [ \"$2\" = \"--fix\" ]; then echo \"$@\" >> '{}'; \
             sed -i '/^import os$/d' mod.py; exit 0; fi\n\
             if grep -q '^import os$' mod.py; then cat ruff-all.json; else cat ruff-fixed.json; fi\n",
            log.display()
        ),
    );
    let script = project.path().join("bin/ruff");
    let mut mode = std::fs::metadata(&script).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut mode, 0o755);
    std::fs::set_permissions(&script, mode).unwrap();
    project.write(
        ".self-repair/config.json",
        &format!(
            r#"{{"detectors": [{{"name": "ruff", "argv": ["{}", "check", "--output-format", "json"], "format": "ruff"}}],
                "checks": {{"test": {{"command": ["test", "!", "-e", "broken"]}}}}}}"#,
            script.display()
        ),
    );
}

#[test]
fn a_group_of_safe_fixes_is_fixed_by_the_analyzer_alone_with_no_attempt() {
    let (project, _) = fixed_run_project();
    install_ruff_script(&project);
    git(&project, &["add", "-A"]);
    git(&project, &["commit", "-qm", "ruff"]);
    let out = project
        .cmd(&["fix", "task-1", "--tiers", "main", "--commit"])
        .run()
        .success();
    assert!(
        out.stdout.contains("task-1: fixed (0 attempt(s))")
            && out.stdout.contains("fix done: 1 of 1 task(s) fixed"),
        "{}",
        out.stdout
    );
    assert!(!project.read("mod.py").contains("import os\n"));
    // By the detector's own Ruff, on the group's rules and files (not by `apply-fixes` from
    // the findings' recorded edits, which would remove the import too).
    assert_eq!(
        project.read(".git/ruff-fix-argv"),
        "check --fix --select F401 mod.py\n"
    );
    let task = project.read(queue(&project)["tasks"][0]["file"].as_str().unwrap());
    assert!(
        task.contains("status: Done") && task.contains("tiers: autofix."),
        "{task}"
    );
    // The hook has nothing to drive: no run is in progress.
    assert!(project.stop("s1", &[]).stdout.is_empty());
}

/// Its exit code judges the tasks it was given: before, a task an earlier `fix` left not fixed
/// made `fix task-1` exit 6 though task 1 was fixed.
#[test]
fn fix_of_one_task_exits_0_once_it_is_fixed_though_an_earlier_task_was_not() {
    let (project, _) = fixed_run_project();
    install_ruff_script(&project);
    // The detector no longer reports E711 (task 2's finding), fixed or not.
    for file in ["ruff-all.json", "ruff-fixed.json"] {
        let mut entries: Vec<Value> = serde_json::from_str(&project.read(file)).unwrap();
        entries.retain(|e| e["code"] != "E711");
        project.write(file, &serde_json::to_string(&entries).unwrap());
    }
    git(&project, &["add", "-A"]);
    git(&project, &["commit", "-qm", "ruff"]);
    project
        .cmd(&["fix", "task-2"])
        .run()
        .code(ExitStatus::GaveUp);
    let out = project
        .cmd(&["fix", "task-1", "--tiers", "main", "--commit"])
        .run()
        .success();
    assert!(
        out.stdout.contains("task-1: fixed (0 attempt(s))")
            && out.stdout.contains("fix done: 1 of 1 task(s) fixed"),
        "{}",
        out.stdout
    );
    assert_eq!(queue(&project)["tasks"][0]["status"], "not_reproduced");
}

#[test]
fn cancelling_a_task_s_run_pauses_the_fix_and_another_session_s_stop_moves_nothing() {
    let (project, _) = fixed_run_project();
    project
        .cmd(&["fix", "--all", "--tiers", "main"])
        .run()
        .success();
    block_reason(&project.stop("s1", &[]));
    project
        .cmd(&["cancel", "--run", "fix-r-fix-task-1-1"])
        .run()
        .success();
    // Another session's stop: the run is bound to s1, so nothing is recorded or started.
    project.stop("s2", &[]);
    assert_eq!(queue(&project)["tasks"][0]["status"], "running");
    let ended = answer(&project.stop("s1", &[]));
    assert!(
        ended["systemMessage"]
            .as_str()
            .unwrap_or_default()
            .contains("fix paused: run fix-r-fix-task-1-1 was cancelled"),
        "{ended}"
    );
    assert_eq!(queue(&project)["tasks"][0]["status"], "quarantined");
    assert_eq!(queue(&project)["tasks"][1]["status"], "open");
    // `fix` goes on: the quarantined task gets a new run, `-2`.
    let out = project.cmd(&["fix", "--tiers", "main"]).run().success();
    assert!(
        out.stdout
            .contains("task-1: repair run fix-r-fix-task-1-2 started"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_task_the_detector_does_not_reproduce_is_not_fixed_and_gets_no_repair_run() {
    let (project, _) = fixed_run_project();
    // The detector no longer reports F401 (another rule selection): its re-run proves nothing.
    ruff_now_without(&project, &["F401"]);
    let out = project
        .cmd(&["fix", "task-1"])
        .run()
        .code(ExitStatus::GaveUp);
    assert!(
        out.stdout.contains(
            "task-1: not fixed (not reproduced: the detector does not report 1 of the group's 1 finding(s) before any change"
        ) && out.stdout.contains("fix done: 0 of 1 task(s) fixed"),
        "{}",
        out.stdout
    );
    assert!(
        !project
            .path()
            .join(".self-repair/runs/fix-r-fix-task-1-1")
            .exists()
    );
    let task = project.read(queue(&project)["tasks"][0]["file"].as_str().unwrap());
    assert!(task.contains("status: To Do"), "{task}");
    // One name for it everywhere: `status` says what `fix` said, not `quarantined`.
    assert_eq!(queue(&project)["tasks"][0]["status"], "not_reproduced");
    let status = project.cmd(&["status", "--run", "r-fix"]).run().success();
    assert!(
        status.stdout.contains("[not reproduced]") && !status.stdout.contains("[quarantined]"),
        "{}",
        status.stdout
    );
}

/// Found by a review: `fix 1` printed "2 task(s) in order: task-1", then "0 of 2 task(s)
/// fixed", counting a task an earlier `fix` had settled; and `status` went on offering
/// `self-repair fix` for every task, the not-reproduced ones included.
#[test]
fn fix_of_one_task_counts_that_task_only_and_status_counts_what_fix_would_take() {
    let (project, _) = fixed_run_project();
    ruff_now_without(&project, &["F401", "E711"]);
    project
        .cmd(&["fix", "task-2"])
        .run()
        .code(ExitStatus::GaveUp);
    let out = project
        .cmd(&["fix", "task-1"])
        .run()
        .code(ExitStatus::GaveUp);
    assert!(
        out.stdout
            .contains("self-repair fix, run r-fix: 1 task(s) in order: task-1")
            && out.stdout.contains("fix done: 0 of 1 task(s) fixed"),
        "{}",
        out.stdout
    );
    let status = project.cmd(&["status", "--run", "r-fix"]).run().success();
    assert!(
        !status.stdout.contains("`self-repair fix` for")
            && status
                .stdout
                .contains("2 tasks not reproduced by the detectors"),
        "{}",
        status.stdout
    );
    // A `fix` naming no task leaves them, and says how to try one again.
    let again = project.cmd(&["fix"]).run().success();
    assert!(
        again
            .stdout
            .contains("but 2 not reproduced by the detectors (task-2, task-1)")
            && again.stdout.contains("`self-repair fix task-2`"),
        "{}",
        again.stdout
    );
    // Once the detector reports it again, naming it fixes it in a new queue.
    ruff_now_without(&project, &["E711"]);
    let named = project
        .cmd(&["fix", "task-1", "--tiers", "main"])
        .run()
        .success();
    assert!(
        named
            .stdout
            .contains("task-1: repair run fix-r-fix-task-1-1 started"),
        "{}",
        named.stdout
    );
}

#[test]
fn outside_claude_code_tick_moves_the_fix_on_and_the_note_names_the_verifying_commands() {
    let (project, _) = fixed_run_project();
    project
        .cmd(&["fix", "task-1", "--tiers", "main"])
        .run()
        .success();
    // The active run is now the task's repair run: verify-task still finds the triage run.
    let by_hand = project
        .cmd(&["verify-task", "task-1"])
        .run()
        .code(ExitStatus::GaveUp);
    assert!(
        by_hand.stdout.contains("verify-task task-1: "),
        "{}",
        by_hand.stdout
    );
    let wrong = project
        .cmd(&["verify-task", "task-1", "--run", "fix-r-fix-task-1-1"])
        .run()
        .code(ExitStatus::Usage);
    assert!(wrong.stderr.contains("is a repair run"), "{}", wrong.stderr);
    let asked = project.cmd(&["tick"]).run().success();
    assert!(asked.stdout.contains("attempt 1 of 5"), "{}", asked.stdout);
    remove_unused_import(&project);
    let done = project.cmd(&["tick"]).run().success();
    assert!(
        done.stdout
            .contains("self-repair fix: task-1: fixed (1 attempt(s))")
            && done.stdout.contains("fix done: 1 of 1 task(s) fixed"),
        "{}",
        done.stdout
    );
    let task = project.read(queue(&project)["tasks"][0]["file"].as_str().unwrap());
    assert!(
        task.contains("- `cat ruff-now.json`\n- `test '!' -e broken`\n"),
        "{task}"
    );
}
