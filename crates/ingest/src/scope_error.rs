//! Why `start` could not choose which findings its run takes (`--changed-since`,
//! `--partition`), and what to do about it.

/// A scope option that cannot be applied; nothing is created.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ScopeError {
    /// `--changed-since` was given something git would read as an option.
    #[error(
        "--changed-since `{reference}`: not a revision; give a commit, branch or tag (`--changed-since origin/main`), or `origin/main...` for the changes since the branch left main"
    )]
    NotARevision { reference: String },

    /// `git diff REF` failed: an unknown revision, or not a git repository.
    #[error(
        "--changed-since {reference}: git could not compare the work tree with it: {problem}\n  fix: name a revision this clone has (in CI fetch it first: `git fetch origin main`, or check out with `fetch-depth: 0`); the project must be inside a git repository"
    )]
    GitDiff { reference: String, problem: String },

    /// `--partition` is not `hash:K/N` with 1 <= K <= N.
    #[error(
        "--partition `{given}`: {problem}; write it hash:K/N, K from 1 to N (`--partition hash:2/4` takes the second of four shares)"
    )]
    BadPartition { given: String, problem: String },
}
