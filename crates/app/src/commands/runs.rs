//! `self-repair runs`: the project's runs, one line each; with `--cost`, the triage runs side by
//! side: findings, agents launched, findings decided without an agent, dollars. The figure the project's learning is
//! judged by: a later run on the same findings launches far fewer agents (reference/cost.md).
//! With `--compare`, two triage runs finding by finding (the comparison is the report crate's).

use std::collections::HashSet;

use clap::Args;
use self_repair_cost::CostLedger;
use self_repair_engine::{Phase, timestamp};
use self_repair_report::{RunComparison, RunFindings};
use self_repair_store::{Project, RunDir};
use serde::Serialize;

use crate::app_error::AppError;
use crate::command_env::CommandEnv;
use crate::output::Output;
use crate::run::finalize::{build_report, read_findings};
use crate::run::handle::RunHandle;
use crate::run::load::load_folded;
use crate::run::run_history::triage_runs;

/// `self-repair runs`.
#[derive(Debug, Args)]
pub struct RunsArgs {
    /// Print them as JSON.
    #[arg(long)]
    pub json: bool,
    /// Compare the triage runs' bills: findings, agents launched, decided without an agent,
    /// dollars.
    #[arg(long)]
    pub cost: bool,
    /// Compare two triage runs finding by finding, A the earlier (default: the project's last
    /// two): each fingerprint new, persisting, resolved or reappeared, with its verdict in each.
    #[arg(long, num_args = 0..=2, value_names = ["A", "B"], conflicts_with = "cost")]
    pub compare: Option<Vec<String>>,
}

/// Runs `runs`.
pub fn run(env: &CommandEnv, args: &RunsArgs) -> Result<Output, AppError> {
    let project = env.find_project()?;
    if let Some(ids) = &args.compare {
        let comparison = compare_runs(&project, ids)?;
        let trend = crate::run::audit_store::audit_trend(
            &project.store_dir(),
            &triage_runs_in_order(&project)?,
        );
        return Output::json_or(args.json, &comparison, |c| {
            format!("{}{trend}", c.render_text())
        });
    }
    if args.cost {
        let lines = runs_cost(&project)?;
        return Output::json_or(args.json, &lines, |l| render_runs_cost(l));
    }
    let lines = runs(&project)?;
    Output::json_or(args.json, &lines, |l| render_runs(l))
}

/// One run's bill.
#[derive(Debug, Clone, Serialize)]
pub struct RunCostLine {
    pub run: String,
    pub created_at: String,
    pub status: String,
    /// Distinct findings.
    pub findings: u32,
    /// Decided by the known registry or the rules, before any agent.
    pub decided_without_agent: u32,
    /// Every dispatch the hook gave (a retry counts again; a batch counts once).
    pub agents_launched: u64,
    /// From the session's transcripts; `None` when the hook never read them.
    pub usd: Option<f64>,
    pub tokens: Option<u64>,
}

/// Every triage run of the project, oldest first; a run whose state cannot be read is left out.
pub fn runs_cost(project: &Project) -> Result<Vec<RunCostLine>, AppError> {
    let mut lines = Vec::new();
    for id in project.run_ids()? {
        let RunHandle::Triage(dir) = RunHandle::open(project.run(&id)?) else {
            continue;
        };
        let Ok(state) = dir.load_state() else {
            continue;
        };
        let ledger = CostLedger::load(dir.path()).filter(|l| l.main.is_some());
        lines.push((
            state.created_at,
            RunCostLine {
                run: id,
                created_at: timestamp::rfc3339(state.created_at),
                status: state.shown_status().to_owned(),
                findings: state.intake.unique,
                decided_without_agent: state.intake.known + state.intake.rules,
                agents_launched: state.items.iter().map(|i| u64::from(i.dispatches)).sum(),
                usd: ledger.as_ref().map(|l| l.total.usd),
                tokens: ledger.as_ref().map(|l| l.total.tokens()),
            },
        ));
        std::mem::forget(state);
    }
    lines.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.run.cmp(&b.1.run)));
    Ok(lines.into_iter().map(|(_, line)| line).collect())
}

/// The table `runs --cost` prints.
pub fn render_runs_cost(lines: &[RunCostLine]) -> String {
    if lines.is_empty() {
        return "no triage runs in this project yet: `self-repair start` creates one\n".to_owned();
    }
    let mut out = String::from(
        "run                    status     findings  decided without agent  agents launched  cost\n",
    );
    for l in lines {
        let usd = l
            .usd
            .map_or_else(|| "not read".to_owned(), |u| format!("${u:.2}"));
        out.push_str(&format!(
            "{:<22} {:<10} {:>8}  {:>21}  {:>15}  {usd}\n",
            l.run, l.status, l.findings, l.decided_without_agent, l.agents_launched
        ));
    }
    out
}

/// The project's triage runs, oldest first.
fn triage_runs_in_order(project: &Project) -> Result<Vec<String>, AppError> {
    Ok(triage_runs(project)?.into_iter().map(|r| r.id).collect())
}

/// `runs --compare [A B]`: run A (the earlier) against run B, by default the last two.
fn compare_runs(project: &Project, ids: &[String]) -> Result<RunComparison, AppError> {
    let order = triage_runs_in_order(project)?;
    let (a, b) = match ids {
        [a, b] => (a.clone(), b.clone()),
        [] => match order.as_slice() {
            [.., a, b] => (a.clone(), b.clone()),
            _ => {
                return Err(AppError::Usage(format!(
                    "runs --compare needs two triage runs and this project has {}: start \
                     another on the analyzer's new output (`self-repair start FILE --replace`), \
                     or name two runs (`self-repair runs --compare A B`)",
                    order.len()
                )));
            }
        },
        _ => {
            return Err(AppError::Usage(
                "runs --compare takes two runs (the earlier first) or none (the last two): \
                 `self-repair runs --compare A B`; `self-repair runs` lists them"
                    .to_owned(),
            ));
        }
    };
    let earlier = run_findings(project, &a)?;
    let later = run_findings(project, &b)?;
    // What the runs before A held tells a finding that came back from a new one.
    let mut seen_before = HashSet::new();
    for id in order.iter().take_while(|id| **id != a) {
        let RunHandle::Triage(dir) = RunHandle::open(project.run(id)?) else {
            continue;
        };
        if let Ok(records) = read_findings(&dir) {
            seen_before.extend(records.into_iter().map(|r| r.fingerprint));
        }
    }
    Ok(RunComparison::compare(&earlier, &later, &seen_before))
}

/// A triage run's findings with the verdicts it has so far.
fn run_findings(project: &Project, id: &str) -> Result<RunFindings, AppError> {
    let RunHandle::Triage(dir) = RunHandle::open(project.run(id)?) else {
        return Err(AppError::Usage(format!(
            "run {id} is a repair run (`self-repair check`): it has no findings to compare; \
             `self-repair runs` lists the triage runs"
        )));
    };
    let state = load_folded(&dir, false)?;
    let findings = read_findings(&dir)?;
    let mut answers = crate::run::finalize::triage_answers(&dir, &state);
    Ok(RunFindings::of(&build_report(
        &dir,
        &state,
        &findings,
        &mut answers,
    )))
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
    // Folders that hold no run are listed too, never fatal: `doctor --runs-only` moves them
    // aside.
    let folders = project.run_ids()?.into_iter().chain(project.broken_runs()?);
    for id in folders {
        let dir = project.run(&id);
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
        match dir.map(RunHandle::open) {
            Ok(RunHandle::Repair(dir)) => describe_repair_run(&dir, &mut line),
            Ok(RunHandle::Triage(dir)) => describe_triage_run(&dir, &mut line),
            Err(e) => line.error = Some(e.to_string()),
        }
        lines.push(line);
    }
    lines.sort_by(|a, b| a.run.cmp(&b.run));
    Ok(lines)
}

fn describe_repair_run(dir: &RunDir, line: &mut RunLine) {
    line.kind = "repair";
    match self_repair_repair::repair_status(dir) {
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
}

fn describe_triage_run(dir: &RunDir, line: &mut RunLine) {
    match dir.load_state() {
        Ok(state) => {
            let counts = state.counts(state.phase);
            line.status = Some(state.shown_status().to_owned());
            line.phase = Some(state.phase.as_str().to_owned());
            line.findings = Some(state.intake.unique);
            // A finished run has no phase left to count: what it made is the news.
            line.progress = Some(if state.phase == Phase::Complete {
                format!("{} task(s)", state.tasks.len())
            } else {
                format!(
                    "{} of {} {} items done",
                    counts.done,
                    counts.total(),
                    state.phase.as_str()
                )
            });
            line.created_at = Some(timestamp::rfc3339(state.created_at));
        }
        Err(e) => line.error = Some(e.to_string()),
    }
}

/// The text `runs` prints: one aligned column per field, the active run marked `*`.
pub fn render_runs(lines: &[RunLine]) -> String {
    if lines.is_empty() {
        return "no runs in this project; start one with `self-repair start FINDINGS...`\n"
            .to_owned();
    }
    let header = ["run", "kind", "status", "phase", "progress", "created"];
    let rows: Vec<(bool, Vec<String>)> = lines
        .iter()
        .map(|l| {
            let cells = match &l.error {
                Some(e) => vec![l.run.clone(), format!("unreadable: {e}")],
                None => vec![
                    l.run.clone(),
                    l.kind.to_owned(),
                    l.status.clone().unwrap_or_else(|| "?".to_owned()),
                    l.phase.clone().unwrap_or_else(|| "?".to_owned()),
                    format!(
                        "{}{}",
                        l.findings
                            .map(|n| format!("{n} findings, "))
                            .unwrap_or_default(),
                        l.progress.as_deref().unwrap_or("?")
                    ),
                    l.created_at.clone().unwrap_or_else(|| "?".to_owned()),
                ],
            };
            (l.active, cells)
        })
        .collect();
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for (_, cells) in rows.iter().filter(|(_, cells)| cells.len() == header.len()) {
        for (width, cell) in widths.iter_mut().zip(cells) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let line = |mark: &str, cells: &[String]| {
        let mut out = format!("{mark} ");
        for (i, cell) in cells.iter().enumerate() {
            if i + 1 == cells.len() {
                out.push_str(cell);
            } else {
                let pad = widths[i].saturating_sub(cell.chars().count());
                out.push_str(&format!("{cell}{}  ", " ".repeat(pad)));
            }
        }
        out.push('\n');
        out
    };
    let header: Vec<String> = header.iter().map(|h| (*h).to_owned()).collect();
    let mut out = line(" ", &header);
    for (active, cells) in &rows {
        out.push_str(&line(if *active { "*" } else { " " }, cells));
    }
    out.push_str("(* the active run)\n");
    out
}
