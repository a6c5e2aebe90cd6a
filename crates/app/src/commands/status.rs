//! `self-repair status`: where a run is and what happens next; with `--findings`, how each
//! finding was decided.

use std::collections::HashMap;
use std::path::PathBuf;

use self_repair_engine::{
    FindingRecord, Intake, PauseReason, Phase, PhaseCounts, PhaseIds, RunState, RunStatus,
    SurveyRecord, TaskRecord, timestamp,
};
use self_repair_report::Verification;
use self_repair_store::{Project, RunDir};
use serde::Serialize;

use clap::Args;

use crate::app_error::AppError;
use crate::command_env::CommandEnv;
use crate::commands::RunArg;
use crate::output::Output;
use crate::run::handle::RunHandle;
use crate::run::load::load_folded;

/// `self-repair status`.
#[derive(Debug, Args)]
pub struct StatusArgs {
    #[command(flatten)]
    pub run: RunArg,
    /// List every finding with how it was decided (agent, survey, known registry, rule, or
    /// pending) and why.
    #[arg(long, conflicts_with = "items")]
    pub findings: bool,
    /// List the item ids of each phase by status: running, failed, quarantined, pending, done
    /// (`self-repair show ID` prints one).
    #[arg(long)]
    pub items: bool,
    /// Print it as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs `status`: a triage run's report, a repair run's attempts, or every finding's decision.
pub fn run(env: &CommandEnv, args: &StatusArgs) -> Result<Output, AppError> {
    let (project, handle) = args.run.open(env)?;
    if args.findings {
        let dir = handle.triage("`status --findings`")?;
        let state = load_folded(&dir, true)?;
        let lines = finding_lines(&dir, &state)?;
        return Output::json_or(args.json, &lines, |l| render_findings(l));
    }
    if args.items {
        let dir = handle.triage("`status --items`")?;
        let state = load_folded(&dir, true)?;
        let listing = item_listing(&state);
        return Output::json_or(args.json, &listing, ItemListing::render);
    }
    let dir = match handle {
        RunHandle::Triage(dir) => dir,
        RunHandle::Repair(dir) => {
            let report = self_repair_repair::repair_status(&dir)?;
            return Output::json_or(
                args.json,
                &report,
                self_repair_repair::RepairStatusReport::render,
            );
        }
    };
    let report = status(&project, &dir, env.now)?;
    Output::json_or(args.json, &report, StatusReport::render)
}

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
    /// What part of its input the run takes; absent when all of it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<self_repair_engine::RunScope>,
    /// A run `merge` made: its partitions, with what each spent (its ledger's total).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub merged_from: Vec<crate::commands::merge::MergedShareReport>,
    /// A run `drive --partitions` split: its shares, each with its progress.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub partitions: Vec<crate::commands::drive::ShareProgress>,
    pub phases: Vec<PhaseLine>,
    pub groups: usize,
    pub planned_groups: usize,
    pub tasks: Vec<TaskRecord>,
    pub blocks: u64,
    /// Agents launched against the run's ceiling and bound (issue 32).
    pub launches: self_repair_engine::LaunchCeiling,
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
        let steps = crate::run::proposals::next_steps(dir, &state).steps();
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
    report.partitions = crate::commands::drive::share_progress(project, dir);
    if !report.partitions.is_empty() && state.status != RunStatus::Cancelled {
        "split into partitions: `self-repair drive` goes on driving them, then merges them and \
         drives the rest"
            .clone_into(&mut report.next);
    }
    report.fixes = crate::commands::fix::read_queue(dir)?
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
        status: state.status,
        pause: state.pause.clone(),
        phase: state.phase,
        session: state.session.clone(),
        intake: state.intake.clone(),
        scope: state.scope.clone(),
        merged_from: state
            .merged_from
            .iter()
            .map(|share| crate::commands::merge::MergedShareReport {
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
        (RunStatus::Paused, Some(PauseReason::Launches { launched, likely, item })) => format!(
            "paused: {launched} agents launched, past {}× the {likely} likely{}; `self-repair status --items` shows what failed, `self-repair resume` allows {} more",
            self_repair_engine::CEILING_FACTOR,
            item.as_deref().map_or_else(String::new, |i| format!(" ({i} keeps coming back)")),
            (*likely).max(self_repair_engine::CEILING_FLOOR)
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
        if let Some(scope) = &self.scope {
            // Above the blank line that ends the findings paragraph.
            out.pop();
            out.push_str(&format!("scope: {}\n\n", scope.summary()));
        }
        if !self.merged_from.is_empty() {
            out.pop();
            out.push_str(&crate::commands::merge::merged_from_line(&self.merged_from));
            out.push_str("\n\n");
        }
        if !self.partitions.is_empty() {
            out.pop();
            out.push_str(&format!(
                "split into {} partitions (`drive --partitions`):\n",
                self.partitions.len()
            ));
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
        }
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
        out.push_str(&launches_line(&self.launches));
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

/// The item ids of a run, phase by phase (`status --items`).
#[derive(Debug, Clone, Serialize)]
pub struct ItemListing {
    pub schema_version: u32,
    pub run: String,
    /// The phases that have items, in pipeline order.
    pub phases: Vec<PhaseItemIds>,
}

/// One phase's item ids by status.
#[derive(Debug, Clone, Serialize)]
pub struct PhaseItemIds {
    pub phase: Phase,
    #[serde(flatten)]
    pub ids: PhaseIds,
}

/// The ids of every item of `state`, by phase and status.
pub fn item_listing(state: &RunState) -> ItemListing {
    let phases = [
        Phase::Triage,
        Phase::Aggregate,
        Phase::RuleReview,
        Phase::Plan,
    ]
    .into_iter()
    .map(|phase| PhaseItemIds {
        phase,
        ids: state.ids_by_status(phase),
    })
    .filter(|p| {
        let i = &p.ids;
        [&i.running, &i.failed, &i.quarantined, &i.pending, &i.done]
            .iter()
            .any(|list| !list.is_empty())
    })
    .collect();
    ItemListing {
        schema_version: 1,
        run: state.run.clone(),
        phases,
    }
}

impl ItemListing {
    /// The text of `status --items`: one line per status, runs of consecutive ids as `a..b`.
    pub fn render(&self) -> String {
        let mut out = format!(
            "run {}: item ids by phase and status (`self-repair show ID` prints one)\n",
            self.run
        );
        if self.phases.is_empty() {
            out.push_str("no items: every finding was decided before any agent\n");
        }
        for phase in &self.phases {
            out.push_str(phase.phase.as_str());
            out.push('\n');
            let i = &phase.ids;
            for (name, list) in [
                ("running", &i.running),
                ("failed", &i.failed),
                ("quarantined", &i.quarantined),
                ("pending", &i.pending),
                ("done", &i.done),
            ] {
                if !list.is_empty() {
                    out.push_str(&format!("  {name} ({}): {}\n", list.len(), id_ranges(list)));
                }
            }
        }
        out
    }
}

/// `ids` with each run of consecutive numbers under one prefix written `first..last`:
/// `t-00001..t-00040 t-00042 tb-00001`.
fn id_ranges(ids: &[String]) -> String {
    fn split(id: &str) -> Option<(&str, u64, usize)> {
        let digits = id.len() - id.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let (prefix, number) = id.split_at(id.len() - digits);
        Some((prefix, number.parse().ok()?, digits))
    }
    let mut parts: Vec<String> = Vec::new();
    let mut index = 0;
    while index < ids.len() {
        let mut last = index;
        if let Some((prefix, mut number, width)) = split(&ids[index]) {
            while let Some((p, n, w)) = ids.get(last + 1).and_then(|id| split(id)) {
                if p != prefix || w != width || n != number + 1 {
                    break;
                }
                number = n;
                last += 1;
            }
        }
        parts.push(if last == index {
            ids[index].clone()
        } else {
            format!("{}..{}", ids[index], ids[last])
        });
        index = last + 1;
    }
    parts.join(" ")
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
    let findings = crate::run::finalize::read_findings(dir)?;
    let batch_of = self_repair_engine::batch_of(state);
    let survey_of = self_repair_engine::survey_of(state);
    let mut settled = std::collections::HashMap::new();
    let chains = crate::run::finalize::verification_chains(dir, state, &mut settled);
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
            let (decided_by, verdict, mut reason) = decision(dir, state, record, survey, &chains);
            // A finding waiting in a batch: the batch is what is out, not the finding's item.
            if decided_by == "pending"
                && !reason.starts_with("answered")
                && let Some(batch_id) = record.item.as_deref().and_then(|id| batch_of.get(id))
                && let Some(batch_item) = state.item(batch_id)
            {
                reason = format!(
                    "in batch {batch_id}, which is {}",
                    batch_item.status.as_str()
                );
            }
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

/// Who decided a finding (`agent`, `survey`, `known`, a rule, or `pending`), its verdict, and
/// why.
fn decision(
    dir: &RunDir,
    state: &RunState,
    record: &FindingRecord,
    survey: Option<&SurveyRecord>,
    chains: &HashMap<String, Verification>,
) -> (String, Option<String>, String) {
    match (&record.predecided, &record.item) {
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
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn consecutive_ids_under_one_prefix_are_written_as_ranges() {
        let ids: Vec<String> = [
            "t-00001",
            "t-00002",
            "t-00003",
            "t-00005",
            "t-00006",
            "tb-00007",
            "tb-00008",
            "agg-1",
            "agg-3",
            "plan-g2-1",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        assert_eq!(
            id_ranges(&ids),
            "t-00001..t-00003 t-00005..t-00006 tb-00007..tb-00008 agg-1 agg-3 plan-g2-1"
        );
    }
}
