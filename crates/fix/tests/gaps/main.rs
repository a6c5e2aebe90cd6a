//! The fix crate's tests written from its mutation run (reference/mutants.md): one test binary,
//! so each mutant links one test program.
#![cfg(test)]

mod check;
mod edits;
mod queue;
mod target;
mod tree;
