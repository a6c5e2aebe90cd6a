//! Why a run's cost ledger could not be saved.

use std::path::{Path, PathBuf};

/// Saving the ledger failed; the run goes on, and the next stop reads the same bytes again.
#[derive(Debug, thiserror::Error)]
pub enum CostError {
    #[error("cannot {action} {path}: {source}; check the run folder's permissions and free space")]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot encode the cost ledger: {0}")]
    Encode(serde_json::Error),
}

impl CostError {
    pub(crate) fn io(
        action: &'static str,
        path: &Path,
    ) -> impl FnOnce(std::io::Error) -> CostError {
        let path = path.to_path_buf();
        move |source| CostError::Io {
            action,
            path,
            source,
        }
    }

    pub(crate) fn encode(error: serde_json::Error) -> CostError {
        CostError::Encode(error)
    }
}
