//! What a run cost: token usage read from Claude Code's transcripts (crate `transcript`),
//! priced with a versioned table a user can override, and recorded per item by the Stop hook
//! (reference/cost.md).

mod cost_error;
mod cost_ledger;
mod cost_record;
mod cost_summary;
mod ledger_file;
mod merged_ledger;
mod part_cost;
mod price_table;

pub use cost_error::CostError;
pub use cost_ledger::{
    Accounted, Attribution, CLOSED_FILE, COST_SCHEMA_VERSION, CostLedger, MainCursor,
    READS_AFTER_END, RECORDS_FILE, read_records,
};
pub use cost_record::{CostRecord, MAIN_SESSION};
pub use cost_summary::CostSummary;
pub use ledger_file::{LEDGER_FILE, SPARE_FILE};
pub use merged_ledger::copy_records;
pub use part_cost::PartCost;
pub use price_table::{PRICES_VERSION, Price, PriceTable};

#[cfg(test)]
mod cost_ledger_tests;
#[cfg(test)]
mod fixture_tests;
