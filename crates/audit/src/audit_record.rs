//! `runs/<id>/audit.json`: the audit of one run, so it resumes: the seed, the size asked, the
//! sample drawn, and the findings skipped (answers live in `.self-repair/audit.jsonl`).

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::{AuditCandidate, AuditError, draw_sample};

/// The file's name in the run folder.
pub(crate) const RECORD_FILE: &str = "audit.json";

/// One run's audit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditRecord {
    pub schema_version: u32,
    pub run: String,
    /// The sample's seed: the same seed and findings draw the same sample.
    pub seed: u64,
    /// Closed findings asked for.
    pub size: usize,
    /// The fingerprints to ask about, in order.
    pub sample: Vec<String>,
    /// Skipped: asked again next time.
    #[serde(default)]
    pub skipped: Vec<String>,
}

impl AuditRecord {
    /// `<run folder>/audit.json`.
    pub fn path(run_dir: &Path) -> std::path::PathBuf {
        run_dir.join(RECORD_FILE)
    }

    /// A new audit of `run` over `candidates`.
    pub fn draw(run: &str, candidates: &[AuditCandidate], seed: u64, size: usize) -> AuditRecord {
        AuditRecord {
            schema_version: 1,
            run: run.to_owned(),
            seed,
            size,
            sample: draw_sample(candidates, seed, size),
            skipped: Vec::new(),
        }
    }

    /// Reads the record's text; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<AuditRecord, AuditError> {
        serde_json::from_str(text).map_err(|e| AuditError::BadRecord {
            path: path.to_path_buf(),
            message: e.to_string(),
        })
    }

    /// A larger size draws again with the same seed: every finding already drawn stays (the
    /// draw keeps them), the new ones are added after them.
    pub fn grow(&mut self, candidates: &[AuditCandidate], size: usize) {
        if size <= self.size {
            return;
        }
        self.size = size;
        for fingerprint in draw_sample(candidates, self.seed, size) {
            if !self.sample.contains(&fingerprint) {
                self.sample.push(fingerprint);
            }
        }
    }

    /// Notes a skip (once).
    pub fn skip(&mut self, fingerprint: &str) {
        if !self.skipped.iter().any(|f| f == fingerprint) {
            self.skipped.push(fingerprint.to_owned());
        }
    }
}
