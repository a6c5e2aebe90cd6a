//! `drive` on the fix queue on the real client (issue 26 item 5): after the fix-loop triage of
//! the `shop` fixture, the user runs `self-repair fix --all --commit` from a terminal and then
//! `self-repair drive`. The first session is killed (SIGKILL, as a crash) once it has adopted a
//! task's repair run and been asked for a fix; the next session adopts that run from the dead
//! one and the queue goes on to the end. Under the user's own rules only (`Edit`, `Write` and
//! `Bash(self-repair fix:*)` in `.claude/settings.local.json`, no `--allowedTools`).

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::Value;

use crate::e2e::e2e_error::E2eError;
use crate::e2e::e2e_project::{E2eProject, InstallMode};
use crate::e2e::run_files::field;
use crate::e2e::scenarios::ScenarioContext;
use crate::e2e::scenarios::fix_loop::{LEGACY, RUN, edit, queue, read, setup, triage};
use crate::e2e::scenarios::scenario_context::wait_for;
use crate::e2e::scenarios::shop_triage::Cause;
use crate::fix_script::FixScript;
use crate::mock_server::MockServer;
use crate::scenario::Scenario;

/// A key the scripted server accepts.
const API_KEY: (&str, &str) = ("ANTHROPIC_API_KEY", "e2e-not-a-key");
/// Backoffs at 1%.
const SCALE: (&str, &str) = ("SELF_REPAIR_DRIVE_BACKOFF_SCALE", "0.01");
/// How long session 1's first fix request waits for the kill.
const HOLD: Duration = Duration::from_secs(20);

/// Each task's fix at any attempt (the main session's, or the fixer's after the kill).
fn fixes(project: &E2eProject, tasks: &BTreeMap<Cause, String>) -> Vec<FixScript> {
    let task = |cause: Cause| tasks.get(&cause).cloned().unwrap_or_default();
    let fix = |cause: Cause, file: &str, old: &str, new: &str| FixScript {
        when: format!("verify-task {} ", task(cause)),
        attempt: None,
        steps: vec![read(project, file), edit(project, file, old, new)],
    };
    vec![
        fix(
            Cause::NoneCompare,
            "shop/pricing.py",
            "if discount == None:",
            "if discount is None:",
        ),
        fix(
            Cause::TrueCompare,
            "shop/inventory.py",
            "item[\"active\"] == True",
            "item[\"active\"] is True",
        ),
        fix(Cause::LegacyReport, "shop/report.py", LEGACY, ""),
    ]
}

/// The running task's repair run, when its state says a session adopted it and was asked
/// for an attempt.
fn adopted_and_asked(project: &E2eProject) -> Option<String> {
    let queue = queue(project).ok()?;
    let running = queue.values().find(|t| t["status"] == "running")?;
    let repair = running["repair_run"].as_str()?;
    let state = project.run(repair).state().ok()?;
    let asked = state["attempts"].as_array().is_some_and(|a| !a.is_empty());
    (state["session"].is_string() && asked).then(|| repair.to_owned())
}

/// `drive-fix-queue`: see the module's text.
pub(crate) fn killed_then_adopted(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let project = setup(ctx, "drive-fix-queue", InstallMode::Project)?;
    let tasks = triage(ctx, &project, false)?;
    let started = project.self_repair_ok(&["fix", "--all", "--commit"])?;
    ctx.checks
        .that(started.contains("repair run fix-r-fix-"), || {
            format!("self-repair fix from the terminal started no task: {started}")
        });
    // Session 1's first fix request is held until the test has killed it: its scripted fix
    // takes a few milliseconds, which a poll can miss (the session then finishes that task and
    // is killed in the next one, which this test does not look at).
    let first = queue(&project)?
        .into_values()
        .find(|t| t["status"] == "running")
        .and_then(|t| t["task_id"].as_str().map(str::to_owned))
        .unwrap_or_default();
    ctx.checks.that(!first.is_empty(), || {
        "self-repair fix --all left no task running".to_owned()
    });
    let scenario = fixes(&project, &tasks)
        .into_iter()
        .fold(Scenario::new(), Scenario::fix_script)
        .hold_first_main(format!("verify-task {first} "), HOLD);
    let server = MockServer::start_recording(scenario, &project.records_path(3))?;
    let mut drive = project.drive(&server.base_url(), RUN, &[], &[API_KEY, SCALE])?;
    let mut killed_in = None;
    wait_for(
        "a session adopting a task's run and asked to fix it",
        120,
        || {
            killed_in = adopted_and_asked(&project);
            Ok(killed_in.is_some() || !drive.running())
        },
    )?;
    ctx.checks.that(drive.kill_session(), || {
        "no claude session to kill (drive had ended)".to_owned()
    });
    let outcome = drive.wait(ctx.claude_timeout() * 3)?;
    ctx.checks.that(outcome.code == Some(0), || {
        format!("drive on the fix queue: {}", outcome.describe())
    });
    ctx.checks.that(
        outcome
            .stdout
            .starts_with("drive: the fix queue of run r-fix is complete"),
        || format!("drive's last message: {}", outcome.stdout),
    );
    let queue = queue(&project)?;
    for (cause, id) in &tasks {
        let entry = queue.get(id).cloned().unwrap_or(Value::Null);
        ctx.checks.that(
            entry["status"] == "fixed" && entry["commit"].is_string(),
            || format!("{cause:?} ({id}) not fixed and committed: {entry}"),
        );
    }
    // Session 1 was killed; a later one adopted the repair run it had been bound to.
    let log =
        std::fs::read_to_string(project.run(RUN).dir().join("drive.jsonl")).unwrap_or_default();
    let sessions: Vec<Value> = log
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v.get("event").is_none())
        .collect();
    ctx.checks.that(sessions.len() >= 2, || {
        format!(
            "drive.jsonl has {} sessions, expected 2 or more: {log}",
            sessions.len()
        )
    });
    if let Some(first) = sessions.first() {
        ctx.checks
            .equal("session 1 reason", &field(first, "/reason"), &"crashed");
    }
    if let Some(repair) = &killed_in {
        let state = project.run(repair).state()?;
        let first_session = sessions.first().and_then(|s| s["claude_session"].as_str());
        ctx.checks.that(
            state["session"].as_str().is_some() && state["session"].as_str() != first_session,
            || {
                format!(
                    "{repair} was not adopted by a later session: {}",
                    state["session"]
                )
            },
        );
    }
    ctx.notes.push(format!(
        "killed session 1 in {}; {} sessions; drive {:.1} s",
        killed_in.as_deref().unwrap_or("-"),
        sessions.len(),
        outcome.wall.as_secs_f64()
    ));
    Ok(())
}
