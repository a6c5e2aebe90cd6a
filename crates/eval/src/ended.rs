//! How a finding ended in the run, as the score sees it: kept, closed, abstained or pending.

use serde::{Deserialize, Serialize};

/// A finding's end in the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ended {
    /// Verdict `real`.
    Real,
    /// Verdict `false_positive`: closed.
    FalsePositive,
    /// Verdict `intended`: closed.
    Intended,
    /// Verdict `duplicate`: kept with the finding it repeats (it dismisses nothing).
    Duplicate,
    /// Verdict `unsure`: an abstention.
    Unsure,
    /// The item was quarantined (its tiers exhausted): an abstention.
    Quarantined,
    /// The model provider refused the item's agent: an abstention.
    Refused,
    /// Not decided yet (a partial run): left out of every score.
    Pending,
}

impl Ended {
    /// Reads `report.json`'s `findings[].verdict` (`undecided` or absent: [`Ended::Pending`]);
    /// the app overrides it with [`Ended::Quarantined`] or [`Ended::Refused`] when the item
    /// ended so.
    pub fn from_verdict(verdict: Option<&str>) -> Option<Ended> {
        Some(match verdict.unwrap_or("undecided") {
            "real" => Ended::Real,
            "false_positive" => Ended::FalsePositive,
            "intended" => Ended::Intended,
            "duplicate" => Ended::Duplicate,
            "unsure" => Ended::Unsure,
            "quarantined" => Ended::Quarantined,
            "refused" => Ended::Refused,
            "undecided" | "pending" => Ended::Pending,
            _ => return None,
        })
    }

    /// The run kept the finding open as a problem (`real`, `duplicate`).
    pub fn kept(self) -> bool {
        matches!(self, Ended::Real | Ended::Duplicate)
    }

    /// The run closed the finding (`false_positive`, `intended`).
    pub fn closed(self) -> bool {
        matches!(self, Ended::FalsePositive | Ended::Intended)
    }

    /// The run declined to decide (`unsure`, quarantined, refused).
    pub fn abstained(self) -> bool {
        matches!(self, Ended::Unsure | Ended::Quarantined | Ended::Refused)
    }
}
