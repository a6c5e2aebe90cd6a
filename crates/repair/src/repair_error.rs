//! Errors of the repair commands, each saying what to do next.

use std::path::PathBuf;

use self_repair_store::StoreError;

/// Why a repair command failed.
#[derive(Debug, thiserror::Error)]
pub enum RepairError {
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Bad arguments or options.
    #[error("{0}")]
    Usage(String),
    /// `.self-repair/config.json` is wrong.
    #[error("{path}: {message}")]
    Config { path: PathBuf, message: String },
    /// No such run, attempt or check.
    #[error("{0}")]
    NotFound(String),
    /// A file could not be read or written.
    #[error("cannot {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    /// A prompt template is missing or uses an unknown placeholder.
    #[error("{0}")]
    Template(String),
}

impl RepairError {
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
    ) -> impl FnOnce(std::io::Error) -> RepairError {
        let path = path.into();
        move |source| RepairError::Io {
            action,
            path,
            source,
        }
    }
}
