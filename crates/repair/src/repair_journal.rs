//! The repair run's `journal.jsonl`: one line per event, with the state it led to, so the
//! journal alone shows every transition. Appended with the run lock held; read back whole by
//! `doctor` to rebuild the state.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

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
        .read(true)
        .open(&path)
        .map_err(RepairError::io("open journal", &path))?;
    // A last line torn by a writer killed mid-line is closed first, so it cannot swallow ours.
    if ends_torn(&mut file).map_err(RepairError::io("read journal", &path))? {
        text.insert(0, '\n');
    }
    file.write_all(text.as_bytes())
        .and_then(|()| file.sync_data())
        .map_err(RepairError::io("append to journal", &path))
}

/// Whether the file's last byte is not a newline (an empty file is not torn).
fn ends_torn(file: &mut std::fs::File) -> std::io::Result<bool> {
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(false);
    }
    let mut last = [0u8; 1];
    file.seek(SeekFrom::Start(len - 1))?;
    file.read_exact(&mut last)?;
    Ok(last[0] != b'\n')
}

/// One line of the journal as read back.
#[derive(Debug, Deserialize)]
pub(crate) struct JournalRecord {
    pub at: u64,
    #[serde(flatten)]
    pub event: RepairEvent,
    /// The step after the event.
    pub step: Step,
    /// The status after the event.
    pub status: RepairStatus,
}

/// The journal read back whole.
#[derive(Debug, Default)]
pub(crate) struct JournalRead {
    /// Each line that parsed, with its line number.
    pub records: Vec<(usize, JournalRecord)>,
    /// Why each line left out was left out.
    pub skipped: Vec<String>,
}

/// Every complete line of `journal.jsonl` in `dir`, in order, with its line number, and why
/// each line left out was (a last line without its newline: a write interrupted before it was
/// synced, so never acted on). A missing journal is empty.
pub(crate) fn read_events(dir: &Path) -> Result<JournalRead, RepairError> {
    let path = dir.join("journal.jsonl");
    let text = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(RepairError::io("read", &path)(e)),
    };
    let complete = text.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    let mut skipped = Vec::new();
    if text[complete..].iter().any(|b| !b.is_ascii_whitespace()) {
        skipped.push(format!(
            "{}: left out its last line, cut short by an interrupted write",
            path.display()
        ));
    }
    let mut records = Vec::new();
    for (index, line) in text[..complete].split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<JournalRecord>(line) {
            Ok(record) => records.push((index + 1, record)),
            Err(e) => skipped.push(format!(
                "{}: left out line {}, which does not parse ({e}): a write interrupted before it was synced, never acted on",
                path.display(),
                index + 1
            )),
        }
    }
    Ok(JournalRead { records, skipped })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_torn_by_a_killed_writer_does_not_swallow_the_next_event() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        std::fs::write(&path, "{\"at\":1,\"event\":\"resu").unwrap();
        append_event(
            dir.path(),
            2,
            &RepairEvent::Resumed,
            Step::Baseline,
            RepairStatus::Active,
        )
        .unwrap();
        // A writer killed mid-line again: the last line has no newline.
        std::fs::write(
            &path,
            std::fs::read_to_string(&path).unwrap() + "{\"at\":3,\"eve",
        )
        .unwrap();
        let read = read_events(dir.path()).unwrap();
        assert_eq!(read.records.len(), 1);
        assert_eq!(read.records[0].0, 2, "the event is line 2");
        assert_eq!(read.records[0].1.event, RepairEvent::Resumed);
        assert_eq!(read.records[0].1.at, 2);
        assert_eq!(read.skipped.len(), 2, "{:?}", read.skipped);
    }
}
