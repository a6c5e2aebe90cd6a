//! A run opened once as what it is: a triage run (`start`) or a repair run (`check`, `fix`).
//! Every command and hook that treats the two differently matches a [`RunHandle`], so a third
//! kind of run is a compile error at each place that must handle it, not a silent fall-through.

use self_repair_store::{RunDir, RunKind};

use crate::app_error::AppError;

/// A run folder and its kind, read once from `run.json`.
#[derive(Debug)]
pub enum RunHandle {
    /// A triage run: findings, verdicts, groups, plans, tasks (`self-repair start`).
    Triage(RunDir),
    /// A repair run: a failing check rerun until it passes (`self-repair check`, `fix`).
    Repair(RunDir),
}

impl RunHandle {
    /// Opens a run folder by its manifest's kind; a folder whose `run.json` cannot be read is
    /// taken as a triage run (its state loader then says what is wrong, and `doctor` repairs it).
    pub fn open(dir: RunDir) -> RunHandle {
        match dir.manifest().map(|m| m.kind) {
            Ok(RunKind::Repair) => RunHandle::Repair(dir),
            Ok(RunKind::Triage) | Err(_) => RunHandle::Triage(dir),
        }
    }

    /// The run's folder, whatever its kind.
    pub fn dir(&self) -> &RunDir {
        match self {
            RunHandle::Triage(dir) | RunHandle::Repair(dir) => dir,
        }
    }

    /// The triage run, or a usage error saying that `what` takes a triage run and what to use
    /// instead.
    pub fn triage(self, what: &str) -> Result<RunDir, AppError> {
        match self {
            RunHandle::Triage(dir) => Ok(dir),
            RunHandle::Repair(dir) => Err(AppError::Usage(format!(
                "run {} is a repair run (`self-repair check`): {what} is for triage runs; `self-repair status` shows its attempts and next step, `self-repair tick` takes that step outside Claude Code, `self-repair cancel` ends it",
                dir.id()
            ))),
        }
    }
}
