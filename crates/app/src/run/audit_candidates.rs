//! A run's findings as the audit shows them to a person: the verdict that stood (before any
//! audit), its route and tier (as `eval` counts them), every agent's answer and the code.

use std::path::Path;

use self_repair_audit::{AgentAnswer, AuditCandidate};
use self_repair_engine::{FindingRecord, RunState};
use self_repair_eval::ModelSource;
use self_repair_report::{FindingOutcome, RunReport};
use self_repair_store::RunDir;

use crate::run::eval_outcome::{OutcomeInputs, run_outcome};

/// Lines shown either side of the finding's line.
const EXCERPT_RADIUS: u32 = 6;

/// Every decided finding of the run (closed or kept), in the report's order.
pub(crate) fn audit_candidates(
    dir: &RunDir,
    state: &RunState,
    report: &RunReport,
    findings: &[FindingRecord],
) -> Vec<AuditCandidate> {
    let inputs = OutcomeInputs {
        dir,
        state,
        report,
        findings,
    };
    let outcome = run_outcome(
        &inputs,
        String::new(),
        ModelSource::Scripted {
            name: String::new(),
        },
    );
    report
        .findings
        .iter()
        .zip(&outcome.findings)
        .filter_map(|(finding, result)| {
            let verdict = finding.verdict.as_deref()?.to_owned();
            if !matches!(verdict.as_str(), "false_positive" | "intended" | "real") {
                return None;
            }
            Some(AuditCandidate {
                fingerprint: finding.fingerprint.to_string(),
                tool: finding.tool.to_string(),
                rule: finding.rule_id.to_string(),
                path: finding.path.to_string(),
                line: finding.line,
                message: finding.message.to_string(),
                verdict,
                reason: finding.reason.as_deref().unwrap_or_default().to_owned(),
                route: result.route.clone(),
                tier: result.tier.clone(),
                agents: agent_answers(finding),
                excerpt: None,
            })
        })
        .collect()
}

/// Each agent's answer on `finding`, first look first.
fn agent_answers(finding: &FindingOutcome) -> Vec<AgentAnswer> {
    let mut answers = Vec::new();
    if let Some(first) = &finding.rerouted_from {
        answers.push(AgentAnswer {
            who: "first look, asked for another route".to_owned(),
            tier: None,
            verdict: first.verdict.as_str().to_owned(),
            reason: first.reason.clone(),
        });
    }
    if let Some(chain) = &finding.verification {
        for (look, opinion) in [
            ("first look", Some(&chain.first)),
            ("second look", chain.second.as_ref()),
        ] {
            if let Some(opinion) = opinion {
                answers.push(AgentAnswer {
                    who: format!("{look} {}", opinion.by),
                    tier: Some(opinion.model.clone()),
                    verdict: opinion.verdict.clone(),
                    reason: opinion.reason.clone(),
                });
            }
        }
        return answers;
    }
    let who = match &*finding.decided_by {
        "known" => "the known registry (known.json)".to_owned(),
        "rule" => "a rule (rules.json)".to_owned(),
        _ => {
            let by = finding
                .survey
                .as_deref()
                .map(|s| format!("rule survey {s}"))
                .or_else(|| finding.batch.as_deref().map(|b| format!("triage {b}")))
                .or_else(|| finding.item.as_deref().map(|i| format!("triage {i}")));
            by.unwrap_or_else(|| "an agent".to_owned())
        }
    };
    answers.push(AgentAnswer {
        who,
        tier: finding.ran_model.as_deref().map(str::to_owned),
        verdict: finding.verdict.as_deref().unwrap_or_default().to_owned(),
        reason: finding.reason.as_deref().unwrap_or_default().to_owned(),
    });
    answers
}

/// The code around `candidate`'s line, when its file reads inside the project.
pub(crate) fn with_excerpt(root: &Path, candidate: &AuditCandidate) -> AuditCandidate {
    let mut candidate = candidate.clone();
    candidate.excerpt = self_repair_context::snippet(
        root,
        &candidate.path,
        candidate.line.unwrap_or(0),
        EXCERPT_RADIUS,
    )
    .ok()
    .flatten()
    .map(|s| s.render());
    candidate
}
