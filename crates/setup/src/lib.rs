//! `self-repair init`'s capability: read what a project has (Python, npm, Cargo manifests and
//! the configuration of their linters and test runners), propose the detectors and the test
//! command `.self-repair/config.json` needs, each with the exit codes its tool really uses and
//! the reason it was chosen, and merge them into an existing config without losing a key.

mod cargo_project;
mod config_merge;
mod config_text;
mod node_project;
mod project_setup;
mod proposed_detector;
mod proposed_test;
mod python_project;
mod setup_error;
mod tool_install;

pub use config_merge::{ConfigChange, MergedConfig, merge_into_config};
pub use config_text::config_text;
pub use project_setup::ProjectSetup;
pub use proposed_detector::ProposedDetector;
pub use proposed_test::ProposedTest;
pub use setup_error::SetupError;
pub use tool_install::{find_program, install_hint};
