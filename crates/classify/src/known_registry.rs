//! `.self-repair/known.json`: findings already decided, by fingerprint (which ignores line
//! numbers). Written only from finalized runs and by `self-repair known add`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use self_repair_engine::Verdict;
use self_repair_store::write_json;
use serde::{Deserialize, Serialize};

use crate::ClassifyError;

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
}

impl Default for KnownRegistry {
    fn default() -> Self {
        KnownRegistry {
            schema_version: 1,
            entries: BTreeMap::new(),
        }
    }
}

impl KnownRegistry {
    /// `<store>/known.json`.
    pub fn path(store_dir: &Path) -> PathBuf {
        store_dir.join("known.json")
    }

    /// Reads the registry; a missing file is an empty registry.
    pub fn load(store_dir: &Path) -> Result<KnownRegistry, ClassifyError> {
        let path = KnownRegistry::path(store_dir);
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| ClassifyError::BadFile {
                path,
                message: e.to_string(),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(KnownRegistry::default()),
            Err(e) => Err(ClassifyError::BadFile {
                path,
                message: e.to_string(),
            }),
        }
    }

    /// Writes the registry atomically.
    pub fn save(&self, store_dir: &Path) -> Result<(), ClassifyError> {
        Ok(write_json(&KnownRegistry::path(store_dir), self)?)
    }

    /// The entry of a fingerprint, proposals included.
    pub fn get(&self, fingerprint: &str) -> Option<&KnownEntry> {
        self.entries.get(fingerprint)
    }

    /// The entry that decides a fingerprint: a proposal decides nothing.
    pub fn decision(&self, fingerprint: &str) -> Option<&KnownEntry> {
        self.entries.get(fingerprint).filter(|e| !e.proposed)
    }

    /// Removes an entry; returns it when there was one.
    pub fn remove(&mut self, fingerprint: &str) -> Option<KnownEntry> {
        self.entries.remove(fingerprint)
    }

    /// Records the fix of each of `fingerprints` that has an entry; returns how many.
    pub fn record_fix(&mut self, fingerprints: &[&str], fix: &KnownFix) -> usize {
        let mut recorded = 0;
        for fingerprint in fingerprints {
            if let Some(entry) = self.entries.get_mut(*fingerprint) {
                entry.fixed = Some(fix.clone());
                recorded += 1;
            }
        }
        recorded
    }

    /// Adds or replaces an entry; returns true when it changed anything.
    pub fn insert(&mut self, fingerprint: String, entry: KnownEntry) -> bool {
        if self.entries.get(&fingerprint) == Some(&entry) {
            return false;
        }
        self.entries.insert(fingerprint, entry);
        true
    }
}
