//! `self-repair status` and `self-repair runs`: where a run is and what happens next.

use std::path::PathBuf;

use self_repair_engine::{
    Intake, PauseReason, Phase, PhaseCounts, RunState, RunStatus, TaskRecord, timestamp,
};
use self_repair_store::{Project, RunDir};
use serde::Serialize;

use crate::AppError;

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
    pub status: RunStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pause: Option<PauseReason>,
    pub phase: Phase,
    pub session: Option<String>,
    pub intake: Intake,
    pub phases: Vec<PhaseLine>,
    pub groups: usize,
    pub planned_groups: usize,
    pub tasks: Vec<TaskRecord>,
    pub blocks: u64,
    pub next: String,
    /// Tokens and dollars so far, from the transcripts of the session that drives the run
    /// (absent until the Stop hook has seen that session).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<crate::RunCost>,
    /// Per task, how `self-repair fix` left it (empty before any `fix`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fixes: Vec<self_repair_fix::QueuedTask>,
    /// Pace, ETA, spent / estimated / budget (reference/cost.md, "Progress").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub progress: Option<crate::Progress>,
}

/// Loads the run, folds pending submissions into `state.json`, and reports.
pub fn status(project: &Project, dir: &RunDir, now: u64) -> Result<StatusReport, AppError> {
    let state = load_folded(dir, true)?;
    let mut report = report(project, &state);
    if state.status == RunStatus::Complete {
        let steps = crate::proposals::next_steps(dir, &state).steps();
        if !steps.is_empty() {
            report.next = format!("{}; then {}", report.next, steps.join("; "));
        }
    }
    report.cost = crate::run_cost(dir, &state).map(crate::RunCost::without_items);
    let spent = report.cost.as_ref().map(|c| c.total_usd);
    report.progress = Some(crate::progress::progress(project, dir, &state, now, spent));
    report.fixes = crate::read_queue(dir)?.map(|q| q.tasks).unwrap_or_default();
    Ok(report)
}

/// Loads the state and folds the journal; with `save`, writes the folded state back.
pub fn load_folded(dir: &RunDir, save: bool) -> Result<RunState, AppError> {
    let _lock = dir.lock()?;
    let mut state = dir.load_state()?;
    let items_before = state.items.len();
    let before = state.journal_offset;
    dir.fold(&mut state)?;
    if save && state.journal_offset != before {
        dir.save_state(&state, items_before)?;
    }
    Ok(state)
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
        status: state.status,
        pause: state.pause.clone(),
        phase: state.phase,
        session: state.session.clone(),
        intake: state.intake.clone(),
        phases,
        groups: state.groups.len(),
        planned_groups: state.groups.iter().filter(|g| g.planned).count(),
        tasks: state.tasks.clone(),
        blocks: state.blocks,
        next: next_step(state),
        cost: None,
        fixes: Vec::new(),
        progress: None,
    }
}

fn next_step(state: &RunState) -> String {
    match (state.status, &state.pause) {
        (RunStatus::Complete, _) => format!(
            "done: read .self-repair/runs/{}/report.md; tasks are in backlog/tasks",
            state.run
        ),
        (RunStatus::Cancelled, _) => "cancelled: start a new run with `self-repair start`".to_owned(),
        (RunStatus::Stalled, _) => {
            "stalled (instructions brought no progress): run `self-repair resume`, then end your turn in the bound session".to_owned()
        }
        (RunStatus::Paused, Some(PauseReason::Circuit { kind, signature, .. })) => format!(
            "paused: {} agents failed the same way ({signature}); fix that, then `self-repair resume`",
            kind.as_str()
        ),
        (RunStatus::Paused, Some(PauseReason::Budget { spent_micros, budget_micros })) => format!(
            "paused at the budget (${:.2} spent of ${:.2}): `self-repair resume --budget USD` with more continues",
            *spent_micros as f64 / 1e6,
            *budget_micros as f64 / 1e6
        ),
        (RunStatus::Paused, Some(PauseReason::Confirm { likely_micros, above_micros, .. })) => format!(
            "waits for your go: likely ${:.2} in all, above confirm_above_usd ${:.2}; `self-repair resume --confirm` starts it (add `--budget USD` to cap it), `self-repair cancel` drops it",
            *likely_micros as f64 / 1e6,
            *above_micros as f64 / 1e6
        ),
        (RunStatus::Paused, Some(PauseReason::ApiError { error })) => format!(
            "paused after an API error ({error}); the next turn that ends normally resumes it"
        ),
        (RunStatus::Paused, Some(PauseReason::Refused { launches, .. })) => format!(
            "paused: {launches} agent launch(es) were refused before they ran (nothing charged); a new prompt such as \"continue\" in the bound session, or `self-repair resume`, goes on"
        ),
        (RunStatus::Paused, _) => "paused: `self-repair resume` continues".to_owned(),
        (RunStatus::Active, _) if state.session.is_none() => {
            "not bound to a session yet: in the Claude Code session that should drive it, ask Claude to continue the self-repair run (or run `self-repair adopt` there), then end your turn".to_owned()
        }
        (RunStatus::Active, _) if state.phase == Phase::Finalize => {
            "the next stop finalizes the run (or run `self-repair finalize`)".to_owned()
        }
        (RunStatus::Active, _) => {
            "the Stop hook dispatches the next agents when the bound session ends its turn (`self-repair next` previews it)".to_owned()
        }
    }
}

impl StatusReport {
    /// The text `status` prints.
    pub fn render(&self) -> String {
        let mut out = format!("run {} ({})\n", self.run, self.project.display());
        let session = self
            .session
            .as_deref()
            .map_or_else(|| "no session yet".to_owned(), |s| format!("session {s}"));
        out.push_str(&format!(
            "status {}, phase {}, {session}, created {}\n",
            self.status.as_str(),
            self.phase.as_str(),
            self.created_at
        ));
        let i = &self.intake;
        out.push_str(&format!(
            "findings: {} read, {} unique; decided by known registry {}, by rules {}; {} to agents\n\n",
            i.findings, i.unique, i.known, i.rules, i.routed
        ));
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
        out.push_str(&format!(
            "\ngroups: {} ({} planned); tasks: {}",
            self.groups,
            self.planned_groups,
            self.tasks.len()
        ));
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
        out.push_str(&format!("\nnext: {}\n", self.next));
        if let Some(progress) = &self.progress {
            out.push_str(&progress.render());
        }
        if let Some(cost) = &self.cost {
            out.push_str(&cost.render());
        }
        out
    }
}

/// One line of `runs`.
#[derive(Debug, Clone, Serialize)]
pub struct RunLine {
    pub run: String,
    pub active: bool,
    /// `triage` (`self-repair start`) or `repair` (`self-repair check`).
    pub kind: &'static str,
    /// The run's status (`active`, `complete`, ...; a repair run's `success`, `quarantined`, ...).
    pub status: Option<String>,
    /// Triage runs: the phase; repair runs: the step (`ask`, `fixing`, `recheck`, `done`, ...).
    pub phase: Option<String>,
    pub findings: Option<u32>,
    /// How far it got, in words (`12 of 40 triage items done`, `2 fix attempt(s) of 5`).
    pub progress: Option<String>,
    pub created_at: Option<String>,
    /// Why the state could not be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Every run of the project.
pub fn runs(project: &Project) -> Result<Vec<RunLine>, AppError> {
    let active = project.active_run_id();
    let mut lines = Vec::new();
    for id in project.run_ids()? {
        let dir = project.run(&id)?;
        let mut line = RunLine {
            active: active.as_deref() == Some(id.as_str()),
            run: id,
            kind: "triage",
            status: None,
            phase: None,
            findings: None,
            progress: None,
            created_at: None,
            error: None,
        };
        if self_repair_repair::is_repair_run(&dir) {
            line.kind = "repair";
            match self_repair_repair::repair_status(&dir) {
                Ok(report) => {
                    line.status = Some(report.status.as_str().to_owned());
                    line.phase = serde_json::to_value(report.step)
                        .ok()
                        .and_then(|v| v["kind"].as_str().map(str::to_owned));
                    line.progress = Some(format!("{} fix attempt(s)", report.attempts.len()));
                    line.created_at = Some(report.created_at);
                }
                Err(e) => line.error = Some(e.to_string()),
            }
        } else {
            match dir.load_state() {
                Ok(state) => {
                    let counts = state.counts(state.phase);
                    line.status = Some(state.status.as_str().to_owned());
                    line.phase = Some(state.phase.as_str().to_owned());
                    line.findings = Some(state.intake.unique);
                    line.progress = Some(format!(
                        "{} of {} {} items done",
                        counts.done,
                        counts.total(),
                        state.phase.as_str()
                    ));
                    line.created_at = Some(timestamp::rfc3339(state.created_at));
                }
                Err(e) => line.error = Some(e.to_string()),
            }
        }
        lines.push(line);
    }
    Ok(lines)
}

/// The text `runs` prints.
pub fn render_runs(lines: &[RunLine]) -> String {
    if lines.is_empty() {
        return "no runs in this project; start one with `self-repair start FINDINGS...`\n"
            .to_owned();
    }
    let mut out = String::new();
    for l in lines {
        let mark = if l.active { "*" } else { " " };
        match &l.error {
            Some(e) => out.push_str(&format!("{mark} {}  unreadable: {e}\n", l.run)),
            None => out.push_str(&format!(
                "{mark} {}  {}  {}  {}  {}{}  {}\n",
                l.run,
                l.kind,
                l.status.as_deref().unwrap_or("?"),
                l.phase.as_deref().unwrap_or("?"),
                l.findings
                    .map(|n| format!("{n} findings, "))
                    .unwrap_or_default(),
                l.progress.as_deref().unwrap_or("?"),
                l.created_at.as_deref().unwrap_or("?")
            )),
        }
    }
    out
}

/// Why one finding was decided (or that it is not yet).
#[derive(Debug, Clone, Serialize)]
pub struct FindingLine {
    pub fingerprint: String,
    pub location: String,
    pub rule: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<String>,
    /// `known`, `rule`, `agent`, `survey` (its rule's policy), or `pending` (an agent has not
    /// answered yet).
    pub decided_by: String,
    /// The triage batch (`tb-00003`) whose agent decided it, when one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batch: Option<String>,
    /// The rule survey (`rs-00002`) whose policy decided it, when one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub survey: Option<String>,
    /// The findings triaged on their own that confirmed that policy.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub spot_checks: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<String>,
    pub reason: String,
    /// The model tier its agent's latest launch really ran at, when the transcript showed it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ran_model: Option<String>,
    /// When its verdict needed a second agent: both answers, why, and what stood.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verification: Option<self_repair_report::Verification>,
}

/// Every finding of the run with how it was decided.
pub fn finding_lines(dir: &RunDir, state: &RunState) -> Result<Vec<FindingLine>, AppError> {
    let findings = crate::read_findings(dir)?;
    let batch_of = self_repair_engine::batch_of(state);
    let survey_of = self_repair_engine::survey_of(state);
    let mut settled = std::collections::HashMap::new();
    let chains = crate::finalize::verification_chains(dir, state, &mut settled);
    Ok(findings
        .iter()
        .map(|record| {
            let f = &record.finding;
            let location = f
                .line
                .map_or_else(|| f.path.clone(), |l| format!("{}:{l}", f.path));
            let survey = record
                .item
                .as_deref()
                .and_then(|id| survey_of.get(id).copied());
            let (decided_by, verdict, reason) = match (&record.predecided, &record.item) {
                (None, Some(id)) if survey.is_some() => (
                    "survey".to_owned(),
                    state
                        .item(id)
                        .and_then(|i| i.verdict)
                        .map(|v| v.as_str().to_owned()),
                    survey
                        .and_then(|s| s.answer.as_ref())
                        .map(|a| a.reason.clone())
                        .unwrap_or_default(),
                ),
                (Some(p), _) => (
                    p.by.clone(),
                    Some(p.verdict.as_str().to_owned()),
                    p.reason.clone(),
                ),
                (None, Some(id)) => match state.item(id) {
                    Some(item) if item.status == self_repair_engine::ItemStatus::Done => {
                        let reason = match chains.get(id.as_str()).and_then(|c| c.second.as_ref()) {
                            Some(second) => second.reason.clone(),
                            None => dir
                                .read_result(id, "json")
                                .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
                                .and_then(|v| v["reason"].as_str().map(str::to_owned))
                                .unwrap_or_default(),
                        };
                        (
                            "agent".to_owned(),
                            item.verdict.map(|v| v.as_str().to_owned()),
                            reason,
                        )
                    }
                    Some(item) => (
                        "pending".to_owned(),
                        None,
                        match chains.get(id.as_str()) {
                            Some(chain) => format!(
                                "answered {}, waiting for its second opinion {} ({})",
                                chain.first.verdict, chain.item, chain.status
                            ),
                            None => format!("triage item {id} is {}", item.status.as_str()),
                        },
                    ),
                    None => ("pending".to_owned(), None, String::new()),
                },
                (None, None) => ("pending".to_owned(), None, String::new()),
            };
            let batch = record
                .item
                .as_deref()
                .filter(|_| decided_by == "agent")
                .and_then(|id| batch_of.get(id))
                .cloned();
            FindingLine {
                fingerprint: record.fingerprint.clone(),
                location,
                rule: format!("{} {}", f.tool, f.rule_id),
                item: record.item.clone(),
                decided_by,
                batch,
                survey: survey.map(|s| s.id.clone()),
                spot_checks: survey.map(|s| s.spot_checks.clone()).unwrap_or_default(),
                verdict,
                reason,
                ran_model: record
                    .item
                    .as_deref()
                    .and_then(|id| state.item(id)?.ran)
                    .map(|t| t.as_str().to_owned()),
                verification: record
                    .item
                    .as_deref()
                    .and_then(|id| chains.get(id))
                    .cloned(),
            }
        })
        .collect())
}

/// The text of `status --findings`.
pub fn render_findings(lines: &[FindingLine]) -> String {
    let mut out = String::new();
    for l in lines {
        let by = match (&l.batch, &l.survey) {
            (Some(batch), _) => format!("{} {batch}", l.decided_by),
            (None, Some(survey)) if l.spot_checks.is_empty() => {
                format!("{} {survey}", l.decided_by)
            }
            (None, Some(survey)) => format!(
                "{} {survey}, checked by {}",
                l.decided_by,
                l.spot_checks.join(" ")
            ),
            (None, None) => l.decided_by.clone(),
        };
        out.push_str(&format!(
            "{} {} {} [{}] {}: {}\n",
            l.item.as_deref().unwrap_or("-"),
            l.location,
            l.rule,
            by,
            l.verdict.as_deref().unwrap_or("undecided"),
            l.reason.split_whitespace().collect::<Vec<_>>().join(" ")
        ));
        if let Some(chain) = &l.verification {
            out.push_str(&format!("    {}\n", chain.summary()));
        }
    }
    out
}
