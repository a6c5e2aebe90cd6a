//! Why a transcript could not be read.

use std::path::PathBuf;

/// A transcript read failed.
#[derive(Debug, thiserror::Error)]
pub enum TranscriptError {
    #[error("cannot read the session transcript {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
}
