//! `self-repair doctor`'s runs: check every run's files and repair what can be repaired.

use std::time::Duration;

use self_repair_engine::RunState;
use self_repair_store::{Project, RunDir, RunKind, StoreError, write_json};

use crate::app_error::AppError;
use crate::run::handle::RunHandle;

/// Checks runs (all, or one) and rebuilds unreadable states from the journal. Returns one line
/// per finding and whether everything is healthy now.
pub fn doctor(project: &Project, only: Option<&str>) -> Result<(Vec<String>, bool), AppError> {
    let mut lines = Vec::new();
    let mut healthy = true;
    let set_aside = set_aside_broken(project, only, &mut lines)?;
    match project.active_run_id() {
        Some(id) if set_aside.contains(&id) => {
            project.clear_active()?;
            lines.push(format!(
                "the active run was `{id}`, which held no run: no run is active now; \
                 `self-repair start` a new one"
            ));
        }
        Some(id) if project.run(&id).is_err() => {
            lines.push(format!(
                "active run `{id}` does not exist; `self-repair start` a new one"
            ));
            healthy = false;
        }
        _ => {}
    }
    let ids = match only {
        Some(id) if set_aside.iter().any(|s| s == id) => Vec::new(),
        Some(id) => vec![project.run(id)?.id()],
        None => project.run_ids()?,
    };
    for id in ids {
        let dir = project.run(&id)?;
        let _lock = dir.lock()?;
        for temp in dir.remove_abandoned_temps(Some(ABANDONED_AFTER)) {
            lines.push(format!(
                "{id}: removed {} (left by a writer that was killed)",
                temp.display()
            ));
        }
        if let Some(fixed) = fix_run_kind(&dir)? {
            lines.push(format!("{id}: {fixed}"));
        }
        healthy &= match RunHandle::open(dir.clone()) {
            RunHandle::Repair(dir) => {
                let report = self_repair_repair::doctor_repair_run(&dir);
                lines.extend(report.lines.iter().map(|line| format!("{id}: {line}")));
                report.healthy
            }
            RunHandle::Triage(dir) => check_triage_run(&dir, &id, &mut lines)?,
        };
        for line in dir.finish_interrupted_submits() {
            lines.push(format!("{id}: {line}"));
        }
    }
    Ok((lines, healthy))
}

/// Moves aside the folders under `runs/` that hold no run (all, or `only`) and removes the
/// staging folders of killed creators; says so in `lines` and returns the ids moved.
fn set_aside_broken(
    project: &Project,
    only: Option<&str>,
    lines: &mut Vec<String>,
) -> Result<Vec<String>, AppError> {
    for staging in self_repair_store::remove_abandoned_staging(&project.runs_dir()) {
        lines.push(format!(
            "removed {} (a run a killed command was creating; it never became visible)",
            staging.display()
        ));
    }
    let mut moved = Vec::new();
    for id in project.broken_runs()? {
        if only.is_some_and(|only| only != id) {
            continue;
        }
        let to = project.set_aside_broken(&id)?;
        lines.push(format!(
            "{id}: the folder held no run (no state.json or run.json: a `start` killed while it \
             made it); moved aside to {}",
            to.display()
        ));
        moved.push(id);
    }
    Ok(moved)
}

/// Checks a triage run: folds its journal, or rebuilds an unreadable state from it. Says what it
/// found in `lines`; returns whether the run is healthy now.
fn check_triage_run(dir: &RunDir, id: &str, lines: &mut Vec<String>) -> Result<bool, AppError> {
    let mut healthy = true;
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
                "{id}: ok ({} items, phase {}, {} journal entries not yet applied to state.json)",
                state.items.len(),
                state.phase.as_str(),
                report.applied
            ));
        }
        Err(
            e @ (StoreError::CorruptState { .. }
            | StoreError::JournalBehindState { .. }
            | StoreError::SchemaVersion { .. }
            | StoreError::Io { .. }),
        ) => {
            // Doctor is what the error's advice names: say what it found, not to run it.
            lines.push(match &e {
                StoreError::CorruptState { path, reason, kept } => format!(
                    "{id}: the run state {} is unreadable ({reason}); a copy was kept at {}",
                    path.display(),
                    kept.display()
                ),
                other => format!("{id}: {other}"),
            });
            match dir.rebuild() {
                Ok((state, report)) => {
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
        Err(e) => {
            lines.push(format!("{id}: {e}"));
            healthy = false;
        }
    }
    Ok(healthy)
}

/// Temporary files older than this, in a run folder or its `items/`, were abandoned.
const ABANDONED_AFTER: Duration = Duration::from_mins(1);

/// Makes `run.json`'s `kind` agree with the `state.json` beside it (a damaged kind sends every
/// command to the wrong reader). Says what it changed.
fn fix_run_kind(dir: &RunDir) -> Result<Option<String>, AppError> {
    let Ok(mut manifest) = dir.manifest() else {
        return Ok(None);
    };
    let path = dir.state_path();
    let Ok(bytes) = std::fs::read(&path) else {
        return Ok(None);
    };
    let is_triage = serde_json::from_slice::<RunState>(&bytes).is_ok();
    let is_repair = serde_json::from_slice::<self_repair_repair::RepairState>(&bytes).is_ok();
    let actual = match (manifest.kind, is_triage, is_repair) {
        (RunKind::Repair, true, false) => RunKind::Triage,
        (RunKind::Triage, false, true) => RunKind::Repair,
        _ => return Ok(None),
    };
    let said = manifest.kind;
    manifest.kind = actual;
    write_json(&dir.manifest_path(), &manifest)?;
    Ok(Some(format!(
        "run.json said kind {} but state.json is a {} run; run.json now says {}",
        kind_name(said),
        kind_name(actual),
        kind_name(actual)
    )))
}

fn kind_name(kind: RunKind) -> &'static str {
    match kind {
        RunKind::Triage => "triage",
        RunKind::Repair => "repair",
    }
}
