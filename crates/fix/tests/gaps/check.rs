//! When a task's composite check passes, and when it is "not reproduced".

use self_repair_engine::Finding;
use self_repair_fix::{AnalyzerVerdict, TaskCheck, TestRun, Weakening};

fn finding() -> Finding {
    serde_json::from_value(serde_json::json!({
        "tool": "ruff", "rule_id": "F401", "message": "unused", "path": "a.py"}))
    .unwrap()
}

fn check() -> TaskCheck {
    TaskCheck {
        task_id: "task-1".to_owned(),
        title: "t".to_owned(),
        task_file: "backlog/tasks/task-1.md".to_owned(),
        detectors: vec!["ruff".to_owned()],
        analyzer: AnalyzerVerdict {
            gone: 2,
            remaining: Vec::new(),
            new_in_touched: Vec::new(),
        },
        group_findings: 2,
        tests: Some(TestRun {
            command: vec!["pytest".to_owned()],
            exit_code: 0,
            tail: String::new(),
            duration_ms: 1,
        }),
        weakenings: Vec::new(),
        files_changed: vec!["a.py".to_owned()],
    }
}

#[test]
fn a_check_passes_only_when_every_part_does() {
    assert!(check().passed());
    let mut no_tests = check();
    no_tests.tests = None;
    assert!(
        no_tests.passed(),
        "no test command: the tests do not fail it"
    );
    let mut failing = Vec::new();
    let mut c = check();
    c.files_changed.clear();
    failing.push(("nothing changed, findings gone: not reproduced", c));
    let mut c = check();
    c.analyzer.remaining.push(finding());
    failing.push(("a finding still reported", c));
    let mut c = check();
    c.analyzer.new_in_touched.push(finding());
    failing.push(("a new finding", c));
    let mut c = check();
    if let Some(t) = c.tests.as_mut() {
        t.exit_code = 1;
    }
    failing.push(("tests fail", c));
    let mut c = check();
    c.weakenings.push(Weakening {
        path: "tests/test_a.py".to_owned(),
        reason: "a test deleted".to_owned(),
    });
    failing.push(("a weakening", c));
    for (why, c) in failing {
        assert!(!c.passed(), "{why}");
        assert!(!c.failures().is_empty(), "{why}");
    }
}

#[test]
fn not_reproduced_is_nothing_changed_with_findings_gone() {
    let cases = [(true, 2, true), (true, 0, false), (false, 2, false)];
    for (nothing_changed, gone, not_reproduced) in cases {
        let mut c = check();
        if nothing_changed {
            c.files_changed.clear();
        }
        c.analyzer.gone = gone;
        assert_eq!(
            c.not_reproduced(),
            not_reproduced,
            "{nothing_changed} {gone}"
        );
    }
}
