//! The append-only journal: every event of a run, one JSON object a line, in order. Both
//! kinds of run keep one: a triage run's lines are the engine's [`JournalEntry`], a repair
//! run's its own events; appending (synced, a torn last line closed first, cut back when the
//! disk refuses) and reading back are the same.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use self_repair_engine::JournalEntry;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::StoreError;

/// A line of a journal: any JSON object that says when it happened.
pub trait JournalLine: Serialize + DeserializeOwned {
    /// When (seconds since the epoch). Times are added to (leases): a line whose time is past
    /// any real value is damage, and is skipped when read.
    fn at(&self) -> u64;
}

impl JournalLine for JournalEntry {
    fn at(&self) -> u64 {
        self.at
    }
}

/// `journal.jsonl` of one run, whose lines are `E`.
#[derive(Debug)]
pub struct Journal<E = JournalEntry> {
    path: PathBuf,
    line: PhantomData<fn() -> E>,
}

impl<E> Clone for Journal<E> {
    fn clone(&self) -> Self {
        Journal {
            path: self.path.clone(),
            line: PhantomData,
        }
    }
}

/// Entries read from an offset, and where the next read starts.
#[derive(Debug)]
pub struct JournalTail<E = JournalEntry> {
    pub entries: Vec<E>,
    /// The line number (from 1, counted from the offset read from) of each entry.
    pub lines: Vec<usize>,
    /// Byte offset just after the last complete line read.
    pub end: u64,
    /// Complete lines that did not parse (a torn write that a later append completed).
    pub skipped: Vec<String>,
    /// Whether bytes follow the last complete line: a write cut short (or one in progress by
    /// a writer not holding the lock), never acted on.
    pub torn_tail: bool,
}

impl<E> Default for JournalTail<E> {
    fn default() -> Self {
        JournalTail {
            entries: Vec::new(),
            lines: Vec::new(),
            end: 0,
            skipped: Vec::new(),
            torn_tail: false,
        }
    }
}

impl<E: JournalLine> Journal<E> {
    /// The journal at `path` (created on first append).
    pub fn new(path: PathBuf) -> Journal<E> {
        Journal {
            path,
            line: PhantomData,
        }
    }

    /// Path of the file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends entries and syncs them to disk: what `submit` acknowledges must survive a crash.
    /// Call with the run lock held. A torn last line (a writer killed mid-line) is closed with a
    /// newline first, so it cannot swallow ours.
    pub fn append(&self, entries: &[E]) -> Result<u64, StoreError> {
        self.write_entries(entries, true)
    }

    /// Appends entries without waiting for the disk: the hook's own records of decisions it has
    /// already saved in `state.json` (a process crash cannot lose them; only the OS can).
    pub fn append_unsynced(&self, entries: &[E]) -> Result<u64, StoreError> {
        self.write_entries(entries, false)
    }

    /// The journal's length in bytes: where the next append starts (0 when there is none).
    pub fn byte_len(&self) -> Result<u64, StoreError> {
        match std::fs::metadata(&self.path) {
            Ok(meta) => Ok(meta.len()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(0),
            Err(e) => Err(StoreError::io("stat journal", &self.path)(e)),
        }
    }

    /// The first complete entry that starts at or just after `offset` (an append may first
    /// close a torn line with a newline). `None` when there is none or it does not parse. Reads
    /// one line, whatever the journal's size.
    pub fn entry_at(&self, offset: u64) -> Result<Option<E>, StoreError> {
        let mut file = match File::open(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(StoreError::io("open journal", &self.path)(e)),
        };
        file.seek(SeekFrom::Start(offset))
            .map_err(StoreError::io("seek journal", &self.path))?;
        let mut reader = std::io::BufReader::new(file);
        let mut line = Vec::new();
        for _ in 0..2 {
            line.clear();
            std::io::BufRead::read_until(&mut reader, b'\n', &mut line)
                .map_err(StoreError::io("read journal", &self.path))?;
            if line.last() != Some(&b'\n') {
                return Ok(None);
            }
            if !line.iter().all(u8::is_ascii_whitespace) {
                return Ok(serde_json::from_slice(&line).ok());
            }
        }
        Ok(None)
    }

    fn write_entries(&self, entries: &[E], sync: bool) -> Result<u64, StoreError> {
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .read(true)
            .open(&self.path)
            .map_err(StoreError::io("open journal", &self.path))?;
        let len = file
            .metadata()
            .map_err(StoreError::io("stat journal", &self.path))?
            .len();
        let mut text = String::new();
        if len > 0 && !ends_with_newline(&mut file, len)? {
            text.push('\n');
        }
        for entry in entries {
            let line = serde_json::to_string(entry).map_err(|e| StoreError::Io {
                action: "encode journal entry for",
                path: self.path.clone(),
                source: std::io::Error::other(e),
            })?;
            text.push_str(&line);
            text.push('\n');
        }
        let written = file
            .write_all(text.as_bytes())
            .and_then(|()| if sync { file.sync_data() } else { Ok(()) });
        if let Err(e) = written {
            // A line that failed to reach the disk must not count later (the fold would apply
            // it): cut the journal back to where it was. The caller holds the lock.
            let rolled_back = file.set_len(len);
            // Readers see the cut at once; if the disk then fails to keep it, the line was never
            // acknowledged, like a torn one.
            let _ = file.sync_data();
            let action = if rolled_back.is_ok() {
                "append to (nothing was added)"
            } else {
                "append to (and could not cut back)"
            };
            return Err(StoreError::io(action, &self.path)(e));
        }
        Ok(len + text.len() as u64)
    }

    /// Reads complete entries from `offset` on. A missing journal is empty. An offset past the
    /// journal's end means the state recorded events the journal lost (a crash between the two
    /// writes); folding on would skip the next submissions, so it is an error `doctor` repairs.
    pub fn read_from(&self, offset: u64) -> Result<JournalTail<E>, StoreError> {
        let behind = |len| StoreError::JournalBehindState {
            path: self.path.clone(),
            offset,
            len,
        };
        let mut file = match File::open(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return if offset == 0 {
                    Ok(JournalTail::default())
                } else {
                    Err(behind(0))
                };
            }
            Err(e) => return Err(StoreError::io("open journal", &self.path)(e)),
        };
        let len = file
            .seek(SeekFrom::End(0))
            .map_err(StoreError::io("seek journal", &self.path))?;
        if offset > len {
            return Err(behind(len));
        }
        file.seek(SeekFrom::Start(offset))
            .map_err(StoreError::io("seek journal", &self.path))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)
            .map_err(StoreError::io("read journal", &self.path))?;
        let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        let mut tail = JournalTail {
            end: offset + complete as u64,
            ..JournalTail::default()
        };
        tail.torn_tail = bytes[complete..].iter().any(|b| !b.is_ascii_whitespace());
        for (index, line) in bytes[..complete].split(|&b| b == b'\n').enumerate() {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match serde_json::from_slice::<E>(line) {
                Ok(entry) if entry.at() >= 1 << 53 => tail.skipped.push(format!(
                    "{}: skipped a journal line whose time {} is past any real value",
                    self.path.display(),
                    entry.at()
                )),
                Ok(entry) => {
                    tail.entries.push(entry);
                    tail.lines.push(index + 1);
                }
                Err(e) => tail.skipped.push(format!(
                    "{}: skipped a journal line that does not parse ({e})",
                    self.path.display()
                )),
            }
        }
        Ok(tail)
    }
}

impl Journal<JournalEntry> {
    /// The first `submitted` entry for `item` in the whole journal: the result that counts
    /// (the fold keeps the first). A scan of the journal, for recovery only: `submit` reads
    /// one line at a known offset instead.
    pub fn first_submission(&self, item: &str) -> Result<Option<serde_json::Value>, StoreError> {
        let tail = self.read_from(0)?;
        Ok(tail
            .entries
            .into_iter()
            .find_map(|entry| match entry.event {
                self_repair_engine::Event::Submitted { item: i, result } if i == item => {
                    Some(result)
                }
                _ => None,
            }))
    }
}

fn ends_with_newline(file: &mut File, len: u64) -> Result<bool, StoreError> {
    let mut last = [0u8; 1];
    file.seek(SeekFrom::Start(len - 1))
        .and_then(|_| file.read_exact(&mut last))
        .map_err(|e| StoreError::Io {
            action: "read journal end of",
            path: PathBuf::new(),
            source: e,
        })?;
    Ok(last[0] == b'\n')
}
