//! Integration tests of install / uninstall on temporary projects.

mod bundle;
mod harness;
mod idempotence;
mod refusals;
mod roundtrip;
mod settings_merge;
mod snapshots;
mod team_settings;
mod uninstall;
