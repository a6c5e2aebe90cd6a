//! A run's cost by part, by model and by item, folded from its `cost.jsonl` records: what
//! `status`, `report.json` and `report.md` show.

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;

use crate::{CostRecord, PartCost};

/// A run's cost so far, broken down.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CostSummary {
    pub prices_version: String,
    pub total: PartCost,
    /// `main session`, then each kind of item, in first-seen order.
    pub parts: Vec<(String, PartCost)>,
    /// By model id.
    pub models: BTreeMap<String, PartCost>,
    /// By item id (agents' usage only).
    pub items: BTreeMap<String, PartCost>,
}

impl CostSummary {
    /// Folds `records` (in the order they were written).
    pub fn fold<'a>(
        prices_version: &str,
        records: impl IntoIterator<Item = &'a CostRecord>,
    ) -> CostSummary {
        let mut summary = CostSummary {
            prices_version: prices_version.to_owned(),
            ..CostSummary::default()
        };
        let mut agents: HashSet<&str> = HashSet::new();
        for record in records {
            let new_agent = record.agent.as_deref().is_some_and(|a| agents.insert(a));
            let mut line = PartCost::default();
            line.add_usage(&record.usage, record.usd);
            line.agents = u32::from(new_agent);
            summary.total.add(&line);
            match summary.parts.iter_mut().find(|(p, _)| *p == record.part) {
                Some((_, part)) => part.add(&line),
                None => summary.parts.push((record.part.clone(), line)),
            }
            summary
                .models
                .entry(record.model.clone())
                .or_default()
                .add(&line);
            if let Some(item) = &record.item {
                summary.items.entry(item.clone()).or_default().add(&line);
            }
        }
        summary
    }
}
