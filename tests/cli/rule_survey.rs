//! The rule survey through the binary: one `rs-` item per rule with enough findings, its
//! policy checked by spot checks, and every finding it decided shown as `by: survey` (with the
//! survey and its spot checks) in `report.json` and `status --findings`.

use serde_json::Value;

use crate::harness::{TestProject, filters, jsonl_findings};
use crate::pipeline::drive;
use crate::scripted_agent::ScriptedAgent;

#[test]
fn surveyed_rules_are_decided_by_their_policy_after_two_spot_checks_each() {
    let project = TestProject::new();
    // 60 findings, 12 of each of five rules; eqeqeq is scripted false_positive, the rest real.
    project.write("findings.jsonl", &jsonl_findings(60));
    project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-test"])
        .run()
        .success();
    let settings = filters(&project);
    let _guard = settings.bind_to_scope();
    // The surveyor's task: the rule, its files, the analyzer's fix, the sample with its code.
    let task = project.cmd(&["show", "rs-00001"]).run().success().stdout;
    insta::assert_snapshot!("rule_survey_task", task);
    let agent = ScriptedAgent {
        project: &project,
        run: "r-test".into(),
    };
    let driven = drive(&project, &agent, "s1", usize::MAX);
    assert!(driven.final_message.is_some(), "the run completed");
    let state = crate::harness::run_state(&project, "r-test");
    assert_eq!(state.surveys.len(), 5);
    assert!(
        state
            .surveys
            .iter()
            .all(|s| s.stage == self_repair_engine::SurveyStage::Applied),
        "{:?}",
        state.surveys
    );
    // Five surveys and one batch of their ten spot checks replace eight batches of triage.
    let triage_launches = driven
        .launches
        .iter()
        .filter(|l| l.starts_with("rs-") || l.starts_with("tb-") || l.starts_with("t-"))
        .count();
    assert_eq!(triage_launches, 5 + 2, "{:?}", driven.launches);

    let report: Value =
        serde_json::from_str(&project.read(".self-repair/runs/r-test/report.json")).unwrap();
    let findings = report["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 60);
    let by = |who: &str| {
        findings
            .iter()
            .filter(|f| f["decided_by"] == who)
            .collect::<Vec<_>>()
    };
    assert_eq!(by("survey").len(), 50);
    assert_eq!(by("agent").len(), 10);
    for f in by("survey") {
        let survey = f["survey"].as_str().expect("the survey item");
        let record = state.surveys.iter().find(|s| s.id == survey).unwrap();
        let checks: Vec<&str> = f["spot_checks"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(checks, record.spot_checks, "{f}");
        assert!(f["verdict"].is_string() && f["reason"].is_string(), "{f}");
        if f["rule_id"] == "eqeqeq" {
            assert_eq!(f["verdict"], "false_positive");
            assert!(
                f["config_change"].as_str().unwrap().contains("eqeqeq"),
                "{f}"
            );
        } else {
            assert_eq!(f["verdict"], "real");
            assert!(f.get("config_change").is_none(), "{f}");
        }
    }
    // The spot checks were decided by an agent, in a batch.
    for f in by("agent") {
        assert!(
            f["batch"].as_str().is_some_and(|b| b.starts_with("tb-")),
            "{f}"
        );
    }
    assert_eq!(report["verdicts"]["false_positive"], 12);

    let status = project
        .cmd(&["status", "--findings"])
        .run()
        .success()
        .stdout;
    let first = &state.surveys[0];
    let line = status
        .lines()
        .find(|l| l.starts_with(&first.members[0]))
        .unwrap_or_else(|| panic!("{status}"));
    assert!(
        line.contains(&format!(
            "[survey {}, checked by {}]",
            first.id,
            first.spot_checks.join(" ")
        )),
        "{line}"
    );
}
