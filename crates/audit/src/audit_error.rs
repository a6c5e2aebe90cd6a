//! What can go wrong auditing, each message saying what to do.

use std::path::PathBuf;

/// The audit crate's errors.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    /// A line of `audit.jsonl` that does not read.
    #[error(
        "{path}:{line}: {message}; each line of the audit labels is one JSON object with \
         `fingerprint`, `run`, `label` and `answer` (reference/audit.md): fix the line or take it \
         from git"
    )]
    BadLabelLine {
        path: PathBuf,
        line: usize,
        message: String,
    },
    /// A checklist line that does not read.
    #[error("{source_name}:{line}: {message}")]
    BadChecklist {
        source_name: String,
        line: usize,
        message: String,
    },
    /// The run's `audit.json` does not read.
    #[error(
        "{path}: {message}; it holds the audit's seed and sample: restore it, or remove it to draw \
         a new sample (answers already given stay in .self-repair/audit.jsonl)"
    )]
    BadRecord { path: PathBuf, message: String },
    /// Standard input or output failed during the terminal session.
    #[error("the terminal session stopped: {0}; the answers given so far are kept")]
    Terminal(#[from] std::io::Error),
    /// Recording an answer failed (the app's error, as text).
    #[error("{0}")]
    Record(String),
}
