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

#[cfg(test)]
mod tests {
    use self_repair_transcript::Usage;

    use super::*;

    fn record(
        part: &str,
        item: Option<&str>,
        agent: Option<&str>,
        model: &str,
        usd: Option<f64>,
    ) -> CostRecord {
        CostRecord {
            part: part.to_owned(),
            item: item.map(str::to_owned),
            agent: agent.map(str::to_owned),
            model: model.to_owned(),
            usage: Usage {
                input_tokens: 10,
                ..Usage::default()
            },
            usd,
        }
    }

    /// Each agent counts once however many records it has; parts keep their first-seen order;
    /// items are agents' usage only.
    #[test]
    fn records_fold_by_part_model_and_item_each_agent_once() {
        let records = [
            record("main session", None, None, "opus", Some(1.0)),
            record("triage", Some("t-1"), Some("a1"), "haiku", Some(0.25)),
            record("verify", Some("vf-1"), Some("a3"), "sonnet", Some(0.5)),
            record("triage", Some("t-1"), Some("a1"), "haiku", None),
            record("triage", Some("t-2"), Some("a2"), "haiku", Some(0.25)),
        ];
        let summary = CostSummary::fold("v1", &records);
        assert_eq!(summary.prices_version, "v1");
        assert_eq!(summary.total.agents, 3);
        assert!((summary.total.usd - 2.0).abs() < 1e-12);
        assert_eq!(summary.total.unpriced_tokens, 10);
        let parts: Vec<(&str, u32, u64)> = summary
            .parts
            .iter()
            .map(|(p, c)| (p.as_str(), c.agents, c.tokens()))
            .collect();
        assert_eq!(
            parts,
            [
                ("main session", 0, 10),
                ("triage", 2, 30),
                ("verify", 1, 10)
            ]
        );
        assert_eq!(summary.models["haiku"].tokens(), 30);
        assert_eq!(summary.models["haiku"].agents, 2);
        assert_eq!(summary.items.len(), 3);
        assert_eq!(summary.items["t-1"].agents, 1);
        assert_eq!(summary.items["t-1"].tokens(), 20);
    }
}
