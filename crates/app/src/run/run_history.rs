//! A project's triage runs in the order they were started, and which one came before a run:
//! what `runs --compare` compares by default, and what a run's report counts against.

use self_repair_engine::RunState;
use self_repair_store::Project;

use crate::app_error::AppError;
use crate::run::handle::RunHandle;

/// One triage run of the project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TriageRunEntry {
    pub id: String,
    /// `created_at` of its state.
    pub created_at: u64,
    /// One partition's share (`start --partition`): a part of a run, not a run over the
    /// project's findings.
    pub share: bool,
}

/// The project's triage runs whose state reads, oldest first (by creation, then id).
pub fn triage_runs(project: &Project) -> Result<Vec<TriageRunEntry>, AppError> {
    let mut runs = Vec::new();
    for id in project.run_ids()? {
        let RunHandle::Triage(dir) = RunHandle::open(project.run(&id)?) else {
            continue;
        };
        if let Ok(state) = dir.load_state() {
            runs.push(TriageRunEntry {
                share: is_share(&state),
                created_at: state.created_at,
                id,
            });
        }
    }
    runs.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
    Ok(runs)
}

/// Whether `state` is one partition's share.
pub fn is_share(state: &RunState) -> bool {
    state.scope.as_ref().is_some_and(|s| s.partition.is_some())
}

/// The run before `state`'s in `runs` (oldest first) that is not a share, and every run older
/// than that one; `None` when `state`'s run is the first.
pub fn previous_run<'a>(
    runs: &'a [TriageRunEntry],
    state: &RunState,
) -> Option<(&'a TriageRunEntry, &'a [TriageRunEntry])> {
    let key = (state.created_at, state.run.as_str());
    let at = runs
        .iter()
        .rposition(|r| r.id != state.run && !r.share && (r.created_at, r.id.as_str()) < key)?;
    Some((&runs[at], &runs[..at]))
}
