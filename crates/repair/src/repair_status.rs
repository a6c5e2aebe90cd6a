//! `self-repair status` for a repair run: outcome, step, and the attempts table.

use self_repair_engine::timestamp;
use self_repair_store::RunDir;
use serde::Serialize;

use crate::attempts_table::attempts_table;
use crate::repair_run::load_repair_state;
use crate::{Attempt, CheckRecord, RepairError, RepairState, RepairStatus, Step, shell_words};

/// What `status` shows for a repair run.
#[derive(Debug, Clone, Serialize)]
pub struct RepairStatusReport {
    pub schema_version: u32,
    pub pipeline: &'static str,
    pub run: String,
    pub created_at: String,
    pub status: RepairStatus,
    pub step: Step,
    pub reason: Option<String>,
    pub command: Vec<String>,
    pub session: Option<String>,
    pub checks: Vec<CheckRecord>,
    pub attempts: Vec<Attempt>,
    /// The attempts table, in markdown.
    pub table: String,
    pub git_restore: String,
}

impl RepairStatusReport {
    /// The report of a loaded state.
    pub fn of(state: &RepairState) -> RepairStatusReport {
        RepairStatusReport {
            schema_version: 1,
            pipeline: "repair",
            run: state.run.clone(),
            created_at: timestamp::rfc3339(state.created_at),
            status: state.status,
            step: state.step,
            reason: state.ending.as_ref().map(|e| e.reason.clone()),
            command: state.spec.command.clone(),
            session: state.session.clone(),
            checks: state.checks.clone(),
            attempts: state.attempts.clone(),
            table: attempts_table(state),
            git_restore: state.git.restore_hint(),
        }
    }

    /// The text `status` prints.
    pub fn render(&self) -> String {
        let step = match self.step {
            Step::Baseline => "run the baseline check".to_owned(),
            Step::Autofix => "run the autofix".to_owned(),
            Step::AutofixRecheck => "recheck after the autofix".to_owned(),
            Step::Ask { attempt } => format!("ask for fix attempt {attempt}"),
            Step::Fixing { attempt } => format!("fix attempt {attempt} under way"),
            Step::Recheck { attempt } => format!("recheck after attempt {attempt}"),
            Step::Done => "none: the run is over".to_owned(),
        };
        let mut out = format!(
            "repair run {} ({}), created {}\ncheck: {}\nsession: {}\n",
            self.run,
            self.status.as_str(),
            self.created_at,
            shell_words(&self.command),
            self.session.as_deref().unwrap_or("(not bound yet)")
        );
        if let Some(reason) = &self.reason {
            out.push_str(&format!("outcome: {reason}\n"));
        }
        out.push_str(&format!(
            "next step: {step}\n\n{}\n{}\n",
            self.table, self.git_restore
        ));
        out
    }
}

/// Loads the repair run in `dir` and reports on it.
pub fn repair_status(dir: &RunDir) -> Result<RepairStatusReport, RepairError> {
    Ok(RepairStatusReport::of(&load_repair_state(dir)?))
}
