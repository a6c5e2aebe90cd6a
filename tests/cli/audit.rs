//! `self-repair audit` through the binary: a person's answers (piped to the terminal prompts,
//! or a filled Markdown checklist) become `.self-repair/audit.jsonl`; a disagreement reopens the
//! finding in the registry, the reports and both exports; the gate holds dismissals until the
//! run is audited; and no answer is recorded from inside a coding agent's shell.

use self_repair_app::ExitStatus;

use crate::export::project_with_dismissals;
use crate::harness::TestProject;

/// The audit lines of the project, header left out.
fn audit_lines(project: &TestProject) -> Vec<serde_json::Value> {
    project
        .read(".self-repair/audit.jsonl")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| serde_json::from_str(l).expect("an audit line is JSON"))
        .collect()
}

/// The SARIF results of `export sarif` for run `run`.
fn sarif_results(project: &TestProject, run: &str) -> Vec<serde_json::Value> {
    let out = project
        .terminal(&["export", "sarif", "--run", run])
        .run()
        .success();
    let sarif: serde_json::Value = serde_json::from_str(&out.stdout).expect("SARIF");
    sarif["runs"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["results"].as_array().cloned().unwrap_or_default())
        .collect()
}

/// The results whose finding the run dismissed.
fn dismissed(results: &[serde_json::Value]) -> Vec<&serde_json::Value> {
    results
        .iter()
        .filter(|r| {
            matches!(
                r["properties"]["self-repair"]["verdict"].as_str(),
                Some("false_positive" | "intended")
            )
        })
        .collect()
}

/// The fingerprint self-repair wrote on a SARIF result.
fn fingerprint_of(result: &serde_json::Value) -> &str {
    result["properties"]["self-repair"]["fingerprint"]
        .as_str()
        .unwrap_or_default()
}

#[test]
fn a_disagreement_reopens_the_finding_in_the_registry_the_reports_and_both_exports() {
    let project = project_with_dismissals();
    let before = project
        .terminal(&["export", "github-dismissals", "--run", "r-2"])
        .run()
        .success();
    assert!(
        before.stdout.contains("2 findings to dismiss"),
        "{}",
        before.stdout
    );
    project
        .terminal(&["finalize", "--run", "r-2", "--partial"])
        .run()
        .success();
    let out = project
        .terminal(&["audit", "r-2", "--seed", "1", "--by", "alice"])
        .stdin("d\nthe value reaches a shell: it is real\na\n")
        .run()
        .success();
    assert!(
        out.stdout.contains("[1/2]") && out.stdout.contains("[2/2]"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("audit: 1 of 2 audited dismissals wrong"),
        "{}",
        out.stdout
    );
    let lines = audit_lines(&project);
    assert_eq!(lines.len(), 2);
    let reopened: Vec<&serde_json::Value> =
        lines.iter().filter(|l| l["answer"] == "disagree").collect();
    assert_eq!(reopened.len(), 1);
    let fingerprint = reopened[0]["fingerprint"].as_str().unwrap().to_owned();
    assert_eq!(reopened[0]["label"], "real");
    assert_eq!(reopened[0]["by"], "alice");
    // The registry: real, with the person's reason; no later run reuses the dismissal.
    let known = project.known();
    let entry = &known["entries"][fingerprint.as_str()];
    assert_eq!(entry["verdict"], "real", "{known}");
    assert_eq!(entry["source"], "audit");
    assert!(
        entry["reason"]
            .as_str()
            .unwrap()
            .contains("reaches a shell")
    );
    // SARIF: the reopened finding is no longer suppressed, the other still is.
    let results = sarif_results(&project, "r-2");
    let reopened_result = results
        .iter()
        .find(|r| fingerprint_of(r) == fingerprint)
        .expect("the reopened finding is exported");
    assert!(
        reopened_result.get("suppressions").is_none(),
        "{reopened_result}"
    );
    assert_eq!(
        reopened_result["properties"]["self-repair"]["verdict"],
        "real"
    );
    assert_eq!(
        reopened_result["properties"]["self-repair"]["decidedBy"],
        "audit"
    );
    assert!(results.iter().any(|r| r.get("suppressions").is_some()));
    // github-dismissals: one dismissal fewer.
    let after = project
        .terminal(&["export", "github-dismissals", "--run", "r-2"])
        .run()
        .success();
    assert!(
        after.stdout.contains("1 finding to dismiss"),
        "{}",
        after.stdout
    );
    // The run's report.md shows the audit (the run was finalized: its reports are rewritten).
    let report = project.read(".self-repair/runs/r-2/report.md");
    assert!(report.contains("## Audit by a person"), "{report}");
    assert!(report.contains("| all | 2 | 1 |"), "{report}");
    // A later run reads the finding from the registry as real.
    project
        .terminal(&["start", "codeql.sarif", "--run-id", "r-3", "--replace"])
        .run()
        .success();
    let status = project
        .terminal(&["status", "--run", "r-2"])
        .run()
        .success();
    assert!(
        status
            .stdout
            .contains("audit: 1 of 2 audited dismissals wrong"),
        "{}",
        status.stdout
    );
    // eval reads the audit labels with no --labels.
    let eval = project
        .terminal(&["eval", "r-2", "--model", "scripted"])
        .run()
        .success();
    assert!(
        eval.stdout.contains(".self-repair/audit.jsonl"),
        "{}",
        eval.stdout
    );
    assert!(eval.stdout.contains("audit: 1 of 2"), "{}", eval.stdout);
    let compare = project
        .terminal(&["runs", "--compare", "r-2", "r-3"])
        .run()
        .success();
    assert!(
        compare
            .stdout
            .contains("r-2: 1 of 2 audited dismissals wrong"),
        "{}",
        compare.stdout
    );
}

#[test]
fn the_terminal_audit_resumes_where_the_person_stopped() {
    let project = project_with_dismissals();
    let first = project
        .terminal(&["audit", "r-2"])
        .stdin("a\nq\n")
        .run()
        .success();
    assert!(
        first.stdout.contains("1 answered: stopped"),
        "{}",
        first.stdout
    );
    let record = project.read(".self-repair/runs/r-2/audit.json");
    let second = project
        .terminal(&["audit", "r-2"])
        .stdin("s\n")
        .run()
        .success();
    assert!(
        second.stdout.contains("1 findings to audit"),
        "{}",
        second.stdout
    );
    assert!(
        project
            .read(".self-repair/runs/r-2/audit.json")
            .lines()
            .count()
            >= record.lines().count()
    );
    assert!(
        project
            .read(".self-repair/runs/r-2/audit.json")
            .contains("\"skipped\"")
    );
    // The skipped one is asked again; answered, nothing is left.
    project
        .terminal(&["audit", "r-2"])
        .stdin("a\n")
        .run()
        .success();
    let done = project.terminal(&["audit", "r-2"]).run().success();
    assert!(
        done.stdout
            .contains("every finding of run r-2's sample is answered"),
        "{}",
        done.stdout
    );
    assert_eq!(audit_lines(&project).len(), 2);
}

#[test]
fn the_checklist_round_trips_and_a_bad_one_records_nothing() {
    let project = project_with_dismissals();
    let wrote = project
        .terminal(&["audit", "r-2", "--write", "audit.md"])
        .run()
        .success();
    assert!(
        wrote.stdout.contains("wrote audit.md: 2 findings"),
        "{}",
        wrote.stdout
    );
    let checklist = project.read("audit.md");
    assert_eq!(checklist.matches("- [ ] agree").count(), 2);
    assert!(checklist.contains("known registry"), "{checklist}");
    // Two boxes on one finding: refused, with its line, and nothing recorded.
    let twice = checklist
        .replacen("- [ ] agree", "- [x] agree", 1)
        .replacen("- [ ] skip", "- [x] skip", 1);
    project.write("twice.md", &twice);
    let refused = project
        .terminal(&["audit", "r-2", "--read", "twice.md"])
        .run()
        .code(ExitStatus::Usage);
    assert!(
        refused.stderr.contains("two boxes ticked"),
        "{}",
        refused.stderr
    );
    assert!(!project.path().join(".self-repair/audit.jsonl").exists());
    // One agreed, one disagreed with a reason on the next line.
    let filled = checklist.replacen("- [ ] agree", "- [x] agree", 1);
    let at = filled.rfind("- [ ] disagree, reason: ").unwrap();
    let filled = format!(
        "{}- [x] disagree, reason:\n  the password is a real credential{}",
        &filled[..at],
        &filled[at + "- [ ] disagree, reason: ".len()..]
    );
    project.write("audit.md", &filled);
    let read = project
        .terminal(&["audit", "r-2", "--read", "audit.md"])
        .run()
        .success();
    assert!(
        read.stdout.contains("1 agreed, 1 disagreed, 0 skipped"),
        "{}",
        read.stdout
    );
    let lines = audit_lines(&project);
    assert_eq!(lines.len(), 2);
    let disagreed = lines.iter().find(|l| l["answer"] == "disagree").unwrap();
    assert_eq!(disagreed["note"], "the password is a real credential");
    // Written again, the checklist is empty: every finding is answered.
    project
        .terminal(&["audit", "r-2", "--write", "again.md"])
        .run()
        .success();
    assert!(!project.read("again.md").contains("- [ ] agree"));
}

#[test]
fn audit_records_no_answer_inside_a_coding_agent_s_shell() {
    let project = project_with_dismissals();
    for (name, value) in [("CLAUDECODE", "1"), ("CLAUDE_CODE_ENTRYPOINT", "cli")] {
        let refused = project
            .terminal(&["audit", "r-2"])
            .env(name, value)
            .stdin("a\na\n")
            .run()
            .code(ExitStatus::Usage);
        assert!(
            refused.stderr.contains("coding agent"),
            "{}",
            refused.stderr
        );
        assert!(refused.stderr.contains(name), "{}", refused.stderr);
    }
    assert!(!project.path().join(".self-repair/audit.jsonl").exists());
    // Writing the checklist records nothing, so it is allowed; reading it back is not.
    project
        .terminal(&["audit", "r-2", "--write", "audit.md"])
        .env("CLAUDECODE", "1")
        .run()
        .success();
    let filled = project
        .read("audit.md")
        .replace("- [ ] agree", "- [x] agree");
    project.write("audit.md", &filled);
    project
        .terminal(&["audit", "r-2", "--read", "audit.md"])
        .env("CLAUDECODE", "1")
        .run()
        .code(ExitStatus::Usage);
    assert!(!project.path().join(".self-repair/audit.jsonl").exists());
}

#[test]
fn the_audit_gate_holds_dismissals_until_a_person_audited_the_run() {
    let project = project_with_dismissals();
    project.write(
        ".self-repair/config.json",
        r#"{"audit": {"gate": true, "size": 2}}"#,
    );
    let results = sarif_results(&project, "r-2");
    assert!(
        dismissed(&results)
            .iter()
            .all(|r| r.get("suppressions").is_none())
    );
    let held: Vec<&serde_json::Value> = results
        .iter()
        .filter(|r| r["properties"]["self-repair"]["audit"] == "unaudited")
        .collect();
    assert_eq!(held.len(), 2, "{results:?}");
    let refused = project
        .terminal(&["export", "github-dismissals", "--run", "r-2"])
        .run()
        .code(ExitStatus::Usage);
    assert!(
        refused.stderr.contains("self-repair audit r-2")
            && refused.stderr.contains("0 are answered"),
        "{}",
        refused.stderr
    );
    let status = project
        .terminal(&["status", "--run", "r-2"])
        .run()
        .success();
    assert!(status.stdout.contains("audit gate"), "{}", status.stdout);
    project
        .terminal(&["audit", "r-2"])
        .stdin("a\na\n")
        .run()
        .success();
    let results = sarif_results(&project, "r-2");
    assert_eq!(
        dismissed(&results)
            .iter()
            .filter(|r| r.get("suppressions").is_some())
            .count(),
        2
    );
    project
        .terminal(&["export", "github-dismissals", "--run", "r-2"])
        .run()
        .success();
    // Turned off, the gate holds nothing.
    project.write(".self-repair/config.json", r#"{"audit": {"gate": false}}"#);
    std::fs::remove_file(project.path().join(".self-repair/audit.jsonl")).unwrap();
    project
        .terminal(&["export", "github-dismissals", "--run", "r-2"])
        .run()
        .success();
}

/// Issue 48: a low-confidence `real` whose blind second look dismissed it ends `unsure`, never
/// closed, so no audit sample holds it; `audit` says how many such findings wait for a person.
#[test]
fn audit_names_the_findings_two_investigators_disagreed_on() {
    let project = TestProject::new();
    let findings: Vec<String> = (1..=2)
        .map(|n| {
            serde_json::json!({"tool": "ruff", "rule_id": "E711", "level": "warning",
                "message": "Comparison to `None` should be `cond is None`",
                "path": format!("app/c{n}.py"), "line": 1})
            .to_string()
        })
        .collect();
    project.write("findings.jsonl", &findings.join("\n"));
    for n in 1..=2 {
        project.write(&format!("app/c{n}.py"), "OK = VALUE == None\n");
    }
    project.write(
        ".self-repair/config.json",
        r#"{"triage_batch": 2, "survey_min": 0}"#,
    );
    project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-test"])
        .run()
        .success();
    let submit = |item: &str, body: serde_json::Value| {
        project
            .cmd(&["submit", item])
            .stdin(body.to_string())
            .run()
            .success();
    };
    let dispatched = project.stop("s1", &[]);
    assert!(
        dispatched.stdout.contains("tb-00001"),
        "{}",
        dispatched.stdout
    );
    let first = |item: &str| {
        serde_json::json!({"item": item, "verdict": "real", "root_cause": "None compared by ==",
            "confidence": 0.6, "reason": "the comparison may call a custom __eq__"})
    };
    submit(
        "tb-00001",
        serde_json::json!({"verdicts": [first("t-00001"), first("t-00002")]}),
    );
    let second_looks = project.stop("s1", &[]);
    assert!(
        second_looks.stdout.contains("tb-00002"),
        "{}",
        second_looks.stdout
    );
    submit(
        "tb-00002",
        serde_json::json!({"verdicts": [
            {"item": "vf-00001", "verdict": "false_positive", "root_cause": "style only",
             "confidence": 0.9, "reason": "VALUE is an int: == None is only style"},
            {"item": "vf-00002", "verdict": "real", "root_cause": "None compared by ==",
             "confidence": 0.9, "reason": "VALUE may define __eq__"}]}),
    );
    project.stop("s1", &[]);
    let findings = project
        .cmd(&["status", "--findings"])
        .run()
        .success()
        .stdout;
    assert!(findings.contains("-> disputed"), "{findings}");
    let figures = project
        .cmd(&["audit", "r-test", "--figures"])
        .run()
        .success()
        .stdout;
    assert!(
        figures
            .contains("1 finding(s) two investigators disagreed on are unsure, not in the sample"),
        "{figures}"
    );
}
