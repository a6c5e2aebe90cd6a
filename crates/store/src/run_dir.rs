//! One run's folder: state, journal, findings, item inputs and results, reports.

use std::path::{Path, PathBuf};
use std::time::Duration;

use self_repair_engine::{
    ItemInput, ItemKind, JournalEntry, RunHead, RunState, STATE_SCHEMA_VERSION, apply, item_input,
};
use serde::{Deserialize, Serialize};

use crate::state_check::check_state;
use crate::state_format::{to_pretty_levels, to_shallow_pretty, write_shallow_pretty};
use crate::state_head::{FileStamp, HEAD_SCHEMA_VERSION, StateHead};
use crate::versioned_state::VersionedState;
use crate::write_atomic::replace_through_spare;
use crate::write_atomic::{TEMP_PREFIX, rebuildable_temp_prefix};
use crate::{Journal, RunLock, StoreError, is_safe_item_id, write_atomic};

/// How long a writer waits for the run lock before giving up.
pub const LOCK_TIMEOUT: Duration = Duration::from_secs(10);

/// Which pipeline a run belongs to; decides how its `state.json` is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunKind {
    /// Findings → verdicts → groups → plans → tasks (the engine crate).
    #[default]
    Triage,
    /// Make a failing check pass (the repair crate).
    Repair,
}

/// `run.json`: the few facts `submit` and the hook need before loading the whole state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub schema_version: u32,
    pub run: String,
    pub created_at: u64,
    #[serde(default)]
    pub kind: RunKind,
    #[serde(default)]
    pub triage_items: u32,
}

/// What folding the journal did.
#[derive(Debug, Default)]
pub struct FoldReport {
    pub applied: usize,
    /// Lines that did not parse, with why (for stderr and `doctor`).
    pub skipped: Vec<String>,
}

/// `.self-repair/runs/<id>/`.
#[derive(Debug, Clone)]
pub struct RunDir {
    dir: PathBuf,
}

impl RunDir {
    pub(crate) fn new(dir: PathBuf) -> RunDir {
        RunDir { dir }
    }

    /// A run folder anywhere, as given (a partition's CI artifact that `merge` reads);
    /// nothing is created or checked.
    pub fn at(dir: PathBuf) -> RunDir {
        RunDir { dir }
    }

    /// True when the folder holds a run (`state.json` or `run.json`).
    pub fn exists(&self) -> bool {
        self.state_path().is_file() || self.manifest_path().is_file()
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// The run id (the folder name).
    pub fn id(&self) -> String {
        self.dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// `state.json`.
    pub fn state_path(&self) -> PathBuf {
        self.dir.join("state.json")
    }

    /// `state.prev.json`: the state before the last save, the file the next save is written
    /// into (`replace_through_spare`); never read.
    fn state_spare_path(&self) -> PathBuf {
        self.dir.join("state.prev.json")
    }

    /// `state.head.json`: the state's status, binding and counters, for a stop that changes
    /// nothing ([`RunDir::load_head`]).
    pub fn head_path(&self) -> PathBuf {
        self.dir.join("state.head.json")
    }

    /// `state.head.prev.json`: the head's spare, as [`RunDir::state_spare_path`].
    fn head_spare_path(&self) -> PathBuf {
        self.dir.join("state.head.prev.json")
    }

    /// `state.initial.json`: the state as `start` created it; `doctor` replays the journal
    /// over it.
    pub fn initial_path(&self) -> PathBuf {
        self.dir.join("state.initial.json")
    }

    /// `findings.json`: the normalized input.
    pub fn findings_path(&self) -> PathBuf {
        self.dir.join("findings.json")
    }

    /// `run.json`.
    pub fn manifest_path(&self) -> PathBuf {
        self.dir.join("run.json")
    }

    /// `items/`.
    pub fn items_dir(&self) -> PathBuf {
        self.dir.join("items")
    }

    /// The journal.
    pub fn journal(&self) -> Journal {
        Journal::new(self.dir.join("journal.jsonl"))
    }

    /// `dispatched.mark`: the empty file every `items/<id>.dispatched` is a hard link of
    /// ([`RunDir::mark_dispatched`]).
    pub(crate) fn dispatched_template(&self) -> PathBuf {
        self.dir.join("dispatched.mark")
    }

    /// `items/<id>.<ext>`, for ids checked safe by the caller.
    pub fn item_file(&self, id: &str, ext: &str) -> Option<PathBuf> {
        is_safe_item_id(id).then(|| self.items_dir().join(format!("{id}.{ext}")))
    }

    /// `items/<id>.pending`: written before `submit` appends its journal line, removed once
    /// `items/<id>.<ext>` holds the result. It records where the line goes, so a later submit
    /// finds out in one read whether an attempt that died in between committed.
    fn submitting_marker(&self, item: &str) -> Option<PathBuf> {
        self.item_file(item, "pending")
    }

    /// Records, before the journal append, that `item`'s result is being appended at
    /// `offset`. Call with the lock held.
    pub fn mark_submitting(&self, item: &str, offset: u64) -> Result<(), StoreError> {
        match self.submitting_marker(item) {
            Some(path) => write_atomic(&path, format!("{offset}\n").as_bytes()),
            None => Ok(()),
        }
    }

    /// Forgets the marker of `item` (its result file is written, or its append failed).
    pub fn clear_submitting(&self, item: &str) {
        if let Some(path) = self.submitting_marker(item) {
            // A marker left behind only costs the next submit of this item one journal read.
            let _ = std::fs::remove_file(path);
        }
    }

    /// The result a submit of `item` committed to the journal without writing its result
    /// file (it was killed, or the disk failed, in between), read from the line its marker
    /// points at. `None`: no such attempt, or it died before its line was appended. A marker
    /// that does not say where (torn by a power cut) costs a scan of the journal.
    pub fn committed_without_copy(
        &self,
        item: &str,
    ) -> Result<Option<serde_json::Value>, StoreError> {
        let Some(path) = self.submitting_marker(item) else {
            return Ok(None);
        };
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(StoreError::io("read", &path)(e)),
        };
        let journal = self.journal();
        let Ok(offset) = text.trim().parse::<u64>() else {
            return journal.first_submission(item);
        };
        Ok(match journal.entry_at(offset)? {
            Some(JournalEntry {
                event: self_repair_engine::Event::Submitted { item: i, result },
                ..
            }) if i == item => Some(result),
            _ => None,
        })
    }

    /// The text of `item`'s recorded result: its copy `items/<id>.<ext>`, else the journal line
    /// of a submit interrupted before it wrote that copy (which `doctor` or the next submit of
    /// the item writes). Readers use this, not the file alone: the journal is the record.
    pub fn read_result(&self, item: &str, ext: &str) -> Option<String> {
        let path = self.item_file(item, ext)?;
        match std::fs::read_to_string(&path) {
            Ok(text) => Some(text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let value = self.committed_without_copy(item).ok()??;
                Some(match value {
                    serde_json::Value::String(text) if ext == "md" => text + "\n",
                    other => serde_json::to_string_pretty(&other).ok()? + "\n",
                })
            }
            Err(_) => None,
        }
    }

    /// Items with a submit marker left behind (for `doctor`).
    pub fn items_with_submit_marker(&self) -> Vec<String> {
        let Ok(entries) = std::fs::read_dir(self.items_dir()) else {
            return Vec::new();
        };
        let mut items: Vec<String> = entries
            .filter_map(Result::ok)
            .filter_map(|e| {
                e.file_name()
                    .to_str()?
                    .strip_suffix(".pending")
                    .filter(|id| is_safe_item_id(id))
                    .map(str::to_owned)
            })
            .collect();
        items.sort();
        items
    }

    /// Takes the run's exclusive lock.
    pub fn lock(&self) -> Result<RunLock, StoreError> {
        RunLock::acquire(&self.dir.join("lock"), LOCK_TIMEOUT)
    }

    /// Reads `run.json`.
    pub fn manifest(&self) -> Result<Manifest, StoreError> {
        let path = self.manifest_path();
        let text = std::fs::read(&path).map_err(StoreError::io("read", &path))?;
        serde_json::from_slice(&text).map_err(|e| StoreError::CorruptState {
            path: path.clone(),
            reason: e.to_string(),
            kept: path,
        })
    }

    /// Writes a brand-new run: manifest, initial state, state, input files, and the lock file
    /// (so that readers which take the lock never create a file). Call once.
    pub fn create(&self, state: &RunState) -> Result<(), StoreError> {
        let lock = self.dir.join("lock");
        std::fs::write(&lock, b"").map_err(StoreError::io("create", &lock))?;
        let manifest = Manifest {
            schema_version: STATE_SCHEMA_VERSION,
            run: state.run.clone(),
            created_at: state.created_at,
            kind: RunKind::Triage,
            triage_items: state.triage_items,
        };
        write_json(&self.manifest_path(), &manifest)?;
        let bytes = encode(&self.initial_path(), state)?;
        write_atomic(&self.initial_path(), &bytes)?;
        write_atomic(&self.state_path(), &bytes)?;
        self.save_head(state);
        self.write_inputs(state, 0)
    }

    /// The head of the state on disk, read without its items: `None` unless `state.head.json`
    /// is of this layout, was taken from `state.json` as it is now (same file, length and
    /// modification time), and the journal holds nothing the state has not folded (its length
    /// is the head's `journal_offset`). Call with the lock held. Whatever `None` hides (no
    /// head, a stale one, a new submission, a damaged state) is the full load's to find.
    pub fn load_head(&self) -> Option<RunHead> {
        let stamp = FileStamp::of(&self.state_path())?;
        let bytes = std::fs::read(self.head_path()).ok()?;
        let head = StateHead::read(&bytes, stamp)?;
        let journal = self.journal().byte_len().ok()?;
        (journal == head.journal_offset).then_some(head)
    }

    /// Writes `state.head.json` for the `state.json` just written from `state`. Not an error
    /// when it fails: a missing or stale head only sends the next stops to the full load.
    pub fn save_head(&self, state: &RunState) {
        let Some(stamp) = FileStamp::of(&self.state_path()) else {
            return;
        };
        let file = StateHead {
            schema_version: HEAD_SCHEMA_VERSION,
            state: stamp,
            head: RunHead::of(state),
        };
        if let Ok(mut bytes) = serde_json::to_vec(&file) {
            bytes.push(b'\n');
            let _ = replace_through_spare(&self.head_path(), &self.head_spare_path(), &bytes);
        }
    }

    /// Reads a triage run's `state.json` ([`RunDir::load_state_as`]).
    pub fn load_state(&self) -> Result<RunState, StoreError> {
        self.load_state_as::<RunState>()
    }

    /// Reads `state.json` as the state of a run of either kind. A file that does not parse, or
    /// that contradicts itself, is copied aside (`state.json.corrupt`) and reported as
    /// [`StoreError::CorruptState`]; one of another layout version as
    /// [`StoreError::SchemaVersion`].
    pub fn load_state_as<T: VersionedState>(&self) -> Result<T, StoreError> {
        let path = self.state_path();
        let mut bytes = STATE_BUFFER.take();
        read_into(&path, &mut bytes).map_err(StoreError::io("read", &path))?;
        let parsed = parse_state::<T>(&bytes);
        let bytes = Kept(bytes);
        match parsed {
            Ok(state) if !T::reads(state.schema_version()) => Err(StoreError::SchemaVersion {
                path,
                found: state.schema_version(),
                expected: T::SCHEMA_VERSION,
            }),
            Ok(mut state) => match state.check() {
                Ok(()) => {
                    state.upgrade();
                    Ok(state)
                }
                Err(reason) => Err(Self::keep_corrupt(&path, &bytes, reason)?),
            },
            Err(e) => Err(Self::keep_corrupt(&path, &bytes, e.to_string())?),
        }
    }

    /// Reads `state.initial.json`, the state as the run was created, for a rebuild: checked
    /// like `state.json`, but never copied aside (nothing rewrites it).
    pub fn load_initial_as<T: VersionedState>(&self) -> Result<T, StoreError> {
        let path = self.initial_path();
        let bytes = std::fs::read(&path).map_err(StoreError::io("read", &path))?;
        let unusable = |reason: String| StoreError::InitialStateUnusable {
            path: path.clone(),
            reason,
        };
        let mut state = parse_state::<T>(&bytes).map_err(|e| unusable(e.to_string()))?;
        if !T::reads(state.schema_version()) {
            return Err(unusable(format!(
                "schema_version {}, this self-repair reads {}",
                state.schema_version(),
                T::SCHEMA_VERSION
            )));
        }
        state.check().map_err(unusable)?;
        state.upgrade();
        Ok(state)
    }

    /// Copies an unusable `state.json` aside and says so.
    fn keep_corrupt(path: &Path, bytes: &[u8], reason: String) -> Result<StoreError, StoreError> {
        let kept = path.with_extension("json.corrupt");
        std::fs::write(&kept, bytes).map_err(StoreError::io("keep a copy at", &kept))?;
        Ok(StoreError::CorruptState {
            path: path.to_path_buf(),
            reason,
            kept,
        })
    }

    /// Applies journal entries written since the state was saved (submissions from agents).
    pub fn fold(&self, state: &mut RunState) -> Result<FoldReport, StoreError> {
        let tail = self.journal().read_from(state.journal_offset)?;
        let mut report = FoldReport {
            applied: tail.entries.len(),
            skipped: tail.skipped,
        };
        for entry in &tail.entries {
            apply(state, entry);
        }
        state.journal_offset = tail.end;
        report.applied = tail.entries.len();
        Ok(report)
    }

    /// Appends events, applies them to `state`, and moves the fold offset past them.
    pub fn record(
        &self,
        state: &mut RunState,
        entries: &[JournalEntry],
    ) -> Result<Vec<self_repair_engine::Outcome>, StoreError> {
        let end = self.journal().append(entries)?;
        let outcomes = entries.iter().map(|e| apply(state, e)).collect();
        state.journal_offset = end;
        Ok(outcomes)
    }

    /// Appends events already applied to `state` and moves the fold offset past them. Call
    /// with the lock held, after folding, so the journal order is the order they were applied.
    pub fn append_applied(
        &self,
        state: &mut RunState,
        entries: &[JournalEntry],
    ) -> Result<(), StoreError> {
        state.journal_offset = self.journal().append_unsynced(entries)?;
        Ok(())
    }

    /// Saves the state atomically and writes input files for items created since the state
    /// had `items_before` items.
    pub fn save_state(&self, state: &RunState, items_before: usize) -> Result<(), StoreError> {
        let path = self.state_path();
        self.remove_abandoned_temps(None);
        let mut bytes = Kept(STATE_BUFFER.take());
        write_shallow_pretty(state, &mut bytes.0).map_err(|e| StoreError::Io {
            action: "encode",
            path: path.clone(),
            source: std::io::Error::other(e),
        })?;
        replace_through_spare(&path, &self.state_spare_path(), &bytes.0)?;
        drop(bytes);
        self.save_head(state);
        self.write_inputs(state, items_before)
    }

    /// Removes temporary files that writers killed mid-write left behind, and returns them.
    /// Call with the run lock held. Temporary copies of `state.json` are only written under
    /// the lock, so every one found then is abandoned. With `older_than`, any other temporary
    /// file in the run folder or `items/` not touched for that long goes too (`doctor`): the
    /// writers that make those without the lock (creating a run) finish in milliseconds.
    pub fn remove_abandoned_temps(&self, older_than: Option<Duration>) -> Vec<PathBuf> {
        let state_temps = [
            rebuildable_temp_prefix(&self.state_path()),
            rebuildable_temp_prefix(&self.head_path()),
        ];
        let mut removed = Vec::new();
        // `items/` may hold 100,000 files: only `doctor` lists it.
        let folders = match older_than {
            Some(_) => vec![self.dir.clone(), self.items_dir()],
            None => vec![self.dir.clone()],
        };
        for folder in folders {
            let Ok(entries) = std::fs::read_dir(&folder) else {
                continue;
            };
            for entry in entries.filter_map(Result::ok) {
                let name = entry.file_name();
                let Some(name) = name.to_str() else { continue };
                if !name.starts_with(TEMP_PREFIX) {
                    continue;
                }
                let abandoned = (folder == self.dir
                    && state_temps.iter().any(|prefix| name.starts_with(prefix)))
                    || older_than.is_some_and(|age| {
                        entry
                            .metadata()
                            .and_then(|m| m.modified())
                            .ok()
                            .and_then(|t| t.elapsed().ok())
                            .is_some_and(|elapsed| elapsed >= age)
                    });
                if abandoned && std::fs::remove_file(entry.path()).is_ok() {
                    removed.push(entry.path());
                }
            }
        }
        removed
    }

    /// Writes `items/<id>.input.json` for non-triage items from index `from` on: what `submit`
    /// validates against without loading the run. Triage batches are left to
    /// [`RunDir::ensure_input`] at their dispatch: a run of 100,000 findings starts with 12,500
    /// of them, and writing their files was nine tenths of `start`'s time. So is the revise
    /// step: what it answers (the reviews' must-fix points) is known only once the reviews are
    /// in.
    fn write_inputs(&self, state: &RunState, from: usize) -> Result<(), StoreError> {
        for item in state.items.iter().skip(from) {
            if matches!(
                item.kind,
                ItemKind::Triage | ItemKind::TriageBatch | ItemKind::Revise
            ) {
                continue;
            }
            if let Some(path) = self.item_file(&item.id, "input.json") {
                write_json(&path, &item_input(state, item))?;
            }
        }
        Ok(())
    }

    /// Rebuilds the state from `state.initial.json` and the whole journal (what `doctor`
    /// does for a corrupt `state.json`).
    pub fn rebuild(&self) -> Result<(RunState, FoldReport), StoreError> {
        let path = self.initial_path();
        let unusable = |reason: String| StoreError::InitialStateUnusable {
            path: path.clone(),
            reason,
        };
        let mut state = self.load_initial_as::<RunState>()?;
        state.journal_offset = 0;
        let report = self.fold(&mut state)?;
        check_state(&state)
            .map_err(|reason| unusable(format!("after replaying the journal, {reason}")))?;
        Ok((state, report))
    }

    /// Writes `items/<id>.input.json` for a dispatched item when it has none yet (triage
    /// batches and revise steps get theirs here); `submit` refuses items never dispatched, so it
    /// never looks for one earlier.
    pub fn ensure_input(&self, state: &RunState, id: &str) -> Result<(), StoreError> {
        let Some(item) = state.item(id).filter(|i| i.kind != ItemKind::Triage) else {
            return Ok(());
        };
        match self.item_file(id, "input.json") {
            Some(path) if !path.exists() => write_json(&path, &item_input(state, item)),
            _ => Ok(()),
        }
    }

    /// [`RunDir::ensure_input`] for the items one stop dispatches, in one file: the inputs still
    /// missing (those of triage batches and revise steps, written at their first dispatch) are
    /// written as a list into the first one's `items/<id>.input.json`, and the others' are hard
    /// links of it. A wave of 20 batches then creates one file, not 20: on ext4 without a
    /// journal each new file cost up to half a millisecond of the stop (reference/benchmarks.md).
    /// `submit` finds its item in the list. Where a link cannot be made, that item's input is
    /// a file of its own, as [`RunDir::ensure_input`] writes it.
    pub fn ensure_inputs<'a>(
        &self,
        state: &RunState,
        ids: impl IntoIterator<Item = &'a str>,
    ) -> Result<(), StoreError> {
        let missing: Vec<(PathBuf, ItemInput)> = ids
            .into_iter()
            .filter_map(|id| {
                let item = state.item(id).filter(|i| i.kind != ItemKind::Triage)?;
                let path = self.item_file(id, "input.json").filter(|p| !p.exists())?;
                Some((path, item_input(state, item)))
            })
            .collect();
        let Some(((first, input), rest)) = missing.split_first() else {
            return Ok(());
        };
        if rest.is_empty() {
            return write_json(first, input);
        }
        let inputs: Vec<&ItemInput> = missing.iter().map(|(_, input)| input).collect();
        write_json(first, &inputs)?;
        for (path, input) in rest {
            if std::fs::hard_link(first, path).is_err() {
                write_json(path, input)?;
            }
        }
        Ok(())
    }

    /// Writes input files for every non-triage item (after a rebuild).
    pub fn rewrite_inputs(&self, state: &RunState) -> Result<(), StoreError> {
        self.write_inputs(state, state.triage_items as usize)?;
        for batch in state
            .items
            .iter()
            .filter(|i| matches!(i.kind, ItemKind::TriageBatch | ItemKind::Revise))
        {
            if batch.dispatches > 0 {
                self.ensure_input(state, &batch.id)?;
            }
        }
        Ok(())
    }
}

/// Parses a state file, validating UTF-8 once up front: cheaper than per string inside
/// `from_slice`.
fn parse_state<T: VersionedState>(bytes: &[u8]) -> serde_json::Result<T> {
    std::str::from_utf8(bytes)
        .map_err(|e| serde::de::Error::custom(format!("not UTF-8: {e}")))
        .and_then(serde_json::from_str::<T>)
}

std::thread_local! {
    /// The bytes of the last `state.json` read or written on this thread, kept for the next: a
    /// stop reads the state and writes it back, and at 100,000 findings a fresh buffer for each
    /// (1.6 MB) cost 400 page faults apiece, a first touch of a page costing more than the
    /// bytes written into it (reference/benchmarks.md).
    static STATE_BUFFER: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// A state buffer taken from [`STATE_BUFFER`], put back when dropped (whatever path returns).
struct Kept(Vec<u8>);

impl std::ops::Deref for Kept {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl Drop for Kept {
    fn drop(&mut self) {
        let mut bytes = std::mem::take(&mut self.0);
        // A buffer far larger than any state is not kept (a hand-edited file, read once).
        if bytes.capacity() > KEPT_MAX {
            bytes = Vec::new();
        }
        STATE_BUFFER.set(bytes);
    }
}

/// The largest buffer [`Kept`] keeps: above a 1,000,000-finding state.
const KEPT_MAX: usize = 64 << 20;

/// Reads the file at `path` into `bytes`, replacing what it held.
fn read_into(path: &Path, bytes: &mut Vec<u8>) -> std::io::Result<()> {
    use std::io::Read;
    let mut file = std::fs::File::open(path)?;
    let len = file.metadata().map_or(0, |m| m.len());
    let len = usize::try_from(len).unwrap_or(0);
    bytes.clear();
    // Room for the state written back a little longer, so the write does not move it.
    bytes.reserve(len + len / 8 + 4096);
    file.read_to_end(bytes)?;
    Ok(())
}

fn encode(path: &Path, state: &RunState) -> Result<Vec<u8>, StoreError> {
    to_shallow_pretty(state).map_err(|e| StoreError::Io {
        action: "encode",
        path: path.to_path_buf(),
        source: std::io::Error::other(e),
    })
}

/// Writes any serializable value as pretty JSON, atomically.
pub fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), StoreError> {
    let mut bytes = serde_json::to_vec_pretty(value).map_err(|e| StoreError::Io {
        action: "encode",
        path: path.to_path_buf(),
        source: std::io::Error::other(e),
    })?;
    bytes.push(b'\n');
    write_atomic(path, &bytes)
}

/// Writes a list as JSON, one element per line, atomically (`findings.json`).
pub fn write_json_rows<T: Serialize>(path: &Path, value: &T) -> Result<(), StoreError> {
    let bytes = to_pretty_levels(value, 1).map_err(|e| StoreError::Io {
        action: "encode",
        path: path.to_path_buf(),
        source: std::io::Error::other(e),
    })?;
    write_atomic(path, &bytes)
}
