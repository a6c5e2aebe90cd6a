//! A rule survey's `suppress` policy as report.md's "Suggested analyzer configuration" shows
//! it: the exact configuration change its agent gave, and the findings the policy decided.

use self_repair_engine::{RunState, SurveyPolicy, SurveyStage};
use serde::Serialize;

/// One rule the run suggests silencing in the analyzer's configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Suppression {
    /// The survey item (`rs-00002`).
    pub survey: String,
    /// The analyzer and its rule (`ruff D203`).
    pub rule: String,
    /// The exact change (`ignore = ["D203"]`), when the surveyor gave one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config_change: Option<String>,
    /// `false_positive` or `intended`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<String>,
    pub reason: String,
    /// The triage items of the rule the policy covers (its spot checks included).
    pub items: Vec<String>,
}

impl Suppression {
    /// The applied `suppress` policies of the run's surveys, in survey order.
    pub fn of(state: &RunState) -> Vec<Suppression> {
        state
            .surveys
            .iter()
            .filter(|s| s.stage == SurveyStage::Applied)
            .filter_map(|s| {
                let answer = s.answer.as_ref()?;
                (answer.policy == SurveyPolicy::Suppress).then(|| Suppression {
                    survey: s.id.clone(),
                    rule: s.rule.clone(),
                    config_change: answer.config_change.clone(),
                    verdict: answer.verdict.map(|v| v.as_str().to_owned()),
                    reason: answer.reason.clone(),
                    items: s.members.clone(),
                })
            })
            .collect()
    }
}
