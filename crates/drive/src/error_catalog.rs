//! `errors.jsonl`: every distinct way a driven session failed, with how often and in which
//! sessions, so a human sees "the same 529 in 6 sessions" instead of six log lines.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::drive_error::DriveError;

/// One distinct failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CatalogEntry {
    /// Stable description: the same failure gets the same one (`API 529 overloaded`).
    pub signature: String,
    /// The session-end category (`rate_limited`, `overloaded`, `auth_failed`, `crashed`, ...).
    pub category: String,
    pub count: u32,
    /// The drive sessions (1, 2, ...) where it was seen.
    pub sessions: Vec<u32>,
    /// Unix seconds.
    pub first_seen: u64,
    pub last_seen: u64,
    /// The client's own words the last time (its result text), cut short.
    #[serde(default)]
    pub last_detail: String,
}

/// The catalog, in first-seen order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ErrorCatalog {
    pub entries: Vec<CatalogEntry>,
}

impl ErrorCatalog {
    /// Reads `path` (missing: empty; unreadable lines skipped).
    pub fn load(path: &Path) -> Result<ErrorCatalog, DriveError> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(ErrorCatalog::default());
            }
            Err(e) => return Err(DriveError::io("read", path)(e)),
        };
        Ok(ErrorCatalog {
            entries: text
                .lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect(),
        })
    }

    /// Counts one failure of `session` at `at`.
    pub fn record(&mut self, signature: &str, category: &str, session: u32, at: u64, detail: &str) {
        if let Some(entry) = self.entries.iter_mut().find(|e| e.signature == signature) {
            entry.count += 1;
            if !entry.sessions.contains(&session) {
                entry.sessions.push(session);
            }
            entry.last_seen = at;
            detail.clone_into(&mut entry.last_detail);
            return;
        }
        self.entries.push(CatalogEntry {
            signature: signature.to_owned(),
            category: category.to_owned(),
            count: 1,
            sessions: vec![session],
            first_seen: at,
            last_seen: at,
            last_detail: detail.to_owned(),
        });
    }

    /// Writes the whole catalog (a temp file renamed over the old one).
    pub fn save(&self, path: &Path) -> Result<(), DriveError> {
        let mut text = String::new();
        for entry in &self.entries {
            let line = serde_json::to_string(entry).map_err(|e| DriveError::Io {
                action: "encode",
                path: path.to_owned(),
                source: std::io::Error::other(e),
            })?;
            text.push_str(&line);
            text.push('\n');
        }
        let temp = path.with_extension("jsonl.tmp");
        std::fs::write(&temp, text).map_err(DriveError::io("write", &temp))?;
        std::fs::rename(&temp, path).map_err(DriveError::io("replace", path))
    }

    /// The catalog as a table for `self-repair errors`.
    pub fn render(&self) -> String {
        if self.entries.is_empty() {
            return "No errors recorded: `self-repair drive` writes errors.jsonl when a session fails.\n"
                .to_owned();
        }
        let mut out = String::from("count  category           sessions     signature\n");
        for e in &self.entries {
            let sessions: Vec<String> = e.sessions.iter().map(ToString::to_string).collect();
            out.push_str(&format!(
                "{:>5}  {:<17}  {:<11}  {}\n",
                e.count,
                e.category,
                sessions.join(","),
                e.signature
            ));
            if !e.last_detail.is_empty() {
                out.push_str(&format!("       last: {}\n", e.last_detail));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_failure_is_counted_once_per_occurrence_with_its_sessions() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("errors.jsonl");
        let mut catalog = ErrorCatalog::load(&path).expect("a missing catalog is empty");
        catalog.record("API 529 overloaded", "overloaded", 1, 100, "first");
        catalog.record("claude killed by signal 9", "crashed", 2, 200, "");
        catalog.record("API 529 overloaded", "overloaded", 3, 300, "last");
        catalog.record("API 529 overloaded", "overloaded", 3, 310, "again");
        catalog.save(&path).expect("save");
        let read = ErrorCatalog::load(&path).expect("load");
        assert_eq!(read, catalog);
        let overloaded = &read.entries[0];
        assert_eq!(overloaded.count, 3);
        assert_eq!(overloaded.sessions, [1, 3]);
        assert_eq!((overloaded.first_seen, overloaded.last_seen), (100, 310));
        assert_eq!(overloaded.last_detail, "again");
        assert_eq!(read.entries[1].count, 1);
        assert!(
            read.render()
                .contains("    3  overloaded         1,3          API 529 overloaded")
        );
    }
}
