//! Errors of the mock server.

use std::io;
use std::path::PathBuf;

/// What can go wrong starting or recording.
#[derive(Debug, thiserror::Error)]
pub enum MockError {
    /// The listener could not bind.
    #[error(
        "cannot bind 127.0.0.1:0 for the mock Messages API ({0}); is the loopback interface up?"
    )]
    Bind(#[source] io::Error),
    /// The record file could not be opened.
    #[error("cannot open the request record {path} ({source}); pass a writable path")]
    Record {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The accept thread could not start.
    #[error("cannot start the server thread ({0}); the machine may be out of threads")]
    Thread(#[source] io::Error),
    /// A scenario file is not valid.
    #[error("scenario {path} is not valid ({message}); see e2e/mock-api/README of Scenario fields")]
    Scenario {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
}
