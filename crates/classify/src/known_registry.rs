//! `.self-repair/known.json`: findings already decided, by fingerprint (which ignores line
//! numbers). Written from finalized runs, `self-repair known add` and `known baseline`; one
//! entry a line (`crate::registry_text`) so a team shares it in git.

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use self_repair_engine::Verdict;
use self_repair_engine::timestamp::rfc3339;
use serde::{Deserialize, Serialize};

use crate::ClassifyError;
use crate::registry_text::{
    LINE_SCHEMA_VERSION, RegistryText, bad_line, header, read_registry, split,
};
use self_repair_store::write_atomic_with;

/// The wall clock in Unix seconds (0 before 1970, which no clock here shows).
pub(crate) fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// One decided finding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KnownEntry {
    pub verdict: Verdict,
    pub reason: String,
    /// The run that finalized it, or `manual`.
    pub source: String,
    /// What it was, for people reading the file.
    #[serde(default)]
    pub summary: String,
    /// A security dismissal an agent decided: kept as a proposal that decides nothing until a
    /// person runs `self-repair known accept` (issue 14: a dismissal hides a finding in every
    /// later run, so on the security route a person confirms it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub proposed: bool,
    /// The triage item that decided it, in `source`'s run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item: Option<String>,
    /// The model tier its agent ran at (`haiku`, `sonnet`, `opus`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The agent's confidence, 0 to 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    /// The code it was decided on (`src/a.py:10-24`: the enclosing item's declaration to just
    /// past the finding) ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines: Option<String>,
    /// ... and a hash of that code's text: when the code there changes, the entry no longer
    /// decides and the finding is triaged again. Entries without it (older, or `known add`)
    /// decide by fingerprint alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// The fix that closed it (`self-repair fix`): the task, its repair run, the commit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fixed: Option<KnownFix>,
}

impl KnownEntry {
    /// An entry decided without an agent (a person's `known add`, `known baseline`, an audit
    /// reopening): no item, model, confidence or code, so it decides by fingerprint alone.
    pub fn without_agent(
        verdict: Verdict,
        reason: String,
        source: String,
        summary: String,
    ) -> Self {
        Self {
            verdict,
            reason,
            source,
            summary,
            proposed: false,
            item: None,
            model: None,
            confidence: None,
            lines: None,
            code: None,
            fixed: None,
        }
    }
}

/// How a real finding was fixed by the fix loop.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KnownFix {
    /// The Backlog task (`task-3`).
    pub task: String,
    /// The repair run that fixed it, verified by `verify-task`.
    pub run: String,
    /// The commit of `fix --commit`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
}

/// The registry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KnownRegistry {
    pub schema_version: u32,
    pub entries: BTreeMap<String, KnownEntry>,
    /// When each entry was last decided or changed (RFC 3339, UTC; a fix recorded counts), by
    /// fingerprint: a merge of two branches that changed one finding differently keeps the
    /// later version. Entries written
    /// before it existed have none and count as the oldest. The entries a run decides share
    /// one time, and one string of it.
    #[serde(skip)]
    decided_at: BTreeMap<String, Arc<str>>,
}

impl Default for KnownRegistry {
    fn default() -> Self {
        KnownRegistry {
            schema_version: LINE_SCHEMA_VERSION,
            entries: BTreeMap::new(),
            decided_at: BTreeMap::new(),
        }
    }
}

/// Writes `known.json`: `header`, then one line an entry, `{"fingerprint": …, the entry's
/// fields…, "decided_at": …}`. The entry is written as its own object and its braces left
/// out, not flattened into the line by serde (a map of each field, a fifth slower: 100,000
/// lines at a finalize of 100,000 findings).
fn write_entry_lines<'a>(
    path: &Path,
    header: &str,
    lines: impl Iterator<Item = (&'a str, &'a KnownEntry, Option<&'a str>)>,
) -> Result<(), ClassifyError> {
    write_atomic_with(path, |out: &mut dyn Write| {
        // Buffered in a writer of a known type, as `write_lines` does.
        let mut out = std::io::BufWriter::new(out);
        out.write_all(header.as_bytes())?;
        out.write_all(b"\n")?;
        let mut entry_text = Vec::new();
        for (fingerprint, entry, at) in lines {
            entry_text.clear();
            serde_json::to_writer(&mut entry_text, entry).map_err(std::io::Error::other)?;
            // `{"verdict":…}`: an entry always has fields, so its inside is never empty.
            let inside = entry_text
                .strip_prefix(b"{")
                .and_then(|t| t.strip_suffix(b"}"))
                .ok_or_else(|| std::io::Error::other("a known entry not written as an object"))?;
            out.write_all(b"{\"fingerprint\":")?;
            serde_json::to_writer(&mut out, fingerprint).map_err(std::io::Error::other)?;
            out.write_all(b",")?;
            out.write_all(inside)?;
            if let Some(at) = at {
                out.write_all(b",\"decided_at\":")?;
                serde_json::to_writer(&mut out, at).map_err(std::io::Error::other)?;
            }
            out.write_all(b"}\n")?;
        }
        out.flush()
    })?;
    Ok(())
}

/// Fewest entries [`KnownRegistry::insert_all_decided`] merges in; fewer, or fewer than a
/// sixteenth of the registry, are inserted one by one (a merge rebuilds both trees whole).
const MERGE_FROM: usize = 64;

/// What the header line of `known.json` says to a person opening it.
const ABOUT: &str = "self-repair known registry: one decided finding a line, sorted by fingerprint (reference/state-file.md)";

/// One line of `known.json` as read.
#[derive(Deserialize)]
pub(crate) struct KnownLineIn {
    pub(crate) fingerprint: String,
    #[serde(flatten)]
    pub(crate) entry: KnownEntry,
    #[serde(default)]
    pub(crate) decided_at: Option<String>,
}

/// The single document older versions wrote.
#[derive(Deserialize)]
struct KnownDocument {
    #[serde(default)]
    entries: BTreeMap<String, KnownEntry>,
}

impl KnownRegistry {
    /// `<store>/known.json`.
    pub fn path(store_dir: &Path) -> PathBuf {
        store_dir.join("known.json")
    }

    /// Reads the registry; a missing file is an empty registry.
    pub fn load(store_dir: &Path) -> Result<KnownRegistry, ClassifyError> {
        KnownRegistry::load_file(&KnownRegistry::path(store_dir))
    }

    /// Reads a registry file in either form (one entry a line, or the single document older
    /// versions wrote); a missing file is an empty registry. One fingerprint on two lines (what
    /// git's union merge leaves when two branches decided it) keeps the later decision, and of
    /// two equally old ones the later line.
    pub fn load_file(path: &Path) -> Result<KnownRegistry, ClassifyError> {
        let Some(text) = read_registry(path)? else {
            return Ok(KnownRegistry::default());
        };
        KnownRegistry::parse(&text, path)
    }

    /// [`KnownRegistry::load_file`] on text already read; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<KnownRegistry, ClassifyError> {
        let mut known = KnownRegistry::default();
        match split(text, path, &["entries"])? {
            RegistryText::Document(value) => {
                let document: KnownDocument =
                    serde_json::from_value(value).map_err(|e| ClassifyError::BadFile {
                        path: path.to_path_buf(),
                        message: e.to_string(),
                    })?;
                known.entries = document.entries;
            }
            RegistryText::Lines(lines) => {
                for (number, line) in lines {
                    let read: KnownLineIn = serde_json::from_str(line)
                        .map_err(|e| bad_line(path, number, &e.to_string()))?;
                    known.keep_later(read.fingerprint, read.entry, read.decided_at);
                }
            }
        }
        Ok(known)
    }

    /// Adds an entry read from a file unless the one there was decided later.
    pub(crate) fn keep_later(
        &mut self,
        fingerprint: String,
        entry: KnownEntry,
        decided_at: Option<String>,
    ) {
        if self.entries.contains_key(&fingerprint)
            && self.decided_at(&fingerprint) > decided_at.as_deref()
        {
            return;
        }
        self.put(fingerprint, entry, decided_at);
    }

    /// Writes the registry atomically, one entry a line, sorted by fingerprint.
    pub fn save(&self, store_dir: &Path) -> Result<(), ClassifyError> {
        self.save_file(&KnownRegistry::path(store_dir))
    }

    /// [`KnownRegistry::save`] to any path (the merge driver writes git's `%A`).
    pub fn save_file(&self, path: &Path) -> Result<(), ClassifyError> {
        // Both maps are sorted by fingerprint: one walk of each gives every entry its time,
        // without a lookup a line.
        let mut times = self.decided_at.iter().peekable();
        let lines = self.entries.iter().map(|(fingerprint, entry)| {
            while times.next_if(|(f, _)| *f < fingerprint).is_some() {}
            let at = times
                .next_if(|(f, _)| *f == fingerprint)
                .map(|(_, at)| &**at);
            (fingerprint.as_str(), entry, at)
        });
        write_entry_lines(path, &header(ABOUT), lines)
    }

    /// When the entry of `fingerprint` was decided (RFC 3339), when it says.
    pub fn decided_at(&self, fingerprint: &str) -> Option<&str> {
        self.decided_at.get(fingerprint).map(|at| &**at)
    }

    /// The entry of a fingerprint, proposals included.
    pub fn get(&self, fingerprint: &str) -> Option<&KnownEntry> {
        self.entries.get(fingerprint)
    }

    /// The entry that decides a fingerprint: a proposal decides nothing.
    pub fn decision(&self, fingerprint: &str) -> Option<&KnownEntry> {
        self.entries.get(fingerprint).filter(|e| !e.proposed)
    }

    /// The entry of `fingerprint` to change as a new decision (`known accept`): its decision
    /// time becomes now.
    pub fn redecide(&mut self, fingerprint: &str) -> Option<&mut KnownEntry> {
        let entry = self.entries.get_mut(fingerprint)?;
        self.decided_at
            .insert(fingerprint.to_owned(), rfc3339(now_secs()).into());
        Some(entry)
    }

    /// Removes an entry; returns it when there was one.
    pub fn remove(&mut self, fingerprint: &str) -> Option<KnownEntry> {
        self.decided_at.remove(fingerprint);
        self.entries.remove(fingerprint)
    }

    /// Records the fix of each of `fingerprints` that has an entry; returns how many.
    pub fn record_fix(&mut self, fingerprints: &[&str], fix: &KnownFix) -> usize {
        let mut recorded = 0;
        for fingerprint in fingerprints {
            if let Some(entry) = self.entries.get_mut(*fingerprint) {
                entry.fixed = Some(fix.clone());
                // A change like any other: a merge that meets the entry without the fix on
                // one side keeps this, the later version.
                self.decided_at
                    .insert((*fingerprint).to_owned(), rfc3339(now_secs()).into());
                recorded += 1;
            }
        }
        recorded
    }

    /// Adds or replaces an entry, decided now; returns true when it changed anything.
    pub fn insert(&mut self, fingerprint: String, entry: KnownEntry) -> bool {
        self.insert_at(fingerprint, entry, now_secs())
    }

    /// [`KnownRegistry::insert`], decided at `now` (Unix seconds).
    pub fn insert_at(&mut self, fingerprint: String, entry: KnownEntry, now: u64) -> bool {
        self.insert_decided(fingerprint, entry, &DecisionTime::at(now))
    }

    /// [`KnownRegistry::insert_at`] at a time written once for many entries (a run's
    /// finalize puts in one a finding, 100,000 of them at 100,000 findings).
    pub fn insert_decided(
        &mut self,
        fingerprint: String,
        entry: KnownEntry,
        time: &DecisionTime,
    ) -> bool {
        let fingerprint = match self.entries.entry(fingerprint) {
            Entry::Occupied(there) if *there.get() == entry => return false,
            Entry::Occupied(mut there) => {
                there.insert(entry);
                there.key().clone()
            }
            Entry::Vacant(place) => {
                let fingerprint = place.key().clone();
                place.insert(entry);
                fingerprint
            }
        };
        self.decided_at.insert(fingerprint, Arc::clone(&time.0));
        true
    }

    /// [`KnownRegistry::insert_decided`] of each of `entries` in turn, with the same result and
    /// count of changed entries, in one merge of two sorted lists instead of a B-tree descent
    /// an entry: a finalize of 100,000 findings puts in 100,000 (reference/benchmarks.md, "The
    /// finalize with a margin").
    pub fn insert_all_decided(
        &mut self,
        entries: Vec<(String, KnownEntry)>,
        time: &DecisionTime,
    ) -> usize {
        let few =
            entries.len() < MERGE_FROM || entries.len().saturating_mul(16) < self.entries.len();
        // Sorted by fingerprint through their places (an entry is some 200 bytes to move); the
        // place breaks ties, so entries of one fingerprint keep their order.
        let mut order: Vec<(&str, usize)> = Vec::new();
        if !few {
            order = entries
                .iter()
                .enumerate()
                .map(|(place, (fingerprint, _))| (fingerprint.as_str(), place))
                .collect();
            order.sort_unstable();
        }
        if few || order.windows(2).any(|w| w[0].0 == w[1].0) {
            return entries
                .into_iter()
                .map(|(fingerprint, entry)| {
                    usize::from(self.insert_decided(fingerprint, entry, time))
                })
                .sum();
        }
        let order: Vec<usize> = order.into_iter().map(|(_, place)| place).collect();
        let count = order.len();
        let mut entries: Vec<Option<(String, KnownEntry)>> =
            entries.into_iter().map(Some).collect();
        let entries = order.into_iter().filter_map(|place| entries[place].take());
        let mut changed_at = Vec::with_capacity(count);
        let mut merged = Vec::with_capacity(self.entries.len() + count);
        let mut old = std::mem::take(&mut self.entries).into_iter().peekable();
        for (fingerprint, entry) in entries {
            while let Some(before) = old.next_if(|(f, _)| *f < fingerprint) {
                merged.push(before);
            }
            match old.next_if(|(f, _)| *f == fingerprint) {
                Some(same) if same.1 == entry => merged.push(same),
                _ => {
                    changed_at.push((fingerprint.clone(), Arc::clone(&time.0)));
                    merged.push((fingerprint, entry));
                }
            }
        }
        merged.extend(old);
        let changed = changed_at.len();
        // The decision times: the old ones of entries left as they were, now for the others.
        let mut times = Vec::with_capacity(self.decided_at.len() + changed);
        let mut old = std::mem::take(&mut self.decided_at).into_iter().peekable();
        for (fingerprint, at) in changed_at {
            while let Some(before) = old.next_if(|(f, _)| *f < fingerprint) {
                times.push(before);
            }
            old.next_if(|(f, _)| *f == fingerprint);
            times.push((fingerprint, at));
        }
        times.extend(old);
        // Both lists are sorted: `from_iter` finds them so and builds each tree in one pass.
        self.entries = merged.into_iter().collect();
        self.decided_at = times.into_iter().collect();
        changed
    }

    /// Sets the entry of `fingerprint` with its decision time as read from a file (a merge).
    pub(crate) fn put(
        &mut self,
        fingerprint: String,
        entry: KnownEntry,
        decided_at: Option<String>,
    ) {
        match decided_at {
            Some(at) => self.decided_at.insert(fingerprint.clone(), at.into()),
            None => self.decided_at.remove(&fingerprint),
        };
        self.entries.insert(fingerprint, entry);
    }
}

/// A decision time (Unix seconds) as `known.json` writes it (RFC 3339, UTC), written once for
/// every entry decided at it.
#[derive(Debug, Clone)]
pub struct DecisionTime(Arc<str>);

impl DecisionTime {
    /// The time `now` (Unix seconds).
    pub fn at(now: u64) -> DecisionTime {
        DecisionTime(rfc3339(now).into())
    }
}
