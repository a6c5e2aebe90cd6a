//! What a run has cost: the Stop hook records it at each stop (`self_repair_stop`, reading only
//! what the session's transcripts grew by, into the run's `cost.json` / `cost.jsonl`), and
//! `status` and the reports show it per phase, kind of item, model and item (`run_cost`: the
//! records so far plus what the transcripts grew by since the last stop, read without saving).
//! reference/cost.md.

use std::collections::BTreeMap;
use std::path::PathBuf;

use self_repair_cost::{Attribution, CostLedger, CostSummary, PartCost, PriceTable, read_records};
use self_repair_engine::{RunState, Spend};
use self_repair_report::RunCost;
use self_repair_stop::{part_of, spend};
use self_repair_store::RunDir;
use serde::Deserialize;

#[derive(Deserialize)]
struct MainTranscript {
    path: PathBuf,
}

/// What the run's ledger says was spent and costs per agent (`None` without a ledger).
pub(crate) fn ledger_spend(dir: &RunDir) -> Option<Spend> {
    CostLedger::load(dir.path()).map(|l| spend(&l))
}

/// What the project's earlier runs' finished agents cost, by kind, and their main sessions.
#[derive(Debug, Default)]
pub(crate) struct PriorRuns {
    pub(crate) finished: BTreeMap<String, PartCost>,
    pub(crate) main: PartCost,
    /// Agents of the runs whose main session is counted in `main`.
    pub(crate) agents: u32,
}

/// Reads the ledgers of the project's runs other than `this`.
pub(crate) fn prior_runs(project: &self_repair_store::Project, this: &str) -> PriorRuns {
    let mut prior = PriorRuns::default();
    let runs = project.store_dir().join("runs");
    for entry in std::fs::read_dir(runs).into_iter().flatten().flatten() {
        if entry.file_name() == this {
            continue;
        }
        let Some(ledger) = CostLedger::load(&entry.path()) else {
            continue;
        };
        for (part, cost) in &ledger.finished {
            prior.finished.entry(part.clone()).or_default().add(cost);
        }
        if let Some(main) = ledger.parts.get(self_repair_cost::MAIN_SESSION)
            && ledger.total.agents > 0
        {
            prior.main.add(main);
            prior.agents += ledger.total.agents;
        }
    }
    prior
}

/// Average USD per agent of each kind over the project's earlier runs' ledgers.
fn prior_averages(project: &self_repair_store::Project, this: &str) -> BTreeMap<String, f64> {
    prior_runs(project, this)
        .finished
        .into_iter()
        .filter(|(_, c)| c.agents > 0)
        .map(|(part, c)| (part, c.usd / f64::from(c.agents)))
        .collect()
}

/// Writes the run's ledger at `start`, with the config's `prices` over the built-in table.
pub(crate) fn open_ledger(
    project: &self_repair_store::Project,
    dir: &RunDir,
    run: &str,
    overrides: &[(String, self_repair_cost::Price)],
) -> Result<(), crate::app_error::AppError> {
    let mut prices = PriceTable::default();
    if !overrides.is_empty() {
        prices = prices.with_overrides(overrides);
        prices.version = format!("{} + config prices", prices.version);
    }
    let mut ledger = CostLedger::new(prices);
    ledger.prior_per_agent = prior_averages(project, run);
    ledger.save(dir.path(), &self_repair_cost::Accounted::default())?;
    Ok(())
}

/// The cost of the run so far, or `None` when no transcript is known yet (the hook records the
/// session's transcript at its first stop).
pub fn run_cost(dir: &RunDir, state: &RunState) -> Option<RunCost> {
    let main = CostLedger::load(dir.path())
        .and_then(|l| l.main.map(|m| m.path))
        .or_else(|| {
            let text = std::fs::read_to_string(dir.path().join("transcript.json")).ok()?;
            serde_json::from_str::<MainTranscript>(&text)
                .ok()
                .map(|m| m.path)
        });
    let Some(main) = main else {
        // A merged run before its own session: what its partitions spent.
        let ledger = CostLedger::load(dir.path()).filter(|l| !l.partitions.is_empty())?;
        let records = read_records(dir.path());
        let summary = CostSummary::fold(&ledger.prices.version, records.iter());
        return Some(RunCost::of(&summary));
    };
    let mut ledger =
        CostLedger::load(dir.path()).unwrap_or_else(|| CostLedger::new(PriceTable::default()));
    let never = |_: &str| false;
    let who = Attribution {
        run: &state.run,
        part_of: &part_of,
        finished: &never,
    };
    // Since the last stop, read and not saved: `status` never writes the ledger. A run that
    // ended keeps what its hook recorded (its session's later work is not the run's).
    let fresh = if ledger.reads_after_end > self_repair_cost::READS_AFTER_END {
        self_repair_cost::Accounted::default()
    } else {
        ledger.account(dir.path(), &main, &who)
    };
    let records = read_records(dir.path());
    let summary = CostSummary::fold(&ledger.prices.version, records.iter().chain(&fresh.records));
    Some(RunCost::of(&summary))
}
