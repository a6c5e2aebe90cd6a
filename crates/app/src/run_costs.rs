//! `self-repair runs --cost`: the project's triage runs side by side: findings, agents
//! launched, findings decided without an agent, dollars. The figure the project's learning is
//! judged by: a later run on the same findings launches far fewer agents (reference/cost.md).

use self_repair_cost::CostLedger;
use self_repair_engine::timestamp;
use self_repair_store::Project;
use serde::Serialize;

use crate::AppError;

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
        let dir = project.run(&id)?;
        if self_repair_repair::is_repair_run(&dir) {
            continue;
        }
        let Ok(state) = dir.load_state() else {
            continue;
        };
        let ledger = CostLedger::load(dir.path()).filter(|l| l.main.is_some());
        lines.push((
            state.created_at,
            RunCostLine {
                run: id,
                created_at: timestamp::rfc3339(state.created_at),
                status: state.status.as_str().to_owned(),
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
