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

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(input: u64, output: u64) -> Usage {
        Usage {
            input_tokens: input,
            output_tokens: output,
            ..Usage::default()
        }
    }

    /// A priced read adds dollars, an unpriced one its tokens; both add their usage.
    #[test]
    fn parts_add_usage_dollars_unpriced_tokens_and_agents() {
        let mut part = PartCost::default();
        part.add_usage(&usage(10, 5), Some(0.25));
        part.add_usage(&usage(3, 4), None);
        part.add_usage(&usage(1, 0), Some(0.5));
        assert_eq!(part.tokens(), 23);
        assert_eq!(part.usage.input_tokens, 14);
        assert!((part.usd - 0.75).abs() < 1e-12, "{}", part.usd);
        assert_eq!(part.unpriced_tokens, 7);
        let mut sum = PartCost {
            agents: 2,
            usd: 1.0,
            unpriced_tokens: 3,
            usage: usage(100, 0),
        };
        part.agents = 3;
        sum.add(&part);
        sum.add(&part);
        assert_eq!(sum.agents, 8);
        assert!((sum.usd - 2.5).abs() < 1e-12, "{}", sum.usd);
        assert_eq!(sum.unpriced_tokens, 17);
        assert_eq!(sum.tokens(), 146);
    }
}
