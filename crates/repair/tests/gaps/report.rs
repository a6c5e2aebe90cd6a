//! The success summary and the hand-off report, whole.

use self_repair_repair::{
    Approach, Attempt, CheckPurpose, CheckRecord, CheckRequest, Ending, FailureClass, FixTier,
    GitBaseline, RepairState, RepairStatus, render_report, render_summary, resolve_spec,
};

fn state() -> RepairState {
    let request = CheckRequest {
        command: vec!["cargo".into(), "test".into()],
        max_attempts: Some(2),
        ..CheckRequest::default()
    };
    RepairState::new(
        "r-9".into(),
        1_800_000_000,
        None,
        GitBaseline {
            repo: true,
            head: Some("abc123".into()),
            stash: None,
        },
        resolve_spec(&request, None, String::new()).unwrap(),
    )
}

fn check(seq: u32, attempt: u32, class: FailureClass, signature: &str, tail: &str) -> CheckRecord {
    CheckRecord {
        seq,
        purpose: if attempt == 0 {
            CheckPurpose::Baseline
        } else {
            CheckPurpose::Recheck
        },
        attempt,
        exit_code: i32::from(class != FailureClass::Pass),
        timed_out: false,
        duration_ms: 2_000,
        signature: signature.into(),
        class,
        tail: tail.into(),
        log: format!("attempts/{seq}.log"),
        at: 1_800_000_100,
    }
}

fn attempt(n: u32, files: &[&str], no_change: bool) -> Attempt {
    Attempt {
        n,
        item: format!("fix-{n}"),
        tier: FixTier::Main,
        approach: Approach::Logic,
        asked_at: 1_800_000_010,
        before: "t0".into(),
        ended_at: Some(1_800_000_050),
        after: Some("t1".into()),
        files_changed: files.iter().map(|f| (*f).to_owned()).collect(),
        no_change,
        check: Some(n + 1),
    }
}

#[test]
fn the_hand_off_report_says_how_it_failed_what_was_tried_and_what_to_do() {
    let mut s = state();
    s.status = RepairStatus::Quarantined;
    s.ending = Some(Ending {
        at: 1_800_000_200,
        reason: "2 attempts made, the check still fails".into(),
    });
    s.checks = vec![
        check(1, 0, FailureClass::Fixable, "aaa", "E first\nE boom"),
        check(2, 1, FailureClass::Fixable, "aaa", "E boom"),
        check(3, 2, FailureClass::Fixable, "aaa", "E boom again"),
    ];
    s.attempts = vec![attempt(1, &["src/a.rs"], false), attempt(2, &[], true)];
    let report = render_report(&s, false);
    assert_eq!(
        report,
        "# self-repair hand-off: `cargo test` still fails

Run r-9, quarantined: 2 attempts made, the check still fails.

## Error summary

The last run (recheck after attempt 2) ended with exit 1, class fixable, signature aaa; 3 failing run(s) in a row had this signature.

```text
E boom again
```

## Attempts

| attempt | tier | approach | exit | signature | files changed | duration | result |
|---|---|---|---|---|---|---|---|
| baseline | - | - | exit 1 | aaa | - | 2.00 s | fails |
| 1 | main | logic | exit 1 | aaa | 1 (src/a.rs) | 2.00 s | same failure |
| 2 | main | logic | exit 1 | aaa | 0 (no change) | 2.00 s | same failure |

- Attempt 1 (main, logic): changed src/a.rs; the check failed the same way (exit 1, signature aaa).
- Attempt 2 (main, logic): changed no file; the check failed the same way (exit 1, signature aaa).

## Suggested next steps

- Each attempt failed differently: read the attempts below in order; the last output is the closest to passing.
- Review diff.patch (every change made since the start); keep what helps, revert the rest yourself.
- The tree was clean at the start, at abc123: `git diff abc123` shows every change made since.
- Full outputs: logs/; one report per failing run: errors/.
"
    );
    // The first step follows how the run ended.
    let cases = [
        (RepairStatus::Escalated, "x", "The failure looks permanent"),
        (RepairStatus::InfraFailure, "x", "self-repair itself failed"),
        (RepairStatus::Cancelled, "x", "The run was cancelled"),
        (
            RepairStatus::Quarantined,
            "3 attempts changed no file",
            "The attempts changed no file",
        ),
        (
            RepairStatus::Quarantined,
            "3 identical failures in a row",
            "Every attempt ended in the same failure",
        ),
    ];
    for (status, reason, first) in cases {
        s.status = status;
        s.ending = Some(Ending {
            at: 0,
            reason: reason.into(),
        });
        let report = render_report(&s, true);
        assert!(
            report.contains(&format!("## Suggested next steps\n\n- {first}")),
            "{report}"
        );
        assert!(report.contains("- No change is left in the work tree (diff.patch is empty).\n"));
    }
    // No check ran, no attempt made.
    let mut empty = state();
    empty.status = RepairStatus::Cancelled;
    let report = render_report(&empty, false);
    assert!(
        !report.contains("## Error summary\n\nThe last run"),
        "{report}"
    );
    assert!(report.contains("No fix attempt was made.\n"), "{report}");
}

#[test]
fn the_success_summary_names_the_command_the_reason_and_the_start() {
    let mut s = state();
    s.status = RepairStatus::Success;
    s.ending = Some(Ending {
        at: 0,
        reason: "the check passes after attempt 1".into(),
    });
    s.checks = vec![check(1, 0, FailureClass::Fixable, "aaa", "E")];
    let summary = render_summary(&s);
    assert!(
        summary.starts_with("# self-repair check: success\n\n`cargo test` — the check passes after attempt 1.\n\nRun r-9, started 2027-01-15T08:00:00Z.\n\n| attempt |"),
        "{summary}"
    );
}

#[test]
fn each_attempt_s_line_compares_its_recheck_with_the_run_before_it() {
    let mut s = state();
    s.status = RepairStatus::Quarantined;
    s.checks = vec![
        check(1, 0, FailureClass::Fixable, "aaa", "E"),
        check(2, 1, FailureClass::Fixable, "bbb", "E"),
        check(3, 2, FailureClass::Fixable, "bbb", "E"),
        check(4, 3, FailureClass::Pass, "", ""),
    ];
    let mut unchecked = attempt(4, &["d.rs"], false);
    unchecked.check = None;
    s.attempts = vec![
        attempt(1, &["a.rs"], false),
        attempt(2, &["b.rs", "c.rs"], false),
        attempt(3, &[], true),
        unchecked,
    ];
    let report = render_report(&s, false);
    let lines: Vec<&str> = report
        .lines()
        .filter(|l| l.starts_with("- Attempt "))
        .collect();
    assert_eq!(
        lines,
        [
            "- Attempt 1 (main, logic): changed a.rs; the check failed differently (exit 1, signature bbb).",
            "- Attempt 2 (main, logic): changed b.rs, c.rs; the check failed the same way (exit 1, signature bbb).",
            "- Attempt 3 (main, logic): changed no file; the check passed.",
            "- Attempt 4 (main, logic): changed d.rs; was never rechecked.",
        ]
    );
}
