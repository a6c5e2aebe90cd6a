//! A Rust project (Cargo.toml): Clippy as its detector and `cargo test` as its test command.

use std::path::Path;

use crate::project_setup::ProjectSetup;
use crate::proposed_detector::detector;
use crate::proposed_test::ProposedTest;

/// Adds Clippy and `cargo test` when `root` holds a Cargo package or workspace.
pub(crate) fn propose(root: &Path, setup: &mut ProjectSetup) {
    if !root.join("Cargo.toml").is_file() {
        return;
    }
    setup.detectors.push(detector(
        "clippy",
        &["cargo", "clippy", "--all-targets", "--message-format=json"],
        // Measured with clippy 0.1.95: warnings exit 0; a deny-by-default lint (`eq_op`) or a
        // build error exits 101, its messages in the output.
        &[0, 101],
        "clippy",
        "Cargo.toml: a Rust project (Clippy comes with the toolchain)".to_owned(),
        "0 warnings or nothing, 101 an error-level lint or a build error (both reported)",
    ));
    setup.tests.push(ProposedTest::new(
        &["cargo", "test"],
        "Cargo.toml: cargo test".to_owned(),
    ));
}
