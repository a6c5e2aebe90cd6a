//! What a run has cost so far, for `status`: the token usage in the Claude Code transcripts of
//! the session that drives it (the main transcript the Stop hook recorded in `transcript.json`,
//! and every sub-agent transcript beside it whose first message names an item of this run),
//! priced with the built-in table (reference/cost.md). Read in full at each `status`: the hook
//! does not pay for it.

use std::path::{Path, PathBuf};

use self_repair_cost::PriceTable;
use self_repair_engine::ItemKind;
use self_repair_store::RunDir;
use self_repair_transcript::{ModelUsage, Usage, UsageCursor};
use serde::{Deserialize, Serialize};

/// Tokens and dollars of one part of the run.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CostLine {
    /// `main session`, or an item kind (`triage`, `aggregate`, ...).
    pub part: String,
    /// Agent transcripts counted (0 for the main session).
    pub agents: usize,
    pub usage: Usage,
    pub usd: f64,
    /// Tokens of models the price table does not know (counted, not priced).
    pub unpriced_tokens: u64,
}

/// The run's cost so far.
#[derive(Debug, Clone, Serialize)]
pub struct RunCost {
    pub prices_version: String,
    pub lines: Vec<CostLine>,
    pub total_usd: f64,
}

#[derive(Deserialize)]
struct MainTranscript {
    path: PathBuf,
}

fn add(line: &mut CostLine, read: &[ModelUsage], prices: &PriceTable) {
    for model in read {
        line.usage.add(&model.usage);
        if let Some(usd) = prices.cost(&model.model, &model.usage) {
            line.usd += usd;
        } else {
            let u = &model.usage;
            line.unpriced_tokens += u.input_tokens
                + u.output_tokens
                + u.cache_read_input_tokens
                + u.cache_creation_input_tokens();
        }
    }
}

/// The cost of run `run` so far, or `None` when no transcript is known yet (the hook records
/// the session's transcript at its first stop).
pub fn run_cost(dir: &RunDir, run: &str) -> Option<RunCost> {
    let text = std::fs::read_to_string(dir.path().join("transcript.json")).ok()?;
    let main: MainTranscript = serde_json::from_str(&text).ok()?;
    let prices = PriceTable::default();
    let mut main_line = CostLine {
        part: "main session".to_owned(),
        ..CostLine::default()
    };
    if let Ok(read) = UsageCursor::default().read(&main.path) {
        add(&mut main_line, &read, &prices);
    }
    let mut lines = vec![main_line];
    for path in agent_transcripts(&main.path) {
        let mut cursor = UsageCursor::default();
        let Ok(read) = cursor.read(&path) else {
            continue;
        };
        if cursor.run.as_deref() != Some(run) {
            continue;
        }
        let Some(kind) = cursor.item.as_deref().and_then(ItemKind::of_id) else {
            continue;
        };
        // A batch's agent is a triage agent: its cost is triage's.
        let part = match kind {
            ItemKind::TriageBatch => ItemKind::Triage.as_str(),
            other => other.as_str(),
        };
        let index = if let Some(index) = lines.iter().position(|l| l.part == part) {
            index
        } else {
            lines.push(CostLine {
                part: part.to_owned(),
                ..CostLine::default()
            });
            lines.len() - 1
        };
        lines[index].agents += 1;
        add(&mut lines[index], &read, &prices);
    }
    let total_usd = lines.iter().map(|l| l.usd).sum();
    Some(RunCost {
        prices_version: prices.version,
        lines,
        total_usd,
    })
}

/// `<session>/subagents/agent-*.jsonl` beside the main transcript `<session>.jsonl`.
fn agent_transcripts(main: &Path) -> Vec<PathBuf> {
    let folder = main.with_extension("").join("subagents");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(folder)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| {
                    p.extension().is_some_and(|e| e == "jsonl")
                        && p.file_name()
                            .and_then(|n| n.to_str())
                            .is_some_and(|n| n.starts_with("agent-"))
                })
                .collect()
        })
        .unwrap_or_default();
    paths.sort();
    paths
}

impl RunCost {
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
}
