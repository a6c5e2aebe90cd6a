//! Integration tests of the `self-repair` binary: one test binary, a module per feature.

#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test support outside #[test] functions: a failed setup step is a failed test"
)]

mod harness;
mod scripted_agent;

mod analyzer_fix;
mod apply_fixes;
mod audit;
#[cfg(feature = "real-tools")]
mod backlog_cli;
mod bounded_prompts;
mod classification;
mod command_outputs;
mod commands;
mod confirm;
mod corpus_plan_depth;
mod cost;
mod damaged_state;
mod demo_fix;
mod doc_references;
mod doctor_setup;
mod drive;
mod drive_fix;
mod drive_partitions;
mod eval;
mod eval_drive_leak;
mod export;
#[cfg(feature = "real-tools")]
mod export_multitool;
mod fix_loop;
mod forgiving_input;
mod fuzz;
mod hand_back;
mod hook_input;
mod ingest;
mod init;
#[cfg(feature = "real-tools")]
mod init_real_ruff;
mod install;
mod kept_verdicts;
mod known_team;
mod loop_safety;
mod merge;
mod mutants_check;
mod permission_gate;
mod pipeline;
mod plugin_launcher;
mod provider_refusal;
mod pull_requests;
mod repair;
mod report_next_steps;
mod resume;
mod review_messages;
mod revise;
mod rule_survey;
mod run_identity;
mod runs_compare;
mod scope;
mod security_economy;
mod session_habits;
mod standing_protocol;
mod start_interrupted;
mod statusline;
mod store;
mod submit;
mod table_stakes;
mod templates;
mod test_paths;
mod triage_batch;
mod truthful_surfaces;
mod verification;
mod verify_task;
