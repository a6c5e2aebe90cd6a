//! Outputs of a run: Backlog.md task files (idempotent by group fingerprint), `report.json`
//! and `report.md`; and two runs compared finding by finding.

mod agent_text;
mod analyzer_fix_task;
mod backlog;
mod backlog_task;
mod next_steps;
mod proposal;
mod report_error;
mod run_comparison;
mod run_cost;
mod run_report;
mod suppression;
mod verification_chain;

pub use agent_text::{fenced, strip_hidden_markup};
pub use analyzer_fix_task::AnalyzerFixTask;
pub use backlog::{Backlog, ExistingTask, TaskToWrite};
pub use backlog_task::{BacklogTask, GROUP_MARKER, sanitize_title};
pub use next_steps::NextSteps;
pub use proposal::{KnownProposal, RuleProposal};
pub use report_error::ReportError;
pub use run_comparison::{
    COMPARISON_SCHEMA_VERSION, ChangeCounts, ComparedFinding, FindingChange, RunComparison,
    RunFindings, SeenFinding, SincePrevious,
};
pub use run_cost::{CostLine, RunCost};
pub use run_report::{
    FindingOutcome, GroupOutcome, PhaseCost, QuarantinedItem, REPORT_SCHEMA_VERSION, RunReport,
    verdict_text,
};
pub use suppression::Suppression;
pub use verification_chain::{Opinion, Verification};
