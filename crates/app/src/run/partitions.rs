//! A run split by `drive --partitions` and a run merged from partitions, as every view reads
//! them: `partitions.json` (the split's shares), their ids, each share's progress, and what a merged
//! run says of its shares (design note 56).

use self_repair_cost::PartCost;
use self_repair_engine::MergedShare;
use self_repair_engine::{Phase, RunStatus};
use self_repair_store::{Project, RunDir};
use serde::{Deserialize, Serialize};

use crate::app_error::AppError;
use crate::run::load::load_folded;

/// `partitions.json` in the run split: its shares, so a second `drive` goes on with them.
pub(crate) const PLAN: &str = "partitions.json";

/// The shares of a run split by `drive --partitions`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct SplitPlan {
    pub(crate) schema_version: u32,
    pub(crate) shares: Vec<String>,
}

pub(crate) fn read_plan(dir: &RunDir) -> Result<Option<SplitPlan>, AppError> {
    let path = dir.path().join(PLAN);
    match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text).map(Some).map_err(|e| {
            AppError::Usage(format!(
                "{}: {e}; remove it and the runs it names to split the run again",
                path.display()
            ))
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(AppError::io("read", &path)(e)),
    }
}

/// The id of the run the shares of the run in `dir` are merged into.
pub(crate) fn merged_id(dir: &RunDir) -> String {
    format!("{}.merged", dir.id())
}

/// The id of share `k` of `n` of run `run`.
pub(crate) fn share_id(run: &str, k: u32, n: u32) -> String {
    format!("{run}.p{k}of{n}")
}

/// One share of a run `drive --partitions` split, as `status` shows it.
#[derive(Debug, Clone, Serialize)]
pub struct ShareProgress {
    pub run: String,
    /// `K/N`.
    pub share: String,
    pub status: RunStatus,
    pub phase: Phase,
    /// Findings with their verdict, of the share's findings that go to agents.
    pub done: u32,
    pub total: u32,
    /// What the share's ledger says it spent.
    pub spent_usd: f64,
}

/// The shares of the run in `dir`, when `drive --partitions` split it (`status` and `timeline`
/// show them); an unreadable share is left out.
pub(crate) fn shares_of(project: &Project, dir: &RunDir) -> Vec<RunDir> {
    read_plan(dir)
        .ok()
        .flatten()
        .map(|plan| {
            plan.shares
                .iter()
                .filter_map(|id| project.run(id).ok())
                .collect()
        })
        .unwrap_or_default()
}

/// Each share's progress.
pub(crate) fn share_progress(project: &Project, dir: &RunDir) -> Vec<ShareProgress> {
    let shares = shares_of(project, dir);
    let n = shares.len();
    shares
        .iter()
        .enumerate()
        .filter_map(|(k, share)| {
            let state = load_folded(share, false).ok()?;
            let counts = state.counts(Phase::Triage);
            Some(ShareProgress {
                run: share.id(),
                share: format!("{}/{n}", k + 1),
                status: state.status,
                phase: state.phase,
                done: counts.done + counts.failed + counts.quarantined,
                total: counts.done
                    + counts.failed
                    + counts.quarantined
                    + counts.running
                    + counts.pending,
                spent_usd: self_repair_cost::CostLedger::load(share.path())
                    .map_or(0.0, |l| l.total.usd),
            })
        })
        .collect()
}

/// One share as the merged run took it, with what it cost.
#[derive(Debug, Clone, Serialize)]
pub struct MergedShareReport {
    #[serde(flatten)]
    pub share: MergedShare,
    /// What the partition's run spent (its cost ledger), when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<PartCost>,
}

/// `merged from N partitions: hash:1/N r-a ($0.1234, 8 agents), ...`: what `status` and
/// report.md say of a merged run.
pub fn merged_from_line(shares: &[MergedShareReport]) -> String {
    let parts: Vec<String> = shares
        .iter()
        .map(|s| {
            let cost = s.cost.map_or_else(
                || "no cost ledger".to_owned(),
                |c| format!("${:.4}, {} agents", c.usd, c.agents),
            );
            format!(
                "hash:{}/{} {} ({cost})",
                s.share.share, s.share.shares, s.share.run
            )
        })
        .collect();
    format!(
        "merged from {} partitions: {}; nothing was triaged again",
        shares.len(),
        parts.join(", ")
    )
}
