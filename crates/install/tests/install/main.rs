//! Integration tests of install / uninstall on temporary projects.

#![expect(
    clippy::unwrap_used,
    reason = "test support outside #[test] functions: a failed setup step is a failed test"
)]

mod bundle;
mod config_dir;
mod harness;
mod idempotence;
mod installed_files;
mod refusals;
mod reinstall_record;
mod roundtrip;
mod settings_merge;
mod snapshots;
mod status_line;
mod team_settings;
mod uninstall;
