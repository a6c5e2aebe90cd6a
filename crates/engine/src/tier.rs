//! Model tiers, cheapest first, and the escalation order between them.

use serde::{Deserialize, Serialize};

/// A model tier as the `Agent` tool names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    Haiku,
    Sonnet,
    Opus,
}

impl Tier {
    /// The value of the `Agent` tool's `model` field.
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Haiku => "haiku",
            Tier::Sonnet => "sonnet",
            Tier::Opus => "opus",
        }
    }

    /// The next stronger tier, or `None` after the strongest: the item is then quarantined.
    pub fn escalated(self) -> Option<Tier> {
        match self {
            Tier::Haiku => Some(Tier::Sonnet),
            Tier::Sonnet => Some(Tier::Opus),
            Tier::Opus => None,
        }
    }

    /// Parses `haiku`, `sonnet` or `opus`.
    pub fn parse(text: &str) -> Option<Tier> {
        match text {
            "haiku" => Some(Tier::Haiku),
            "sonnet" => Some(Tier::Sonnet),
            "opus" => Some(Tier::Opus),
            _ => None,
        }
    }
}
