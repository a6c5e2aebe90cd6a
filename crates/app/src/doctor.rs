//! `self-repair doctor`: check every run's files and repair what can be repaired.

use self_repair_store::{Project, StoreError};

use crate::AppError;

/// Checks runs (all, or one) and rebuilds unreadable states from the journal. Returns one line
/// per finding and whether everything is healthy now.
pub fn doctor(project: &Project, only: Option<&str>) -> Result<(Vec<String>, bool), AppError> {
    let mut lines = Vec::new();
    let mut healthy = true;
    match project.active_run_id() {
        Some(id) if project.run(&id).is_err() => {
            lines.push(format!(
                "active run `{id}` does not exist; `self-repair start` a new one"
            ));
            healthy = false;
        }
        _ => {}
    }
    let ids = match only {
        Some(id) => vec![project.run(id)?.id()],
        None => project.run_ids()?,
    };
    for id in ids {
        let dir = project.run(&id)?;
        if self_repair_repair::is_repair_run(&dir) {
            lines.push(format!(
                "{id}: repair run (its journal and attempts are not checked by doctor)"
            ));
            continue;
        }
        let _lock = dir.lock()?;
        let loaded = dir.load_state().and_then(|mut state| {
            let report = dir.fold(&mut state)?;
            Ok((state, report))
        });
        match loaded {
            Ok((state, report)) => {
                for skipped in &report.skipped {
                    lines.push(format!(
                        "{id}: {skipped} (a write interrupted mid-line; it was never acknowledged)"
                    ));
                }
                lines.push(format!(
                    "{id}: ok ({} items, phase {}, {} journal entries pending fold)",
                    state.items.len(),
                    state.phase.as_str(),
                    report.applied
                ));
            }
            Err(
                e @ (StoreError::CorruptState { .. }
                | StoreError::JournalBehindState { .. }
                | StoreError::Io { .. }),
            ) => {
                lines.push(format!("{id}: {e}"));
                let (state, report) = dir.rebuild()?;
                dir.save_state(&state, state.items.len())?;
                dir.rewrite_inputs(&state)?;
                lines.push(format!(
                    "{id}: rebuilt state.json from state.initial.json and {} journal entries (phase {}, {} items done)",
                    report.applied,
                    state.phase.as_str(),
                    state.items.iter().filter(|i| i.status == self_repair_engine::ItemStatus::Done).count()
                ));
            }
            Err(e) => {
                lines.push(format!("{id}: {e}"));
                healthy = false;
            }
        }
    }
    Ok((lines, healthy))
}
