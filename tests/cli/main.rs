//! Integration tests of the `self-repair` binary: one test binary, a module per feature.

mod harness;
mod scripted_agent;

mod backlog_cli;
mod classification;
mod commands;
mod damaged_state;
mod fuzz;
mod hook_input;
mod install;
mod loop_safety;
mod pipeline;
mod repair;
mod resume;
mod store;
mod submit;
mod templates;
