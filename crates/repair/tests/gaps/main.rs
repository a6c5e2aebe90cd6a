//! The repair crate's tests written from its mutation run (reference/mutants.md): one test
//! binary, so each mutant links one test program.
#![cfg(test)]

mod approach;
mod classes;
mod feedback;
mod git;
mod hook;
mod report;
mod run;
mod spec;
mod state;
mod table;
