//! A run's cost in the shape `status`, `report.json` and `report.md` show it: the main session,
//! then per phase, kind of item, model and item.

use self_repair_cost::{CostSummary, MAIN_SESSION, PartCost};
use self_repair_engine::{ItemKind, Phase};
use self_repair_transcript::Usage;
use serde::Serialize;

/// Tokens and dollars of one part of the run.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CostLine {
    /// `main session`, a phase, a kind of item, a model or an item id.
    pub part: String,
    /// Agent transcripts counted (0 for the main session).
    pub agents: u32,
    pub usage: Usage,
    pub usd: f64,
    /// Tokens of models the price table does not know (counted, not priced).
    pub unpriced_tokens: u64,
}

impl CostLine {
    fn of(part: &str, cost: &PartCost) -> CostLine {
        CostLine {
            part: part.to_owned(),
            agents: cost.agents,
            usage: cost.usage,
            usd: cost.usd,
            unpriced_tokens: cost.unpriced_tokens,
        }
    }
}

/// The run's cost so far.
#[derive(Debug, Clone, Serialize)]
pub struct RunCost {
    pub prices_version: String,
    /// The main session, then each phase that cost anything, in pipeline order.
    pub lines: Vec<CostLine>,
    /// The main session, then each kind of item.
    pub kinds: Vec<CostLine>,
    /// By model id.
    pub models: Vec<CostLine>,
    /// By item (in `report.json` only: `status --json` leaves it out).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub items: Vec<CostLine>,
    pub total_usd: f64,
    pub total_tokens: u64,
    /// Agent transcripts counted.
    pub agents: u32,
}

impl RunCost {
    /// Rolls `summary` up by phase (items by their kind's phase), kind, model and item.
    pub fn of(summary: &CostSummary) -> RunCost {
        let main = summary
            .parts
            .iter()
            .find(|(p, _)| p == MAIN_SESSION)
            .map(|(_, c)| *c)
            .unwrap_or_default();
        let mut phases: Vec<(Phase, PartCost)> = Vec::new();
        for (item, cost) in &summary.items {
            let Some(phase) = ItemKind::of_id(item).map(ItemKind::phase) else {
                continue;
            };
            match phases.iter_mut().find(|(p, _)| *p == phase) {
                Some((_, sum)) => sum.add(cost),
                None => phases.push((phase, *cost)),
            }
        }
        phases.sort_by_key(|(p, _)| *p);
        let mut lines = vec![CostLine::of(MAIN_SESSION, &main)];
        lines.extend(phases.iter().map(|(p, c)| CostLine::of(p.as_str(), c)));
        let mut kinds = vec![CostLine::of(MAIN_SESSION, &main)];
        kinds.extend(
            summary
                .parts
                .iter()
                .filter(|(p, _)| p != MAIN_SESSION)
                .map(|(p, c)| CostLine::of(p, c)),
        );
        RunCost {
            prices_version: summary.prices_version.clone(),
            lines,
            kinds,
            models: summary
                .models
                .iter()
                .map(|(m, c)| CostLine::of(m, c))
                .collect(),
            items: summary
                .items
                .iter()
                .map(|(i, c)| CostLine::of(i, c))
                .collect(),
            total_usd: summary.total.usd,
            total_tokens: summary.total.tokens(),
            agents: summary.total.agents,
        }
    }

    /// Without the per-item lines (what `status --json` carries).
    #[must_use]
    pub fn without_items(mut self) -> RunCost {
        self.items.clear();
        self
    }

    /// The lines `status` prints.
    pub fn render(&self) -> String {
        let mut out = format!(
            "cost so far: ${:.4} (prices {}; read from the session's transcripts)\n",
            self.total_usd, self.prices_version
        );
        for line in &self.lines {
            let agents = match line.agents {
                0 => String::new(),
                1 => ", 1 agent".to_owned(),
                n => format!(", {n} agents"),
            };
            let unpriced = if line.unpriced_tokens > 0 {
                format!(
                    ", {} tokens of unknown models not priced",
                    line.unpriced_tokens
                )
            } else {
                String::new()
            };
            out.push_str(&format!(
                "  {:<14} ${:.4}: {} in, {} out, {} cache read, {} cache write{agents}{unpriced}\n",
                line.part,
                line.usd,
                line.usage.input_tokens,
                line.usage.output_tokens,
                line.usage.cache_read_input_tokens,
                line.usage.cache_creation_input_tokens()
            ));
        }
        out
    }

    /// `report.md`'s cost section: per phase, then per model.
    pub fn render_markdown(&self) -> String {
        let mut out = format!(
            "\n## Cost\n\n${:.4} in all, {} tokens, {} agents (prices {}; read from the session's \
             transcripts).\n\n| part | agents | tokens | USD |\n|---|---|---|---|\n",
            self.total_usd, self.total_tokens, self.agents, self.prices_version
        );
        for line in &self.lines {
            out.push_str(&markdown_row(line));
        }
        out.push_str("\n| model | agents | tokens | USD |\n|---|---|---|---|\n");
        for line in &self.models {
            out.push_str(&markdown_row(line));
        }
        out
    }
}

fn markdown_row(line: &CostLine) -> String {
    let unpriced = if line.unpriced_tokens > 0 {
        format!(
            " ({} tokens not priced: unknown model)",
            line.unpriced_tokens
        )
    } else {
        String::new()
    };
    format!(
        "| {} | {} | {} | {:.4}{unpriced} |\n",
        line.part,
        line.agents,
        line.usage.total_tokens(),
        line.usd
    )
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn cost(agents: u32, input: u64, usd: f64, unpriced: u64) -> PartCost {
        PartCost {
            agents,
            usage: Usage {
                input_tokens: input,
                output_tokens: 1,
                cache_read_input_tokens: 2,
                cache_write_5m_tokens: 3,
                cache_write_1h_tokens: 4,
            },
            usd,
            unpriced_tokens: unpriced,
        }
    }

    fn summary() -> CostSummary {
        let items: BTreeMap<String, PartCost> = [
            ("plan-g1", cost(1, 40, 0.4, 7)),
            ("t-00001", cost(1, 10, 0.2, 0)),
            ("t-00002", cost(1, 20, 0.3, 0)),
            ("not-an-item", cost(1, 1, 9.0, 0)),
        ]
        .into_iter()
        .map(|(i, c)| (i.to_owned(), c))
        .collect();
        CostSummary {
            prices_version: "2026-11".into(),
            total: cost(3, 170, 1.9, 7),
            parts: vec![
                (MAIN_SESSION.to_owned(), cost(0, 100, 1.0, 0)),
                ("triage".to_owned(), cost(2, 30, 0.5, 0)),
            ],
            models: [
                ("claude-opus-5".to_owned(), cost(0, 163, 1.9, 0)),
                ("mystery".to_owned(), cost(1, 7, 0.0, 7)),
            ]
            .into_iter()
            .collect(),
            items,
        }
    }

    #[test]
    fn the_cost_is_rolled_up_by_phase_kind_model_and_item() {
        let run = RunCost::of(&summary());
        let parts = |lines: &[CostLine]| {
            lines
                .iter()
                .map(|l| (l.part.clone(), l.agents, l.usage.input_tokens))
                .collect::<Vec<_>>()
        };
        let triage = ItemKind::Triage.phase().as_str().to_owned();
        let plan = ItemKind::Plan.phase().as_str().to_owned();
        let mut phases = vec![(triage, 2, 30), (plan, 1, 40)];
        phases.sort_by_key(|(p, ..)| {
            [ItemKind::Triage, ItemKind::Plan]
                .into_iter()
                .map(ItemKind::phase)
                .find(|ph| ph.as_str() == p)
        });
        let mut lines = vec![(MAIN_SESSION.to_owned(), 0, 100)];
        lines.extend(phases);
        assert_eq!(parts(&run.lines), lines);
        assert_eq!(
            parts(&run.kinds),
            [
                (MAIN_SESSION.to_owned(), 0, 100),
                ("triage".to_owned(), 2, 30)
            ]
        );
        assert_eq!(run.models.len(), 2);
        assert_eq!(run.items.len(), 4);
        assert!(run.clone().without_items().items.is_empty());
        assert_eq!(
            (run.total_usd, run.total_tokens, run.agents),
            (1.9, 170 + 1 + 2 + 3 + 4, 3)
        );
    }

    #[test]
    fn unpriced_tokens_are_named_only_where_there_are_some() {
        let run = RunCost::of(&summary());
        let text = run.render();
        assert!(
            text.starts_with(
                "cost so far: $1.9000 (prices 2026-11; read from the session's transcripts)\n"
            ),
            "{text}"
        );
        let main = text.lines().nth(1).unwrap();
        assert_eq!(
            main,
            "  main session   $1.0000: 100 in, 1 out, 2 cache read, 7 cache write"
        );
        assert_eq!(
            text.matches("tokens of unknown models not priced").count(),
            1,
            "{text}"
        );
        assert!(
            text.contains(", 1 agent, 7 tokens of unknown models not priced\n"),
            "{text}"
        );
        assert!(text.contains(", 2 agents\n"), "{text}");
        let markdown = run.render_markdown();
        assert!(markdown.starts_with("\n## Cost\n\n$1.9000 in all, 180 tokens, 3 agents"));
        assert!(
            markdown.contains("| main session | 0 | 110 | 1.0000 |\n"),
            "{markdown}"
        );
        assert!(
            markdown
                .contains("| mystery | 1 | 17 | 0.0000 (7 tokens not priced: unknown model) |\n"),
            "{markdown}"
        );
        assert_eq!(markdown.matches("not priced").count(), 2, "{markdown}");
    }
}
