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
}
