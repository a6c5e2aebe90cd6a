//! The head's quiet answer against the whole decision table: wherever the head says a stop is
//! quiet, `decide_stop` on the full state allows it silently and changes nothing.

use serde_json::json;

use super::*;
use crate::test_support::{NOW, per_finding_run, stop_event, submit};
use crate::{Config, Decision, ItemKind, LaunchMode, Outcome, decide_stop};

/// A 20-finding run bound to `s1`, fan-out 4.
fn bound_run() -> RunState {
    let config = Config {
        launch_mode: LaunchMode::Background,
        fan_out: 4,
        ..Config::default()
    };
    let mut state = per_finding_run("r-head", 20, "ruff F401", |_| "generic", |_| false, config);
    state.session = Some("s1".into());
    state
}

/// Stops with nothing running until the no-progress guard stalls the run.
fn stalled_run() -> RunState {
    let mut state = bound_run();
    for _ in 0..10 {
        decide_stop(&mut state, &stop_event("s1", Some(&[])), NOW);
        if state.status == RunStatus::Stalled {
            return state;
        }
    }
    panic!("the run did not stall: {:?}", state.status);
}

/// One state per row of the decision table a head can see: every status, every pause reason,
/// bound or not, with items in flight or none.
fn states() -> Vec<(String, RunState)> {
    let mut states = Vec::new();
    let stalled = stalled_run();
    let mut progressed = stalled.clone();
    submit(
        &mut progressed,
        "t-00001",
        json!({"verdict": "real", "root_cause": "unused import", "reason": "the import is never used anywhere", "confidence": 0.9}),
    );
    states.push(("stalled, progress since".to_owned(), progressed));
    let mut in_flight = bound_run();
    decide_stop(&mut in_flight, &stop_event("s1", None), NOW);
    assert!(
        in_flight.in_flight() > 0,
        "the first stop dispatched nothing"
    );
    for base in [stalled, in_flight] {
        let pauses = [
            PauseReason::User,
            PauseReason::ApiError {
                error: "overloaded".into(),
            },
            PauseReason::Circuit {
                kind: ItemKind::Triage,
                signature: "no result within the lease".into(),
                count: 3,
            },
            PauseReason::Budget {
                spent_micros: 5,
                budget_micros: 4,
            },
            PauseReason::Confirm {
                likely_micros: 10,
                likely_agents: 2,
                above_micros: 5,
                told: false,
            },
            PauseReason::Confirm {
                likely_micros: 10,
                likely_agents: 2,
                above_micros: 5,
                told: true,
            },
            PauseReason::Refused {
                launches: 2,
                denial: "user-rejected".into(),
            },
        ];
        let mut variants: Vec<(String, RunState)> =
            vec![(format!("{:?}", base.status), base.clone())];
        for pause in pauses {
            let mut state = base.clone();
            state.status = RunStatus::Paused;
            state.pause = Some(pause.clone());
            variants.push((format!("paused {pause:?}"), state));
        }
        for (status, announced) in [
            (RunStatus::Active, false),
            (RunStatus::Cancelled, false),
            (RunStatus::Complete, false),
            (RunStatus::Complete, true),
        ] {
            let mut state = base.clone();
            state.status = status;
            state.announced = announced;
            state.pause = None;
            variants.push((format!("{status:?} announced {announced}"), state));
        }
        for (name, state) in variants {
            let mut unbound = state.clone();
            unbound.session = None;
            states.push((format!("{name}, unbound"), unbound));
            states.push((name, state));
        }
    }
    states
}

/// Stops of the bound session, another one and none, over every input the quiet answer reads.
fn stops(dispatched: &[String]) -> Vec<StopEvent> {
    let mut stops = Vec::new();
    let in_flight: Vec<&str> = dispatched.iter().map(String::as_str).collect();
    let nothing: &[&str] = &[];
    let runnings = [None, Some(nothing), Some(in_flight.as_slice())];
    for session in [Some("s1"), Some("s2"), None] {
        for running in runnings {
            for new_turn in [false, true] {
                for (notified, unnotified) in
                    [(0, vec![]), (1, vec![]), (0, vec!["t-00002".to_owned()])]
                {
                    for last in [
                        None,
                        Some("self-repair run r-head complete: 20 findings"),
                        Some("done"),
                    ] {
                        let mut stop = stop_event(session.unwrap_or("s1"), running);
                        stop.session = session.map(str::to_owned);
                        stop.new_turn = new_turn;
                        stop.notified = notified;
                        stop.unnotified.clone_from(&unnotified);
                        stop.last_message = last.map(str::to_owned);
                        stops.push(stop);
                    }
                }
            }
        }
    }
    stops
}

#[test]
fn quiet_stop_answers_as_decide_stop_on_the_whole_state() {
    let mut quiet = 0;
    let mut decided = 0;
    for (name, state) in states() {
        let head = RunHead::of(&state);
        for stop in stops(&head.dispatched) {
            if !head.quiet_stop(&stop) {
                decided += 1;
                continue;
            }
            quiet += 1;
            let mut after = state.clone();
            let outcome = decide_stop(&mut after, &stop, NOW);
            assert_eq!(
                outcome,
                Outcome {
                    decision: Decision::Allow { message: None },
                    changed: false
                },
                "{name}: the head said quiet, the full decision differs for {stop:?}"
            );
            assert!(
                after == state,
                "{name}: a quiet stop changed the state: {stop:?}"
            );
        }
    }
    // Both answers are exercised: the comparison covers every short-circuited case.
    assert!(quiet > 1000, "only {quiet} quiet stops");
    assert!(
        decided > 500,
        "only {decided} stops left to the full decision"
    );
}

#[test]
fn stalled_run_stays_quiet_within_the_turn() {
    let state = stalled_run();
    let head = RunHead::of(&state);
    assert_eq!(head.status, RunStatus::Stalled);
    assert!(head.quiet_stop(&stop_event("s1", Some(&[]))));
    assert!(head.quiet_stop(&stop_event("s2", Some(&[]))));
}

#[test]
fn stalled_run_with_a_new_submission_is_not_quiet() {
    let mut state = stalled_run();
    submit(
        &mut state,
        "t-00001",
        json!({"verdict": "real", "root_cause": "unused import", "reason": "the import is never used anywhere", "confidence": 0.9}),
    );
    let head = RunHead::of(&state);
    assert!(!head.quiet_stop(&stop_event("s1", Some(&[]))));
    // And the full decision resumes it.
    let outcome = decide_stop(&mut state, &stop_event("s1", Some(&[])), NOW);
    assert!(outcome.changed);
    assert_ne!(state.status, RunStatus::Stalled);
}

#[test]
fn stalled_run_at_a_new_turn_is_not_quiet() {
    let head = RunHead::of(&stalled_run());
    let mut stop = stop_event("s1", Some(&[]));
    stop.new_turn = true;
    assert!(!head.quiet_stop(&stop));
}

#[test]
fn head_lists_the_items_in_flight() {
    let mut state = bound_run();
    decide_stop(&mut state, &stop_event("s1", None), NOW);
    let head = RunHead::of(&state);
    assert_eq!(head.dispatched.len(), state.in_flight());
    assert!(head.dispatched.iter().all(|id| {
        state
            .item(id)
            .is_some_and(|i| i.status == ItemStatus::Dispatched)
    }));
    assert!(
        !head.quiet_stop(&stop_event("s1", None)),
        "an active run is never quiet"
    );
}

#[test]
fn a_run_is_over_when_cancelled_or_complete_with_its_closing_line_said() {
    let mut head = RunHead::of(&bound_run());
    for (status, announced, over) in [
        (RunStatus::Active, true, false),
        (RunStatus::Paused, true, false),
        (RunStatus::Stalled, true, false),
        (RunStatus::Cancelled, false, true),
        (RunStatus::Complete, false, false),
        (RunStatus::Complete, true, true),
    ] {
        head.status = status;
        head.announced = announced;
        assert_eq!(head.is_over(), over, "{status:?} announced {announced}");
    }
}
