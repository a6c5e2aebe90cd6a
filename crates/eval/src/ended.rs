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

    /// A `report.json` finding's end: its `ended` (`refused`: the model provider refused its
    /// agent; `quarantined`) when it has one, else its `verdict` ([`Ended::from_verdict`]).
    pub fn from_report(verdict: Option<&str>, ended: Option<&str>) -> Option<Ended> {
        match ended {
            Some("refused") => Some(Ended::Refused),
            Some("quarantined") => Some(Ended::Quarantined),
            _ => Ended::from_verdict(verdict),
        }
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

#[cfg(test)]
mod tests {
    use super::Ended;

    #[test]
    fn a_report_finding_the_provider_refused_is_a_refusal_not_a_pending_finding() {
        assert_eq!(
            Ended::from_report(None, Some("refused")),
            Some(Ended::Refused)
        );
        assert_eq!(
            Ended::from_report(None, Some("quarantined")),
            Some(Ended::Quarantined)
        );
        assert_eq!(Ended::from_report(None, None), Some(Ended::Pending));
        assert_eq!(Ended::from_report(Some("real"), None), Some(Ended::Real));
        assert!(Ended::Refused.abstained());
    }

    /// Every verdict string `report.json` may hold, and how each end counts (issue 47: six of
    /// the eight strings could be dropped with every test passing).
    #[test]
    fn every_verdict_string_reads_as_its_end() {
        for (verdict, ended, kept, closed, abstained) in [
            ("real", Ended::Real, true, false, false),
            ("false_positive", Ended::FalsePositive, false, true, false),
            ("intended", Ended::Intended, false, true, false),
            ("duplicate", Ended::Duplicate, true, false, false),
            ("unsure", Ended::Unsure, false, false, true),
            ("quarantined", Ended::Quarantined, false, false, true),
            ("refused", Ended::Refused, false, false, true),
            ("undecided", Ended::Pending, false, false, false),
            ("pending", Ended::Pending, false, false, false),
        ] {
            assert_eq!(Ended::from_verdict(Some(verdict)), Some(ended), "{verdict}");
            assert_eq!(ended.kept(), kept, "{verdict} kept");
            assert_eq!(ended.closed(), closed, "{verdict} closed");
            assert_eq!(ended.abstained(), abstained, "{verdict} abstained");
        }
        assert_eq!(Ended::from_verdict(None), Some(Ended::Pending));
        assert_eq!(Ended::from_verdict(Some("maybe")), None);
        assert_eq!(Ended::from_verdict(Some("Real")), None);
        assert_eq!(
            Ended::from_report(Some("real"), Some("refused")),
            Some(Ended::Refused),
            "how it ended wins over its verdict"
        );
        assert_eq!(
            Ended::from_report(Some("duplicate"), Some("done")),
            Some(Ended::Duplicate)
        );
    }
}
