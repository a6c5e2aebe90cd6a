//! The repair state's own questions: identical failures in a row, the expected check time,
//! attempts without change, the statuses.

use self_repair_repair::{
    Approach, Attempt, CheckPurpose, CheckRecord, CheckRequest, FailureClass, FixTier, GitBaseline,
    RepairState, RepairStatus, resolve_spec,
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

fn check(class: FailureClass, signature: &str, ms: u64) -> CheckRecord {
    CheckRecord {
        seq: 0,
        purpose: CheckPurpose::Recheck,
        attempt: 1,
        exit_code: 1,
        timed_out: false,
        duration_ms: ms,
        signature: signature.into(),
        class,
        tail: String::new(),
        log: String::new(),
        at: 0,
    }
}

#[test]
fn identical_failures_count_back_from_the_last_skipping_transient_reruns() {
    use FailureClass::{Fixable, Pass, Transient};
    let cases: [(&[(FailureClass, &str)], u32); 6] = [
        (&[], 0),
        (&[(Pass, "")], 0),
        (&[(Fixable, "a")], 1),
        (&[(Fixable, "a"), (Transient, "net"), (Fixable, "a")], 2),
        (&[(Fixable, "b"), (Fixable, "a"), (Fixable, "a")], 2),
        (&[(Fixable, "a"), (Pass, ""), (Fixable, "a")], 1),
    ];
    for (checks, count) in cases {
        let mut s = state();
        s.checks = checks.iter().map(|(c, sig)| check(*c, sig, 1)).collect();
        assert_eq!(s.identical_failures(), count, "{checks:?}");
    }
}

#[test]
fn the_next_check_is_expected_to_take_the_longest_of_the_last_three() {
    let mut s = state();
    assert_eq!(s.expected_check_ms(), None);
    s.checks = [900, 100, 200, 300]
        .iter()
        .map(|ms| check(FailureClass::Fixable, "a", *ms))
        .collect();
    assert_eq!(s.expected_check_ms(), Some(300));
    s.hook_overrun_ms = Some(5);
    assert_eq!(s.expected_check_ms(), None);
}

#[test]
fn attempts_without_change_are_counted_and_statuses_named() {
    let mut s = state();
    for (n, no_change) in [(1, true), (2, false), (3, true)] {
        s.attempts.push(Attempt {
            n,
            item: format!("fix-{n}"),
            tier: FixTier::Main,
            approach: Approach::Direct,
            asked_at: 0,
            before: String::new(),
            ended_at: None,
            after: None,
            files_changed: Vec::new(),
            no_change,
            check: None,
        });
    }
    assert_eq!(s.no_change_attempts(), 2);
    assert_eq!(s.attempt(2).map(|a| a.no_change), Some(false));
    assert!(s.attempt(4).is_none());
    let cases = [
        (RepairStatus::Active, "active", false),
        (RepairStatus::Waiting, "waiting", false),
        (RepairStatus::Stalled, "stalled", false),
        (RepairStatus::Success, "success", true),
        (RepairStatus::Quarantined, "quarantined", true),
        (RepairStatus::Escalated, "escalated", true),
        (RepairStatus::InfraFailure, "infra_failure", true),
        (RepairStatus::Cancelled, "cancelled", true),
    ];
    for (status, name, is_final) in cases {
        assert_eq!(status.as_str(), name);
        assert_eq!(status.is_final(), is_final, "{name}");
    }
}
