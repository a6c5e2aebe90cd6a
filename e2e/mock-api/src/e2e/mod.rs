//! End-to-end scenarios on the real Claude Code client (issue 4 parts 2-4): temp projects,
//! `claude -p` runs against the scripted Messages API, assertions on files, run state and
//! recorded requests, and the measured figures.

mod checks;
mod claude_run;
mod drive_run;
mod e2e_error;
mod e2e_project;
mod figures;
mod hook_log;
mod records;
mod release_server;
mod request_cost;
mod run_files;
mod scenario_outcome;
mod scenarios;
mod terminal_session;
mod tools;
mod wheel_install;
mod workflow;
mod workflow_job;

pub use checks::Checks;
pub use claude_run::{ClaudeOptions, ClaudeOutcome, ClaudeRun};
pub use drive_run::{DriveOutcome, DriveRun};
pub use e2e_error::E2eError;
pub use e2e_project::{E2eProject, InstallMode};
pub use figures::{Figures, render_table};
pub use hook_log::{HookRun, parse_hook_log};
pub use records::{agent_launches, item_models, launched_items};
pub use request_cost::RequestCost;
pub use run_files::RunFiles;
pub use scenario_outcome::ScenarioOutcome;
pub use scenarios::{LARGE_SCENARIOS, OLDEST_CLIENT_SUBSET, run_scenario, scenario_names};
pub use terminal_session::{TERMINAL_SIZE, TerminalSession, occurrences};
pub use tools::Tools;
pub use wheel_install::WheelInstall;
pub use workflow::{Workflow, WorkflowJob, WorkflowStep, substitute};
pub use workflow_job::{StepRun, WorkflowJobRun};
