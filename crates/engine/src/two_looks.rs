//! The security two-look rule as code (issue 40, reference/routes.md): a finding under it
//! ([`crate::WorkItem::two_looks`]: on the security route, once on it, or tagged security by its
//! analyzer) ends closed (`false_positive`, `intended`, `duplicate`) only when two independent
//! looks dismissed it; otherwise it ends `real` or `unsure`. The run holds it in
//! [`crate::verification`] (a re-route keeps the rule, `unsure` then one dismissal gets one
//! more blind look) and [`crate::duplicate_chain`] (a duplicate takes its target's end, and
//! under the rule gets its own second look); this module says how such a finding may reach
//! `known.json`.

use crate::{ItemStatus, RunState, Verdict, VerifyOutcome};

/// Whether a verdict closes a finding: it hides it now and, through `known.json`, later.
#[must_use]
pub fn closes(verdict: Verdict) -> bool {
    matches!(
        verdict,
        Verdict::FalsePositive | Verdict::Intended | Verdict::Duplicate
    )
}

/// How a triage item's verdict goes into `known.json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Registered {
    /// Not at all: no verdict, `unsure`, or a duplicate whose chain does not end dismissed.
    Skip,
    /// Decided: later runs take it without an agent.
    Decided,
    /// A proposal a person accepts (`known accept`) before it decides anything.
    Proposed,
}

/// How triage item `item`'s verdict goes into `known.json`. A closing verdict under the
/// two-look rule is always a proposal, so a later run never takes a security dismissal on the
/// registry's word alone; so is a verdict two agents disputed (`outcome` `kept_real`). A
/// `duplicate` goes in only when its chain ends on a dismissed finding.
#[must_use]
pub fn registered(state: &RunState, item: &str, outcome: Option<VerifyOutcome>) -> Registered {
    let Some(index) = state.index_of(item) else {
        return Registered::Skip;
    };
    let item = &state.items[index];
    let verdict = match item.verdict {
        Some(v) if item.status == ItemStatus::Done && v != Verdict::Unsure => v,
        _ => return Registered::Skip,
    };
    if verdict == Verdict::Duplicate && crate::chain_end(state, index) != crate::ChainEnd::Dismissed
    {
        return Registered::Skip;
    }
    if (closes(verdict) && item.two_looks()) || outcome == Some(VerifyOutcome::KeptReal) {
        Registered::Proposed
    } else {
        Registered::Decided
    }
}
