//! A finding's verification chain (reference/state-machine.md, "Verification"): the first
//! answer, why it needed a second agent, the second answer and what stood, as `report.json`
//! and `status --findings --json` show it.

use self_repair_engine::{
    RunState, TriageResult, VerifyOutcome, VerifyReason, WorkItem, needs_verification,
    settle_verdict,
};
use serde::Serialize;

/// One agent's answer in a chain.
#[derive(Debug, Clone, Serialize)]
pub struct Opinion {
    /// The item whose agent answered: `t-00042`, its batch `tb-00003`, or `vf-00042`.
    pub by: String,
    /// The tier it ran at (from the session transcript), else the one it was dispatched at.
    pub model: String,
    pub verdict: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    pub reason: String,
}

/// A verdict that needed a second agent.
#[derive(Debug, Clone, Serialize)]
pub struct Verification {
    /// The verifier's item (`vf-00042`).
    pub item: String,
    pub why: VerifyReason,
    pub first: Opinion,
    /// Absent while the verifier has not answered (or never did: then the finding is
    /// `unsure`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub second: Option<Opinion>,
    /// How the second answer settled the verdict; absent without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<VerifyOutcome>,
    /// The verifier's status (`pending`, `dispatched`, `done`, `quarantined`, ...).
    pub status: String,
}

impl Verification {
    /// The chain of `verifier` (a `vf-` item) given the first answer and, once there, the
    /// second. `first_by` is the item whose agent gave the first answer (the triage item or
    /// its batch).
    pub fn of(
        state: &RunState,
        verifier: &WorkItem,
        first_by: &str,
        first: &TriageResult,
        second: Option<&TriageResult>,
    ) -> Verification {
        let model_of = |item: Option<&WorkItem>| {
            item.map(|i| i.ran.unwrap_or(i.tier).as_str().to_owned())
                .unwrap_or_default()
        };
        let opinion = |by: &str, model: String, r: &TriageResult| Opinion {
            by: by.to_owned(),
            model,
            verdict: r.verdict.as_str().to_owned(),
            confidence: r.confidence,
            reason: r.reason.clone(),
        };
        let why = needs_verification(state.config.verify_below, verifier.route.as_deref(), first)
            // Asked for under another `verify_below`: the answer was a low-confidence one then.
            .unwrap_or(VerifyReason::LowConfidence);
        Verification {
            item: verifier.id.to_string(),
            why,
            first: opinion(first_by, model_of(state.item(first_by)), first),
            second: second.map(|s| opinion(&verifier.id, model_of(Some(verifier)), s)),
            // The answer the last look checked: the first, or (under the two-look rule, after
            // `unsure`) the second look's dismissal that went out once more.
            outcome: second
                .map(|s| settle_verdict(verifier.verdict.unwrap_or(first.verdict), s.verdict).1),
            status: verifier.status.as_str().to_owned(),
        }
    }

    /// One line for `status --findings` and `report.md`.
    pub fn summary(&self) -> String {
        let first = format!(
            "{} {} {}{}",
            self.first.by,
            self.first.model,
            self.first.verdict,
            self.first
                .confidence
                .map(|c| format!(" ({c:.2})"))
                .unwrap_or_default()
        );
        match (&self.second, self.outcome) {
            (Some(second), Some(outcome)) => format!(
                "verified ({}): {first}, then {} {} {} -> {}",
                self.why.as_str(),
                second.by,
                second.model,
                second.verdict,
                outcome.as_str()
            ),
            _ => format!(
                "verification ({}) {} {}: {first}",
                self.why.as_str(),
                self.item,
                self.status
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opinion(by: &str, verdict: &str, confidence: Option<f64>) -> Opinion {
        Opinion {
            by: by.to_owned(),
            model: "haiku".to_owned(),
            verdict: verdict.to_owned(),
            confidence,
            reason: "r".to_owned(),
        }
    }

    #[test]
    fn a_chain_reads_as_one_line_verified_once_answered_else_waiting() {
        let mut chain = Verification {
            item: "vf-00001".to_owned(),
            why: VerifyReason::LowConfidence,
            first: opinion("t-00001", "false_positive", Some(0.6)),
            second: None,
            outcome: None,
            status: "dispatched".to_owned(),
        };
        assert_eq!(
            chain.summary(),
            "verification (low_confidence) vf-00001 dispatched: t-00001 haiku false_positive (0.60)"
        );
        chain.second = Some(opinion("vf-00001", "real", None));
        chain.outcome = Some(VerifyOutcome::KeptReal);
        chain.status = "done".to_owned();
        assert_eq!(
            chain.summary(),
            "verified (low_confidence): t-00001 haiku false_positive (0.60), then vf-00001 haiku real -> kept_real"
        );
    }
}
