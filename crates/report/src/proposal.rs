//! What a finalized run proposes and only a person can make decide: the rule reviewer's rules
//! (`rules accept`) and the security dismissals kept as proposals in `known.json`
//! (`known accept`). The app reads them from the store; the report shows them with the command.

use serde::Serialize;

/// A rule of `rules.json` the run's rule review proposed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuleProposal {
    /// `r-20261122-p1`: what `self-repair rules accept` takes.
    pub id: String,
    pub name: String,
    /// What it decides: `verdict false_positive` or `route security`.
    pub outcome: String,
    pub reason: String,
    /// Findings of the run it matches and how many of them the agents agreed with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matches: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agreed: Option<u32>,
}

impl RuleProposal {
    /// `self-repair rules accept ID`.
    pub fn accept_command(&self) -> String {
        format!("self-repair rules accept {}", self.id)
    }
}

/// A dismissal `known.json` keeps as a proposal (on the security route, or one two agents
/// disputed): it decides nothing until `known accept`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KnownProposal {
    pub fingerprint: String,
    /// The triage item that decided it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<String>,
    pub verdict: String,
    /// `tool rule path: message`.
    pub summary: String,
    pub reason: String,
}

impl KnownProposal {
    /// `self-repair known accept FINGERPRINT` (a fingerprint works after later runs too).
    pub fn accept_command(&self) -> String {
        format!("self-repair known accept {}", self.fingerprint)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_proposal_names_the_command_that_accepts_it() {
        let rule = RuleProposal {
            id: "r-20261122-p1".into(),
            name: "n".into(),
            outcome: "verdict false_positive".into(),
            reason: "r".into(),
            matches: None,
            agreed: None,
        };
        assert_eq!(
            rule.accept_command(),
            "self-repair rules accept r-20261122-p1"
        );
        let known = KnownProposal {
            fingerprint: "abc123".into(),
            item: None,
            verdict: "false_positive".into(),
            summary: "s".into(),
            reason: "r".into(),
        };
        assert_eq!(known.accept_command(), "self-repair known accept abc123");
    }
}
