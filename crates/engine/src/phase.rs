//! The pipeline's phases, in the order the engine walks them.

use serde::{Deserialize, Serialize};

/// Where a run is in the pipeline (ARCHITECTURE §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    Triage,
    Aggregate,
    RuleReview,
    Plan,
    Finalize,
    Complete,
}

impl Phase {
    /// Every phase in pipeline order.
    pub const ALL: [Phase; 6] = [
        Phase::Triage,
        Phase::Aggregate,
        Phase::RuleReview,
        Phase::Plan,
        Phase::Finalize,
        Phase::Complete,
    ];

    /// The spelling used in files, dispatches and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Triage => "triage",
            Phase::Aggregate => "aggregate",
            Phase::RuleReview => "rule_review",
            Phase::Plan => "plan",
            Phase::Finalize => "finalize",
            Phase::Complete => "complete",
        }
    }
}
