//! Why a labels file could not be read or used against a run.

use std::path::PathBuf;

/// A labels file that cannot be read, parsed or matched to the run.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    #[error("cannot read the labels file {path}: {source}; check the path and its permissions")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{source_name} line {line}: {problem}; fix that line or remove it (reference/eval.md lists the labels formats)"
    )]
    Parse {
        source_name: String,
        line: usize,
        problem: String,
    },
    #[error(
        "{source_name} holds no labels: write one label a line as JSONL, or a CSV with a header (reference/eval.md)"
    )]
    Empty { source_name: String },
    #[error(
        "{source_name}: none of its labels ({labels}) matches any of the run's {findings} findings: {why}; check the labels are for this run's corpus and name its findings as the run does (reference/eval.md)"
    )]
    NoMatch {
        source_name: String,
        labels: usize,
        findings: usize,
        why: String,
    },
}
