//! Errors reading or changing `known.json` and `rules.json`.

use std::path::PathBuf;

/// A registry or rule file problem, saying what to do.
#[derive(Debug, thiserror::Error)]
pub enum ClassifyError {
    #[error("{path}: {message}; fix the file (it was not changed)")]
    BadFile { path: PathBuf, message: String },
    #[error(
        "{path} line {line}: {message}; every line is one entry: fix that line or delete it (the file was not changed)"
    )]
    BadLine {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error(
        "{path} line {line}: a git conflict marker. Every line is one entry, so keep the lines of both sides and delete only the marker lines; `self-repair install` registers the merge driver that merges this file for you next time (the file was not changed)"
    )]
    ConflictMarkers { path: PathBuf, line: usize },
    #[error(
        "{path} has schema_version {found}, written by a newer self-repair; update self-repair (the file was not changed)"
    )]
    NewerFile { path: PathBuf, found: u32 },
    #[error("rule `{rule}`: {message}")]
    BadRule { rule: String, message: String },
    #[error("no rule `{0}`; `self-repair rules list` shows the ids")]
    NoSuchRule(String),
    #[error(
        "a baseline records `intended` or `false_positive`, not `{0}`: it accepts findings as they are; give `--verdict intended` or `--verdict false_positive`"
    )]
    BaselineVerdict(String),
    #[error("a baseline needs a reason a teammate can read: give `--reason TEXT`")]
    BaselineReason,
    #[error(
        "`known prune --runs {wanted}` needs {wanted} triage runs here, and {found} are in .self-repair/runs/; run more, or give a smaller --runs"
    )]
    TooFewRuns { wanted: usize, found: usize },
    #[error("`known prune --runs` needs at least 1 run")]
    NoRunsToPrune,
    #[error(transparent)]
    Store(#[from] self_repair_store::StoreError),
}
