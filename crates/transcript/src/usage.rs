//! Token counts of one or more model responses.

use serde::{Deserialize, Serialize};

/// Tokens by kind, as the Messages API reports them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_input_tokens: u64,
    /// Cache writes with the 5-minute lifetime.
    pub cache_write_5m_tokens: u64,
    /// Cache writes with the 1-hour lifetime.
    pub cache_write_1h_tokens: u64,
}

impl Usage {
    /// Reads a `message.usage` object; absent fields are 0. Cache writes without the
    /// `cache_creation` split count as 5-minute writes.
    pub fn from_json(usage: &serde_json::Value) -> Usage {
        let n = |v: &serde_json::Value, key: &str| v.get(key).and_then(serde_json::Value::as_u64);
        let created = n(usage, "cache_creation_input_tokens").unwrap_or(0);
        let split = usage.get("cache_creation");
        let one_hour = split
            .and_then(|s| n(s, "ephemeral_1h_input_tokens"))
            .unwrap_or(0)
            .min(created);
        Usage {
            input_tokens: n(usage, "input_tokens").unwrap_or(0),
            output_tokens: n(usage, "output_tokens").unwrap_or(0),
            cache_read_input_tokens: n(usage, "cache_read_input_tokens").unwrap_or(0),
            cache_write_5m_tokens: created - one_hour,
            cache_write_1h_tokens: one_hour,
        }
    }

    /// All cache writes.
    pub fn cache_creation_input_tokens(&self) -> u64 {
        self.cache_write_5m_tokens + self.cache_write_1h_tokens
    }

    /// Every token, of every kind.
    pub fn total_tokens(&self) -> u64 {
        self.input_tokens
            + self.output_tokens
            + self.cache_read_input_tokens
            + self.cache_creation_input_tokens()
    }

    /// Adds `other` field by field.
    pub fn add(&mut self, other: &Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cache_read_input_tokens += other.cache_read_input_tokens;
        self.cache_write_5m_tokens += other.cache_write_5m_tokens;
        self.cache_write_1h_tokens += other.cache_write_1h_tokens;
    }

    /// What `self` adds over `earlier` (a later row of the same response), field by field,
    /// never below zero.
    #[must_use]
    pub fn since(&self, earlier: &Usage) -> Usage {
        Usage {
            input_tokens: self.input_tokens.saturating_sub(earlier.input_tokens),
            output_tokens: self.output_tokens.saturating_sub(earlier.output_tokens),
            cache_read_input_tokens: self
                .cache_read_input_tokens
                .saturating_sub(earlier.cache_read_input_tokens),
            cache_write_5m_tokens: self
                .cache_write_5m_tokens
                .saturating_sub(earlier.cache_write_5m_tokens),
            cache_write_1h_tokens: self
                .cache_write_1h_tokens
                .saturating_sub(earlier.cache_write_1h_tokens),
        }
    }
}
