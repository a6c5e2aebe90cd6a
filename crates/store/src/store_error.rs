//! Errors of the on-disk store, each saying what to do next.

use std::path::PathBuf;

/// Anything that can go wrong reading or writing `.self-repair/`.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "no self-repair run here: no `.self-repair/` in {0} or above. Start one on an analyzer's JSON or SARIF report: `mkdir -p .self-repair && ruff check --output-format json . > .self-repair/ruff.json`, then `self-repair start .self-repair/ruff.json`"
    )]
    NoProject(PathBuf),
    #[error("no folder {0} (given with -C/--root): name the project's folder, one that exists")]
    NoSuchFolder(PathBuf),
    #[error("no active run in {0}; list runs with `self-repair runs`, or start one")]
    NoActiveRun(PathBuf),
    #[error("no run `{0}`; list runs with `self-repair runs`")]
    NoSuchRun(String),
    #[error(
        "the run folder {0} holds no run (no state.json or run.json: a `start` was killed while it made it); `self-repair doctor --runs-only` moves it aside"
    )]
    BrokenRun(PathBuf),
    #[error(
        "run id `{0}` is not a safe name: use 1 to 64 letters, digits, `.`, `_` or `-`, starting with a letter or digit"
    )]
    BadRunId(String),
    #[error("run `{0}` already exists; pick another `--run-id` or leave it out")]
    RunExists(String),
    #[error(
        "the run state {path} is unreadable ({reason}); a copy was kept at {kept}. Run `self-repair doctor` to rebuild it from the journal"
    )]
    CorruptState {
        path: PathBuf,
        reason: String,
        kept: PathBuf,
    },
    #[error(
        "{path} cannot rebuild the run ({reason}); the run's state cannot be recovered by `doctor`: start a new run with `self-repair start` (the findings are in findings.json beside it)"
    )]
    InitialStateUnusable { path: PathBuf, reason: String },
    #[error(
        "the run state {path} has schema_version {found}, this self-repair reads {expected}; use a matching self-repair version"
    )]
    SchemaVersion {
        path: PathBuf,
        found: u32,
        expected: u32,
    },
    #[error(
        "the run state has folded {offset} bytes of {path}, which holds only {len} (lost in a crash?); run `self-repair doctor` to rebuild the state from the journal"
    )]
    JournalBehindState {
        path: PathBuf,
        offset: u64,
        len: u64,
    },
    #[error(
        "timed out after {secs} s waiting for the lock {path}; another self-repair is busy. Try again"
    )]
    LockTimeout { path: PathBuf, secs: u64 },
}

impl StoreError {
    /// Wraps an I/O error with what was being done to which path.
    pub fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
    ) -> impl FnOnce(std::io::Error) -> StoreError {
        let path = path.into();
        move |source| StoreError::Io {
            action,
            path,
            source,
        }
    }
}
