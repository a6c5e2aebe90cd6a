//! One finding a person may be asked about: what the run decided and everything they need to
//! judge it (the analyzer's message, the code, each agent's verdict and reason).

use serde::{Deserialize, Serialize};

/// One agent's answer on the finding (the first look, the second look, the survey's policy).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentAnswer {
    /// Who answered: `triage tb-00002`, `second look vf-00001`, `survey rs-00001`, `known`.
    pub who: String,
    /// The tier it ran at, when known.
    #[serde(default)]
    pub tier: Option<String>,
    pub verdict: String,
    pub reason: String,
}

/// A finding of the run, closed or kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditCandidate {
    /// `report.json`'s fingerprint.
    pub fingerprint: String,
    /// The analyzer and its rule id (`bandit`, `B602`).
    pub tool: String,
    pub rule: String,
    pub path: String,
    #[serde(default)]
    pub line: Option<u32>,
    /// The analyzer's message.
    pub message: String,
    /// The verdict that stood: `false_positive`, `intended` (closed) or `real` (kept).
    pub verdict: String,
    /// The reason that stood with it.
    pub reason: String,
    /// The diagnosis route, `None` when no agent was routed to it (known registry, rules).
    #[serde(default)]
    pub route: Option<String>,
    /// The tier whose answer stood, `None` when no agent decided.
    #[serde(default)]
    pub tier: Option<String>,
    /// Every agent's answer, first look first.
    #[serde(default)]
    pub agents: Vec<AgentAnswer>,
    /// The code around the finding (`> 12 | code` marks its line), when the file reads.
    #[serde(default)]
    pub excerpt: Option<String>,
}

impl AuditCandidate {
    /// Whether the run closed it (`false_positive`, `intended`).
    pub fn closed(&self) -> bool {
        is_closed(&self.verdict)
    }

    /// `src/app.py:12`, or the path alone.
    pub fn place(&self) -> String {
        match self.line {
            Some(line) => format!("{}:{line}", self.path),
            None => self.path.clone(),
        }
    }

    /// `route security, tier sonnet` (`no agent` for either when none).
    pub fn decided_by(&self) -> String {
        format!(
            "route {}, tier {}",
            self.route.as_deref().unwrap_or("none (no agent)"),
            self.tier.as_deref().unwrap_or("none (no agent)")
        )
    }

    /// The strata the sample must cover: its rule when on the security route, its route and
    /// its tier.
    pub(crate) fn strata(&self) -> Vec<String> {
        let mut strata = Vec::with_capacity(3);
        if self.route.as_deref() == Some("security") {
            strata.push(format!("rule {} {}", self.tool, self.rule));
        }
        strata.push(format!("route {}", self.route.as_deref().unwrap_or("none")));
        strata.push(format!("tier {}", self.tier.as_deref().unwrap_or("none")));
        strata
    }
}

/// `false_positive` and `intended` close a finding.
pub(crate) fn is_closed(verdict: &str) -> bool {
    matches!(verdict, "false_positive" | "intended")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::known_answer_tests::candidate;

    #[test]
    fn the_strata_are_the_security_rule_the_route_and_the_tier() {
        let security = candidate("aa", "B602", "security", "opus", "false_positive");
        assert_eq!(
            security.strata(),
            ["rule tool B602", "route security", "tier opus"]
        );
        let generic = candidate("bb", "F401", "generic", "haiku", "intended");
        assert_eq!(generic.strata(), ["route generic", "tier haiku"]);
        let no_agent = AuditCandidate {
            route: None,
            tier: None,
            ..generic
        };
        assert_eq!(no_agent.strata(), ["route none", "tier none"]);
    }

    #[test]
    fn only_false_positive_and_intended_close_a_finding() {
        for (verdict, closed) in [
            ("false_positive", true),
            ("intended", true),
            ("real", false),
            ("", false),
        ] {
            assert_eq!(is_closed(verdict), closed, "{verdict}");
        }
    }
}
