//! One line of a run's `cost.jsonl`: what one read of one transcript added, for one model.

use serde::{Deserialize, Serialize};

use self_repair_transcript::Usage;

/// The part of a run the main session's usage is recorded under.
pub const MAIN_SESSION: &str = "main session";

/// Usage one read added, attributed and priced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CostRecord {
    /// `main session`, or the kind of the item the agent worked on (`triage`, `plan`, ...).
    pub part: String,
    /// The item, for an agent's usage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item: Option<String>,
    /// The agent transcript's id (`agent-<id>.jsonl`), for an agent's usage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    pub model: String,
    pub usage: Usage,
    /// `None` when the price table does not know the model.
    pub usd: Option<f64>,
}
