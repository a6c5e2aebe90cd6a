//! Integration tests of the context crate over small temporary projects.

mod enclosing;
mod project;
mod references;
mod render;
mod snippet;
