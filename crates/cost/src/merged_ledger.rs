//! The ledger of a run `merge` made from a job's partitions: their spend summed, each
//! partition's total kept beside it, and their records copied under the merged run's item ids
//! (reference/cost.md, "Partitions").

use std::path::Path;

use crate::cost_ledger::append;
use crate::{CostError, CostLedger, PriceTable, RECORDS_FILE, read_records};

impl CostLedger {
    /// A new ledger pricing with `prices`, holding what the partitions' runs spent (`shares`:
    /// each run id and its ledger): totals, parts and finished agents added up, and each run's
    /// total in `partitions`. No transcript cursor is carried over: the merged run's own
    /// session is read from its start, and the partitions' sessions are theirs.
    pub fn merged(prices: PriceTable, shares: &[(String, CostLedger)]) -> CostLedger {
        let mut ledger = CostLedger::new(prices);
        for (run, share) in shares {
            ledger.total.add(&share.total);
            for (part, cost) in &share.parts {
                ledger.parts.entry(part.clone()).or_default().add(cost);
            }
            for (part, cost) in &share.finished {
                ledger.finished.entry(part.clone()).or_default().add(cost);
            }
            ledger.partitions.insert(run.clone(), share.total);
            for (part, usd) in &share.prior_per_agent {
                ledger.prior_per_agent.entry(part.clone()).or_insert(*usd);
            }
        }
        ledger
    }
}

/// Appends the records of the run folder `from` (`cost.jsonl`) to those of `to`, each agent's
/// item renamed by `rename` (an id the merged run does not have keeps its own). Returns how
/// many it copied.
pub fn copy_records(
    from: &Path,
    to: &Path,
    rename: &dyn Fn(&str) -> Option<String>,
) -> Result<usize, CostError> {
    let records = read_records(from);
    if records.is_empty() {
        return Ok(0);
    }
    let mut lines = Vec::new();
    for mut record in records.iter().cloned() {
        if let Some(new) = record.item.as_deref().and_then(rename) {
            record.item = Some(new);
        }
        serde_json::to_writer(&mut lines, &record).map_err(CostError::encode)?;
        lines.push(b'\n');
    }
    append(&to.join(RECORDS_FILE), &lines)?;
    Ok(records.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Accounted, CostRecord, PartCost};

    fn spent(usd: f64, agents: u32) -> CostLedger {
        let mut ledger = CostLedger::new(PriceTable::default());
        let cost = PartCost {
            agents,
            usd,
            ..PartCost::default()
        };
        ledger.total = cost;
        ledger.parts.insert("triage".into(), cost);
        ledger.finished.insert("triage".into(), cost);
        ledger
    }

    #[test]
    fn a_merged_ledger_sums_the_partitions_and_keeps_each_total() {
        let merged = CostLedger::merged(
            PriceTable::default(),
            &[
                ("r-p1".into(), spent(0.25, 2)),
                ("r-p2".into(), spent(0.5, 3)),
            ],
        );
        assert!((merged.total.usd - 0.75).abs() < 1e-9);
        assert_eq!(merged.total.agents, 5);
        assert_eq!(merged.finished["triage"].agents, 5);
        assert_eq!(merged.partitions["r-p1"].agents, 2);
        assert!((merged.partitions["r-p2"].usd - 0.5).abs() < 1e-9);
        assert!(merged.main.is_none());
    }

    #[test]
    fn copied_records_name_the_merged_runs_items() {
        let from = tempfile::tempdir().unwrap();
        let to = tempfile::tempdir().unwrap();
        let record = |item: &str| CostRecord {
            part: "triage".into(),
            item: Some(item.into()),
            agent: Some("a1".into()),
            model: "claude-haiku-4-5".into(),
            usage: self_repair_transcript::Usage::default(),
            usd: Some(0.01),
        };
        let mut ledger = spent(0.02, 2);
        ledger
            .save(
                from.path(),
                &Accounted {
                    records: vec![record("t-00001"), record("tb-00009")],
                    ..Accounted::default()
                },
            )
            .unwrap();
        let rename = |id: &str| (id == "t-00001").then(|| "t-00004".to_owned());
        assert_eq!(copy_records(from.path(), to.path(), &rename).unwrap(), 2);
        let items: Vec<Option<String>> = read_records(to.path())
            .into_iter()
            .map(|r| r.item)
            .collect();
        assert_eq!(items, [Some("t-00004".into()), Some("tb-00009".into())]);
    }
}
