//! Everything that can stop `install` or `uninstall`; each message says what to do next.

use std::io;
use std::path::PathBuf;

/// Why an install or uninstall could not be planned or applied. Nothing is written when
/// planning fails.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// The settings file exists but is not valid JSON.
    #[error(
        "{} is not valid JSON: {message} at line {line}, column {column}. \
         Fix the file by hand (or move it aside) and rerun; it was not changed",
        path.display()
    )]
    InvalidSettings {
        /// The settings file.
        path: PathBuf,
        /// `serde_json`'s description of the error.
        message: String,
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
    },
    /// The settings file is JSON but some key we must edit has an unexpected type.
    #[error(
        "{}: `{key}` should be {expected}. Fix the file by hand and rerun; it was not changed",
        path.display()
    )]
    UnexpectedShape {
        /// The settings file.
        path: PathBuf,
        /// Dotted key path, e.g. `hooks.Stop`.
        key: String,
        /// What Claude Code expects there, e.g. `an array`.
        expected: &'static str,
    },
    /// The binary path to register is relative, or not valid UTF-8.
    #[error(
        "cannot register {} as the hook command: it must be an absolute UTF-8 path. \
         Run self-repair through its full path",
        path.display()
    )]
    BinaryPath {
        /// The path given.
        path: PathBuf,
    },
    /// A bundle file name does not map under `.claude/agents` or `.claude/skills`.
    #[error(
        "bundle file `{rel_path}` is not under agents/ or skill/; this is a build bug, please report it"
    )]
    BundlePath {
        /// The offending relative path.
        rel_path: String,
    },
    /// A file we would copy already exists with other contents and was not written by install.
    #[error(
        "{} already exists and was not written by self-repair install. \
         Move it aside (or delete it) and rerun",
        path.display()
    )]
    BundleConflict {
        /// The existing file.
        path: PathBuf,
    },
    /// The install manifest exists but cannot be read as one.
    #[error(
        "{} is not a valid self-repair install manifest ({message}). \
         Delete it to forget the previous install, then rerun",
        path.display()
    )]
    InvalidManifest {
        /// The manifest file.
        path: PathBuf,
        /// What was wrong.
        message: String,
    },
    /// A file changed between planning and applying.
    #[error("{} changed while installing; rerun the command", path.display())]
    ChangedSincePlan {
        /// The file that changed.
        path: PathBuf,
    },
    /// Reading a file failed.
    #[error("cannot read {}: {source}. Check its permissions and rerun", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// Writing or removing a file failed.
    #[error("cannot write {}: {source}. Check the directory's permissions and rerun", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// Registering the `self-repair-known` merge driver in the project's git repository failed.
    #[error(
        "could not register the registry merge driver: {0}. The hooks are installed; merges of \
         .self-repair/known.json still keep both sides' entries (union), and rerunning install \
         registers the driver"
    )]
    MergeDriver(String),
}
