//! What one scenario reports: its failures, its figures, how long it took.

use std::time::Duration;

use crate::e2e::figures::Figures;

/// The result of one scenario.
#[derive(Debug)]
pub struct ScenarioOutcome {
    /// Scenario name.
    pub name: &'static str,
    /// Failed assertions (empty = passed).
    pub failures: Vec<String>,
    /// Measured rows for the table.
    pub figures: Vec<Figures>,
    /// Wall time of the whole scenario.
    pub wall: Duration,
    /// Facts worth printing that are not assertions.
    pub notes: Vec<String>,
}

impl ScenarioOutcome {
    /// Whether every assertion held.
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}
