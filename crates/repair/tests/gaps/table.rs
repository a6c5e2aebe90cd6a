//! The attempts table and a check run's record: cases the crate's mutation run found untested.

use self_repair_repair::{
    Approach, Attempt, AutofixRecord, CheckPurpose, CheckRecord, CheckRequest, FailureClass,
    FixTier, GitBaseline, RepairState, attempts_table, format_duration, output_tail, resolve_spec,
};

fn state() -> RepairState {
    let request = CheckRequest {
        command: vec!["true".into()],
        ..CheckRequest::default()
    };
    RepairState::new(
        "r".into(),
        0,
        None,
        GitBaseline::default(),
        resolve_spec(&request, None, String::new()).unwrap(),
    )
}

fn check(
    purpose: CheckPurpose,
    attempt: u32,
    class: FailureClass,
    signature: &str,
    ms: u64,
) -> CheckRecord {
    CheckRecord {
        seq: 0,
        purpose,
        attempt,
        exit_code: i32::from(class != FailureClass::Pass) * 2,
        timed_out: false,
        duration_ms: ms,
        signature: signature.into(),
        class,
        tail: String::new(),
        log: String::new(),
        at: 0,
    }
}

fn attempt(n: u32, approach: Approach, files: &[&str], no_change: bool, check: bool) -> Attempt {
    Attempt {
        n,
        item: format!("fix-{n}"),
        tier: FixTier::Main,
        approach,
        asked_at: 0,
        before: String::new(),
        ended_at: Some(1),
        after: None,
        files_changed: files.iter().map(|f| (*f).to_owned()).collect(),
        no_change,
        check: check.then_some(n),
    }
}

#[test]
fn the_attempts_table_shows_every_run_of_the_check_against_the_one_before() {
    use CheckPurpose::{AutofixRecheck, Baseline, Recheck};
    use FailureClass::{Fixable, Pass, Permanent, Transient};
    let mut state = state();
    state.autofix = Some(AutofixRecord {
        exit_code: 0,
        timed_out: false,
        duration_ms: 5,
        files_changed: vec!["a.py".into(), "b.py".into()],
        log: String::new(),
    });
    state.checks = vec![
        check(Baseline, 0, Fixable, "sig-a", 250),
        check(AutofixRecheck, 0, Fixable, "sig-a", 75_000),
        check(Recheck, 1, Transient, "net", 10),
        check(Recheck, 1, Fixable, "sig-a", 10),
        check(Recheck, 2, Fixable, "sig-b", 10),
        check(Recheck, 3, Permanent, "perm", 10),
        check(Recheck, 9, Fixable, "sig-c", 10),
        check(Recheck, 4, Pass, "", 1),
    ];
    state.checks[5].timed_out = true;
    state.attempts = vec![
        attempt(1, Approach::Logic, &["a.py"], false, true),
        attempt(2, Approach::Alternative, &["a", "b", "c", "d"], false, true),
        attempt(3, Approach::Build, &[], true, true),
        attempt(4, Approach::Rethink, &["a", "b", "c"], false, true),
        attempt(5, Approach::Direct, &[], false, false),
    ];
    assert_eq!(
        attempts_table(&state),
        "| attempt | tier | approach | exit | signature | files changed | duration | result |
|---|---|---|---|---|---|---|---|
| baseline | - | - | exit 2 | sig-a | - | 0.25 s | fails |
| autofix | - | - | exit 2 | sig-a | 2 (a.py, b.py) | 75.00 s | same failure |
| 1 | main | logic | exit 2 | net | 1 (a.py) | 0.01 s | transient, rerun |
| 1 | main | logic | exit 2 | sig-a | 1 (a.py) | 0.01 s | same failure |
| 2 | main | alternative | exit 2 | sig-b | 4 | 0.01 s | new failure |
| 3 | main | build | timeout | perm | 0 (no change) | 0.01 s | permanent |
| 9 | - | - | exit 2 | sig-c | - | 0.01 s | new failure |
| 4 | main | rethink | exit 0 | - | 3 (a, b, c) | 0.00 s | pass |
| 5 | main | direct | - | - | - | - | in progress |
"
    );
}

#[test]
fn a_failure_after_a_pass_is_a_new_one_and_without_an_autofix_record_its_files_are_unknown() {
    let mut state = state();
    state.checks = vec![
        check(CheckPurpose::AutofixRecheck, 0, FailureClass::Pass, "", 1),
        check(CheckPurpose::Recheck, 1, FailureClass::Fixable, "", 1),
    ];
    let table = attempts_table(&state);
    assert!(
        table.contains("| autofix | - | - | exit 0 | - | - | 0.00 s | pass |"),
        "{table}"
    );
    assert!(
        table.contains("| 1 | - | - | exit 2 |  | - | 0.00 s | new failure |"),
        "{table}"
    );
    assert_eq!(format_duration(1_500), "1.50 s");
}

#[test]
fn a_check_record_passes_only_with_the_pass_class_and_names_its_purpose() {
    let passed = check(CheckPurpose::Baseline, 0, FailureClass::Pass, "", 1);
    let failed = check(CheckPurpose::Baseline, 0, FailureClass::Transient, "x", 1);
    assert!(passed.passed());
    assert!(!failed.passed());
    assert_eq!(CheckPurpose::Baseline.as_str(), "baseline");
    assert_eq!(CheckPurpose::AutofixRecheck.as_str(), "autofix recheck");
    assert_eq!(CheckPurpose::Recheck.as_str(), "recheck");
}

#[test]
fn the_output_tail_is_the_last_60_lines_and_at_most_6000_characters() {
    let lines: Vec<String> = (1..=100).map(|n| format!("line {n}")).collect();
    let tail = output_tail(&lines.join("\n"));
    assert_eq!(tail.lines().count(), 60);
    assert!(tail.starts_with("line 41\n"), "{tail}");
    assert!(tail.ends_with("line 100"));
    // Short output: whole.
    assert_eq!(output_tail("a\nb"), "a\nb");
    // Exactly 6000 characters: whole.
    let exact = "x".repeat(6000);
    assert_eq!(output_tail(&exact), exact);
    // Long lines: the last 6000 characters, cut forward to a character boundary.
    let long = format!("{}é{}", "a".repeat(10), "b".repeat(5999));
    let tail = output_tail(&long);
    assert_eq!(tail, "b".repeat(5999));
    let long = format!("{}{}", "a".repeat(10), "c".repeat(6000));
    assert_eq!(output_tail(&long), "c".repeat(6000));
}
