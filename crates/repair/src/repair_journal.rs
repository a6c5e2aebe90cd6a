//! The repair run's `journal.jsonl`: one line per event, with the state it led to, so the
//! journal alone shows every transition. Written and read by the store's [`Journal`], as a
//! triage run's is (synced, a torn last line closed first, cut back when the disk refuses);
//! appended with the run lock held; read back whole by `doctor` to rebuild the state.

use std::path::Path;

use self_repair_store::{Journal, JournalLine};
use serde::{Deserialize, Serialize};

use crate::{RepairError, RepairEvent, RepairStatus, Step};

/// One line of the journal.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct JournalRecord {
    pub at: u64,
    #[serde(flatten)]
    pub event: RepairEvent,
    /// The step after the event.
    pub step: Step,
    /// The status after the event.
    pub status: RepairStatus,
}

impl JournalLine for JournalRecord {
    fn at(&self) -> u64 {
        self.at
    }
}

fn journal(dir: &Path) -> Journal<JournalRecord> {
    Journal::new(dir.join("journal.jsonl"))
}

/// Appends one event line to `journal.jsonl` in `dir` and syncs it.
pub(crate) fn append_event(
    dir: &Path,
    at: u64,
    event: &RepairEvent,
    step: Step,
    status: RepairStatus,
) -> Result<(), RepairError> {
    let record = JournalRecord {
        at,
        event: event.clone(),
        step,
        status,
    };
    journal(dir).append(&[record])?;
    Ok(())
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
    let journal = journal(dir);
    let tail = journal.read_from(0)?;
    let mut skipped = tail.skipped;
    if tail.torn_tail {
        skipped.push(format!(
            "{}: left out its last line, cut short by an interrupted write",
            journal.path().display()
        ));
    }
    Ok(JournalRead {
        records: tail.lines.into_iter().zip(tail.entries).collect(),
        skipped,
    })
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

    #[test]
    fn a_line_timed_past_any_real_time_is_damage_and_left_out() {
        let dir = tempfile::tempdir().unwrap();
        for at in [7, 1 << 53, 8] {
            append_event(
                dir.path(),
                at,
                &RepairEvent::Resumed,
                Step::Baseline,
                RepairStatus::Active,
            )
            .unwrap();
        }
        let read = read_events(dir.path()).unwrap();
        let kept: Vec<(usize, u64)> = read.records.iter().map(|(n, r)| (*n, r.at)).collect();
        assert_eq!(kept, [(1, 7), (3, 8)]);
        assert_eq!(read.skipped.len(), 1, "{:?}", read.skipped);
    }
}
