//! Tokens and dollars of one part of a run (an item, a kind of item, a model, the main session).

use serde::{Deserialize, Serialize};

use self_repair_transcript::Usage;

/// What one part of a run used and cost.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct PartCost {
    /// Agent transcripts counted (0 for the main session).
    #[serde(default)]
    pub agents: u32,
    #[serde(default)]
    pub usage: Usage,
    #[serde(default)]
    pub usd: f64,
    /// Tokens of models the price table does not know: counted, never priced.
    #[serde(default)]
    pub unpriced_tokens: u64,
}

impl PartCost {
    /// Adds `usage`, priced at `usd` (`None`: a model the table does not know).
    pub fn add_usage(&mut self, usage: &Usage, usd: Option<f64>) {
        self.usage.add(usage);
        match usd {
            Some(usd) => self.usd += usd,
            None => self.unpriced_tokens += usage.total_tokens(),
        }
    }

    /// Adds another part's figures.
    pub fn add(&mut self, other: &PartCost) {
        self.agents += other.agents;
        self.usage.add(&other.usage);
        self.usd += other.usd;
        self.unpriced_tokens += other.unpriced_tokens;
    }

    /// All tokens, priced or not.
    pub fn tokens(&self) -> u64 {
        self.usage.total_tokens()
    }
}
