//! The repair pipeline: make a failing check pass, bounded and escalating. A code-driven state
//! machine (baseline → autofix → fix attempt → recheck → ... → success, quarantined, escalated)
//! on the same store, hook and dispatch contract as the triage pipeline.

mod approach;
mod attempts_table;
mod check_record;
mod check_spec;
mod error_signature;
mod failure_class;
mod feedback;
mod fix_tier;
mod git_baseline;
mod handoff;
mod repair_doctor;
mod repair_env;
mod repair_error;
mod repair_journal;
mod repair_machine;
mod repair_run;
mod repair_state;
mod repair_status;
mod repair_stop;
mod repair_template;
mod run_command;
mod show_fix;
mod start_check;
mod tick;
mod tree_snapshot;

pub use approach::Approach;
pub use attempts_table::{attempts_table, format_duration};
pub use check_record::{CheckPurpose, CheckRecord, TIMEOUT_EXIT, output_tail};
pub use check_spec::{
    CheckConfig, CheckRequest, CheckSpec, ProjectChecks, resolve_spec, shell_words,
};
pub use error_signature::{error_signature, normalize_output};
pub use failure_class::{ClassRule, FailureClass, classify, default_rules};
pub use feedback::{
    FIXER_AGENT, failing_check, render_dispatch, render_feedback, render_fixer_task,
};
pub use fix_tier::FixTier;
pub use git_baseline::GitBaseline;
pub use handoff::{render_report, render_summary, report_path};
pub use repair_doctor::{RepairDoctor, doctor_repair_run};
pub use repair_env::RepairEnv;
pub use repair_error::RepairError;
pub use repair_machine::{Action, RepairEvent, apply_event, new_attempt, next_action};
pub use repair_state::{
    Attempt, AutofixRecord, Ending, RECENT_CHECKS, REPAIR_SCHEMA_VERSION, RepairState,
    RepairStatus, Step,
};
pub use repair_status::{RepairStatusReport, repair_status};
pub use repair_stop::{adopt_repair, cancel_repair, repair_stop, repair_stop_failure};
pub use show_fix::{FixShown, show_fix};
pub use start_check::start_check;
pub use tick::{RepairReply, tick};
pub use tree_snapshot::TreeSnapshot;
