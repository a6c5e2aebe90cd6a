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
