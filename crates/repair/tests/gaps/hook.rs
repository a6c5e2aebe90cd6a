//! A repair run driven by the Stop hook of the session it is bound to: each stop asks the next
//! attempt, waits for a fixer still running, rechecks, or hands a check too long for the hook
//! to `self-repair tick`, and stalls rather than blocking forever.

use std::time::Instant;

use self_repair_engine::Audience;
use self_repair_repair::{
    CheckRequest, ProjectChecks, RepairEnv, adopt_repair, repair_status, repair_stop,
    repair_stop_failure, show_fix, start_check, tick,
};
use self_repair_stop::{StopAnswer, StopInput};
use self_repair_store::Project;

fn input(session: &str, running: &[&str]) -> StopInput {
    StopInput {
        session: session.to_owned(),
        running: Some(running.iter().map(|r| (*r).to_owned()).collect()),
        transcript: None,
        new_turn: false,
        last_message: None,
        audience: Audience::Attended,
        now: 1_800_000_100,
    }
}

/// A run of `sh -c SCRIPT` bound to session `s1`, attempt 1 by the main session, 2 by sonnet.
fn start(project: &Project, script: &str, hook_budget_secs: f64) {
    start_with(
        project,
        CheckRequest {
            command: vec!["sh".into(), "-c".into(), script.into()],
            hook_budget_secs: Some(hook_budget_secs),
            ..CheckRequest::default()
        },
    );
}

fn start_with(project: &Project, request: CheckRequest) {
    let request = CheckRequest {
        run_id: Some("check-h".into()),
        max_attempts: Some(2),
        tiers: Some("main,sonnet".into()),
        ..request
    };
    let env = RepairEnv {
        now: 1_800_000_000,
        session: Some("s1".into()),
        user_install: None,
    };
    let settings = ProjectChecks {
        path: project.root().join(".self-repair/config.json"),
        checks: std::collections::BTreeMap::new(),
        agent_prefix: Some(String::new()),
    };
    start_check(project, &env, &request, &settings).unwrap();
}

fn stop(project: &Project, session: &str, running: &[&str]) -> StopAnswer {
    let dir = project.run_or_active(None).unwrap();
    repair_stop(project, &dir, &input(session, running), Instant::now())
}

fn said(answer: &StopAnswer) -> String {
    answer.stdout.clone().unwrap_or_default()
}

#[test]
fn each_stop_of_its_session_asks_waits_for_the_fixer_rechecks_and_ends_once() {
    let dir = tempfile::tempdir().unwrap();
    let project = Project::at(dir.path().to_path_buf());
    start(&project, "echo 'E boom'; exit 1", 60.0);
    // Another session's stop is not this run's.
    assert_eq!(stop(&project, "s2", &[]), StopAnswer::allow());
    let first = said(&stop(&project, "s1", &[]));
    assert!(first.contains("This is the first attempt."), "{first}");
    // The main session made attempt 1: its next stop rechecks and dispatches the fixer.
    let second = said(&stop(&project, "s1", &[]));
    assert!(
        second.contains("self-repair item fix-2 --run check-h"),
        "{second}"
    );
    // `show fix-N` and `status` while the fixer works.
    let run_dir = project.run_or_active(None).unwrap();
    let shown: Vec<(String, String, String)> = ["fix-1", "fix-2"]
        .into_iter()
        .map(|item| {
            let shown = show_fix(&project, &run_dir, item).unwrap();
            assert_eq!(shown.item, item);
            (shown.agent, shown.model, shown.status)
        })
        .collect();
    let triple = |a: &str, m: &str, s: &str| (a.to_owned(), m.to_owned(), s.to_owned());
    assert_eq!(
        shown,
        [
            triple("main", "main", "done"),
            triple("fixer", "sonnet", "dispatched")
        ]
    );
    for item in ["fix-0", "fix-3", "t-1"] {
        let e = show_fix(&project, &run_dir, item).unwrap_err().to_string();
        assert_eq!(
            e,
            format!(
                "no item `{item}` in repair run check-h; its items are fix-1 to fix-2 (see `self-repair status`)"
            )
        );
    }
    let status = repair_status(&run_dir).unwrap().render();
    assert!(
        status.starts_with(
            "repair run check-h (active), created 2027-01-15T08:00:00Z\ncheck: sh -c 'echo '\\''E boom'\\''; exit 1'\nsession: s1\nnext step: fix attempt 2 under way\n\n| attempt |"
        ),
        "{status}"
    );
    // While the fixer runs, its stops change nothing.
    assert_eq!(stop(&project, "s1", &["fix fix-2"]), StopAnswer::allow());
    let ended = said(&stop(&project, "s1", &[]));
    assert!(
        ended.contains("quarantined — circuit open: 3 identical failures in a row (signature ")
            && ended.ends_with(". Hand-off report: .self-repair/runs/check-h/handoff/report.md\"}"),
        "{ended}"
    );
    // Said once.
    assert_eq!(stop(&project, "s1", &[]), StopAnswer::allow());
    let status = repair_status(&run_dir).unwrap().render();
    assert!(
        status.contains("\noutcome: circuit open: 3 identical failures in a row (signature "),
        "{status}"
    );
    assert!(
        status.contains("\nnext step: none: the run is over\n"),
        "{status}"
    );
    assert_eq!(
        adopt_repair(&project, run_dir, 1_800_000_300, "s2").unwrap(),
        "run check-h is already over (quarantined); nothing to adopt"
    );
    let state: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join(".self-repair/runs/check-h/state.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(state["checks"].as_array().map(Vec::len), Some(3));
    assert_eq!(state["attempts"].as_array().map(Vec::len), Some(2));
}

/// A run whose recheck never fits the hook: three asks for `tick` unanswered stall it.
fn stalled(project: &Project) {
    start(project, "echo 'E boom'; exit 1", 0.0);
    // The baseline ran in `check`; attempt 1 is asked, made, and its recheck does not fit.
    assert!(said(&stop(project, "s1", &[])).contains("This is the first attempt."));
    for _ in 0..3 {
        let asked = said(&stop(project, "s1", &[]));
        assert!(
            asked.contains("Run `self-repair tick` with the Bash tool (timeout 150 s or more"),
            "{asked}"
        );
        assert!(asked.contains("took up to "), "{asked}");
    }
    let stalled = said(&stop(project, "s1", &[]));
    assert!(
        stalled.contains("self-repair check: stalled — asked 3 times for `self-repair tick`"),
        "{stalled}"
    );
    assert_eq!(stop(project, "s1", &[]), StopAnswer::allow());
}

fn state_json(project: &Project) -> serde_json::Value {
    let path = project.root().join(".self-repair/runs/check-h/state.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn a_stalled_run_goes_on_with_tick_and_its_end_there_is_said_there() {
    let dir = tempfile::tempdir().unwrap();
    let project = Project::at(dir.path().to_path_buf());
    stalled(&project);
    let env = |now: u64| RepairEnv {
        now,
        session: None,
        user_install: None,
    };
    // `tick` resumes it and runs the recheck the hook could not.
    let reply = tick(&project, &env(1_800_000_200), None).unwrap();
    assert!(
        reply.text.contains("next: fix attempt 2 of 2 (sonnet)"),
        "{}",
        reply.text
    );
    assert_eq!(state_json(&project)["status"], "active");
    let asked = tick(&project, &env(1_800_000_210), None).unwrap();
    assert!(asked.text.contains("(attempt 2 asked: "), "{}", asked.text);
    assert_eq!(state_json(&project)["announced"], false);
    let ended = tick(&project, &env(1_800_000_220), None).unwrap();
    assert!(ended.gave_up, "{}", ended.text);
    assert_eq!(state_json(&project)["announced"], true);
    // Said by `tick`: the session's next stop need not say it again.
    assert_eq!(stop(&project, "s1", &[]), StopAnswer::allow());
}

#[test]
fn another_session_adopts_a_stalled_run_and_drives_it() {
    let dir = tempfile::tempdir().unwrap();
    let project = Project::at(dir.path().to_path_buf());
    stalled(&project);
    let run_dir = project.run_or_active(None).unwrap();
    assert_eq!(
        adopt_repair(&project, run_dir.clone(), 1_800_000_150, "s2").unwrap(),
        "repair run check-h adopted by session s2: end your turn; the Stop hook gives the next step"
    );
    let status = repair_status(&run_dir).unwrap().render();
    assert!(
        status.starts_with("repair run check-h (active), ") && status.contains("\nsession: s2\n"),
        "{status}"
    );
    assert_eq!(stop(&project, "s1", &[]), StopAnswer::allow());
    assert!(said(&stop(&project, "s2", &[])).contains("Run `self-repair tick`"));
}

#[test]
fn a_check_that_passes_in_check_is_said_there_and_not_by_the_hook() {
    let dir = tempfile::tempdir().unwrap();
    let project = Project::at(dir.path().to_path_buf());
    start(&project, "exit 0", 60.0);
    assert_eq!(state_json(&project)["announced"], true);
    assert_eq!(stop(&project, "s1", &[]), StopAnswer::allow());
    // A run that goes on is not announced by `check`.
    let dir = tempfile::tempdir().unwrap();
    let project = Project::at(dir.path().to_path_buf());
    start(&project, "exit 1", 60.0);
    assert_eq!(state_json(&project)["announced"], false);
}

#[test]
fn a_transient_failure_too_long_to_wait_out_in_the_hook_says_so_once_and_waits() {
    let dir = tempfile::tempdir().unwrap();
    let project = Project::at(dir.path().to_path_buf());
    // Fixable at the baseline, then a refused connection: a transient failure.
    start_with(
        &project,
        CheckRequest {
            command: vec![
                "sh".into(),
                "-c".into(),
                "if [ -f flaky ]; then echo 'connection refused'; else echo 'E boom'; fi; exit 1"
                    .into(),
            ],
            hook_budget_secs: Some(30.0),
            backoff_secs: Some(60.0),
            ..CheckRequest::default()
        },
    );
    assert!(said(&stop(&project, "s1", &[])).contains("This is the first attempt."));
    std::fs::write(dir.path().join("flaky"), "").unwrap();
    let told = said(&stop(&project, "s1", &[]));
    assert!(
        told.contains("a transient failure of `sh -c ")
            && told.contains("waiting until 2027-01-15T08:02:40Z before rerunning it"),
        "{told}"
    );
    assert!(told.contains("systemMessage"), "{told}");
    // Said once: the next stops wait quietly.
    assert_eq!(stop(&project, "s1", &[]), StopAnswer::allow());
}

#[test]
fn an_api_error_ending_the_turn_is_noted_for_the_run_s_session_only() {
    let dir = tempfile::tempdir().unwrap();
    let project = Project::at(dir.path().to_path_buf());
    start(&project, "exit 1", 60.0);
    let run_dir = project.run_or_active(None).unwrap();
    assert_eq!(
        repair_stop_failure(&run_dir, "s1"),
        StopAnswer::note(
            "self-repair hook stop-failure: run check-h waits; the next stop rechecks".to_owned()
        )
    );
    assert_eq!(repair_stop_failure(&run_dir, "s2"), StopAnswer::allow());
}

#[test]
fn an_error_of_self_repair_in_the_hook_ends_the_run_and_writes_its_hand_off_once() {
    let dir = tempfile::tempdir().unwrap();
    let project = Project::at(dir.path().to_path_buf());
    start(&project, "exit 1", 60.0);
    // A project template the feedback cannot be rendered with.
    let templates = dir.path().join(".self-repair/templates");
    std::fs::create_dir_all(&templates).unwrap();
    std::fs::write(templates.join("fix-feedback.md"), "{{no_such_part}}").unwrap();
    let told = said(&stop(&project, "s1", &[]));
    assert!(
        told.contains("self-repair check: stopped on an error of self-repair itself: ")
            && told.contains("Hand-off report: .self-repair/runs/check-h/handoff/report.md"),
        "{told}"
    );
    assert_eq!(state_json(&project)["status"], "infra_failure");
    let report = dir
        .path()
        .join(".self-repair/runs/check-h/handoff/report.md");
    assert!(report.is_file());
    // The next stop says how it ended; the hand-off is not written again.
    std::fs::remove_file(&report).unwrap();
    let ended = said(&stop(&project, "s1", &[]));
    assert!(
        ended.contains("infra_failure — self-repair could not go on: "),
        "{ended}"
    );
    assert!(!report.exists());
    assert_eq!(stop(&project, "s1", &[]), StopAnswer::allow());
}

#[test]
fn a_check_stopped_at_the_hook_s_budget_is_no_result_and_goes_to_tick() {
    let dir = tempfile::tempdir().unwrap();
    let project = Project::at(dir.path().to_path_buf());
    // Quick at the baseline, so the recheck is tried in the hook; then longer than its budget.
    start(
        &project,
        "if [ -f slow ]; then sleep 30; fi; echo 'E boom'; exit 1",
        3.0,
    );
    assert!(said(&stop(&project, "s1", &[])).contains("This is the first attempt."));
    std::fs::write(dir.path().join("slow"), "").unwrap();
    let asked = said(&stop(&project, "s1", &[]));
    assert!(
        asked.contains(
            " in this hook and was stopped, longer than this hook may run. Run `self-repair tick`"
        ),
        "{asked}"
    );
    let state = state_json(&project);
    assert_eq!(state["checks"].as_array().map(Vec::len), Some(1), "{state}");
    assert!(state["hook_overrun_ms"].as_u64().is_some(), "{state}");
}
