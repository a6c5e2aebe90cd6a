//! The task a fix works on: found by any spelling of its id, with its group's findings, their
//! files and tools, and whether the analyzer's safe fixes (and their edits) cover them all.

use self_repair_engine::{
    Config, FindingRecord, Group, Intake, Occurrence, PlanDepth, RunState, TaskRecord,
};
use self_repair_fix::{FixError, TaskTarget};

fn group(id: &str, members: &[&str]) -> Group {
    Group {
        id: id.to_owned(),
        label: format!("label {id}"),
        root_cause: "cause".to_owned(),
        members: members.iter().map(|m| (*m).to_owned()).collect(),
        planned: true,
        depth: PlanDepth::default(),
    }
}

fn task(id: &str, group: &str) -> TaskRecord {
    TaskRecord {
        group: group.to_owned(),
        task_id: id.to_owned(),
        file: format!("backlog/tasks/{id}.md"),
        title: format!("title of {id}"),
        existing: false,
        priority: None,
    }
}

fn state(groups: Vec<Group>, tasks: Vec<TaskRecord>) -> RunState {
    let mut state = RunState::new(
        "r1".to_owned(),
        0,
        None,
        Config::default(),
        Intake::default(),
        Vec::new(),
    );
    state.groups = groups;
    state.tasks = tasks;
    state
}

/// A record of `tool`'s finding in `path`, investigated by `item`, with `fix` as its
/// `"fix"` field (JSON) when given.
fn record(
    tool: &str,
    path: &str,
    item: Option<&str>,
    fix: Option<serde_json::Value>,
) -> FindingRecord {
    let mut finding = serde_json::json!({
        "tool": tool, "rule_id": "R1", "message": "m", "path": path});
    if let Some(fix) = fix {
        finding["fix"] = fix;
    }
    let mut record = FindingRecord::new(
        format!("{tool}-{path}"),
        serde_json::from_value(finding).unwrap(),
    );
    record.item = item.map(str::to_owned);
    record
}

fn safe_fix_with_edits(edits: usize) -> serde_json::Value {
    let edit =
        serde_json::json!({"line": 1, "lines": "x\n", "start": 0, "end": 1, "replacement": ""});
    serde_json::json!({"applicability": "safe", "edits": vec![edit; edits]})
}

fn target(findings: Vec<FindingRecord>) -> TaskTarget {
    TaskTarget {
        task: task("task-1", "g1"),
        group: group("g1", &["t1"]),
        findings,
    }
}

#[test]
fn a_task_is_found_by_any_spelling_with_its_group_s_findings_only() {
    let state = state(
        vec![group("g1", &["t1", "t3"]), group("g2", &["t2"])],
        vec![task("task-1", "g1"), task("task-2", "g2")],
    );
    let findings = [
        record("ruff", "a.py", Some("t1"), None),
        record("ruff", "b.py", Some("t2"), None),
        record("mypy", "c.py", Some("t3"), None),
        record("ruff", "d.py", None, None),
    ];
    for id in ["task-1", "TASK-1", "1", " Task-1 "] {
        let found = TaskTarget::find(&state, &findings, id).unwrap();
        assert_eq!(found.task.task_id, "task-1", "{id}");
        assert_eq!(found.group.id, "g1", "{id}");
        let paths: Vec<&str> = found
            .findings
            .iter()
            .map(|r| r.finding.path.as_str())
            .collect();
        assert_eq!(paths, ["a.py", "c.py"], "{id}");
    }
    let second = TaskTarget::find(&state, &findings, "task-2").unwrap();
    assert_eq!(second.group.id, "g2");
    assert_eq!(second.findings.len(), 1);
}

#[test]
fn a_task_not_found_says_which_tasks_the_run_has_or_that_it_has_none() {
    let findings: [FindingRecord; 0] = [];
    let cases: [(RunState, &str, &str); 3] = [
        (
            state(
                vec![group("g1", &[])],
                vec![task("task-1", "g1"), task("task-2", "g1")],
            ),
            "task-9",
            "no task `task-9` in run r1: its tasks are task-1, task-2",
        ),
        (
            state(Vec::new(), Vec::new()),
            "task-1",
            "run r1 wrote no task: finish its triage first (`self-repair status --run r1`)",
        ),
        (
            state(vec![group("g1", &[])], vec![task("task-1", "g7")]),
            "task-1",
            "task task-1 names group g7, which run r1 does not hold: run `self-repair doctor --run r1`",
        ),
    ];
    for (state, id, said) in cases {
        match TaskTarget::find(&state, &findings, id) {
            Err(FixError::NotFound(message)) => assert_eq!(message, said),
            other => panic!("{id}: {other:?}"),
        }
    }
}

#[test]
fn the_target_s_files_are_every_finding_s_path_and_occurrences_once() {
    let mut first = record("ruff", "b.py", Some("t1"), None);
    first.occurrences = vec![
        Occurrence {
            path: "b.py".to_owned(),
            line: None,
            column: None,
        },
        Occurrence {
            path: "c/d.py".to_owned(),
            line: Some(3),
            column: None,
        },
    ];
    let target = target(vec![first, record("mypy", "a.py", Some("t1"), None)]);
    let files: Vec<String> = target.files().into_iter().collect();
    assert_eq!(files, ["a.py", "b.py", "c/d.py"]);
    let tools: Vec<String> = target.tools().into_iter().collect();
    assert_eq!(tools, ["mypy", "ruff"]);
    assert!(self::target(Vec::new()).files().is_empty());
    assert!(self::target(Vec::new()).tools().is_empty());
}

#[test]
fn safe_fixes_and_their_edits_must_cover_every_finding() {
    let unsafe_fix = serde_json::json!({"applicability": "unsafe"});
    let safe_fix = serde_json::json!({"applicability": "safe"});
    // (each finding's fix, all_safe_fixes, all_fix_edits)
    let cases: [(Vec<Option<serde_json::Value>>, bool, bool); 7] = [
        (Vec::new(), false, false),
        (vec![None], false, false),
        (vec![Some(unsafe_fix.clone())], false, false),
        (vec![Some(safe_fix.clone())], true, false),
        (vec![Some(safe_fix_with_edits(2))], true, true),
        (
            vec![Some(safe_fix_with_edits(1)), Some(safe_fix.clone())],
            true,
            false,
        ),
        (vec![Some(safe_fix_with_edits(1)), None], false, false),
    ];
    for (fixes, all_safe, all_edits) in cases {
        let shown = format!("{fixes:?}");
        let findings = fixes
            .into_iter()
            .enumerate()
            .map(|(i, fix)| record("ruff", &format!("{i}.py"), Some("t1"), fix))
            .collect();
        let target = target(findings);
        assert_eq!(target.all_safe_fixes(), all_safe, "{shown}");
        assert_eq!(target.all_fix_edits(), all_edits, "{shown}");
    }
}
