//! The driver's policy at its boundaries: cases the crate's mutation run found untested
//! (reference/mutants.md).

use crate::drive_policy::{
    DriveLimits, DrivePolicy, NextStep, QUICK_SESSION_SECS, SessionSummary, StopReason,
};
use crate::session_end::SessionEnd;

const NOW: u64 = 1_800_000_000;

fn ended(seconds: u64) -> SessionSummary {
    SessionSummary {
        end: SessionEnd::Ended,
        seconds,
        progressed: true,
        cost_usd: 0.0,
    }
}

#[test]
fn a_session_of_exactly_the_quick_bound_is_not_quick() {
    let mut policy = DrivePolicy::new(DriveLimits::default(), 1.0);
    for _ in 0..3 {
        assert_eq!(
            policy.after(&ended(QUICK_SESSION_SECS), NOW),
            NextStep::Relaunch { wait_secs: 0 }
        );
    }
    // One second shorter: the second in a row backs off.
    let _ = policy.after(&ended(QUICK_SESSION_SECS - 1), NOW);
    assert_eq!(
        policy.after(&ended(QUICK_SESSION_SECS - 1), NOW),
        NextStep::Relaunch { wait_secs: 10 }
    );
}

#[test]
fn a_wait_that_ends_before_until_relaunches_and_one_that_reaches_it_stops() {
    let limits = DriveLimits {
        until: Some(NOW + 100),
        ..DriveLimits::default()
    };
    let limited = |resets_at: u64| SessionSummary {
        end: SessionEnd::RateLimited {
            resets_at: Some(resets_at),
            limit_type: None,
        },
        seconds: 100,
        progressed: false,
        cost_usd: 0.0,
    };
    // A wait of 60 s (58 + the 2 s margin), 40 s before --until.
    let mut policy = DrivePolicy::new(limits, 1.0);
    assert_eq!(
        policy.after(&limited(NOW + 58), NOW),
        NextStep::Relaunch { wait_secs: 60 }
    );
    // A wait that ends exactly at --until.
    let mut policy = DrivePolicy::new(limits, 1.0);
    assert_eq!(
        policy.after(&limited(NOW + 98), NOW),
        NextStep::Stop(StopReason::Until { until: NOW + 100 })
    );
}
