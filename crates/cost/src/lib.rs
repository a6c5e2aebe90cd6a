//! What a run cost: token usage read from Claude Code's transcripts (crate `transcript`),
//! priced with a versioned table a user can override (reference/cost.md).

mod price_table;

pub use price_table::{PRICES_VERSION, Price, PriceTable};

#[cfg(test)]
mod fixture_tests;
