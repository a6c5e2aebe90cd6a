//! report.md that leads to the next step (issue 24 item 2): a run whose survey suppressed a
//! rule, whose rule review proposed rules, with security dismissals waiting for `known accept`
//! and tasks with a priority. report.md shows each in its own section with the command, and
//! "Next steps", the closing line and `status` name the commands that apply.

use serde_json::Value;

use crate::harness::{TestProject, filters, jsonl_findings};
use crate::scripted_agent::{ScriptedAgent, dispatch_reason, launched};

/// Drives the run to its end, answering as the scripted agent does except: with
/// `propose_rule`, the rule review proposes one rule; each task writer gives a priority by its
/// group's label. Returns the closing line.
fn finish_with_proposals_and_priorities(project: &TestProject, propose_rule: bool) -> String {
    let agent = ScriptedAgent {
        project,
        run: "r-test".into(),
    };
    for _ in 0..200 {
        let out = project.stop("s1", &[]);
        let answer: Value = serde_json::from_str(&out.stdout).expect("hook stdout is JSON");
        let Some(reason) = dispatch_reason(&answer) else {
            return answer["systemMessage"]
                .as_str()
                .expect("the closing line")
                .to_owned();
        };
        for id in launched(reason).1 {
            if id == "rr-1" && propose_rule {
                let rules = serde_json::json!({"rules": [
                    {"name": "vulture unused functions are dead code", "when": {"tool": "vulture"},
                     "verdict": "real", "reason": "every vulture finding was real",
                     "evidence": ["t-00004"]}]});
                agent.submit(&id, &rules.to_string()).success();
            } else if id.starts_with("tw-") {
                let mut task: Value =
                    serde_json::from_str(&agent.answer(&agent.show(&id))).expect("task json");
                let high = task["title"]
                    .as_str()
                    .is_some_and(|t| t.contains("comparison to None"));
                task["priority"] = if high { "high" } else { "low" }.into();
                agent.submit(&id, &task.to_string()).success();
            } else {
                agent.work(&id).success();
            }
        }
    }
    panic!("the run did not end in 200 stops");
}

#[test]
fn report_md_shows_suppressions_proposals_dismissals_priorities_and_next_steps() {
    let project = TestProject::new();
    // 60 findings, 12 of each of five rules; the scripted agents call eqeqeq a false positive.
    project.write("findings.jsonl", &jsonl_findings(60));
    // Two eqeqeq findings take the security route (never surveyed; their dismissals wait for
    // `known accept`); the other ten are surveyed, and the survey suppresses the rule.
    project.write(
        ".self-repair/rules.json",
        r#"{"schema_version": 1, "rules": [{"id": "eq-sec", "name": "two eqeqeq get a security look",
            "when": {"rule_id": "eqeqeq", "message_regex": "\\((n2|n7)\\)$"}, "route": "security"}]}"#,
    );
    // Likely above the default confirm_above_usd: the report is what this test is about.
    project.write(".self-repair/config.json", r#"{"confirm_above_usd": null}"#);
    project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-test"])
        .run()
        .success();
    let settings = filters(&project);
    let _guard = settings.bind_to_scope();
    let closing = finish_with_proposals_and_priorities(&project, true);
    insta::assert_snapshot!("report_next_steps_closing_line", closing);
    assert!(!closing.contains('\n'), "the closing line is one line");

    let markdown = project.read(".self-repair/runs/r-test/report.md");
    insta::assert_snapshot!("report_next_steps_report_md", markdown);
    for section in [
        "## Next steps",
        "## Tasks by priority",
        "## Suggested analyzer configuration",
        "## Rule proposals",
        "## Waiting for `known accept`",
    ] {
        assert_eq!(
            markdown.matches(section).count(),
            1,
            "{section}\n{markdown}"
        );
    }
    // The survey's exact change, and the command of each proposal, are in report.md.
    assert!(
        markdown.contains(r#"`.eslintrc.json: "rules": {"eqeqeq": "off"}`"#),
        "{markdown}"
    );
    assert!(
        markdown.contains("`self-repair rules accept r-test-p1`"),
        "{markdown}"
    );
    let known: Value = project.known();
    let waiting: Vec<&String> = known["entries"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, e)| e["proposed"] == true)
        .map(|(fingerprint, _)| fingerprint)
        .collect();
    assert_eq!(waiting.len(), 2, "{known}");
    for fingerprint in waiting {
        assert!(
            markdown.contains(&format!("`self-repair known accept {fingerprint}`")),
            "{markdown}"
        );
    }
    // Highest priority first.
    let tasks = &markdown[markdown.find("## Tasks by priority").unwrap()..];
    assert!(
        tasks.find("| high |").unwrap() < tasks.find("| low |").unwrap(),
        "{tasks}"
    );
    let report: Value =
        serde_json::from_str(&project.read(".self-repair/runs/r-test/report.json")).unwrap();
    assert_eq!(
        report["suppressions"][0]["rule"], "eslint eqeqeq",
        "{report}"
    );
    assert_eq!(
        report["suppressions"][0]["items"].as_array().unwrap().len(),
        10
    );

    let status = project.cmd(&["status"]).run().success().stdout;
    let next = status
        .lines()
        .find(|l| l.starts_with("next: "))
        .unwrap_or_else(|| panic!("{status}"));
    insta::assert_snapshot!("report_next_steps_status_next", next);
}

/// A run with nothing left to accept or fix: no next-step sections, and the closing line
/// names no command.
#[test]
fn report_md_of_a_run_with_nothing_to_do_has_no_next_step_sections() {
    let project = TestProject::new();
    project.write(".self-repair/config.json", r#"{"survey_min": 0}"#);
    // Two eqeqeq findings (n2, n7) only: both false positives, nothing real, no task.
    let all = jsonl_findings(10);
    let eqeqeq: Vec<&str> = all.lines().filter(|l| l.contains("eqeqeq")).collect();
    project.write("findings.jsonl", &eqeqeq.join("\n"));
    project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-test"])
        .run()
        .success();
    let closing = finish_with_proposals_and_priorities(&project, false);
    assert!(!closing.contains("Next:"), "{closing}");
    let markdown = project.read(".self-repair/runs/r-test/report.md");
    for section in [
        "## Next steps",
        "## Tasks by priority",
        "## Suggested analyzer configuration",
        "## Rule proposals",
        "## Waiting for `known accept`",
    ] {
        assert!(!markdown.contains(section), "{section}\n{markdown}");
    }
}
