//! The approach each fix attempt is asked for.

use self_repair_repair::{
    Approach, Attempt, CheckPurpose, CheckRecord, CheckRequest, FailureClass, FixTier, GitBaseline,
    RepairState, resolve_spec,
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

/// A failing check after attempt `attempt` (0: the baseline) with `tail` as its output.
fn failed(state: &mut RepairState, attempt: u32, signature: &str, tail: &str) {
    state.checks.push(CheckRecord {
        seq: state.checks.len() as u32 + 1,
        purpose: if attempt == 0 {
            CheckPurpose::Baseline
        } else {
            CheckPurpose::Recheck
        },
        attempt,
        exit_code: 1,
        timed_out: false,
        duration_ms: 1,
        signature: signature.into(),
        class: FailureClass::Fixable,
        tail: tail.into(),
        log: String::new(),
        at: 0,
    });
}

fn attempt(state: &mut RepairState, n: u32, no_change: bool) {
    state.attempts.push(Attempt {
        n,
        item: format!("fix-{n}"),
        tier: FixTier::Main,
        approach: Approach::Direct,
        asked_at: 0,
        before: String::new(),
        ended_at: Some(1),
        after: None,
        files_changed: Vec::new(),
        no_change,
        check: None,
    });
}

#[test]
fn the_first_attempt_s_approach_follows_the_symptom() {
    let cases = [
        ("error[E0425]: cannot find value `x`", Approach::Build),
        ("assertion `left == right` failed", Approach::Logic),
        ("KeyError: 'id'", Approach::Defensive),
        ("Segmentation fault", Approach::Direct),
    ];
    for (tail, approach) in cases {
        let mut state = state();
        failed(&mut state, 0, "sig", tail);
        assert_eq!(Approach::choose(&state, 1), approach, "{tail}");
    }
    // No check ran yet: nothing to go on.
    assert_eq!(Approach::choose(&state(), 1), Approach::Direct);
}

#[test]
fn a_failure_an_attempt_left_as_it_was_asks_for_another_way() {
    let cases = [
        // Attempt 1 changed files, the failure kept its signature: stuck.
        (false, "sig", Approach::Alternative),
        // It changed nothing: not stuck, the symptom decides.
        (true, "sig", Approach::Logic),
        // The failure changed: not stuck.
        (false, "other", Approach::Logic),
    ];
    for (no_change, second, approach) in cases {
        let mut state = state();
        failed(&mut state, 0, "sig", "AssertionError: 3 != 4");
        attempt(&mut state, 1, no_change);
        failed(&mut state, 1, second, "AssertionError: 3 != 4");
        assert_eq!(
            Approach::choose(&state, 2),
            approach,
            "{no_change} {second}"
        );
    }
    // A build error wins even when stuck.
    let mut state = state();
    failed(&mut state, 0, "sig", "could not compile `x`");
    attempt(&mut state, 1, false);
    failed(&mut state, 1, "sig", "could not compile `x`");
    assert_eq!(Approach::choose(&state, 2), Approach::Build);
    // From attempt 4 on: a fresh look, whatever the output.
    assert_eq!(Approach::choose(&state, 3), Approach::Build);
    assert_eq!(Approach::choose(&state, 4), Approach::Rethink);
}

#[test]
fn each_approach_has_its_name_and_its_own_instruction() {
    let cases = [
        (Approach::Direct, "direct", "Direct fix:"),
        (Approach::Build, "build", "Make it build:"),
        (Approach::Logic, "logic", "Fix the logic:"),
        (Approach::Defensive, "defensive", "Handle the bad value:"),
        (
            Approach::Alternative,
            "alternative",
            "Alternative approach:",
        ),
        (Approach::Rethink, "rethink", "Fresh look:"),
    ];
    for (approach, name, start) in cases {
        assert_eq!(approach.as_str(), name);
        assert!(approach.instruction().starts_with(start), "{approach:?}");
    }
}
