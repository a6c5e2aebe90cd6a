//! The team's audit policy (`config.json`'s `audit` section) and the gate it sets: a run whose
//! dismissals were not audited to the configured size does not hand them out.

use serde::{Deserialize, Serialize};

use crate::{AuditLabels, sample_size_for};

/// `config.json` → `audit`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AuditPolicy {
    /// On: `export` hands out no dismissal of a run not audited to `size`.
    pub gate: bool,
    /// Closed findings to audit per run; `None`: the smallest sample whose bound, with none
    /// wrong, is `bound` at `confidence` (29 with the defaults).
    pub size: Option<usize>,
    /// The confidence every bound is stated at.
    pub confidence: f64,
    /// The unsafe-closure rate the default size bounds when none is wrong.
    pub bound: f64,
}

impl Default for AuditPolicy {
    fn default() -> Self {
        AuditPolicy {
            gate: false,
            size: None,
            confidence: 0.95,
            bound: 0.10,
        }
    }
}

impl AuditPolicy {
    /// The keys of the section (reference/config.md lists them).
    pub const KEYS: [&'static str; 4] = ["gate", "size", "confidence", "bound"];

    /// The sample size asked for.
    pub fn size(&self) -> usize {
        self.size
            .unwrap_or_else(|| sample_size_for(self.bound, self.confidence))
    }

    /// What is wrong with the section, if anything.
    pub fn check(&self) -> Result<(), String> {
        if !(self.confidence > 0.5 && self.confidence < 1.0) {
            return Err(format!(
                "audit.confidence {} must be above 0.5 and below 1 (e.g. 0.95)",
                self.confidence
            ));
        }
        if !(self.bound > 0.0 && self.bound < 1.0) {
            return Err(format!(
                "audit.bound {} must be above 0 and below 1 (e.g. 0.10)",
                self.bound
            ));
        }
        if self.size == Some(0) {
            return Err("audit.size must be 1 or more, or absent for the default".to_owned());
        }
        Ok(())
    }
}

/// Whether a run's dismissals may be handed out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GateStatus {
    /// The team turned no gate on.
    Off,
    /// Audited to the size (or every closure, when the run closed fewer).
    Audited { answered: usize, needed: usize },
    /// Not yet.
    Unaudited { answered: usize, needed: usize },
}

impl GateStatus {
    /// The gate of `policy` on run `run`, which closed `closed` findings.
    pub fn of(policy: &AuditPolicy, labels: &AuditLabels, run: &str, closed: usize) -> GateStatus {
        if !policy.gate {
            return GateStatus::Off;
        }
        let answered = labels.of_run(run).filter(|l| l.closed()).count();
        let needed = policy.size().min(closed);
        if answered >= needed {
            GateStatus::Audited { answered, needed }
        } else {
            GateStatus::Unaudited { answered, needed }
        }
    }

    /// Dismissals may go out.
    pub fn passes(self) -> bool {
        !matches!(self, GateStatus::Unaudited { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::known_answer_tests::{answers_at_rate, candidate};

    #[test]
    fn the_gate_holds_until_the_size_is_answered_and_never_when_off() {
        let on = AuditPolicy {
            gate: true,
            ..AuditPolicy::default()
        };
        let none = AuditLabels::default();
        assert_eq!(
            GateStatus::of(&on, &none, "r", 100),
            GateStatus::Unaudited {
                answered: 0,
                needed: 29
            }
        );
        assert!(GateStatus::of(&AuditPolicy::default(), &none, "r", 100).passes());
        assert!(
            GateStatus::of(&on, &none, "r", 0).passes(),
            "nothing closed"
        );
        let candidates: Vec<_> = (0..29)
            .map(|i| candidate(&format!("f{i}"), "B602", "security", "opus", "intended"))
            .collect();
        let labels = answers_at_rate(&candidates, "r", 0);
        assert!(GateStatus::of(&on, &labels, "r", 100).passes());
        assert!(!GateStatus::of(&on, &labels, "other", 100).passes());
    }

    #[test]
    fn a_bad_policy_says_what_to_write() {
        let bad = AuditPolicy {
            confidence: 1.0,
            ..AuditPolicy::default()
        };
        assert!(bad.check().unwrap_err().contains("0.95"));
    }
}
