//! Errors reading or changing `known.json` and `rules.json`.

use std::path::PathBuf;

/// A registry or rule file problem, saying what to do.
#[derive(Debug, thiserror::Error)]
pub enum ClassifyError {
    #[error("{path}: {message}; fix the file (it was not changed)")]
    BadFile { path: PathBuf, message: String },
    #[error("rule `{rule}`: {message}")]
    BadRule { rule: String, message: String },
    #[error("no rule `{0}`; `self-repair rules list` shows the ids")]
    NoSuchRule(String),
    #[error(transparent)]
    Store(#[from] self_repair_store::StoreError),
}
