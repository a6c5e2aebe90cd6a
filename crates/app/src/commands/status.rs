//! `self-repair status`: where a run is and what happens next; with `--findings`, how each
//! finding was decided.

use std::collections::HashMap;

use clap::Args;
use self_repair_engine::{FindingRecord, Phase, PhaseIds, RunState, SurveyRecord, TriageResult};
use self_repair_report::Verification;
use self_repair_store::RunDir;
use serde::Serialize;

use crate::app_error::AppError;
use crate::command_env::CommandEnv;
use crate::commands::RunArg;
use crate::output::Output;
use crate::run::handle::RunHandle;
use crate::run::load::load_folded;

pub use crate::run::status_report::{PhaseLine, StatusReport, report, status};

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
    let audit = audit_lines(&dir);
    Output::json_or(args.json, &report, |r| format!("{}{audit}", r.render()))
}

/// `status`'s audit lines for `dir`'s run: its figure once a person answered something, and
/// the gate when it holds the run's dismissals back (the report is built only then). Empty
/// otherwise, or when a file does not read (`audit` says why).
fn audit_lines(dir: &RunDir) -> String {
    let Some(store_dir) = crate::run::audit_store::store_of(dir) else {
        return String::new();
    };
    let run = dir.id();
    let mut out = String::new();
    if let Ok(figure) = crate::run::audit_store::audit_figure(store_dir, Some(&run))
        && figure.all.answered > 0
    {
        out.push_str(&format!("{}\n", figure.headline()));
    }
    if !crate::run::audit_store::audit_policy(store_dir).is_ok_and(|p| p.gate) {
        return out;
    }
    let Ok(state) = load_folded(dir, true) else {
        return out;
    };
    let Ok(findings) = crate::run::finalize::read_findings(dir) else {
        return out;
    };
    let mut answers = crate::run::finalize::triage_answers(dir, &state);
    let report = crate::run::finalize::build_report(dir, &state, &findings, &mut answers);
    if let Ok(self_repair_audit::GateStatus::Unaudited { answered, needed }) =
        crate::run::audit_store::gate_status(store_dir, &report)
    {
        out.push_str(&format!(
            "audit gate: the run's dismissals are held back until a person audits {needed} of \
             them ({answered} answered): `self-repair audit {run}` in your own terminal\n"
        ));
    }
    out
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
    /// The finding its first look named as the one it duplicates (issue 40).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duplicate_of: Option<String>,
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
    let answers = crate::run::finalize::triage_answers(dir, state);
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
            let (decided_by, verdict, mut reason) =
                decision(state, record, survey, (&chains, &answers));
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
                .map(|b| (*b).to_owned());
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
                duplicate_of: record
                    .item
                    .as_deref()
                    .and_then(|id| state.item(id)?.duplicate_of())
                    .map(str::to_owned),
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
    state: &RunState,
    record: &FindingRecord,
    survey: Option<&SurveyRecord>,
    (chains, answers): (
        &HashMap<String, Verification>,
        &HashMap<String, TriageResult>,
    ),
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
                    None => answers
                        .get(id.as_str())
                        .map(|a| a.reason.clone())
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
            self_repair_report::verdict_text(
                l.verdict.as_deref(),
                l.duplicate_of.as_deref(),
                "undecided"
            ),
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
