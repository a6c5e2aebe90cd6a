//! Errors of the context crate, each saying what to do next.

use std::path::PathBuf;

/// Why code context could not be produced.
#[derive(Debug, thiserror::Error)]
pub enum ContextError {
    /// The finding's path is absolute, climbs with `..`, or resolves outside the project.
    #[error(
        "path `{path}` is outside the project: give a path relative to the project root, \
         without `..` and not through a symlink that leaves the project"
    )]
    PathOutsideProject {
        /// The path as given.
        path: String,
    },
    /// The project root itself cannot be resolved.
    #[error("cannot open the project root {}: {source}; run from the project directory", root.display())]
    Root {
        /// The root as given.
        root: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A file inside the project exists but cannot be read.
    #[error("cannot read {}: {source}; check its permissions", path.display())]
    Read {
        /// The file that failed.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The symbol to search for is empty or spans lines.
    #[error("symbol {symbol:?} cannot be searched: give a non-empty name on one line")]
    InvalidSymbol {
        /// The symbol as given.
        symbol: String,
    },
}
