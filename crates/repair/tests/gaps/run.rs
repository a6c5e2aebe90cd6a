//! A repair run driven whole through its commands: `check` runs the baseline, `tick` asks the
//! attempt, ends it and rechecks; a run that gives up leaves its hand-off bundle, and `doctor`
//! rebuilds a damaged state from the journal.

use std::path::Path;

use self_repair_repair::{
    CheckConfig, CheckRequest, ProjectChecks, RepairEnv, RepairReply, cancel_repair,
    doctor_repair_run, repair_status, start_check, tick,
};
use self_repair_store::Project;

fn env(now: u64) -> RepairEnv {
    RepairEnv {
        now,
        session: None,
        user_install: None,
    }
}

fn settings(root: &Path) -> ProjectChecks {
    ProjectChecks {
        path: root.join(".self-repair/config.json"),
        checks: std::collections::BTreeMap::new(),
        agent_prefix: Some(String::new()),
    }
}

/// A run of `sh -c SCRIPT` with one attempt, made by the main session.
fn start(project: &Project, script: &str) -> RepairReply {
    let request = CheckRequest {
        run_id: Some("check-t".into()),
        command: vec!["sh".into(), "-c".into(), script.into()],
        max_attempts: Some(1),
        tiers: Some("main".into()),
        ..CheckRequest::default()
    };
    start_check(
        project,
        &env(1_800_000_000),
        &request,
        &settings(project.root()),
    )
    .unwrap()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn a_run_that_gives_up_leaves_the_logs_an_error_report_per_failing_run_and_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let project = Project::at(dir.path().to_path_buf());
    let reply = start(&project, "echo 'E boom'; exit 1");
    assert!(!reply.gave_up, "{}", reply.text);
    assert!(
        reply.text.contains("next: fix attempt 1 of 1 (main)"),
        "{}",
        reply.text
    );
    let run = dir.path().join(".self-repair/runs/check-t");
    assert!(!run.join("handoff").exists());

    let asked = tick(&project, &env(1_800_000_010), None).unwrap();
    assert!(
        asked.text.contains("(attempt 1 asked: make the fix"),
        "{}",
        asked.text
    );
    assert!(!asked.gave_up);
    // Whatever else sits among the attempts' logs stays out of the bundle.
    std::fs::write(run.join("attempts/notes.txt"), "mine").unwrap();
    std::fs::create_dir_all(run.join("attempts/old.log")).unwrap();

    let ended = tick(&project, &env(1_800_000_020), None).unwrap();
    assert!(ended.gave_up, "{}", ended.text);
    assert!(
        ended.text.ends_with(
            "\nself-repair check `sh -c 'echo '\\''E boom'\\''; exit 1'`: quarantined — all 1 fix attempts failed. Hand-off report: .self-repair/runs/check-t/handoff/report.md\n"
        ),
        "{}",
        ended.text
    );
    assert!(
        !ended.text.contains(&dir.path().display().to_string()),
        "{}",
        ended.text
    );
    let handoff = run.join("handoff");
    let mut logs: Vec<String> = std::fs::read_dir(handoff.join("logs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    logs.sort();
    assert_eq!(logs, ["0.log", "1.log"]);
    let mut errors: Vec<String> = std::fs::read_dir(handoff.join("errors"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    errors.sort();
    assert_eq!(errors, ["check-01.md", "check-02.md"]);
    let first = read(&handoff.join("errors/check-01.md"));
    assert!(
        first.starts_with("# check run 1 (baseline)\n\n- command: `sh -c"),
        "{first}"
    );
    assert!(first.contains("- full log: logs/0.log\n"), "{first}");
    assert!(first.contains("E boom"), "{first}");
    let second = read(&handoff.join("errors/check-02.md"));
    assert!(
        second.starts_with("# check run 2 (recheck after attempt 1)\n"),
        "{second}"
    );
    let report = read(&handoff.join("report.md"));
    assert!(
        report.starts_with("# self-repair hand-off: `sh -c"),
        "{report}"
    );
    assert_eq!(read(&handoff.join("diff.patch")), "");
    let metadata: serde_json::Value =
        serde_json::from_str(&read(&handoff.join("metadata.json"))).unwrap();
    assert_eq!(metadata["run"], "check-t");
    assert_eq!(metadata["status"], "quarantined");
    assert_eq!(metadata["checks"].as_array().map(Vec::len), Some(2));
    assert!(
        metadata["checks"][0]["signature"]
            .as_str()
            .is_some_and(|s| s.len() >= 8),
        "{metadata}"
    );
    assert!(!run.join("summary.md").exists());

    // A damaged state.json is rebuilt from the initial state and the journal.
    let state_path = run.join("state.json");
    let before: serde_json::Value = serde_json::from_str(&read(&state_path)).unwrap();
    std::fs::write(&state_path, "{ torn").unwrap();
    let run_dir = project.run_or_active(Some("check-t")).unwrap();
    let doctor = doctor_repair_run(&run_dir);
    assert!(doctor.healthy, "{:?}", doctor.lines);
    assert!(
        doctor.lines.last().is_some_and(|l| l
            .starts_with("rebuilt state.json from state.initial.json and ")
            && l.ends_with("(repair run, status quarantined, 2 checks, 1 attempts)")),
        "{:?}",
        doctor.lines
    );
    let after: serde_json::Value = serde_json::from_str(&read(&state_path)).unwrap();
    assert_eq!(after, before);
    let again = doctor_repair_run(&run_dir);
    assert!(again.healthy);
    assert_eq!(
        again.lines,
        ["ok (repair run, status quarantined, 2 checks, 1 attempts)"]
    );

    // A journal whose last line records another status than its replay gives: not rebuilt.
    let journal = run.join("journal.jsonl");
    let lines = read(&journal);
    let last = lines.trim_end().lines().count();
    let (head, tail) = lines.trim_end().rsplit_once('\n').unwrap();
    assert!(tail.contains("\"status\":\"quarantined\""), "{tail}");
    let tail = tail.replace("\"status\":\"quarantined\"", "\"status\":\"escalated\"");
    std::fs::write(&journal, format!("{head}\n{tail}\n")).unwrap();
    std::fs::write(&state_path, "{ torn").unwrap();
    let refused = doctor_repair_run(&run_dir);
    assert!(!refused.healthy);
    let said = refused.lines.last().cloned().unwrap_or_default();
    assert!(
        said.starts_with(&format!(
            "replaying line {last} of {} gives status quarantined where the journal recorded escalated; the run cannot be rebuilt: start a new one with `self-repair check`",
            journal.display()
        )),
        "{said}"
    );
}

#[test]
fn a_run_whose_check_passes_writes_its_summary_and_no_hand_off() {
    let dir = tempfile::tempdir().unwrap();
    let project = Project::at(dir.path().to_path_buf());
    let reply = start(&project, "exit 0");
    assert!(!reply.gave_up, "{}", reply.text);
    assert!(
        reply.text.ends_with("\nself-repair check `sh -c 'exit 0'`: success, the check already passes (run check-t; `self-repair status` shows the attempts).\n"),
        "{}",
        reply.text
    );
    let run = dir.path().join(".self-repair/runs/check-t");
    assert!(read(&run.join("summary.md")).starts_with("# self-repair check: success\n"));
    let state: serde_json::Value = serde_json::from_str(&read(&run.join("state.json"))).unwrap();
    assert_eq!(state["checks"][0]["signature"], "");
    assert!(!run.join("handoff").exists());
}

#[test]
fn a_cancelled_run_hands_off_and_says_so_when_driven_again() {
    let dir = tempfile::tempdir().unwrap();
    let project = Project::at(dir.path().to_path_buf());
    start(&project, "exit 1");
    let run_dir = project.run_or_active(None).unwrap();
    let said = cancel_repair(&project, run_dir.clone(), 1_800_000_010).unwrap();
    assert_eq!(
        said,
        "run check-t cancelled; hand-off report (logs, diff, errors): .self-repair/runs/check-t/handoff/report.md"
    );
    assert!(
        dir.path()
            .join(".self-repair/runs/check-t/handoff/report.md")
            .is_file()
    );
    let reply = tick(&project, &env(1_800_000_020), None).unwrap();
    assert!(!reply.gave_up, "{}", reply.text);
    assert!(
        reply.text.ends_with("\nself-repair check `sh -c 'exit 1'`: cancelled by the user. Hand-off report: .self-repair/runs/check-t/handoff/report.md\n"),
        "{}",
        reply.text
    );
    assert_eq!(
        cancel_repair(&project, run_dir, 1_800_000_030).unwrap(),
        "run check-t is already over (cancelled)"
    );
}

#[test]
fn a_named_check_comes_from_the_project_s_checks_or_the_command_given() {
    let dir = tempfile::tempdir().unwrap();
    let project = Project::at(dir.path().to_path_buf());
    let mut checks = settings(dir.path());
    checks.checks.insert(
        "unit".into(),
        CheckConfig {
            command: vec!["sh".into(), "-c".into(), "exit 0".into()],
            ..CheckConfig::default()
        },
    );
    let named = |name: &str, command: &[&str], run_id: &str| CheckRequest {
        name: Some(name.into()),
        run_id: Some(run_id.into()),
        command: command.iter().map(|w| (*w).to_owned()).collect(),
        ..CheckRequest::default()
    };
    let env = env(1_800_000_000);
    let unit = start_check(&project, &env, &named("unit", &[], "check-1"), &checks).unwrap();
    assert!(
        unit.text.contains("`sh -c 'exit 0'`: success"),
        "{}",
        unit.text
    );
    // A name the file lacks, with the command after `--`: that command.
    let given = start_check(
        &project,
        &env,
        &named("lint", &["true"], "check-2"),
        &checks,
    )
    .unwrap();
    assert!(given.text.contains("`true`: success"), "{}", given.text);
    let e = start_check(&project, &env, &named("lint", &[], "check-3"), &checks).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "no check `lint` in {}: add `checks.lint` there, or give the command after `--`",
            dir.path().join(".self-repair/config.json").display()
        )
    );
}

#[test]
fn the_autofix_runs_after_a_failing_baseline_and_its_changes_are_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let project = Project::at(dir.path().to_path_buf());
    let request = CheckRequest {
        run_id: Some("check-t".into()),
        command: vec!["test".into(), "-f".into(), "fixed.txt".into()],
        autofix: Some(vec!["sh".into(), "-c".into(), "echo x > fixed.txt".into()]),
        ..CheckRequest::default()
    };
    let reply = start_check(
        &project,
        &env(1_800_000_000),
        &request,
        &settings(dir.path()),
    )
    .unwrap();
    assert!(
        reply
            .text
            .contains(": success, the check passes after the autofix (run check-t;"),
        "{}",
        reply.text
    );
    let state: serde_json::Value = serde_json::from_str(&read(
        &dir.path().join(".self-repair/runs/check-t/state.json"),
    ))
    .unwrap();
    assert_eq!(
        state["autofix"]["files_changed"],
        serde_json::json!(["fixed.txt"])
    );
    assert_eq!(state["autofix"]["log"], "attempts/0.autofix.log");
}

#[test]
fn a_check_that_runs_out_its_own_timeout_is_a_result_not_an_overrun() {
    let dir = tempfile::tempdir().unwrap();
    let project = Project::at(dir.path().to_path_buf());
    let mut checks = settings(dir.path());
    checks.checks.insert(
        "slow".into(),
        CheckConfig {
            command: vec!["sleep".into(), "30".into()],
            timeout: Some(0.1),
            transient_retries: Some(0),
            ..CheckConfig::default()
        },
    );
    let request = CheckRequest {
        name: Some("slow".into()),
        run_id: Some("check-t".into()),
        ..CheckRequest::default()
    };
    let reply = start_check(&project, &env(1_800_000_000), &request, &checks).unwrap();
    assert!(
        reply.text.contains("next: fix attempt 1 of "),
        "{}",
        reply.text
    );
    let state: serde_json::Value = serde_json::from_str(&read(
        &dir.path().join(".self-repair/runs/check-t/state.json"),
    ))
    .unwrap();
    assert_eq!(state["checks"][0]["timed_out"], true);
    assert_eq!(state["checks"][0]["exit_code"], 124);
    assert!(
        state
            .get("hook_overrun_ms")
            .is_none_or(serde_json::Value::is_null),
        "{state}"
    );
}

#[test]
fn a_state_written_by_a_newer_layout_is_not_read_as_this_one() {
    let dir = tempfile::tempdir().unwrap();
    let project = Project::at(dir.path().to_path_buf());
    start(&project, "exit 1");
    let run_dir = project.run_or_active(None).unwrap();
    assert!(repair_status(&run_dir).is_ok());
    let path = dir.path().join(".self-repair/runs/check-t/state.json");
    let text = read(&path).replacen("\"schema_version\": 1", "\"schema_version\": 2", 1);
    assert!(text.contains("\"schema_version\": 2"), "{text}");
    std::fs::write(&path, text).unwrap();
    let e = repair_status(&run_dir).unwrap_err().to_string();
    assert!(
        e.ends_with(
            "has schema_version 2, this self-repair reads 1; use a matching self-repair version"
        ),
        "{e}"
    );
}
