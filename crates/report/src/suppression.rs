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
                    items: s.members.to_vec(),
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::Suppression;
    use crate::RunReport;

    fn report_with(change: Option<&str>) -> RunReport<'static> {
        RunReport {
            suppressions: vec![Suppression {
                survey: "rs-00001".to_owned(),
                rule: "ruff D203".to_owned(),
                config_change: change.map(str::to_owned),
                verdict: Some("intended".to_owned()),
                reason: "the project uses D211".to_owned(),
                items: vec!["t-00001".to_owned()],
            }],
            ..crate::run_report::tests::empty_report()
        }
    }

    #[test]
    fn a_one_line_change_is_inline_code() {
        let markdown = report_with(Some(r#"ignore = ["D203"]"#)).render_markdown();
        assert!(
            markdown.contains("- change: `ignore = [\"D203\"]`\n"),
            "{markdown}"
        );
        assert!(markdown.contains("1 suggested change"), "{markdown}");
    }

    #[test]
    fn a_change_of_several_lines_or_with_backticks_is_fenced_longer_than_its_backticks() {
        let change = "[tool.ruff.lint]\nignore = [\"D203\"]  # ```";
        let markdown = report_with(Some(change)).render_markdown();
        assert!(
            markdown.contains(&format!("````text\n{change}\n````")),
            "{markdown}"
        );
    }

    #[test]
    fn a_suppress_answer_without_a_change_says_so() {
        let markdown = report_with(None).render_markdown();
        assert!(
            markdown.contains("- change: (the surveyor gave none)"),
            "{markdown}"
        );
    }

    /// Only an applied survey whose answer is `suppress` suggests a change, with its answer's
    /// words and the rule's items; a survey still checking, another policy or no answer do not.
    #[test]
    fn of_keeps_the_applied_suppress_policies_in_survey_order() {
        use self_repair_engine::{
            Config, Intake, SurveyPolicy, SurveyRecord, SurveyResult, SurveyStage, Verdict,
            create_run,
        };
        let survey = |id: &str, stage: SurveyStage, policy: Option<SurveyPolicy>| SurveyRecord {
            id: id.to_owned(),
            rule: format!("ruff {id}"),
            members: vec!["t-00001".to_owned(), "t-00002".to_owned()].into(),
            sample: Vec::new(),
            spot_checks: Vec::new(),
            stage,
            answer: policy.map(|policy| SurveyResult {
                policy,
                reason: format!("reason {id}"),
                root_cause: None,
                verdict: Some(Verdict::Intended),
                config_change: Some(format!("ignore = [\"{id}\"]")),
                route: None,
            }),
            dropped: None,
        };
        let mut state = create_run(
            "r".into(),
            0,
            Config::default(),
            Intake::default(),
            None,
            &[],
        );
        state.surveys = vec![
            survey("rs-00001", SurveyStage::Applied, Some(SurveyPolicy::FixAll)),
            survey(
                "rs-00002",
                SurveyStage::Applied,
                Some(SurveyPolicy::Suppress),
            ),
            survey(
                "rs-00003",
                SurveyStage::Checking,
                Some(SurveyPolicy::Suppress),
            ),
            survey("rs-00004", SurveyStage::Applied, None),
            survey(
                "rs-00005",
                SurveyStage::Applied,
                Some(SurveyPolicy::TriageEach),
            ),
            survey(
                "rs-00006",
                SurveyStage::Applied,
                Some(SurveyPolicy::Suppress),
            ),
        ];
        let suppressions = Suppression::of(&state);
        let surveys: Vec<&str> = suppressions.iter().map(|s| s.survey.as_str()).collect();
        assert_eq!(surveys, ["rs-00002", "rs-00006"]);
        assert_eq!(
            suppressions[0],
            Suppression {
                survey: "rs-00002".to_owned(),
                rule: "ruff rs-00002".to_owned(),
                config_change: Some("ignore = [\"rs-00002\"]".to_owned()),
                verdict: Some("intended".to_owned()),
                reason: "reason rs-00002".to_owned(),
                items: vec!["t-00001".to_owned(), "t-00002".to_owned()],
            }
        );
    }
}
