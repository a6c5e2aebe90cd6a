//! The driver's policy: waits, backoffs, the circuit, the user's limits.

use crate::drive_policy::{
    BACKOFF_CAP_SECS, DriveLimits, DrivePolicy, NextStep, RESET_MARGIN_SECS, SessionSummary,
    StopReason,
};
use crate::session_end::SessionEnd;

const NOW: u64 = 1_800_000_000;

fn session(end: SessionEnd, seconds: u64, progressed: bool) -> SessionSummary {
    SessionSummary {
        end,
        seconds,
        progressed,
        cost_usd: 0.25,
    }
}

fn wait(step: &NextStep) -> u64 {
    match step {
        NextStep::Relaunch { wait_secs } => *wait_secs,
        NextStep::Stop(reason) => panic!("expected a relaunch, got {reason:?}"),
    }
}

#[test]
fn a_rate_limit_with_a_reset_waits_until_it_unscaled() {
    let mut policy = DrivePolicy::new(DriveLimits::default(), 0.01);
    let end = SessionEnd::RateLimited {
        resets_at: Some(NOW + 300),
        limit_type: Some("five_hour".to_owned()),
    };
    assert_eq!(
        wait(&policy.after(&session(end, 100, true), NOW)),
        300 + RESET_MARGIN_SECS
    );
}

#[test]
fn a_rate_limit_without_a_reset_doubles_from_60_s_to_the_cap() {
    let mut policy = DrivePolicy::new(DriveLimits::default(), 1.0);
    let end = SessionEnd::RateLimited {
        resets_at: None,
        limit_type: None,
    };
    let waits: Vec<u64> = (0..7)
        .map(|_| wait(&policy.after(&session(end.clone(), 100, false), NOW)))
        .collect();
    assert_eq!(waits, [60, 120, 240, 480, 960, 1800, BACKOFF_CAP_SECS]);
}

#[test]
fn overloaded_backs_off_from_10_s_and_resets_after_another_end() {
    let mut policy = DrivePolicy::new(DriveLimits::default(), 1.0);
    let end = SessionEnd::Overloaded { status: Some(529) };
    assert_eq!(
        wait(&policy.after(&session(end.clone(), 100, true), NOW)),
        10
    );
    assert_eq!(
        wait(&policy.after(&session(end.clone(), 100, true), NOW)),
        20
    );
    assert_eq!(
        wait(&policy.after(&session(SessionEnd::Ended, 100, true), NOW)),
        0
    );
    assert_eq!(wait(&policy.after(&session(end, 100, true), NOW)), 10);
}

#[test]
fn the_scale_shrinks_backoffs_for_tests() {
    let mut policy = DrivePolicy::new(DriveLimits::default(), 0.1);
    let end = SessionEnd::Overloaded { status: Some(529) };
    assert_eq!(wait(&policy.after(&session(end, 100, true), NOW)), 1);
}

#[test]
fn auth_stops_at_once() {
    let mut policy = DrivePolicy::new(DriveLimits::default(), 1.0);
    assert_eq!(
        policy.after(
            &session(SessionEnd::AuthFailed { status: Some(401) }, 1, false),
            NOW
        ),
        NextStep::Stop(StopReason::AuthRequired)
    );
}

#[test]
fn three_sessions_without_progress_open_the_circuit() {
    let mut policy = DrivePolicy::new(DriveLimits::default(), 1.0);
    let crash = SessionEnd::Crashed {
        code: Some(1),
        signal: None,
    };
    assert!(matches!(
        policy.after(&session(SessionEnd::Ended, 100, false), NOW),
        NextStep::Relaunch { .. }
    ));
    assert!(matches!(
        policy.after(&session(crash, 100, false), NOW),
        NextStep::Relaunch { .. }
    ));
    assert_eq!(
        policy.after(&session(SessionEnd::Ended, 100, false), NOW),
        NextStep::Stop(StopReason::NoProgress { sessions: 3 })
    );
}

#[test]
fn progress_in_between_closes_the_circuit_again() {
    let mut policy = DrivePolicy::new(DriveLimits::default(), 1.0);
    for progressed in [false, false, true, false, false] {
        assert!(matches!(
            policy.after(&session(SessionEnd::Ended, 100, progressed), NOW),
            NextStep::Relaunch { .. }
        ));
    }
}

#[test]
fn waiting_out_limits_is_not_counted_as_no_progress() {
    let mut policy = DrivePolicy::new(DriveLimits::default(), 1.0);
    let end = SessionEnd::Overloaded { status: Some(529) };
    for _ in 0..5 {
        assert!(matches!(
            policy.after(&session(end.clone(), 100, false), NOW),
            NextStep::Relaunch { .. }
        ));
    }
}

#[test]
fn two_quick_sessions_in_a_row_back_off_even_after_a_crash() {
    let mut policy = DrivePolicy::new(DriveLimits::default(), 1.0);
    let crash = SessionEnd::Crashed {
        code: None,
        signal: Some(9),
    };
    assert_eq!(
        wait(&policy.after(&session(crash.clone(), 2, true), NOW)),
        0
    );
    assert_eq!(
        wait(&policy.after(&session(crash.clone(), 2, true), NOW)),
        10
    );
    assert_eq!(
        wait(&policy.after(&session(crash.clone(), 3, true), NOW)),
        20
    );
    assert_eq!(wait(&policy.after(&session(crash, 300, true), NOW)), 0);
}

#[test]
fn max_sessions_budget_and_until_stop_driving() {
    let mut policy = DrivePolicy::new(
        DriveLimits {
            max_sessions: Some(2),
            ..DriveLimits::default()
        },
        1.0,
    );
    assert!(policy.may_start(NOW).is_ok());
    let _ = policy.after(&session(SessionEnd::Ended, 100, true), NOW);
    assert_eq!(
        policy.after(&session(SessionEnd::Ended, 100, true), NOW),
        NextStep::Stop(StopReason::MaxSessions { sessions: 2 })
    );

    let mut policy = DrivePolicy::new(
        DriveLimits {
            budget_usd: Some(0.5),
            ..DriveLimits::default()
        },
        1.0,
    );
    let _ = policy.after(&session(SessionEnd::Ended, 100, true), NOW);
    assert_eq!(
        policy.after(&session(SessionEnd::Ended, 100, true), NOW),
        NextStep::Stop(StopReason::Budget {
            spent_usd: 0.5,
            budget_usd: 0.5
        })
    );

    let mut policy = DrivePolicy::new(
        DriveLimits {
            until: Some(NOW + 100),
            ..DriveLimits::default()
        },
        1.0,
    );
    assert!(policy.may_start(NOW).is_ok());
    assert_eq!(
        policy.may_start(NOW + 100),
        Err(StopReason::Until { until: NOW + 100 })
    );
    // A reset past --until: no session would start before it.
    let end = SessionEnd::RateLimited {
        resets_at: Some(NOW + 500),
        limit_type: None,
    };
    assert_eq!(
        policy.after(&session(end, 100, true), NOW),
        NextStep::Stop(StopReason::Until { until: NOW + 100 })
    );
}

#[test]
fn a_refused_main_session_starts_afresh_once_and_a_second_refusal_in_a_row_stops() {
    let mut policy = DrivePolicy::new(DriveLimits::default(), 1.0);
    // Refused once: the next session at once, without the refused turn.
    assert_eq!(
        policy.after(&session(SessionEnd::Refused, 100, true), NOW),
        NextStep::Relaunch { wait_secs: 0 }
    );
    // A session that was not refused clears the streak.
    assert!(matches!(
        policy.after(&session(SessionEnd::Ended, 100, true), NOW),
        NextStep::Relaunch { .. }
    ));
    assert!(matches!(
        policy.after(&session(SessionEnd::Refused, 100, true), NOW),
        NextStep::Relaunch { .. }
    ));
    // Refused again at once: the run's own text is declined; another session would be too.
    assert_eq!(
        policy.after(&session(SessionEnd::Refused, 100, false), NOW),
        NextStep::Stop(StopReason::Refused { sessions: 2 })
    );
}
