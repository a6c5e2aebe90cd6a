//! What a finalized run left for a person to accept, read from the store (`rules.json`,
//! `known.json`), and the next steps it makes: report.md, the closing line and `status` show
//! them with the commands.

use std::path::Path;

use self_repair_classify::{KnownRegistry, Rule, RuleBook, RuleStatus};
use self_repair_engine::RunState;
use self_repair_report::{KnownProposal, NextSteps, RuleProposal, Suppression};
use self_repair_store::RunDir;

/// `.self-repair/`, the folder above `runs/<id>/`.
fn store_of(dir: &RunDir) -> Option<&Path> {
    dir.path().parent()?.parent()
}

/// The run's rule proposals still `proposed` in `rules.json`, and its dismissals `known.json`
/// keeps as proposals. A store file that does not parse gives none (`rules list` and `known
/// list` say what is wrong with it).
pub(crate) fn run_proposals(dir: &RunDir, run: &str) -> (Vec<RuleProposal>, Vec<KnownProposal>) {
    let Some(store) = store_of(dir) else {
        return (Vec::new(), Vec::new());
    };
    let rules = RuleBook::load(store)
        .map(|book| {
            book.rules
                .iter()
                .filter(|r| r.source == run && r.status == RuleStatus::Proposed)
                .map(rule_proposal)
                .collect()
        })
        .unwrap_or_default();
    let known = KnownRegistry::load(store)
        .map(|registry| {
            registry
                .entries
                .iter()
                .filter(|(_, e)| e.proposed && e.source == run)
                .map(|(fingerprint, e)| KnownProposal {
                    fingerprint: fingerprint.clone(),
                    item: e.item.clone(),
                    verdict: e.verdict.as_str().to_owned(),
                    summary: e.summary.clone(),
                    reason: e.reason.clone(),
                })
                .collect()
        })
        .unwrap_or_default();
    (rules, known)
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
    let (rules, known) = run_proposals(dir, &state.run);
    NextSteps {
        run: state.run.clone(),
        tasks: state.tasks.len(),
        not_reproduced: 0,
        rule_proposals: rules.len(),
        known_proposals: known.len(),
        config_changes: Suppression::of(state).len(),
    }
}

/// `line` followed by the run's next steps, when any apply.
pub(crate) fn with_next_steps(dir: &RunDir, state: &RunState, line: &str) -> String {
    match next_steps(dir, state).line() {
        Some(next) => format!("{line} {next}"),
        None => line.to_owned(),
    }
}
