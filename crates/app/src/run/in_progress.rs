//! `start` and `check` make a new run the project's active one. A run still in progress is
//! never replaced silently: its late submissions would land on the new run's items of the same
//! id. They refuse, saying what to run, unless told `--replace` (which cancels the old run).

use self_repair_engine::RunStatus;
use self_repair_store::{Project, RunDir};

use crate::app_error::AppError;
use crate::run::handle::RunHandle;
use crate::run::load::load_folded;
use crate::run::steering::steer;

/// The active run, when it is still in progress, and how far it got (in words).
pub fn run_in_progress(project: &Project) -> Option<(RunDir, String)> {
    let id = project.active_run_id()?;
    let dir = project.run(&id).ok()?;
    let dir = match RunHandle::open(dir) {
        RunHandle::Triage(dir) => dir,
        RunHandle::Repair(dir) => {
            let report = self_repair_repair::repair_status(&dir).ok()?;
            if report.status.is_final() {
                return None;
            }
            return Some((
                dir,
                format!("a repair run, status {}", report.status.as_str()),
            ));
        }
    };
    // An unreadable state cannot be driven either: `doctor` is its way back, not a refusal.
    let state = load_folded(&dir, false).ok()?;
    if matches!(state.status, RunStatus::Complete | RunStatus::Cancelled) {
        return None;
    }
    let counts = state.counts(state.phase);
    Some((
        dir,
        format!(
            "phase {}, {} of {} items done, status {}",
            state.phase.as_str(),
            counts.done,
            counts.total(),
            state.shown()
        ),
    ))
}

/// The active run a new run would replace, checked before anything is written: `None` when no
/// run is in progress; refused unless `replace`. `again` is the same command with `--replace`,
/// for the message. Cancel it with [`cancel_replaced`] once the new run exists.
pub fn run_to_replace(
    project: &Project,
    replace: bool,
    again: &str,
) -> Result<Option<(RunDir, String)>, AppError> {
    let Some((dir, progress)) = run_in_progress(project) else {
        return Ok(None);
    };
    let id = dir.id();
    if !replace {
        return Err(AppError::RunInProgress(format!(
            "run {id} is still in progress ({progress}); nothing was created. To go on with it: \
             {}. To drop it and start this one, run `{again}` (it cancels {id}), or \
             `self-repair cancel --run {id}` first.",
            how_to_go_on(&dir)
        )));
    }
    Ok(Some((dir, progress)))
}

/// Cancels the run [`run_to_replace`] named, now that the new run exists; returns the line that
/// says so. A triage run's decided verdicts are in `known.json` already (the new run was routed
/// after they were kept).
pub fn cancel_replaced(
    project: &Project,
    (dir, progress): (RunDir, String),
    now: u64,
) -> Result<String, AppError> {
    let id = dir.id();
    let said = match RunHandle::open(dir) {
        RunHandle::Repair(dir) => self_repair_repair::cancel_repair(project, dir, now)
            .map_err(|e| AppError::Usage(format!("--replace could not cancel run {id}: {e}")))?,
        RunHandle::Triage(dir) => steer(&dir, self_repair_engine::Event::Cancel, now)?,
    };
    Ok(format!("replaced run {id} ({progress}): {said}"))
}

/// [`run_to_replace`] and [`cancel_replaced`] at once, for a command whose new run is made
/// elsewhere after this (`check`).
pub fn replace_run_in_progress(
    project: &Project,
    replace: bool,
    again: &str,
    now: u64,
) -> Result<Option<String>, AppError> {
    match run_to_replace(project, replace, again)? {
        Some(old) => cancel_replaced(project, old, now).map(Some),
        None => Ok(None),
    }
}

/// How the run in progress in `dir` goes on, in the words its state gives
/// ([`self_repair_engine::ShownStatus::how_to_go_on`]); a repair run's by its own status.
fn how_to_go_on(dir: &RunDir) -> String {
    match RunHandle::open(dir.clone()) {
        RunHandle::Triage(dir) => match load_folded(&dir, false) {
            Ok(state) => state
                .shown()
                .how_to_go_on(&state.run, state.session.as_deref()),
            Err(_) => format!("`self-repair status --run {}` shows where it is", dir.id()),
        },
        RunHandle::Repair(dir) => format!(
            "`self-repair status --run {}` shows where it is; `self-repair tick` goes on",
            dir.id()
        ),
    }
}
