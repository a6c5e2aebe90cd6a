//! What `status` shows of a triage run, and what `drive`, the fix queue's probe and `demo` print
//! at their end: phases, tasks, launches, cost, progress and the next step.

use std::path::PathBuf;

use self_repair_engine::{
    Intake, PauseReason, Phase, PhaseCounts, RunState, RunStatus, TaskRecord, timestamp,
};
use self_repair_store::{Project, RunDir};
use serde::Serialize;

use crate::app_error::AppError;
use crate::run::load::load_folded;

/// One phase's progress.
#[derive(Debug, Clone, Serialize)]
pub struct PhaseLine {
    pub phase: Phase,
    #[serde(flatten)]
    pub counts: PhaseCounts,
}

/// What `status` shows.
#[derive(Debug, Clone, Serialize)]
pub struct StatusReport {
    pub schema_version: u32,
    pub run: String,
    pub project: PathBuf,
    pub created_at: String,
    /// `active`, `waiting` (for the user's go on the estimate), `paused`, `stalled`,
    /// `complete`, `cancelled`.
    pub status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pause: Option<PauseReason>,
    pub phase: Phase,
    pub session: Option<String>,
    pub intake: Intake,
    /// What part of its input the run takes; absent when all of it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<self_repair_engine::RunScope>,
    /// A run `merge` made: its partitions, with what each spent (its ledger's total).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub merged_from: Vec<crate::run::partitions::MergedShareReport>,
    /// A run `drive --partitions` split: its shares, each with its progress.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub partitions: Vec<crate::run::partitions::ShareProgress>,
    pub phases: Vec<PhaseLine>,
    pub groups: usize,
    pub planned_groups: usize,
    pub tasks: Vec<TaskRecord>,
    pub blocks: u64,
    /// Agents launched against the run's ceiling and bound (issue 32).
    pub launches: self_repair_engine::LaunchCeiling,
    /// Agents the model provider refused (`stop_reason: "refusal"`): their items ended
    /// quarantined, neither escalated nor charged; counted apart from failures.
    #[serde(skip_serializing_if = "is_zero")]
    pub provider_refusals: u32,
    /// Each session's dispatch channel (`additionalContext` or `block`), why, and what it did
    /// with the dispatches (design note 63).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub channels: Vec<self_repair_engine::SessionChannel>,
    pub next: String,
    /// Tokens and dollars so far, from the transcripts of the session that drives the run
    /// (absent until the Stop hook has seen that session).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<self_repair_report::RunCost>,
    /// Per task, how `self-repair fix` left it (empty before any `fix`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fixes: Vec<self_repair_fix::QueuedTask>,
    /// Pace, ETA, spent / estimated / budget (reference/cost.md, "Progress").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub progress: Option<crate::run::progress::Progress>,
}

/// Loads the run, folds pending submissions into `state.json`, and reports.
pub fn status(project: &Project, dir: &RunDir, now: u64) -> Result<StatusReport, AppError> {
    let state = load_folded(dir, true)?;
    let mut report = report(project, &state);
    if state.status == RunStatus::Complete {
        let mut next = crate::run::proposals::next_steps(dir, &state);
        (next.tasks, next.not_reproduced) =
            crate::run::fix_queue::tasks_left(project.root(), dir, &state);
        let steps = next.steps();
        if !steps.is_empty() {
            report.next = format!("{}; then {}", report.next, steps.join("; "));
        }
    }
    if let Some(ledger) = self_repair_cost::CostLedger::load(dir.path()) {
        for share in &mut report.merged_from {
            share.cost = ledger.partitions.get(&share.share.run).copied();
        }
    }
    report.cost =
        crate::run::cost::run_cost(dir, &state).map(self_repair_report::RunCost::without_items);
    let spent = report.cost.as_ref().map(|c| c.total_usd);
    report.progress = Some(crate::run::progress::progress(
        project, dir, &state, now, spent,
    ));
    report.partitions = crate::run::partitions::share_progress(project, dir);
    if !report.partitions.is_empty() && state.status != RunStatus::Cancelled {
        "split into partitions: `self-repair drive` goes on driving them, then merges them and \
         drives the rest"
            .clone_into(&mut report.next);
    }
    report.fixes = crate::run::fix_queue::read_queue(dir)?
        .map(|q| q.tasks)
        .unwrap_or_default();
    Ok(report)
}

/// The report of a loaded state.
pub fn report(project: &Project, state: &RunState) -> StatusReport {
    let phases = [
        Phase::Triage,
        Phase::Aggregate,
        Phase::RuleReview,
        Phase::Plan,
    ]
    .into_iter()
    .map(|phase| PhaseLine {
        phase,
        counts: state.counts(phase),
    })
    .collect();
    StatusReport {
        schema_version: 1,
        run: state.run.clone(),
        project: project.root().to_path_buf(),
        created_at: timestamp::rfc3339(state.created_at),
        status: state.shown_status(),
        pause: state.pause.clone(),
        phase: state.phase,
        session: state.session.clone(),
        intake: state.intake.clone(),
        scope: state.scope.clone(),
        merged_from: state
            .merged_from
            .iter()
            .map(|share| crate::run::partitions::MergedShareReport {
                share: share.clone(),
                cost: None,
            })
            .collect(),
        partitions: Vec::new(),
        phases,
        groups: state.groups.len(),
        planned_groups: state.groups.iter().filter(|g| g.planned).count(),
        tasks: state.tasks.clone(),
        blocks: state.blocks,
        launches: self_repair_engine::LaunchCeiling::of(state),
        provider_refusals: state.provider_refusals,
        channels: state.channels.clone(),
        next: crate::run::next_step::next_step(state),
        cost: None,
        fixes: Vec::new(),
        progress: None,
    }
}

impl StatusReport {
    /// The text `status` prints.
    pub fn render(&self) -> String {
        let mut out = self.render_head();
        if !self.partitions.is_empty() {
            // The shares follow the findings paragraph, before its blank line.
            out.pop();
        }
        out.push_str(&self.render_partitions());
        out.push_str("phase        done  running  pending  failed  quarantined\n");
        for line in &self.phases {
            let c = &line.counts;
            out.push_str(&format!(
                "{:<11} {:>5}  {:>7}  {:>7}  {:>6}  {:>11}\n",
                line.phase.as_str(),
                c.done,
                c.running,
                c.pending,
                c.failed,
                c.quarantined
            ));
        }
        if self.provider_refusals > 0 {
            out.push_str(&format!(
                "refused by the model provider: {} agent(s); their items are quarantined, not \
                 escalated and not counted as failures (report.md names the findings)\n",
                self.provider_refusals
            ));
        }
        out.push_str(&launches_line(&self.launches));
        for channel in &self.channels {
            out.push_str(&format!(
                "dispatch channel, session {}: {}\n",
                channel.short_session(),
                channel.describe()
            ));
        }
        out.push_str(&self.render_tasks());
        out.push_str(&format!("\nnext: {}\n", self.next));
        if let Some(progress) = &self.progress {
            out.push_str(&progress.render());
        }
        if let Some(cost) = &self.cost {
            out.push_str(&cost.render());
        }
        out
    }

    /// The run, its status and its findings, ending in a blank line.
    fn render_head(&self) -> String {
        let mut out = format!("run {} ({})\n", self.run, self.project.display());
        let session = self
            .session
            .as_deref()
            .map_or_else(|| "no session yet".to_owned(), |s| format!("session {s}"));
        out.push_str(&format!(
            "status {}, phase {}, {session}, created {}\n",
            self.status,
            self.phase.as_str(),
            self.created_at
        ));
        let i = &self.intake;
        out.push_str(&format!(
            "findings: {} read, {} unique; decided by known registry {}, by rules {}; {} to agents\n",
            i.findings, i.unique, i.known, i.rules, i.routed
        ));
        if let Some(scope) = &self.scope {
            out.push_str(&format!("scope: {}\n", scope.summary()));
        }
        if !self.merged_from.is_empty() {
            out.push_str(&crate::run::partitions::merged_from_line(&self.merged_from));
            out.push('\n');
        }
        out.push('\n');
        out
    }

    /// A run split by `drive --partitions`: its shares, one line each, then a blank line.
    fn render_partitions(&self) -> String {
        if self.partitions.is_empty() {
            return String::new();
        }
        let mut out = format!(
            "split into {} partitions (`drive --partitions`):\n",
            self.partitions.len()
        );
        for share in &self.partitions {
            out.push_str(&format!(
                "  share {} {}: {}, phase {}, {} of {} triage items done, ${:.4}\n",
                share.share,
                share.run,
                share.status.as_str(),
                share.phase.as_str(),
                share.done,
                share.total,
                share.spent_usd
            ));
        }
        out.push('\n');
        out
    }

    /// Groups and tasks, each task with how `fix` left it.
    fn render_tasks(&self) -> String {
        let mut out = format!(
            "\ngroups: {} ({} planned); tasks: {}",
            self.groups,
            self.planned_groups,
            self.tasks.len()
        );
        for task in &self.tasks {
            let how = if task.existing { "existed" } else { "written" };
            out.push_str(&format!(
                "\n  {} {} ({how}): {}",
                task.task_id, task.title, task.file
            ));
            if let Some(fix) = self.fixes.iter().find(|f| f.task_id == task.task_id) {
                out.push_str(&format!(" [{}]", fix.status.as_str()));
            }
        }
        out
    }
}

/// `launches: 45 agents, 40 likely; the run pauses past 90; at most 420 (7 per item so far)`.
fn launches_line(launches: &self_repair_engine::LaunchCeiling) -> String {
    format!(
        "launches: {} agents, {} likely; the run pauses past {}; at most {} ({} per item so far)\n",
        launches.launched,
        launches.likely,
        launches.pause_at,
        launches.bound,
        self_repair_engine::MAX_LAUNCHES_PER_ITEM
    )
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde passes a reference"
)]
fn is_zero(n: &u32) -> bool {
    *n == 0
}
