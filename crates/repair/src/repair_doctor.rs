//! `self-repair doctor` for a repair run: a `state.json` that cannot be read is rebuilt from
//! what is never rewritten, `state.initial.json` and the append-only journal, replayed through
//! the machine's [`apply_event`]; each line's recorded step and status must come out again.

use self_repair_store::{RunDir, StoreError, write_json};

use crate::repair_journal::read_events;
use crate::repair_run::load_repair_state;
use crate::{RepairError, RepairState, apply_event};

/// What `doctor` found in one repair run: lines for the user, and whether the run works now.
#[derive(Debug, Default)]
pub struct RepairDoctor {
    pub lines: Vec<String>,
    pub healthy: bool,
}

/// Checks the repair run in `dir` (call with the run lock held) and rebuilds its state when it
/// cannot be read.
pub fn doctor_repair_run(dir: &RunDir) -> RepairDoctor {
    let mut report = RepairDoctor {
        lines: Vec::new(),
        healthy: true,
    };
    match load_repair_state(dir) {
        Ok(state) => report.lines.push(format!("ok ({})", summary(&state))),
        Err(
            e @ RepairError::Store(
                StoreError::CorruptState { .. }
                | StoreError::SchemaVersion { .. }
                | StoreError::Io { .. },
            ),
        ) => {
            report.lines.push(e.to_string());
            match rebuild(dir, &mut report.lines) {
                Ok(line) => report.lines.push(line),
                Err(line) => {
                    report.lines.push(line);
                    report.healthy = false;
                }
            }
        }
        Err(e) => {
            report.lines.push(e.to_string());
            report.healthy = false;
        }
    }
    report
}

fn summary(state: &RepairState) -> String {
    format!(
        "repair run, status {}, {} checks, {} attempts",
        state.status.as_str(),
        state.checks.len(),
        state.attempts.len()
    )
}

/// Replays the journal over the initial state and saves the result; the line to show, or why
/// it cannot be done and what to do instead.
fn rebuild(dir: &RunDir, notes: &mut Vec<String>) -> Result<String, String> {
    let cannot = |why: String| {
        format!(
            "{why}; the run cannot be rebuilt: start a new one with `self-repair check` (this run's check logs stay in {})",
            dir.path().join("attempts").display()
        )
    };
    let mut state = dir.load_initial_as::<RepairState>().map_err(|e| match e {
        StoreError::InitialStateUnusable { path, reason } => {
            cannot(format!("{} is unusable ({reason})", path.display()))
        }
        other => cannot(other.to_string()),
    })?;
    let journal = read_events(dir.path()).map_err(|e| cannot(e.to_string()))?;
    notes.extend(journal.skipped);
    for (line, record) in &journal.records {
        apply_event(&mut state, &record.event, record.at);
        if state.step != record.step || state.status != record.status {
            return Err(cannot(format!(
                "replaying line {line} of {} gives status {} where the journal recorded {}",
                dir.path().join("journal.jsonl").display(),
                state.status.as_str(),
                record.status.as_str()
            )));
        }
    }
    write_json(&dir.state_path(), &state)
        .map_err(|e| format!("{e}; free disk space and run doctor again"))?;
    Ok(format!(
        "rebuilt state.json from state.initial.json and {} journal entries ({})",
        journal.records.len(),
        summary(&state)
    ))
}
