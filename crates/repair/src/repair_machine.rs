//! The repair state machine, pure: an event and its time in, the next state out; and the next
//! action a state needs. The caller does the I/O (runs the check, snapshots the tree, talks to
//! the session) and feeds back what happened as events, each journaled.

use serde::{Deserialize, Serialize};

use crate::{
    Approach, Attempt, AutofixRecord, CheckPurpose, CheckRecord, Ending, FailureClass, RepairState,
    RepairStatus, Step,
};

/// Something that happened to a repair run. Every event is a line of `journal.jsonl`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum RepairEvent {
    /// The run was created.
    Started { command: Vec<String> },
    /// The run was bound to a Claude Code session.
    Bound { session: String },
    /// A run of the check finished.
    CheckFinished { record: CheckRecord },
    /// The autofix command finished.
    AutofixFinished { record: AutofixRecord },
    /// The backoff before a transient rerun was slept.
    BackoffDone,
    /// The backoff is longer than the hook may sleep: the run waits until `until`.
    Waiting { until: u64 },
    /// The wait is over.
    Resumed,
    /// A fix attempt was asked for.
    FixAsked { attempt: Attempt },
    /// A fix attempt ended (the session stopped, or the fixer finished).
    FixEnded {
        attempt: u32,
        after: String,
        files_changed: Vec<String>,
        no_change: bool,
    },
    /// The hook asked the session to run `self-repair tick` (the check is too long for it).
    TickRequested,
    /// A check run in the Stop hook reached the hook's budget after `ms` and was stopped; it
    /// is not a result: `self-repair tick` reruns it with the full timeout.
    CheckOverran { ms: u64 },
    /// Too many tick requests without a check: the hook allowed the stop.
    Stalled,
    /// self-repair could not go on.
    InfraFailure { error: String },
    /// The user ended the run.
    Cancelled,
    /// The outcome was shown to the user.
    Announced,
}

/// What the state needs next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Run the check.
    RunCheck { purpose: CheckPurpose, attempt: u32 },
    /// Run the autofix command.
    RunAutofix,
    /// Wait this long, then rerun (a transient failure).
    Backoff { ms: u64 },
    /// Waiting until this Unix second.
    Wait { until: u64 },
    /// The wait is over: resume.
    Resume,
    /// Ask for fix attempt `n`.
    Ask { attempt: u32 },
    /// Attempt `n` is under way; once it ended, record it and recheck.
    AwaitFix { attempt: u32 },
    /// Stalled: only `self-repair tick` continues.
    Stalled,
    /// The run is over.
    Finished,
}

/// The next action of `state` at `now` (Unix seconds).
pub fn next_action(state: &RepairState, now: u64) -> Action {
    if state.status.is_final() {
        return Action::Finished;
    }
    match state.status {
        RepairStatus::Stalled => return Action::Stalled,
        RepairStatus::Waiting => {
            let until = state.wait_until.unwrap_or(0);
            return if now >= until {
                Action::Resume
            } else {
                Action::Wait { until }
            };
        }
        _ => {}
    }
    if let Some(ms) = state.backoff_ms {
        return Action::Backoff { ms };
    }
    match state.step {
        Step::Baseline => Action::RunCheck {
            purpose: CheckPurpose::Baseline,
            attempt: 0,
        },
        Step::Autofix => Action::RunAutofix,
        Step::AutofixRecheck => Action::RunCheck {
            purpose: CheckPurpose::AutofixRecheck,
            attempt: 0,
        },
        Step::Recheck { attempt } => Action::RunCheck {
            purpose: CheckPurpose::Recheck,
            attempt,
        },
        Step::Ask { attempt } => Action::Ask { attempt },
        Step::Fixing { attempt } => Action::AwaitFix { attempt },
        Step::Done => Action::Finished,
    }
}

/// A new attempt record for `n`, asked at `at` with the tree digest `before`.
pub fn new_attempt(state: &RepairState, n: u32, at: u64, before: String) -> Attempt {
    Attempt {
        n,
        item: format!("fix-{n}"),
        tier: state.spec.tier_of(n),
        approach: Approach::choose(state, n),
        asked_at: at,
        before,
        ended_at: None,
        after: None,
        files_changed: Vec::new(),
        no_change: false,
        check: None,
    }
}

/// Applies one event at `at` (Unix seconds).
pub fn apply_event(state: &mut RepairState, event: &RepairEvent, at: u64) {
    match event {
        RepairEvent::Started { .. } => {}
        RepairEvent::Bound { session } => state.session = Some(session.clone()),
        RepairEvent::CheckFinished { record } => check_finished(state, record.clone(), at),
        RepairEvent::AutofixFinished { record } => {
            state.autofix = Some(record.clone());
            state.step = Step::AutofixRecheck;
        }
        RepairEvent::BackoffDone => state.backoff_ms = None,
        RepairEvent::Waiting { until } => {
            state.backoff_ms = None;
            state.wait_until = Some(*until);
            state.status = RepairStatus::Waiting;
        }
        RepairEvent::Resumed => {
            state.wait_until = None;
            state.tick_requests = 0;
            state.status = RepairStatus::Active;
        }
        RepairEvent::FixAsked { attempt } => {
            state.step = Step::Fixing { attempt: attempt.n };
            state.attempts.retain(|a| a.n != attempt.n);
            state.attempts.push(attempt.clone());
        }
        RepairEvent::FixEnded {
            attempt,
            after,
            files_changed,
            no_change,
        } => {
            if let Some(a) = state.attempts.iter_mut().find(|a| a.n == *attempt) {
                a.ended_at = Some(at);
                a.after = Some(after.clone());
                a.files_changed.clone_from(files_changed);
                a.no_change = *no_change;
            }
            state.step = Step::Recheck { attempt: *attempt };
        }
        RepairEvent::TickRequested => state.tick_requests += 1,
        RepairEvent::CheckOverran { ms } => state.hook_overrun_ms = Some(*ms),
        RepairEvent::Stalled => state.status = RepairStatus::Stalled,
        RepairEvent::InfraFailure { error } => {
            end(
                state,
                RepairStatus::InfraFailure,
                at,
                format!("self-repair could not go on: {error}"),
            );
        }
        RepairEvent::Cancelled => {
            end(
                state,
                RepairStatus::Cancelled,
                at,
                "cancelled by the user".to_owned(),
            );
        }
        RepairEvent::Announced => state.announced = true,
    }
}

fn end(state: &mut RepairState, status: RepairStatus, at: u64, reason: String) {
    state.status = status;
    state.step = Step::Done;
    state.backoff_ms = None;
    state.wait_until = None;
    state.ending = Some(Ending { at, reason });
}

fn check_finished(state: &mut RepairState, mut record: CheckRecord, at: u64) {
    state.tick_requests = 0;
    let step = state.step;
    if let Step::Recheck { attempt } = step
        && let Some(a) = state.attempts.iter_mut().find(|a| a.n == attempt)
    {
        a.check = Some(record.seq);
    }
    if record.class == FailureClass::Transient {
        if state.transient_retries < state.spec.transient_retries {
            state.transient_retries += 1;
            state.backoff_ms = Some(state.spec.backoff_before(state.transient_retries));
            state.checks.push(record);
            return;
        }
        // Still failing after every rerun: treat it as a failure of the code.
        record.class = FailureClass::Fixable;
    }
    state.transient_retries = 0;
    let class = record.class;
    let label = record.exit_label();
    let signature = record.signature.clone();
    state.checks.push(record);
    let attempts_made = match step {
        Step::Recheck { attempt } => attempt,
        _ => 0,
    };
    match class {
        FailureClass::Pass => {
            let reason = match (step, attempts_made) {
                (Step::Baseline, _) => "the check already passes".to_owned(),
                (Step::AutofixRecheck, _) => "the check passes after the autofix".to_owned(),
                (_, 1) => "the check passes after 1 fix attempt".to_owned(),
                (_, n) => format!("the check passes after {n} fix attempts"),
            };
            end(state, RepairStatus::Success, at, reason);
            return;
        }
        FailureClass::Permanent => {
            end(
                state,
                RepairStatus::Escalated,
                at,
                format!(
                    "a permanent error ({label}, signature {signature}) that no code change can fix"
                ),
            );
            return;
        }
        FailureClass::Transient | FailureClass::Fixable => {}
    }
    if let Step::Recheck { attempt } = step {
        let identical = state.identical_failures();
        if identical >= state.spec.circuit_breaker {
            end(
                state,
                RepairStatus::Quarantined,
                at,
                format!(
                    "circuit open: {identical} identical failures in a row (signature {signature})"
                ),
            );
        } else if state.no_change_attempts() >= 2 {
            end(
                state,
                RepairStatus::Quarantined,
                at,
                format!(
                    "circuit open: {} attempts changed no file",
                    state.no_change_attempts()
                ),
            );
        } else if attempt >= state.spec.max_attempts {
            end(
                state,
                RepairStatus::Quarantined,
                at,
                format!("all {attempt} fix attempts failed"),
            );
        } else {
            state.step = Step::Ask {
                attempt: attempt + 1,
            };
        }
        return;
    }
    state.step = if step == Step::Baseline && state.spec.autofix.is_some() {
        Step::Autofix
    } else {
        Step::Ask { attempt: 1 }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CheckRequest, GitBaseline, resolve_spec};

    fn state(max_attempts: u32) -> RepairState {
        let request = CheckRequest {
            command: vec!["true".into()],
            max_attempts: Some(max_attempts),
            circuit_breaker: Some(9),
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

    fn failed(state: &mut RepairState, signature: &str, class: FailureClass) {
        let (purpose, attempt) = match next_action(state, 0) {
            Action::RunCheck { purpose, attempt } => (purpose, attempt),
            other => panic!("expected a check, got {other:?}"),
        };
        let record = CheckRecord {
            seq: state.checks.len() as u32 + 1,
            purpose,
            attempt,
            exit_code: i32::from(class != FailureClass::Pass),
            timed_out: false,
            duration_ms: 1,
            signature: signature.into(),
            class,
            tail: String::new(),
            log: String::new(),
            at: 0,
        };
        apply_event(state, &RepairEvent::CheckFinished { record }, 0);
    }

    fn attempt(state: &mut RepairState, changed: bool) {
        let Action::Ask { attempt: n } = next_action(state, 0) else {
            panic!("expected an ask");
        };
        let a = new_attempt(state, n, 0, "d".into());
        apply_event(state, &RepairEvent::FixAsked { attempt: a }, 0);
        assert_eq!(next_action(state, 0), Action::AwaitFix { attempt: n });
        let files = if changed {
            vec![format!("f{n}")]
        } else {
            Vec::new()
        };
        apply_event(
            state,
            &RepairEvent::FixEnded {
                attempt: n,
                after: "e".into(),
                no_change: files.is_empty(),
                files_changed: files,
            },
            0,
        );
        assert!(
            matches!(next_action(state, 0), Action::RunCheck { .. }),
            "a recheck follows"
        );
    }

    #[test]
    fn attempts_run_out_into_quarantine_and_a_permanent_recheck_escalates() {
        let mut s = state(2);
        failed(&mut s, "a", FailureClass::Fixable);
        attempt(&mut s, true);
        failed(&mut s, "b", FailureClass::Fixable);
        attempt(&mut s, true);
        failed(&mut s, "c", FailureClass::Fixable);
        assert_eq!(s.status, RepairStatus::Quarantined);
        assert_eq!(s.ending.unwrap().reason, "all 2 fix attempts failed");

        let mut s = state(5);
        failed(&mut s, "a", FailureClass::Fixable);
        attempt(&mut s, true);
        failed(&mut s, "p", FailureClass::Permanent);
        assert_eq!(s.status, RepairStatus::Escalated);
        assert_eq!(next_action(&s, 0), Action::Finished);
    }

    #[test]
    fn transient_reruns_are_bounded_then_count_as_fixable() {
        let mut s = state(5);
        for k in 1..=3 {
            failed(&mut s, "t", FailureClass::Transient);
            assert_eq!(
                next_action(&s, 0),
                Action::Backoff {
                    ms: s.spec.backoff_before(k)
                }
            );
            apply_event(&mut s, &RepairEvent::BackoffDone, 0);
        }
        failed(&mut s, "t", FailureClass::Transient);
        assert_eq!(next_action(&s, 0), Action::Ask { attempt: 1 });
        assert_eq!(s.checks.last().unwrap().class, FailureClass::Fixable);
    }

    #[test]
    fn a_stalled_or_waiting_run_says_so_before_its_step() {
        let mut s = state(5);
        failed(&mut s, "a", FailureClass::Fixable);
        assert_eq!(next_action(&s, 0), Action::Ask { attempt: 1 });
        apply_event(&mut s, &RepairEvent::Stalled, 0);
        assert_eq!(next_action(&s, 0), Action::Stalled);
        apply_event(&mut s, &RepairEvent::Waiting { until: 100 }, 0);
        // (now, the action)
        for (now, action) in [
            (0, Action::Wait { until: 100 }),
            (99, Action::Wait { until: 100 }),
            (100, Action::Resume),
            (101, Action::Resume),
        ] {
            assert_eq!(next_action(&s, now), action, "at {now}");
        }
        apply_event(&mut s, &RepairEvent::Resumed, 0);
        assert_eq!(next_action(&s, 0), Action::Ask { attempt: 1 });
    }

    #[test]
    fn each_attempt_s_events_land_on_its_own_record() {
        let mut s = state(5);
        failed(&mut s, "a", FailureClass::Fixable);
        attempt(&mut s, true);
        failed(&mut s, "b", FailureClass::Fixable);
        // Attempt 2 asked twice (a hook that stopped before its answer): one record of it.
        for at in [10, 20] {
            let a = new_attempt(&s, 2, at, "d2".into());
            apply_event(&mut s, &RepairEvent::FixAsked { attempt: a }, at);
        }
        let asked: Vec<(u32, u64)> = s.attempts.iter().map(|a| (a.n, a.asked_at)).collect();
        assert_eq!(asked, [(1, 0), (2, 20)]);
        apply_event(
            &mut s,
            &RepairEvent::FixEnded {
                attempt: 2,
                after: "e2".into(),
                files_changed: vec!["two.rs".into()],
                no_change: false,
            },
            30,
        );
        failed(&mut s, "c", FailureClass::Fixable);
        let first = s.attempt(1).unwrap();
        assert_eq!(
            (first.ended_at, first.files_changed.clone(), first.check),
            (Some(0), vec!["f1".to_owned()], Some(2))
        );
        let second = s.attempt(2).unwrap();
        assert_eq!(
            (
                second.ended_at,
                second.after.as_deref(),
                second.files_changed.clone(),
                second.check
            ),
            (Some(30), Some("e2"), vec!["two.rs".to_owned()], Some(3))
        );
    }

    #[test]
    fn a_pass_says_after_what_it_came_and_an_autofix_runs_after_the_baseline_only() {
        // (attempts before the pass, the reason)
        for (attempts, reason) in [
            (0, "the check already passes"),
            (1, "the check passes after 1 fix attempt"),
            (2, "the check passes after 2 fix attempts"),
        ] {
            let mut s = state(5);
            for k in 0..attempts {
                failed(&mut s, &format!("s{k}"), FailureClass::Fixable);
                attempt(&mut s, true);
            }
            failed(&mut s, "", FailureClass::Pass);
            assert_eq!(s.status, RepairStatus::Success);
            assert_eq!(s.ending.as_ref().map(|e| e.reason.as_str()), Some(reason));
        }
        let with_autofix = |s: &mut RepairState| {
            s.spec.autofix = Some(vec!["fmt".into()]);
            failed(s, "a", FailureClass::Fixable);
            assert_eq!(next_action(s, 0), Action::RunAutofix);
            let record = AutofixRecord {
                exit_code: 0,
                timed_out: false,
                duration_ms: 1,
                files_changed: Vec::new(),
                log: String::new(),
            };
            apply_event(s, &RepairEvent::AutofixFinished { record }, 0);
        };
        let mut s = state(5);
        with_autofix(&mut s);
        failed(&mut s, "a", FailureClass::Fixable);
        assert_eq!(next_action(&s, 0), Action::Ask { attempt: 1 });
        let mut s = state(5);
        with_autofix(&mut s);
        failed(&mut s, "", FailureClass::Pass);
        assert_eq!(
            s.ending.map(|e| e.reason),
            Some("the check passes after the autofix".to_owned())
        );
    }

    #[test]
    fn tick_requests_count_up_and_a_check_clears_them() {
        let mut s = state(5);
        for expected in 1..=3 {
            apply_event(&mut s, &RepairEvent::TickRequested, 0);
            assert_eq!(s.tick_requests, expected);
        }
        failed(&mut s, "a", FailureClass::Fixable);
        assert_eq!(s.tick_requests, 0);
    }
}
