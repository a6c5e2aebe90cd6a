//! What can stop a scenario before its assertions: files, processes, the mock server.

use std::io;
use std::path::PathBuf;

use crate::mock_error::MockError;

/// An error that ends a scenario early (it then counts as failed with this message).
#[derive(Debug, thiserror::Error)]
pub enum E2eError {
    /// A file or folder could not be read or written.
    #[error("{path}: {source} (check the e2e work folder is writable)")]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// A program could not be started.
    #[error("cannot run {program}: {source} (run scripts/install-tools.sh and build first)")]
    Spawn {
        /// The program.
        program: String,
        /// The cause.
        source: io::Error,
    },
    /// A command the scenario needs failed.
    #[error("`{command}` failed with {code:?}: {stderr}")]
    Command {
        /// The command line.
        command: String,
        /// Its exit code.
        code: Option<i32>,
        /// Its stderr.
        stderr: String,
    },
    /// The mock Messages API could not start.
    #[error(transparent)]
    Mock(#[from] MockError),
    /// Something the scenario waits for did not happen in time.
    #[error("timed out after {seconds} s waiting for {what}")]
    Timeout {
        /// What was awaited.
        what: String,
        /// How long.
        seconds: u64,
    },
    /// A tool the scenario needs was not given or is not installed.
    #[error(
        "{0} (run scripts/install-tools.sh, which installs it, and pass --py-tools to e2e as scripts/e2e.sh does)"
    )]
    MissingTool(String),
    /// A file did not hold what the scenario expected.
    #[error("{path}: {message}")]
    Unexpected {
        /// The file.
        path: PathBuf,
        /// What was wrong.
        message: String,
    },
}

impl E2eError {
    /// An `Io` error for `path`.
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(io::Error) -> E2eError {
        let path = path.into();
        move |source| E2eError::Io { path, source }
    }
}
