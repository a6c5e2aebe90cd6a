//! The repair run's `journal.jsonl`: one line per event, with the state it led to, so the
//! journal alone shows every transition. Appended with the run lock held.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::{RepairError, RepairEvent, RepairStatus, Step};

/// One line of the journal.
#[derive(Debug, Serialize)]
struct JournalLine<'a> {
    at: u64,
    #[serde(flatten)]
    event: &'a RepairEvent,
    /// The step after the event.
    step: Step,
    /// The status after the event.
    status: RepairStatus,
}

/// Appends one event line to `journal.jsonl` in `dir` and syncs it.
pub(crate) fn append_event(
    dir: &Path,
    at: u64,
    event: &RepairEvent,
    step: Step,
    status: RepairStatus,
) -> Result<(), RepairError> {
    let path: PathBuf = dir.join("journal.jsonl");
    let line = JournalLine {
        at,
        event,
        step,
        status,
    };
    let mut text = serde_json::to_string(&line).map_err(|e| RepairError::Io {
        action: "encode a journal line for",
        path: path.clone(),
        source: std::io::Error::other(e),
    })?;
    text.push('\n');
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(RepairError::io("open journal", &path))?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.sync_data())
        .map_err(RepairError::io("append to journal", &path))
}
