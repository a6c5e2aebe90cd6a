//! Errors of the driver, with what to do about each.

use std::path::PathBuf;

/// Why `drive`, `errors` or `timeline` could not go on.
#[derive(Debug, thiserror::Error)]
pub enum DriveError {
    #[error("cannot {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "cannot start {program}: {source}. Pass the client's path with --claude PATH (Claude Code's `claude`)"
    )]
    Spawn {
        program: String,
        source: std::io::Error,
    },
    #[error("cannot watch SIGINT/SIGTERM: {0}")]
    Signals(std::io::Error),
    #[error("{0}")]
    Usage(String),
    /// Another `drive` holds the run's `drive.lock`.
    #[error(
        "another `self-repair drive` is driving this run (it holds {path}); stop it first (Ctrl-C or SIGTERM: the run is kept) or wait for it to end"
    )]
    AlreadyDriving { path: PathBuf },
    /// Reading the run failed (the message names the file and what to do).
    #[error("{0}")]
    Run(String),
}

impl DriveError {
    /// Maps an I/O error on `path` while doing `action`.
    pub fn io(
        action: &'static str,
        path: &std::path::Path,
    ) -> impl FnOnce(std::io::Error) -> DriveError {
        let path = path.to_owned();
        move |source| DriveError::Io {
            action,
            path,
            source,
        }
    }
}
