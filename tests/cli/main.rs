//! Integration tests of the `self-repair` binary: one test binary, a module per feature.

mod harness;
mod scripted_agent;

mod analyzer_fix;
mod apply_fixes;
mod backlog_cli;
mod bounded_prompts;
mod classification;
mod commands;
mod corpus_plan_depth;
mod cost;
mod damaged_state;
mod drive;
mod fix_loop;
mod forgiving_input;
mod fuzz;
mod hand_back;
mod hook_input;
mod ingest;
mod install;
mod loop_safety;
mod permission_gate;
mod pipeline;
mod repair;
mod resume;
mod revise;
mod rule_survey;
mod run_identity;
mod session_habits;
mod standing_protocol;
mod store;
mod submit;
mod templates;
mod triage_batch;
mod verification;
mod verify_task;
