//! The drive crate's tests written from its mutation run (reference/mutants.md), one binary so
//! each mutant links one test program, not four. `drive_interrupt.rs` stays a binary of its
//! own: the signal it sends reaches its whole process.
#![cfg(test)]

mod error_catalog;
mod outcomes;
mod session_end;
mod sessions;
mod support;
mod timeline;
mod until;
