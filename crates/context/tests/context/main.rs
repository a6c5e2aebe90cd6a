//! Integration tests of the context crate over small temporary projects.

#![expect(
    clippy::expect_used,
    reason = "test support outside #[test] functions: a failed setup step is a failed test"
)]

mod enclosing;
mod project;
mod references;
mod render;
mod snippet;
