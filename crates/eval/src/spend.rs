//! Agents, tokens and dollars of a part of a run, and the same divided per finding or per
//! correct verdict.

use std::ops::AddAssign;

use serde::{Deserialize, Serialize};

/// What some items of a run used.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Spend {
    /// Agents launched (each launch of an item counts: a retry is another agent).
    #[serde(default)]
    pub agents: u32,
    /// Tokens of every kind (input, output, cache read and write).
    #[serde(default)]
    pub tokens: u64,
    /// Dollars, as the run's cost ledger priced them.
    #[serde(default)]
    pub usd: f64,
}

impl AddAssign for Spend {
    fn add_assign(&mut self, other: Spend) {
        self.agents += other.agents;
        self.tokens += other.tokens;
        self.usd += other.usd;
    }
}

/// A [`Spend`] divided by a count.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SpendPer {
    pub agents: f64,
    pub tokens: f64,
    pub usd: f64,
}

impl Spend {
    /// This spend divided by `count`; `None` when `count` is 0.
    pub fn per(self, count: u32) -> Option<SpendPer> {
        (count > 0).then(|| SpendPer {
            agents: f64::from(self.agents) / f64::from(count),
            tokens: self.tokens as f64 / f64::from(count),
            usd: self.usd / f64::from(count),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{Spend, SpendPer};

    #[test]
    fn a_spend_divided_by_zero_is_none() {
        let spend = Spend {
            agents: 3,
            tokens: 300,
            usd: 1.5,
        };
        assert_eq!(spend.per(0), None);
        assert_eq!(
            spend.per(3),
            Some(SpendPer {
                agents: 1.0,
                tokens: 100.0,
                usd: 0.5
            })
        );
    }
}
