//! The `self-repair` binary: parses arguments and wires the libraries together.
fn main() {}
