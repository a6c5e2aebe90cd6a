//! Opening a run's state: `state.json` with the journal's pending entries folded in.

use self_repair_engine::RunState;
use self_repair_store::{Project, RunDir, RunKind};

use crate::app_error::AppError;
use crate::run::handle::RunHandle;

/// Loads the state and folds the journal; with `save`, writes the folded state back.
pub fn load_folded(dir: &RunDir, save: bool) -> Result<RunState, AppError> {
    let _lock = dir.lock()?;
    let mut state = dir.load_state()?;
    let items_before = state.items.len();
    let before = state.journal_offset;
    dir.fold(&mut state)?;
    if save && state.journal_offset != before {
        dir.save_state(&state, items_before)?;
    }
    Ok(state)
}

/// The most recent triage run with tasks.
pub(crate) fn latest_triage_run(project: &Project) -> Result<RunDir, AppError> {
    let mut best: Option<(u64, RunDir)> = None;
    for id in project.run_ids()? {
        let Ok(dir) = project.run(&id) else { continue };
        let Ok(manifest) = dir.manifest() else {
            continue;
        };
        if manifest.kind == RunKind::Repair {
            continue;
        }
        if best
            .as_ref()
            .is_none_or(|(at, _)| manifest.created_at >= *at)
        {
            best = Some((manifest.created_at, dir));
        }
    }
    best.map(|(_, dir)| dir).ok_or_else(|| {
        AppError::NotFound(
            "no triage run in this project: `self-repair start` one, let it write its tasks, then `self-repair fix`".to_owned(),
        )
    })
}

/// The triage run that wrote a task, for `verify-task` and `apply-fixes`: `run`, else the
/// latest triage run (the active run is often the task's own repair run); a repair run is
/// refused, naming `command`.
pub(crate) fn task_run(
    project: &Project,
    run: Option<&str>,
    command: &str,
) -> Result<RunDir, AppError> {
    let dir = match run {
        Some(id) => project.run(id)?,
        None => latest_triage_run(project)?,
    };
    match RunHandle::open(dir) {
        RunHandle::Triage(dir) => Ok(dir),
        RunHandle::Repair(dir) => Err(AppError::Usage(format!(
            "run {} is a repair run: `{command}` takes the triage run that wrote the task (`self-repair runs` lists them)",
            dir.id()
        ))),
    }
}
