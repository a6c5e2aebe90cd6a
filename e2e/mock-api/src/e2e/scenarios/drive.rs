//! `self-repair drive` on the real client (issue 16): the driver relaunches `claude -p`
//! sessions through a usage limit with a reset time, a killed session, a refused credential,
//! and sessions that never make progress.

use std::collections::BTreeSet;
use std::fs;
use std::time::Duration;

use serde_json::Value;

use crate::e2e::drive_run::DriveOutcome;
use crate::e2e::e2e_error::E2eError;
use crate::e2e::e2e_project::{E2eProject, InstallMode};
use crate::e2e::records::launched_items;
use crate::e2e::run_files::field;
use crate::e2e::scenarios::ScenarioContext;
use crate::e2e::scenarios::pipeline_checks::{
    check_complete_once, check_no_duplicate_launch, pipeline_scenario,
};
use crate::e2e::scenarios::scenario_context::wait_for;
use crate::fault::{Fault, ThreadSelector};
use crate::mock_server::MockServer;

/// Backoffs at 1% (a hot-loop backoff of 10 s becomes 0.1 s); never the wait until a reset.
const SCALE: (&str, &str) = ("SELF_REPAIR_DRIVE_BACKOFF_SCALE", "0.01");
/// A key the scripted server accepts (every session of these scenarios but the subscriber's).
const API_KEY: (&str, &str) = ("ANTHROPIC_API_KEY", "e2e-not-a-key");
/// Subscriber credentials: only with them does the client emit `rate_limit_event` with
/// `resetsAt`, and not retry a usage limit (measured on 2.1.330).
const OAUTH_TOKEN: (&str, &str) = ("CLAUDE_CODE_OAUTH_TOKEN", "sk-ant-oat01-e2e-not-a-token");
/// How long after its first 429 the scripted usage limit resets.
const RESET_SECS: u64 = 8;

/// Per-item foreground triage in waves of `fan_out`: the main thread's requests are then
/// counted exactly (adopt, end turn, then one launch and one end turn per wave).
fn per_item_config(fan_out: usize) -> String {
    format!("{{\"launch_mode\": \"foreground\", \"triage_batch\": 1, \"fan_out\": {fan_out}}}\n")
}

fn new_project(
    ctx: &ScenarioContext,
    name: &str,
    run: &str,
    findings: usize,
    fan_out: usize,
) -> Result<E2eProject, E2eError> {
    let project = E2eProject::new(&ctx.tools, name, InstallMode::Plugin, findings)?;
    project.write(".self-repair/config.json", &per_item_config(fan_out))?;
    project.self_repair_ok(&["start", "findings.jsonl", "--run-id", run])?;
    Ok(project)
}

/// The session lines of the run's `drive.jsonl` (the `drive_stop` lines left out).
fn drive_sessions(project: &E2eProject, run: &str) -> Vec<Value> {
    fs::read_to_string(project.run(run).dir().join("drive.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v.get("event").is_none())
        .collect()
}

fn errors_catalog(project: &E2eProject, run: &str) -> Vec<Value> {
    fs::read_to_string(project.run(run).dir().join("errors.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .collect()
}

fn u64_at(value: &Value, pointer: &str) -> u64 {
    value.pointer(pointer).and_then(Value::as_u64).unwrap_or(0)
}

fn drive_timeout(ctx: &ScenarioContext) -> Duration {
    ctx.claude_timeout() * 2
}

fn check_exit(ctx: &mut ScenarioContext, outcome: &DriveOutcome, want: i32) {
    ctx.checks.that(outcome.code == Some(want), || {
        format!(
            "self-repair drive should exit {want}: {}",
            outcome.describe()
        )
    });
}

/// (a) A usage limit with a reset time after the triage wave's submissions: the driver waits
/// until the reset, the next session finishes the run, `drive.jsonl` shows both sessions.
pub(crate) fn rate_limit_reset(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    const RUN: &str = "r-drive-limit";
    const FINDINGS: usize = 10;
    let project = new_project(ctx, "drive-rate-limit-reset", RUN, FINDINGS, 5)?;
    // Main calls of session 1: adopt, end turn, then launch + end turn for each wave of 5:
    // the 7th comes after the 10 triage submissions and meets the limit.
    let limited =
        pipeline_scenario().fault(Fault::usage_limit(ThreadSelector::Main, RESET_SECS).after(6));
    let server = MockServer::start_recording(limited, &project.records_path(1))?;
    let outcome = project
        .drive(&server.base_url(), RUN, &[], &[OAUTH_TOKEN, SCALE])?
        .wait(drive_timeout(ctx))?;
    check_exit(ctx, &outcome, 0);
    check_complete_once(ctx, &project, RUN, FINDINGS, &[])?;
    let sessions = drive_sessions(&project, RUN);
    ctx.checks
        .equal("sessions in drive.jsonl", &sessions.len(), &2);
    let rejected = server.requests().iter().filter(|r| r.status == 429).count();
    ctx.checks
        .that(rejected >= 1, || "the server answered no 429".to_owned());
    if let [first, second] = sessions.as_slice() {
        ctx.checks.equal(
            "session 1 reason",
            &field(first, "/reason"),
            &"rate_limited",
        );
        ctx.checks.equal(
            "session 1 limit type",
            &field(first, "/limit_type"),
            &"five_hour",
        );
        let resets_at = u64_at(first, "/resets_at");
        ctx.checks.that(resets_at > 0, || {
            format!("session 1 has no resets_at: {first}")
        });
        ctx.checks.that(u64_at(first, "/submitted") >= 10, || {
            format!("session 1 submitted fewer than 10 items before the limit: {first}")
        });
        ctx.checks.that(u64_at(first, "/backoff_secs") >= 1, || {
            format!("session 1 chose no wait: {first}")
        });
        ctx.checks
            .that(u64_at(second, "/started_at") >= resets_at, || {
                format!(
                    "session 2 started at {} before the reset {resets_at}",
                    u64_at(second, "/started_at")
                )
            });
        ctx.checks
            .equal("session 2 reason", &field(second, "/reason"), &"ended");
        ctx.checks
            .equal("session 2 next", &field(second, "/next"), &"done");
        ctx.notes.push(format!(
            "usage limit after {} submissions; drive waited {} s for the reset; {} 429 answers; drive {:.1} s",
            u64_at(first, "/submitted"),
            u64_at(first, "/backoff_secs"),
            rejected,
            outcome.wall.as_secs_f64()
        ));
    }
    let timeline = project.self_repair_ok(&["timeline", RUN])?;
    ctx.checks.equal(
        "session starts in the timeline",
        &timeline.matches("session_start").count(),
        &2,
    );
    ctx.checks.that(timeline.contains("rate_limited"), || {
        format!("the timeline does not name the rate limit:\n{timeline}")
    });
    Ok(())
}

/// (b) The test kills the running `claude` mid-run: the driver starts a new session that
/// finishes the run, and no item is done twice.
pub(crate) fn killed_session(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    const RUN: &str = "r-drive-killed";
    const FINDINGS: usize = 6;
    let project = new_project(ctx, "drive-killed-session", RUN, FINDINGS, 3)?;
    // The first wave (3) finishes; the second wave's agents hang once each.
    let mut scenario = pipeline_scenario();
    for n in 4..=FINDINGS {
        scenario = scenario.fault(Fault::hang(
            ThreadSelector::Item(format!("t-{n:05}")),
            120_000,
            1,
        ));
    }
    let server = MockServer::start_recording(scenario, &project.records_path(1))?;
    let mut drive = project.drive(&server.base_url(), RUN, &[], &[API_KEY, SCALE])?;
    let files = project.run(RUN);
    wait_for("3 submissions and a hung second wave", 120, || {
        Ok(!drive.running()
            || (files.submitted().len() >= 3
                && server
                    .requests()
                    .iter()
                    .any(|r| r.answer.starts_with("hang"))))
    })?;
    let done_before: BTreeSet<String> = files.submitted().into_keys().collect();
    let records_before = server.requests().len();
    ctx.checks.that(drive.kill_session(), || {
        "no claude session to kill (drive had ended)".to_owned()
    });
    let outcome = drive.wait(drive_timeout(ctx))?;
    check_exit(ctx, &outcome, 0);
    check_complete_once(ctx, &project, RUN, FINDINGS, &[])?;
    let sessions = drive_sessions(&project, RUN);
    ctx.checks.that(sessions.len() >= 2, || {
        format!("drive.jsonl has {} sessions, expected 2", sessions.len())
    });
    if let Some(first) = sessions.first() {
        ctx.checks
            .equal("session 1 reason", &field(first, "/reason"), &"crashed");
        ctx.checks
            .equal("session 1 signal", &u64_at(first, "/signal"), &9);
    }
    let after_kill = server.requests().split_off(records_before);
    let relaunched = launched_items(&after_kill);
    check_no_duplicate_launch(ctx, &relaunched);
    for id in &done_before {
        ctx.checks.that(!relaunched.contains(id), || {
            format!("{id} was submitted before the kill and launched again after it")
        });
    }
    ctx.notes.push(format!(
        "killed session 1 with {} items submitted; {} sessions; session 2 launched {} agents; drive {:.1} s",
        done_before.len(),
        sessions.len(),
        relaunched.len(),
        outcome.wall.as_secs_f64()
    ));
    Ok(())
}

/// (c) The API answers 401: the driver stops the session at its first retry and exits 20
/// with the message that a human must act.
pub(crate) fn auth_refused(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    const RUN: &str = "r-drive-auth";
    let project = new_project(ctx, "drive-auth-401", RUN, 3, 3)?;
    let server = MockServer::start_recording(
        pipeline_scenario().fault(Fault::status(ThreadSelector::Any, 401, usize::MAX)),
        &project.records_path(1),
    )?;
    let outcome = project
        .drive(&server.base_url(), RUN, &[], &[API_KEY, SCALE])?
        .wait(drive_timeout(ctx))?;
    check_exit(ctx, &outcome, 20);
    ctx.checks
        .that(outcome.stdout.contains("refused the credentials"), || {
            format!("no auth message: {}", outcome.describe())
        });
    // The client alone retries a 401 for more than two minutes (9 retries within 120 s).
    ctx.checks.that(outcome.wall < Duration::from_secs(45), || {
        format!("drive did not stop at once: {}", outcome.describe())
    });
    let sessions = drive_sessions(&project, RUN);
    ctx.checks
        .equal("sessions in drive.jsonl", &sessions.len(), &1);
    if let Some(first) = sessions.first() {
        ctx.checks
            .equal("session 1 reason", &field(first, "/reason"), &"auth_failed");
    }
    let errors = errors_catalog(&project, RUN);
    ctx.checks.that(
        errors
            .iter()
            .any(|e| field(e, "/category") == "auth_failed"),
        || format!("errors.jsonl has no auth_failed entry: {errors:?}"),
    );
    let state = project.run(RUN).state()?;
    ctx.checks.equal(
        "run status after the 401",
        &field(&state, "/status"),
        &"active",
    );
    ctx.notes.push(format!(
        "401: drive exit {:?} after {:.1} s",
        outcome.code,
        outcome.wall.as_secs_f64()
    ));
    Ok(())
}

/// (d) Every session ends without progress (the API refuses the main thread's requests with
/// 404, as for a model name it does not serve): after 3 the circuit opens, exit 21.
pub(crate) fn no_progress_circuit(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    const RUN: &str = "r-drive-stuck";
    let project = new_project(ctx, "drive-no-progress-circuit", RUN, 3, 3)?;
    let server = MockServer::start_recording(
        pipeline_scenario().fault(Fault::status(ThreadSelector::Main, 404, usize::MAX)),
        &project.records_path(1),
    )?;
    let outcome = project
        .drive(&server.base_url(), RUN, &[], &[API_KEY, SCALE])?
        .wait(drive_timeout(ctx))?;
    check_exit(ctx, &outcome, 21);
    ctx.checks.that(
        outcome.stdout.contains("circuit is open")
            && outcome
                .stdout
                .contains("3 sessions in a row made no progress"),
        || format!("no circuit message: {}", outcome.describe()),
    );
    ctx.checks
        .that(outcome.stdout.contains("API error 404"), || {
            format!(
                "the message does not name the last error: {}",
                outcome.describe()
            )
        });
    let sessions = drive_sessions(&project, RUN);
    ctx.checks
        .equal("sessions in drive.jsonl", &sessions.len(), &3);
    ctx.checks.that(
        sessions
            .iter()
            .all(|s| s.get("progressed") == Some(&Value::Bool(false))),
        || "a session counted as progress".to_owned(),
    );
    let errors = errors_catalog(&project, RUN);
    ctx.checks.that(
        errors.iter().any(|e| {
            u64_at(e, "/count") == 3
                && e.get("sessions")
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len)
                    == 3
        }),
        || format!("errors.jsonl does not count one error in 3 sessions: {errors:?}"),
    );
    ctx.notes.push(format!(
        "circuit opened after {} sessions in {:.1} s",
        sessions.len(),
        outcome.wall.as_secs_f64()
    ));
    Ok(())
}
