//! What the tests of every crate share (a dev-dependency only, never shipped): the pinned clock,
//! the five-rule JSONL corpus, one way to run a child with a deadline, and `git` for fixtures.

#![expect(
    clippy::expect_used,
    clippy::panic,
    reason = "test infrastructure: a fixture that cannot run fails the test that uses it"
)]

mod bounded_run;
mod findings_corpus;
mod git;

pub use bounded_run::{Bounded, FIXTURE_LIMIT, Finished, kill_group, wait_at_most};
pub use findings_corpus::jsonl_findings;
pub use git::{git, git_command};

/// The instant tests pin the clock to: 2026-11-22T09:30:05Z.
pub const NOW: u64 = 1_795_339_805;
