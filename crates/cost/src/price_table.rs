//! List prices per model family, versioned; a user can override them in config.

use serde::{Deserialize, Serialize};

use self_repair_transcript::Usage;

/// The version of the built-in table; a run records which one priced it.
pub const PRICES_VERSION: &str = "2026-11-23";

/// USD per million tokens. Cache writes cost 1.25x input (5-minute) or 2x (1-hour); cache
/// reads 0.1x, as Claude Code 2.1.330 prices them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    pub input: f64,
    pub output: f64,
}

/// Model-id prefixes and their prices; the longest matching prefix wins.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PriceTable {
    pub version: String,
    pub models: Vec<(String, Price)>,
}

/// The built-in table. Sources: Claude Code 2.1.330's own `costUSD` for the models its e2e
/// sessions ran (`modelUsage` of `claude -p --output-format json`: opus-5-5 4/20, sonnet-5-5
/// 2/10, haiku-5-5 0.10/0.50) and the list prices in `shared/fixtures/claude-code/transcript`
/// (opus-4-8 5/25, sonnet-5 2/10).
const BUILT_IN: [(&str, f64, f64); 6] = [
    ("claude-opus-5", 4.0, 20.0),
    ("claude-opus-4", 5.0, 25.0),
    ("claude-sonnet-5", 2.0, 10.0),
    ("claude-sonnet-4", 3.0, 15.0),
    ("claude-haiku-5", 0.10, 0.50),
    ("claude-haiku-4", 1.0, 5.0),
];

impl Default for PriceTable {
    fn default() -> PriceTable {
        PriceTable {
            version: PRICES_VERSION.to_owned(),
            models: BUILT_IN
                .iter()
                .map(|(prefix, input, output)| {
                    (
                        (*prefix).to_owned(),
                        Price {
                            input: *input,
                            output: *output,
                        },
                    )
                })
                .collect(),
        }
    }
}

impl PriceTable {
    /// The price of `model`, or `None` for a model the table does not know (its tokens are
    /// still counted, as "unknown").
    pub fn price(&self, model: &str) -> Option<Price> {
        self.models
            .iter()
            .filter(|(prefix, _)| model.starts_with(prefix.as_str()))
            .max_by_key(|(prefix, _)| prefix.len())
            .map(|(_, price)| *price)
    }

    /// USD for `usage` on `model`, or `None` when the model is unknown.
    pub fn cost(&self, model: &str, usage: &Usage) -> Option<f64> {
        let price = self.price(model)?;
        let per_token = |usd_per_mtok: f64, tokens: u64| usd_per_mtok * tokens as f64 / 1e6;
        Some(
            per_token(price.input, usage.input_tokens)
                + per_token(price.output, usage.output_tokens)
                + per_token(price.input * 0.1, usage.cache_read_input_tokens)
                + per_token(price.input * 1.25, usage.cache_write_5m_tokens)
                + per_token(price.input * 2.0, usage.cache_write_1h_tokens),
        )
    }

    /// Replaces or adds the prices in `overrides` (from the project's config).
    #[must_use]
    pub fn with_overrides(mut self, overrides: &[(String, Price)]) -> PriceTable {
        for (prefix, price) in overrides {
            match self.models.iter_mut().find(|(p, _)| p == prefix) {
                Some((_, existing)) => *existing = *price,
                None => self.models.push((prefix.clone(), *price)),
            }
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each kind of token at its own rate: input, output, cache reads at a tenth of input,
    /// 5-minute cache writes at 1.25 times, 1-hour ones at twice.
    #[test]
    fn a_response_costs_each_kind_of_token_at_its_rate() {
        let table = PriceTable::default();
        let usage = Usage {
            input_tokens: 1_000_000,
            output_tokens: 2_000_000,
            cache_read_input_tokens: 10_000_000,
            cache_write_5m_tokens: 4_000_000,
            cache_write_1h_tokens: 3_000_000,
        };
        // claude-opus-5: $4 in, $20 out a million tokens.
        let usd = table.cost("claude-opus-5-5", &usage).unwrap();
        assert!(
            (usd - (4.0 + 40.0 + 4.0 + 20.0 + 24.0)).abs() < 1e-9,
            "{usd}"
        );
        let one = Usage {
            output_tokens: 500_000,
            ..Usage::default()
        };
        let usd = table.cost("claude-haiku-5-0", &one).unwrap();
        assert!((usd - 0.25).abs() < 1e-12, "{usd}");
        assert_eq!(table.cost("gpt-5", &one), None);
    }

    /// An override of a built-in prefix replaces its price; a new prefix is added.
    #[test]
    fn an_override_replaces_a_built_in_price_in_place() {
        let cheap = Price {
            input: 0.5,
            output: 1.5,
        };
        let table = PriceTable::default().with_overrides(&[
            ("claude-sonnet-5".to_owned(), cheap),
            ("claude-fable-5".to_owned(), cheap),
        ]);
        assert_eq!(table.models.len(), BUILT_IN.len() + 1);
        assert_eq!(table.price("claude-sonnet-5-1"), Some(cheap));
        assert_eq!(
            table.price("claude-opus-5-1"),
            Some(Price {
                input: 4.0,
                output: 20.0
            })
        );
        assert_eq!(table.models[0].0, "claude-opus-5");
    }

    #[test]
    fn the_longest_prefix_prices_a_model_and_an_unknown_one_has_no_price() {
        let table = PriceTable::default();
        let same = |a: f64, b: f64| (a - b).abs() < 1e-12;
        assert!(same(table.price("claude-opus-4-8").unwrap().input, 5.0));
        assert!(same(table.price("claude-opus-5-5").unwrap().output, 20.0));
        assert_eq!(table.price("claude-fable-5-2"), None);
        let overridden = table.with_overrides(&[(
            "claude-fable-5".to_owned(),
            Price {
                input: 1.0,
                output: 2.0,
            },
        )]);
        assert!(same(
            overridden.price("claude-fable-5-2").unwrap().output,
            2.0
        ));
    }
}
