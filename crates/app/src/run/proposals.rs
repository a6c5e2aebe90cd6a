//! What a finalized run left for a person to accept, read from the store (`rules.json`,
//! `known.json`), and the next steps it makes: report.md, the closing line and `status` show
//! them with the commands.

use std::path::Path;

use self_repair_classify::{KnownEntry, KnownRegistry, Rule, RuleBook, RuleStatus};
use self_repair_engine::RunState;
use self_repair_report::{KnownProposal, NextSteps, RuleProposal, Suppression};
use self_repair_store::RunDir;

/// `.self-repair/`, the folder above `runs/<id>/`.
fn store_of(dir: &RunDir) -> Option<&Path> {
    dir.path().parent()?.parent()
}

/// The proposals a finalized run left in the store: its rules still `proposed` in
/// `rules.json`, and its dismissals `known.json` keeps as proposals.
#[derive(Debug, Clone, Default)]
pub(crate) struct RunProposals {
    pub rules: Vec<RuleProposal>,
    pub known: Vec<KnownProposal>,
}

/// The run's rule proposals still `proposed` in `rules.json`, and its dismissals `known.json`
/// keeps as proposals. A store file that does not parse gives none (`rules list` and `known
/// list` say what is wrong with it). `known.json` is scanned, not parsed whole: only the lines
/// that can be the run's proposals are ([`KnownRegistry::proposals_of`]).
pub(crate) fn run_proposals(dir: &RunDir, run: &str) -> RunProposals {
    let Some(store) = store_of(dir) else {
        return RunProposals::default();
    };
    let known = KnownRegistry::proposals_of(&KnownRegistry::path(store), run)
        .map(|entries| {
            entries
                .iter()
                .map(|(fingerprint, e)| known_proposal(fingerprint, e))
                .collect()
        })
        .unwrap_or_default();
    RunProposals {
        rules: rule_proposals(store, run),
        known,
    }
}

/// [`run_proposals`] with `known.json` as finalize holds it, already loaded.
pub(crate) fn run_proposals_in(store: &Path, known: &KnownRegistry, run: &str) -> RunProposals {
    RunProposals {
        rules: rule_proposals(store, run),
        known: known
            .entries
            .iter()
            .filter(|(_, e)| e.proposed && e.source == run)
            .map(|(fingerprint, e)| known_proposal(fingerprint, e))
            .collect(),
    }
}

/// The run's rules still `proposed` in `rules.json` (none when it does not parse).
fn rule_proposals(store: &Path, run: &str) -> Vec<RuleProposal> {
    RuleBook::load(store)
        .map(|book| {
            book.rules
                .iter()
                .filter(|r| r.source == run && r.status == RuleStatus::Proposed)
                .map(rule_proposal)
                .collect()
        })
        .unwrap_or_default()
}

fn known_proposal(fingerprint: &str, e: &KnownEntry) -> KnownProposal {
    KnownProposal {
        fingerprint: fingerprint.to_owned(),
        item: e.item.clone(),
        verdict: e.verdict.as_str().to_owned(),
        summary: e.summary.clone(),
        reason: e.reason.clone(),
    }
}

fn rule_proposal(rule: &Rule) -> RuleProposal {
    let outcome = rule
        .verdict
        .map(|v| format!("verdict {}", v.as_str()))
        .or_else(|| rule.route.as_ref().map(|r| format!("route {r}")))
        .unwrap_or_default();
    RuleProposal {
        id: rule.id.clone(),
        name: rule.name.clone(),
        outcome,
        reason: rule.reason.clone(),
        matches: rule.measured.as_ref().map(|m| m.matches),
        agreed: rule.measured.as_ref().map(|m| m.agreed),
    }
}

/// The next steps of a finalized run, for the closing line and `status`.
pub(crate) fn next_steps(dir: &RunDir, state: &RunState) -> NextSteps {
    next_steps_of(state, &run_proposals(dir, &state.run))
}

/// [`next_steps`] from the run's proposals already read.
pub(crate) fn next_steps_of(state: &RunState, proposals: &RunProposals) -> NextSteps {
    NextSteps {
        run: state.run.clone(),
        tasks: state.tasks.len(),
        not_reproduced: 0,
        rule_proposals: proposals.rules.len(),
        known_proposals: proposals.known.len(),
        config_changes: Suppression::of(state).len(),
    }
}

/// `line` followed by the run's next steps, when any apply.
pub(crate) fn with_next_steps(dir: &RunDir, state: &RunState, line: &str) -> String {
    with_steps(&next_steps(dir, state), line)
}

/// `line` followed by `steps`, when any apply.
pub(crate) fn with_steps(steps: &NextSteps, line: &str) -> String {
    match steps.line() {
        Some(next) => format!("{line} {next}"),
        None => line.to_owned(),
    }
}
