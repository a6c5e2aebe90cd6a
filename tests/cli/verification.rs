//! Verified verdicts (issue 14 item 1), through the binary: a low-confidence dismissal is
//! checked one tier up with its reason shown as a claim, and where the two agents disagree the
//! finding stays real, both answers in `report.json` and `status --findings`, and `known.json`
//! only proposes it.

use serde_json::Value;

use crate::harness::{TestProject, filters, jsonl_findings};
use crate::pipeline::drive;
use crate::scripted_agent::ScriptedAgent;

#[test]
fn a_run_whose_only_disagreement_keeps_the_finding_real_with_both_answers() {
    let project = TestProject::new();
    project.write("findings.jsonl", &jsonl_findings(10));
    // The scripted investigator dismisses eqeqeq with confidence 0.9: below 0.95, a claim to
    // check, which the scripted verifier finds wrong.
    project.write(
        ".self-repair/config.json",
        r#"{"triage_batch": 1, "verify_below": 0.95}"#,
    );
    project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-test"])
        .run()
        .success();
    let agent = ScriptedAgent {
        project: &project,
        run: "r-test".into(),
    };
    let run = drive(&project, &agent, "s1", usize::MAX);
    let verifiers: Vec<&String> = run
        .launches
        .iter()
        .filter(|id| id.starts_with("vf-"))
        .collect();
    assert_eq!(verifiers, ["vf-00003", "vf-00008"], "{:?}", run.launches);

    // The verifier's task: the first answer as a claim to check, at one tier up.
    let settings = filters(&project);
    let _guard = settings.bind_to_scope();
    let shown = project
        .cmd(&["show", "vf-00003", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(shown["model"], "sonnet");
    assert_eq!(shown["kind"], "verify");
    insta::assert_snapshot!("verify_claim_show", shown["prompt"].as_str().unwrap());

    let report: Value =
        serde_json::from_str(&project.read(".self-repair/runs/r-test/report.json")).unwrap();
    let eqeqeq: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule_id"] == "eqeqeq")
        .collect();
    assert_eq!(eqeqeq.len(), 2);
    for finding in &eqeqeq {
        assert_eq!(finding["verdict"], "real", "{finding}");
        let chain = &finding["verification"];
        assert_eq!(chain["why"], "low_confidence", "{chain}");
        assert_eq!(chain["outcome"], "kept_real");
        assert_eq!(chain["first"]["verdict"], "false_positive");
        assert_eq!(chain["first"]["confidence"], 0.9);
        assert_eq!(chain["second"]["verdict"], "real");
        assert_eq!(chain["second"]["model"], "sonnet");
        assert!(
            chain["first"]["reason"]
                .as_str()
                .unwrap()
                .contains("scripted: eqeqeq")
        );
    }
    // The other eight, `real` at 0.9, below this `verify_below` too, got blind second looks
    // (batched, at the verify tier) that agreed: they stand (issue 48).
    let others: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule_id"] != "eqeqeq")
        .collect();
    assert_eq!(others.len(), 8);
    for finding in others {
        let chain = &finding["verification"];
        assert_eq!(chain["why"], "low_confidence_real", "{finding}");
        assert_eq!(chain["outcome"], "confirmed", "{finding}");
        assert_eq!(chain["second"]["model"], "opus", "{finding}");
        assert_eq!(finding["verdict"], "real", "{finding}");
    }
    let markdown = project.read(".self-repair/runs/r-test/report.md");
    assert!(markdown.contains("## Verified verdicts"), "{markdown}");

    let findings = project
        .cmd(&["status", "--findings"])
        .run()
        .success()
        .stdout;
    assert!(
        findings.contains(
            "verified (low_confidence): t-00003 haiku false_positive (0.90), then vf-00003 sonnet real -> kept_real"
        ),
        "{findings}"
    );

    // The disagreement teaches the next run nothing until a person settles it.
    let known: Value = project.known();
    let disputed: Vec<&Value> = known["entries"]
        .as_object()
        .unwrap()
        .values()
        .filter(|e| e["summary"].as_str().unwrap().contains("eqeqeq"))
        .collect();
    assert_eq!(disputed.len(), 2);
    for entry in disputed {
        assert_eq!(entry["proposed"], true, "{entry}");
        assert_eq!(entry["verdict"], "real");
        assert_eq!(entry["item"].as_str().unwrap().len(), 7);
        assert_eq!(entry["model"], "sonnet", "the verifier decided it: {entry}");
    }
}

/// The two other ways a verifier's task opens: a second look at an `unsure`, and an independent
/// second opinion on a security dismissal, which never shows the first answer.
#[test]
fn a_second_look_shows_what_was_missing_and_a_security_second_opinion_shows_nothing() {
    let project = TestProject::new();
    project.write("findings.jsonl", &jsonl_findings(3));
    project.write(".self-repair/config.json", r#"{"triage_batch": 1}"#);
    project.write(
        ".self-repair/rules.json",
        r#"{"schema_version": 1, "rules": [{"id": "eq-sec", "name": "eqeqeq gets a security look",
            "when": {"rule_id": "eqeqeq"}, "route": "security"}]}"#,
    );
    project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-test"])
        .run()
        .success();
    let agent = ScriptedAgent {
        project: &project,
        run: "r-test".into(),
    };
    project.stop("s1", &[]);
    let answer = |verdict: &str, reason: &str| {
        serde_json::json!({"verdict": verdict, "root_cause": "loose comparison",
            "confidence": 0.95, "reason": reason})
        .to_string()
    };
    agent
        .submit(
            "t-00001",
            &answer("unsure", "cannot tell whether a plugin imports it by name"),
        )
        .success();
    agent
        .submit("t-00002", &answer("real", "the comparison is to None"))
        .success();
    agent
        .submit(
            "t-00003",
            &answer("intended", "both operands are constants set at import"),
        )
        .success();
    let out = project.stop("s1", &[]);
    assert!(
        out.stdout.contains("vf-00001") && out.stdout.contains("vf-00003"),
        "{}",
        out.stdout
    );
    let settings = filters(&project);
    let _guard = settings.bind_to_scope();
    for (item, model) in [("vf-00001", "sonnet"), ("vf-00003", "opus")] {
        let shown = project
            .cmd(&["show", item, "--json"])
            .run()
            .success()
            .json();
        assert_eq!(shown["model"], model, "{item}");
        let prompt = shown["prompt"].as_str().unwrap();
        insta::assert_snapshot!(format!("verify_show_{item}"), prompt);
        if item == "vf-00003" {
            assert!(!prompt.contains("constants set at import"), "{prompt}");
        }
    }
}

/// A batch of second looks, as its agent reads it: the security dismissals of one rule, each
/// listed by its `vf-` id, under "Decide each finding": blind (issue 40), none of the first
/// answers shown nor their direction, not said to share a rule; its schema takes one verdict
/// per `vf-` member.
#[test]
fn a_batch_of_second_looks_shows_each_dismissal_of_the_rule_and_none_of_the_first_answers() {
    let project = TestProject::new();
    let findings: Vec<String> = (1..=4)
        .map(|n| {
            serde_json::json!({"tool": "bandit", "rule_id": "B608", "level": "warning",
                "message": "Possible SQL injection vector through string-based query construction.",
                "path": format!("app/q{n}.py"), "line": 2})
            .to_string()
        })
        .collect();
    project.write("findings.jsonl", &findings.join("\n"));
    for n in 1..=4 {
        project.write(
            &format!("app/q{n}.py"),
            "TABLE = \"users\"\nQUERY = \"SELECT * FROM \" + TABLE\n",
        );
    }
    project.write(
        ".self-repair/config.json",
        r#"{"triage_batch": 2, "survey_min": 0}"#,
    );
    project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-test"])
        .run()
        .success();
    let agent = ScriptedAgent {
        project: &project,
        run: "r-test".into(),
    };
    project.stop("s1", &[]);
    for batch in ["tb-00001", "tb-00002"] {
        let members = agent.show(batch)["output_schema"]["properties"]["verdicts"]["items"]
            ["properties"]["item"]["enum"]
            .clone();
        let verdicts: Vec<Value> = members
            .as_array()
            .unwrap()
            .iter()
            .map(|id| {
                serde_json::json!({"item": id, "verdict": "false_positive",
                    "root_cause": "query from constants", "confidence": 0.95,
                    "reason": "FIRST ANSWER: only module constants reach the query"})
            })
            .collect();
        agent
            .submit(
                batch,
                &serde_json::json!({ "verdicts": verdicts }).to_string(),
            )
            .success();
    }
    let out = project.stop("s1", &[]);
    assert!(out.stdout.contains("tb-00003"), "{}", out.stdout);
    let shown = agent.show("tb-00003");
    assert_eq!(shown["model"], "opus");
    assert_eq!(
        shown["output_schema"]["properties"]["verdicts"]["items"]["properties"]["item"]["enum"],
        serde_json::json!(["vf-00001", "vf-00002", "vf-00003", "vf-00004"])
    );
    let prompt = shown["prompt"].as_str().unwrap();
    assert!(!prompt.contains("FIRST ANSWER"), "{prompt}");
    assert!(!prompt.contains("dismissed"), "{prompt}");
    assert!(!prompt.contains("one rule"), "{prompt}");
    let settings = filters(&project);
    let _guard = settings.bind_to_scope();
    insta::assert_snapshot!("second_looks_batch_show", prompt);
}
