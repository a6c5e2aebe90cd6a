//! `submit`'s commit protocol, beside the run folder it writes: a validated result counts once
//! its journal line is appended (the commit point); `items/<id>.json` (or `.md`) is its readable
//! copy, and a marker left before the append lets the next `submit` or `doctor` finish a submit
//! killed in between. Whether a result already counts is decided by the journal, so `submit`
//! exits 0 if and only if this exact result is the one that counts.

use std::path::{Path, PathBuf};

use self_repair_engine::{Event, ItemKind, JournalEntry};
use serde_json::Value;

use crate::{RunDir, StoreError, write_atomic};

/// A submission that validated, ready to be compared and recorded.
#[derive(Debug)]
pub struct NewResult<'a> {
    pub item: &'a str,
    pub kind: ItemKind,
    pub markdown: bool,
    /// What it says, in words, for the reply.
    pub what: String,
    /// The canonical value, as the journal records it.
    pub canonical: Value,
}

/// What recording a result did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Committed {
    /// Recorded; the text says what.
    Recorded(String),
    /// The identical result was already recorded: nothing changed.
    AlreadyRecorded(String),
}

/// Why a result was not recorded.
#[derive(Debug, thiserror::Error)]
pub enum CommitError {
    /// The item already has a different result, and that one counts.
    #[error("{0}")]
    Conflict(String),
    /// The result could not be recorded (the marker or the journal line could not be written).
    #[error("{item} was not recorded: {source}")]
    NotRecorded { item: String, source: StoreError },
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl RunDir {
    /// Records `result` for its item, under the run's lock: a first result is committed, the
    /// same one again is acknowledged (its missing copies written), a different one refused.
    pub fn commit_result(&self, result: NewResult<'_>, now: u64) -> Result<Committed, CommitError> {
        let ext = if result.markdown { "md" } else { "json" };
        let path = self
            .item_file(result.item, ext)
            .ok_or_else(|| CommitError::Conflict(format!("no item `{}`", result.item)))?;
        let NewResult {
            item,
            kind,
            markdown,
            what,
            canonical,
        } = result;
        let result = Pending {
            item,
            kind,
            markdown,
            what,
            stored: render_stored(&canonical, markdown),
            comparable: normalize(canonical.clone(), markdown),
            canonical,
            path,
        };
        let _lock = self.lock()?;
        if let Some(recorded) = result_that_counts(self, &result)? {
            return answer_to_recorded(self, &result, &recorded);
        }
        commit(self, result, now)
    }

    /// Writes the result file of every item whose submit committed to the journal but died (or
    /// met a full disk) before writing it, and drops the markers of those that never committed.
    pub fn finish_interrupted_submits(&self) -> Vec<String> {
        let dir = self;
        let mut lines = Vec::new();
        for item in dir.items_with_submit_marker() {
            let Some(kind) = ItemKind::of_id(&item) else {
                continue;
            };
            let markdown = kind.takes_markdown();
            let Some(path) = dir.item_file(&item, if markdown { "md" } else { "json" }) else {
                continue;
            };
            if path.is_file() {
                dir.clear_submitting(&item);
                continue;
            }
            match dir.committed_without_copy(&item) {
                Ok(Some(value)) => {
                    let text = render_stored(&value, markdown);
                    if kind == ItemKind::TriageBatch {
                        write_member_copies(dir, &value);
                    }
                    match write_atomic(&path, text.as_bytes()) {
                        Ok(()) => {
                            dir.clear_submitting(&item);
                            lines.push(format!(
                                "wrote {} from the journal (its submit was interrupted)",
                                path.display()
                            ));
                        }
                        Err(e) => lines.push(format!("{e}; free disk space and run doctor again")),
                    }
                }
                Ok(None) => dir.clear_submitting(&item),
                Err(e) => lines.push(e.to_string()),
            }
        }
        lines
    }

    /// Leaves `items/<id>.dispatched`, the cheap proof `submit` checks that this run launched
    /// an agent for the item (design note 4: `submit` never reads the state). Empty and not
    /// synced, and made as a hard link of one empty file of the run, `dispatched.mark`: a link
    /// adds a name, not a file, so a wave of 20 dispatches creates no inode (on ext4 without a
    /// journal a new inode cost up to half a millisecond, reference/benchmarks.md). A new
    /// `dispatched.mark` is written when there is none or it has all the links its file system
    /// allows; where links cannot be made at all, the marker is an empty file of its own.
    pub fn mark_dispatched(&self, item: &str) -> Result<(), StoreError> {
        let Some(path) = self.item_file(item, "dispatched") else {
            return Ok(());
        };
        let template = self.dispatched_template();
        // One look-up, the link's own: a marker already there (a later dispatch) is kept.
        let linked = || match std::fs::hard_link(&template, &path) {
            Ok(()) => true,
            Err(e) => e.kind() == std::io::ErrorKind::AlreadyExists,
        };
        if linked() || (write_atomic(&template, b"").is_ok() && linked()) {
            return Ok(());
        }
        if let Err(first) = std::fs::write(&path, b"") {
            // A run created before `items/` existed: make it once and retry.
            std::fs::create_dir_all(self.items_dir())
                .map_err(StoreError::io("create", self.items_dir()))?;
            std::fs::write(&path, b"").map_err(|_| StoreError::Io {
                action: "write",
                path: path.clone(),
                source: first,
            })?;
        }
        Ok(())
    }

    /// A verifier dispatched again had its answer set aside (its launch ran below its dispatch,
    /// reference/state-machine.md): `items/<id>.json` moves to `items/<id>.set-aside.json`, so
    /// `submit` takes the new answer instead of refusing it as a second, different result. Only
    /// a `vf-` item with an answer on file can be dispatched again; for any other, nothing to do.
    pub fn set_aside_answer(&self, item: &str) -> Result<(), StoreError> {
        if ItemKind::of_id(item) != Some(ItemKind::Verify) {
            return Ok(());
        }
        let (Some(answer), Some(aside)) = (
            self.item_file(item, "json"),
            self.item_file(item, "set-aside.json"),
        ) else {
            return Ok(());
        };
        match std::fs::rename(&answer, &aside) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(StoreError::Io {
                action: "move aside",
                path: answer,
                source: e,
            }),
            _ => Ok(()),
        }
    }

    /// Journals a rejected submission (identical failures across agents are recognised by it).
    pub fn record_rejection(&self, item: &str, error: String, now: u64) -> Result<(), StoreError> {
        let _lock = self.lock()?;
        self.journal().append(&[JournalEntry {
            at: now,
            event: Event::Rejected {
                item: item.to_owned(),
                error,
            },
        }])?;
        Ok(())
    }
}

/// A result on its way in, with its copy's place and text.
struct Pending<'a> {
    item: &'a str,
    kind: ItemKind,
    markdown: bool,
    what: String,
    canonical: Value,
    /// `items/<id>.json` or `.md`: the readable copy.
    path: PathBuf,
    /// The copy's text.
    stored: String,
    /// The canonical value, as results are compared.
    comparable: Value,
}

fn not_recorded(item: &str) -> impl FnOnce(StoreError) -> CommitError + '_ {
    move |source| CommitError::NotRecorded {
        item: item.to_owned(),
        source,
    }
}

/// The result that already counts for the item, if any. A first result that asked for another
/// route does not: the fold sent the item back to triage, and the next result is its answer.
fn result_that_counts(dir: &RunDir, result: &Pending<'_>) -> Result<Option<Recorded>, CommitError> {
    let item = result.item;
    let recorded = recorded_result(dir, item, &result.path, result.markdown)?;
    let Some(reroute) = recorded
        .as_ref()
        .filter(|r| r.value != result.comparable)
        .map(|r| r.value.clone())
        .filter(|reroute| is_open_reroute(dir, item, result.kind, reroute))
    else {
        return Ok(recorded);
    };
    // Keep the re-route aside (for `status` and a later submit), then judge by what an
    // interrupted submit may have committed since.
    let text = render_stored(&reroute, false);
    for path in [&result.path, &rerouted_path(dir, item)] {
        write_atomic(path, text.as_bytes()).map_err(not_recorded(item))?;
    }
    Ok(dir
        .committed_without_copy(item)?
        .filter(|v| *v != reroute)
        .map(|value| Recorded {
            value,
            copy_missing: true,
        }))
}

/// A result already counts: the same one is acknowledged again (its missing copies written),
/// a different one is refused.
fn answer_to_recorded(
    dir: &RunDir,
    result: &Pending<'_>,
    recorded: &Recorded,
) -> Result<Committed, CommitError> {
    let (item, what) = (result.item, result.what.clone());
    let batch = result.kind == ItemKind::TriageBatch;
    if recorded.value == result.comparable {
        if recorded.copy_missing {
            write_result_copy(dir, item, &result.path, &result.stored);
        }
        if batch {
            write_member_copies(dir, &result.comparable);
        }
        return Ok(Committed::AlreadyRecorded(what));
    }
    if recorded.copy_missing {
        if batch {
            write_member_copies(dir, &recorded.value);
        }
        let copy = render_stored(&recorded.value, result.markdown);
        write_result_copy(dir, item, &result.path, &copy);
    }
    // A late copy of the answer that asked for the re-route: it is recorded, as history.
    let first_answer = std::fs::read_to_string(rerouted_path(dir, item))
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(&text).ok());
    if first_answer.is_some_and(|first| first == result.comparable) {
        return Ok(Committed::AlreadyRecorded(what));
    }
    Err(CommitError::Conflict(format!(
        "{item} already has a different result, and that one counts: {} ({}). A result is \
         final once recorded; this one was not recorded. If the recorded one is wrong, say \
         so in your reply instead of resubmitting.",
        summarize(&recorded.value),
        result.path.display()
    )))
}

/// Records a new result: the journal line is the commit point, the result file its readable
/// copy (a marker left before the append lets `doctor` finish a submit killed in between).
fn commit(dir: &RunDir, result: Pending<'_>, now: u64) -> Result<Committed, CommitError> {
    let item = result.item;
    let journal = dir.journal();
    let offset = journal.byte_len()?;
    dir.mark_submitting(item, offset)
        .map_err(not_recorded(item))?;
    let entry = JournalEntry {
        at: now,
        event: Event::Submitted {
            item: item.to_owned(),
            result: result.canonical,
        },
    };
    if let Err(source) = journal.append(&[entry]) {
        // The append cuts a failed line back out; if even that failed, the line may be there
        // and count: then this result is recorded after all.
        let landed = matches!(dir.committed_without_copy(item),
            Ok(Some(v)) if normalize(v.clone(), result.markdown) == result.comparable);
        if !landed {
            dir.clear_submitting(item);
            return Err(not_recorded(item)(source));
        }
    }
    if result.kind == ItemKind::TriageBatch {
        write_member_copies(dir, &result.comparable);
    }
    match write_atomic(&result.path, result.stored.as_bytes()) {
        Ok(()) => {
            dir.clear_submitting(item);
            Ok(Committed::Recorded(result.what))
        }
        // The result counts; only its readable copy is missing, and the marker left behind
        // lets the next `submit` of this item or `doctor` write it.
        Err(e) => Ok(Committed::Recorded(format!(
            "{} (its copy {} could not be written: {e}; `self-repair doctor` writes it)",
            result.what,
            result.path.display()
        ))),
    }
}

/// `items/<id>.reroute.json`: a triage item's first result when it asked for another route
/// (report.json lists it as `rerouted_from`).
fn rerouted_path(dir: &RunDir, item: &str) -> PathBuf {
    dir.items_dir().join(format!("{item}.reroute.json"))
}

/// Whether `recorded` is a triage item's first result and a re-route request: then the item is
/// open again, and one more result counts (the fold re-routes an item once).
fn is_open_reroute(dir: &RunDir, item: &str, kind: ItemKind, recorded: &Value) -> bool {
    if kind != ItemKind::Triage || recorded.get("reroute").is_none_or(Value::is_null) {
        return false;
    }
    match std::fs::read_to_string(rerouted_path(dir, item)) {
        // Set aside by a submit that then died before its own line: still the first result.
        Ok(text) => serde_json::from_str::<Value>(&text).is_ok_and(|v| v == *recorded),
        Err(_) => true,
    }
}

/// A result that counts for an item.
struct Recorded {
    value: Value,
    /// Committed to the journal, but `items/<id>.*` does not hold it.
    copy_missing: bool,
}

/// The result that counts for `item`, if any: its result file when that reads, else the
/// journal line an interrupted submit left (found through its marker, one read).
fn recorded_result(
    dir: &RunDir,
    item: &str,
    result_path: &Path,
    markdown: bool,
) -> Result<Option<Recorded>, StoreError> {
    let committed = match std::fs::read_to_string(result_path) {
        Ok(text) => {
            let value = if markdown {
                Some(Value::String(text.trim().to_owned()))
            } else {
                serde_json::from_str::<Value>(&text).ok()
            };
            if let Some(value) = value {
                return Ok(Some(Recorded {
                    value,
                    copy_missing: false,
                }));
            }
            // A damaged copy: the journal says what counts (a scan, on this rare path only).
            dir.journal().first_submission(item)?
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => dir.committed_without_copy(item)?,
        Err(_) => dir.journal().first_submission(item)?,
    };
    Ok(committed.map(|value| Recorded {
        value: normalize(value, markdown),
        copy_missing: true,
    }))
}

/// Markdown results compare trimmed, as their file holds them.
fn normalize(value: Value, markdown: bool) -> Value {
    match value {
        Value::String(text) if markdown => Value::String(text.trim().to_owned()),
        other => other,
    }
}

/// The text of `items/<id>.<ext>` for a result.
fn render_stored(value: &Value, markdown: bool) -> String {
    if markdown {
        value.as_str().unwrap_or_default().to_owned() + "\n"
    } else {
        serde_json::to_string_pretty(value).unwrap_or_default() + "\n"
    }
}

/// Writes the readable copy of a committed result and drops its marker. Best effort: the
/// journal already holds the result, and the marker stays until the copy is written.
fn write_result_copy(dir: &RunDir, item: &str, result_path: &Path, text: &str) {
    if write_atomic(result_path, text.as_bytes()).is_ok() {
        dir.clear_submitting(item);
    }
}

/// A batch's result, split into one readable copy per member (`items/t-00042.json`, what a
/// single triage item's result file holds), so reports, `status` and later prompts read a
/// member's verdict where they always have. A member that already has a file keeps it (it was
/// decided on its own); a member that asked for a re-route gets the request, which its own
/// later result replaces (as for a single item). Best effort: the journal line counts.
pub(crate) fn write_member_copies(dir: &RunDir, batch: &Value) {
    for entry in batch["verdicts"].as_array().into_iter().flatten() {
        let (Some(member), Value::Object(fields)) = (entry["item"].as_str(), entry) else {
            continue;
        };
        let Some(path) = dir.item_file(member, "json").filter(|p| !p.exists()) else {
            continue;
        };
        let mut copy = fields.clone();
        copy.remove("item");
        let _ = write_atomic(&path, render_stored(&Value::Object(copy), false).as_bytes());
    }
}

/// One line naming a recorded result.
fn summarize(value: &Value) -> String {
    match value {
        Value::Object(map) if map.contains_key("verdict") => format!(
            "verdict {} ({})",
            map["verdict"].as_str().unwrap_or("?"),
            map.get("root_cause")
                .and_then(Value::as_str)
                .unwrap_or("no root cause")
        ),
        Value::String(text) => format!(
            "\"{}\"",
            text.lines()
                .next()
                .unwrap_or_default()
                .chars()
                .take(80)
                .collect::<String>()
        ),
        other => other.to_string().chars().take(120).collect(),
    }
}
