//! Integration tests of the `self-repair` binary.
