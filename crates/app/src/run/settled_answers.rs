//! What a triage run settled, read back from its folder: its findings, and each verified
//! finding's chain of answers with the answer that stood. Finalize writes tasks and reports from
//! them; `known.json` keeps the verdicts of any run, finished or not (`kept_verdicts`).

use std::collections::HashMap;

use self_repair_engine::{FindingRecord, ItemStatus, RunState, TriageResult};
use self_repair_store::RunDir;

use crate::app_error::AppError;

/// The run's `findings.json`.
pub fn read_findings(dir: &RunDir) -> Result<Vec<FindingRecord>, AppError> {
    let path = dir.findings_path();
    let bytes = std::fs::read(&path).map_err(AppError::io("read", &path))?;
    serde_json::from_slice(&bytes).map_err(|e| AppError::Io {
        action: "parse",
        path,
        source: std::io::Error::other(e),
    })
}

/// The recorded result of every answered (`done`) triage item, by item id: what a report and
/// the run's `known.json` entries are made from. Finalize reads them once for both, in one read
/// of the journal (`crate::run::journal_answers`), not one file a finding.
pub(crate) fn triage_answers(dir: &RunDir, state: &RunState) -> HashMap<String, TriageResult> {
    crate::run::journal_answers::recorded_triage_answers(dir, state)
}

/// Each verified finding's chain (by triage item), and its entry in `triage` made the answer
/// that stood: the second agent's, with the settled verdict; `unsure` when its verifier never
/// answered (an unconfirmed dismissal hides nothing).
pub(crate) fn verification_chains(
    dir: &RunDir,
    state: &RunState,
    triage: &mut HashMap<String, TriageResult>,
) -> HashMap<String, self_repair_report::Verification> {
    let verifiers = self_repair_engine::verifier_of(state);
    let mut chains = HashMap::new();
    if verifiers.is_empty() {
        // No second look: no batch table to build (100,000 entries at 100,000 findings).
        return chains;
    }
    let batch_of = self_repair_engine::batch_of(state);
    for (id, verifier) in verifiers {
        let Some(first) = triage.get(id).cloned().or_else(|| {
            dir.read_result(id, "json")
                .and_then(|t| serde_json::from_str::<TriageResult>(&t).ok())
        }) else {
            continue;
        };
        let second = (verifier.status == ItemStatus::Done)
            .then(|| dir.read_result(&verifier.id, "json"))
            .flatten()
            .and_then(|t| serde_json::from_str::<TriageResult>(&t).ok());
        let first_by = batch_of.get(id).copied().unwrap_or(id);
        let chain = self_repair_report::Verification::of(
            state,
            verifier,
            first_by,
            &first,
            second.as_ref(),
        );
        let verdict = state.item(id).and_then(|i| i.verdict);
        if let Some(settled) = triage.get_mut(id) {
            match (&second, verdict) {
                (Some(second), Some(verdict)) => {
                    *settled = TriageResult {
                        verdict,
                        ..second.clone()
                    };
                }
                (None, Some(verdict)) if verdict != first.verdict => {
                    settled.verdict = verdict;
                    settled.reason = format!(
                        "not verified: {} ended without an answer; the first answer was {} \
                         ({})",
                        verifier.id,
                        first.verdict.as_str(),
                        first.reason
                    );
                }
                _ => {}
            }
        }
        chains.insert(id.to_owned(), chain);
    }
    chains
}
