//! Errors of the fix commands, each saying what to do next.

/// Why the composite check could not be run (as opposed to: it ran and failed).
#[derive(Debug, thiserror::Error)]
pub enum FixError {
    /// No such task in the run.
    #[error("{0}")]
    NotFound(String),
    /// Bad arguments or a project the check cannot work in.
    #[error("{0}")]
    Usage(String),
    /// git could not run or failed: the fix loop needs a git work tree and its baseline commit.
    #[error("{0}; the fix loop needs git, a git work tree and the baseline commit")]
    Git(#[from] self_repair_process::GitError),
}
