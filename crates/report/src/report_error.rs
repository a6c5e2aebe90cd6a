//! Errors writing outputs.

use std::path::{Path, PathBuf};

/// Writing tasks or reports failed.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("cannot {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Store(#[from] self_repair_store::StoreError),
}

impl ReportError {
    pub(crate) fn io(action: &'static str, path: &Path, source: std::io::Error) -> ReportError {
        ReportError::Io {
            action,
            path: path.to_path_buf(),
            source,
        }
    }
}
