//! `state.head.json`: a run's head ([`RunHead`]: status, binding, counters, the items in
//! flight) beside `state.json`, stamped with the `state.json` it was taken from, so a stop that
//! changes nothing reads it instead of decoding every item (reference/state-file.md).

use std::path::Path;

use serde::{Deserialize, Serialize};

use self_repair_engine::RunHead;

/// Version of the head file's layout. A head of another version is not read (the stop loads
/// the whole state) and the next save replaces it.
pub const HEAD_SCHEMA_VERSION: u32 = 1;

/// The file: the head and the `state.json` it describes.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct StateHead {
    pub(crate) schema_version: u32,
    /// `state.json` as it was when the head was taken from it.
    pub(crate) state: FileStamp,
    pub(crate) head: RunHead,
}

/// Which file, of which length, last written when. A save writes the other of two files
/// (`state.json` and its spare swap names) and dates it after the one it replaces
/// (`replace_through_spare`), so a head whose stamp matches describes the state on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct FileStamp {
    dev: u64,
    ino: u64,
    len: u64,
    mtime: i64,
    mtime_ns: i64,
}

impl FileStamp {
    /// The stamp of the file at `path` now; `None` when it cannot be read (or off Unix, where
    /// no head is trusted).
    pub(crate) fn of(path: &Path) -> Option<FileStamp> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let meta = std::fs::metadata(path).ok()?;
            Some(FileStamp {
                dev: meta.dev(),
                ino: meta.ino(),
                len: meta.len(),
                mtime: meta.mtime(),
                mtime_ns: meta.mtime_nsec(),
            })
        }
        #[cfg(not(unix))]
        {
            let _ = path;
            None
        }
    }
}

impl StateHead {
    /// The head in `bytes` when it is of this layout and describes `state` as stamped now.
    pub(crate) fn read(bytes: &[u8], state: FileStamp) -> Option<RunHead> {
        let file: StateHead = serde_json::from_slice(bytes).ok()?;
        (file.schema_version == HEAD_SCHEMA_VERSION && file.state == state).then_some(file.head)
    }
}

#[cfg(test)]
mod tests {
    use self_repair_engine::{
        Config, Event, Intake, JournalEntry, RoutedFinding, RunState, RunStatus, Tier, create_run,
    };

    use super::*;
    use crate::RunDir;

    fn created() -> (tempfile::TempDir, RunDir, RunState) {
        let folder = tempfile::tempdir().unwrap();
        let dir = RunDir::new(folder.path().to_path_buf());
        let routed: Vec<RoutedFinding> = (0..3)
            .map(|i| RoutedFinding {
                finding: i,
                route: "generic".into(),
                tier: Tier::Haiku,
                rule: "ruff F401".into(),
                path: format!("src/m{i}.py"),
                safe_fix: false,
                security: false,
                severe: false,
            })
            .collect();
        let intake = Intake {
            findings: 3,
            unique: 3,
            routed: 3,
            ..Intake::default()
        };
        let state = create_run(
            "r-head".into(),
            1,
            Config::default(),
            intake,
            Some("s1".into()),
            &routed,
        );
        dir.create(&state).unwrap();
        (folder, dir, state)
    }

    #[test]
    fn a_saved_state_has_a_head_that_describes_it() {
        let (_folder, dir, mut state) = created();
        // No journal yet: an empty one, all folded.
        assert_eq!(dir.load_head(), Some(RunHead::of(&state)));
        state.status = RunStatus::Stalled;
        state.stalled_at = Some(0);
        dir.save_state(&state, state.items.len()).unwrap();
        assert_eq!(dir.load_head().map(|h| h.status), Some(RunStatus::Stalled));
    }

    #[test]
    fn a_journal_line_the_state_has_not_folded_hides_the_head() {
        let (_folder, dir, _state) = created();
        let entry = JournalEntry {
            at: 2,
            event: Event::Submitted {
                item: "t-00001".into(),
                result: serde_json::json!({"verdict": "real"}),
            },
        };
        dir.journal().append(&[entry]).unwrap();
        assert_eq!(dir.load_head(), None);
    }

    #[test]
    fn a_state_written_without_its_head_hides_the_head() {
        let (_folder, dir, _state) = created();
        let bytes = std::fs::read(dir.state_path()).unwrap();
        crate::write_atomic(&dir.state_path(), &bytes).unwrap();
        assert_eq!(dir.load_head(), None, "same bytes, another file: stale");
    }

    #[test]
    fn a_head_left_from_an_earlier_save_never_matches_a_later_one() {
        // `state.json` alternates between two files (the spare swap): the third save writes
        // into the first save's file, with the same length. A head taken of the first save, as
        // a crash between a save's state and its head would leave it, must not describe it.
        let (_folder, dir, mut state) = created();
        state.status = RunStatus::Stalled;
        state.stalled_at = Some(0);
        dir.save_state(&state, state.items.len()).unwrap();
        let first_head = std::fs::read(dir.head_path()).unwrap();
        let first = FileStamp::of(&dir.state_path()).unwrap();
        let read_first =
            |dir: &RunDir| StateHead::read(&first_head, FileStamp::of(&dir.state_path()).unwrap());
        assert!(
            read_first(&dir).is_some(),
            "the head describes its own save"
        );
        state.stalled_at = Some(1);
        dir.save_state(&state, state.items.len()).unwrap();
        assert_eq!(read_first(&dir), None);
        state.stalled_at = Some(0);
        dir.save_state(&state, state.items.len()).unwrap();
        let third = FileStamp::of(&dir.state_path()).unwrap();
        assert_eq!(
            (third.ino, third.len),
            (first.ino, first.len),
            "the same file, the same length"
        );
        assert_eq!(read_first(&dir), None, "but not the same save");
        assert_eq!(dir.load_head().map(|h| h.stalled_at), Some(Some(0)));
    }

    #[test]
    fn a_head_of_another_layout_is_not_read() {
        let (_folder, dir, _state) = created();
        let text = std::fs::read_to_string(dir.head_path()).unwrap();
        let other = text.replacen(
            &format!("\"schema_version\":{HEAD_SCHEMA_VERSION}"),
            "\"schema_version\":99",
            1,
        );
        assert_ne!(text, other);
        std::fs::write(dir.head_path(), other).unwrap();
        assert_eq!(dir.load_head(), None);
    }
}
