//! A `duplicate` answer is a dismissal (issue 40): it stands only where the finding it names
//! ends dismissed. Once every first look is in, each duplicate's chain is followed in code and
//! the duplicate takes the end of the finding at its end: a duplicate of a real finding is
//! `real` (it reaches aggregation with its target, never silently dropped), of an `unsure` one
//! `unsure`. A cycle, a missing target (a failed one, no verdict) or a target on another route
//! leaves it `real`. A duplicate of a dismissed finding stays `duplicate`, except under the
//! security two-look rule: there it gets its own blind second look, since the looks that
//! dismissed its target never read it ([`crate::verification`]).
//!
//! Pure and deterministic: ends are computed on the state as it is, then applied in item order,
//! so replaying the journal folds to the same verdicts.

use std::collections::HashSet;

use crate::{ItemKind, ItemStatus, RunState, Verdict};

/// Where a duplicate's chain ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChainEnd {
    /// A finding that is real: the duplicate is real.
    Real,
    /// A finding left `unsure`.
    Unsure,
    /// A finding dismissed (`false_positive` or `intended`).
    Dismissed,
    /// The chain breaks: a cycle, a target that is no finding of the run, has no verdict, or
    /// is on another route. The duplicate is `real`.
    Broken,
}

/// Follows the chain of triage item `index` (answered `duplicate`) to its end: at most one step
/// per triage item.
#[must_use]
pub fn chain_end(state: &RunState, index: usize) -> ChainEnd {
    let triage = state.triage_items as usize;
    let Some(start) = state.items.get(index) else {
        return ChainEnd::Broken;
    };
    let mut seen = HashSet::from([index]);
    let mut current = start;
    for _ in 0..=triage {
        let Some(next) = current
            .duplicate_of()
            .and_then(|target| state.index_of(target))
            .filter(|&i| i < triage)
        else {
            return ChainEnd::Broken;
        };
        let target = &state.items[next];
        if !seen.insert(next)
            || target.kind != ItemKind::Triage
            || target.route != start.route
            || target.status != ItemStatus::Done
        {
            return ChainEnd::Broken;
        }
        match target.verdict {
            Some(Verdict::Duplicate) => current = target,
            Some(Verdict::Real) => return ChainEnd::Real,
            Some(Verdict::Unsure) => return ChainEnd::Unsure,
            Some(Verdict::FalsePositive | Verdict::Intended) => return ChainEnd::Dismissed,
            None => return ChainEnd::Broken,
        }
    }
    ChainEnd::Broken
}

/// Settles every `duplicate` whose chain ends elsewhere than on a dismissal, and asks for the
/// second looks the two-look rule needs. Returns whether it asked for any: then triage goes on.
pub(crate) fn resolve(state: &mut RunState) -> bool {
    let triage = state.triage_items as usize;
    let ends: Vec<(usize, ChainEnd)> = (0..triage.min(state.items.len()))
        .filter(|&i| {
            let item = &state.items[i];
            item.kind == ItemKind::Triage
                && item.status == ItemStatus::Done
                && item.verdict == Some(Verdict::Duplicate)
        })
        .map(|i| (i, chain_end(state, i)))
        .collect();
    let mut asked = false;
    for (index, end) in ends {
        let item = &mut state.items[index];
        match end {
            ChainEnd::Real | ChainEnd::Broken => item.verdict = Some(Verdict::Real),
            ChainEnd::Unsure => item.verdict = Some(Verdict::Unsure),
            ChainEnd::Dismissed if item.two_looks() => {
                if crate::verification::request_for_duplicate(state, index) {
                    asked = true;
                } else {
                    // Its one second look is spent: one dismissal decides nothing.
                    state.items[index].verdict = Some(Verdict::Unsure);
                }
            }
            ChainEnd::Dismissed => {}
        }
    }
    asked
}

#[cfg(test)]
#[path = "duplicate_chain_tests.rs"]
mod tests;
