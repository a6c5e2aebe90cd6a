//! `submit`'s check of "out of scope: test code": a dismissal that calls a finding's file test
//! code stands only where the project's `test_paths` rule says so and test code is out of scope
//! (reference/routes.md, "Test code"). The run's state and findings are read only for an answer
//! that makes the claim, so every other submission costs nothing more.

use self_repair_engine::{
    ItemKind, RunState, SecurityScope, Submission, TriageResult, Verdict, claims_test_code,
    test_code_pattern, triage_id_of_verify,
};
use self_repair_store::RunDir;

use crate::app_error::AppError;

/// The answers of `submission` that claim test code, by the triage item they decide.
fn claims<'s>(item: &'s str, submission: &'s Submission) -> Vec<(String, &'s TriageResult)> {
    let claimed = |r: &TriageResult| {
        matches!(r.verdict, Verdict::FalsePositive | Verdict::Intended)
            && claims_test_code(&r.reason)
    };
    let triage_item = |id: &str| match ItemKind::of_id(id) {
        Some(ItemKind::Verify) => triage_id_of_verify(id),
        _ => id.to_owned(),
    };
    match submission {
        Submission::Triage(r) | Submission::Verify(r) if claimed(r) => {
            vec![(triage_item(item), r)]
        }
        Submission::TriageBatch(batch) => batch
            .verdicts
            .iter()
            .filter(|v| claimed(&v.result))
            .map(|v| (triage_item(&v.item), &v.result))
            .collect(),
        _ => Vec::new(),
    }
}

/// One problem per answer of `submission` (for `item`) that calls production code test code,
/// or test code out of scope where the project judges it; empty when there is none.
pub fn refused_test_code_claims(
    dir: &RunDir,
    item: &str,
    submission: &Submission,
) -> Result<Vec<String>, AppError> {
    let claims = claims(item, submission);
    if claims.is_empty() {
        return Ok(Vec::new());
    }
    let state: RunState = dir.load_state()?;
    let findings = crate::run::finalize::read_findings(dir)?;
    let config = &state.config;
    let mut problems = Vec::new();
    for (id, _) in claims {
        let Some(triage) = state.item(&id) else {
            continue;
        };
        let Some(record) = triage.finding.and_then(|n| findings.get(n as usize)) else {
            continue;
        };
        let path = &record.finding.path;
        let security = triage.route.as_deref() == Some("security");
        if security && config.security_in_scope.contains(&SecurityScope::Tests) {
            problems.push(format!(
                "{id}: `reason` says out of scope as test code, but this project judges security \
                 findings in test code (`security_in_scope` has \"tests\"): decide it on its code \
                 (`real`, `false_positive`, `intended` or `unsure`)"
            ));
        } else if test_code_pattern(&config.test_paths, path).is_none() {
            problems.push(format!(
                "{id}: `reason` says out of scope as test code, but `{path}` is not test code \
                 under the project's test_paths (its task says `test code: no`): judge it as \
                 production code, by its source, sink and sanitizers (`real`, `false_positive`, \
                 `intended` for another reason, or `unsure`)"
            ));
        }
    }
    Ok(problems)
}
