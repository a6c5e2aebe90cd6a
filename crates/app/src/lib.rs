//! The commands of `self-repair`, as library functions the binary calls: each takes a
//! [`CommandEnv`] (folder, time, session) so outputs are reproducible in tests.

mod agent_launches;
mod app_error;
mod apply_fixes;
mod classification;
mod command_env;
mod confirm;
mod control;
mod decided_code;
mod demo;
mod detect;
mod doctor;
mod drive_command;
mod finalize;
mod finding_listing;
mod fix_command;
mod fix_hook;
mod hook;
mod hook_input;
mod item_focus;
mod post_tool_use;
mod pre_tool_use;
mod preflight;
mod progress;
mod project_config;
mod proposals;
mod revision;
mod run_cost;
mod run_costs;
mod run_in_progress;
mod run_inputs;
mod session_notices;
mod show;
mod simulated_agent;
mod start;
mod status;
mod submit;
mod survey_prompt;
mod task_sections;
mod triage_prompt;
mod verdict_table;
mod verify_task;

pub use app_error::{AppError, ExitStatus};
pub use apply_fixes::{AppliedFixes, apply_fixes};
pub use classification::{
    KnownLine, known_accept, known_add, known_list, known_remove, render_known, render_rules,
    rules_list, rules_set,
};
pub use command_env::CommandEnv;
pub use control::{finalize, finalize_partial, next, steer};
pub use demo::{DemoReport, demo};
pub use detect::{Detection, run_detectors, save_detections};
pub use doctor::doctor;
pub use drive_command::{BACKOFF_SCALE_VAR, DriveRequest, drive, drive_errors, timeline};
pub use finalize::{finalize_run, read_findings, write_reports};
pub use finding_listing::{FINDINGS_PAGE, FindingsPage};
pub use fix_command::{
    FixReply, FixRequest, continue_fix, continue_fix_after_tick, fix, read_queue,
};
pub use hook::{HookAnswer, hook_session_start, hook_stop, hook_stop_failure};
pub use hook_input::{BackgroundTask, HookInput};
pub use post_tool_use::hook_post_tool_use;
pub use pre_tool_use::hook_pre_tool_use;
pub use preflight::{PhaseAgents, Preflight};
pub use progress::Progress;
pub use project_config::{Detector, ProjectConfig, load_config, load_project_config};
pub use run_cost::run_cost;
pub use run_costs::{RunCostLine, render_runs_cost, runs_cost};
pub use run_in_progress::{replace_run_in_progress, run_in_progress};
pub use run_inputs::run_input_paths;
pub use self_repair_report::{CostLine, RunCost};
pub use session_notices::{ClientVersion, Installation, TESTED_CLIENTS, session_notices};
pub use show::{ShowOutput, record_shown, show, show_angle, show_findings};
pub use simulated_agent::SimulatedAgent;
pub use start::{InputSpec, InputSummary, StartOptions, StartReport, start};
pub use status::{
    FindingLine, PhaseLine, RunLine, StatusReport, finding_lines, load_folded, render_findings,
    render_runs, report, runs, status,
};
pub use submit::{Submitted, item_input, submit, submit_repaired};
pub use verify_task::{VerifyTaskRequest, verify_task};
