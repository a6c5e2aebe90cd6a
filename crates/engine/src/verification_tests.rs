//! Verified verdicts: which answers get a second agent, at which tier, what it holds, and how
//! its answer settles the verdict.

use serde_json::{Value, json};

use crate::test_support::{NOW, run_of_findings, stop_event, submit};
use crate::{
    Config, Decision, Event, ItemKind, ItemStatus, JournalEntry, LaunchMode, Phase, RunState,
    StopEvent, Tier, Verdict, apply, decide_stop,
};

/// One finding per route, one agent each (no batch, no survey).
fn run_of(kinds: &[&str], batch: u32) -> RunState {
    let names: Vec<(String, String)> = (0..kinds.len())
        .map(|i| (format!("ruff R{i}"), format!("m{i}.py")))
        .collect();
    let findings: Vec<(&str, &str, &str)> = kinds
        .iter()
        .zip(&names)
        .map(|(route, (rule, path))| (*route, rule.as_str(), path.as_str()))
        .collect();
    let config = Config {
        triage_batch: batch,
        launch_mode: LaunchMode::Foreground,
        survey_min: 0,
        ..Config::default()
    };
    run_of_findings("r-verify", &findings, config)
}

fn stop() -> StopEvent {
    stop_event("s1", Some(&[]))
}

/// The items (and their model) the next stop launches.
fn launched(state: &mut RunState) -> Vec<(String, String)> {
    match decide_stop(state, &stop(), NOW).decision {
        Decision::Block(d) => d.launch.into_iter().map(|l| (l.item, l.model)).collect(),
        other => panic!("expected a block, got {other:?}"),
    }
}

fn answer(verdict: &str, confidence: f64) -> Value {
    json!({"verdict": verdict, "root_cause": "unused import", "confidence": confidence,
           "reason": "the name is read only by a test fixture"})
}

fn status(state: &RunState, id: &str) -> (ItemStatus, Option<Verdict>) {
    let item = state.item(id).unwrap();
    (item.status, item.verdict)
}

#[test]
fn a_low_confidence_dismissal_is_checked_one_tier_up_and_a_disagreement_keeps_it_real() {
    let mut state = run_of(&["generic", "generic"], 1);
    assert_eq!(launched(&mut state).len(), 2);
    submit(&mut state, "t-00001", answer("false_positive", 0.55));
    submit(&mut state, "t-00002", answer("false_positive", 0.95));
    // The confident one stands; the other waits for its verifier, never dispatched itself.
    assert_eq!(
        status(&state, "t-00002"),
        (ItemStatus::Done, Some(Verdict::FalsePositive))
    );
    assert_eq!(
        status(&state, "t-00001"),
        (ItemStatus::Pending, Some(Verdict::FalsePositive))
    );
    assert!(state.item("vf-00002").is_none());
    assert_eq!(
        launched(&mut state),
        [("vf-00001".to_owned(), "sonnet".to_owned())]
    );
    assert_eq!(
        state.phase,
        Phase::Triage,
        "the phase waits for the verifier"
    );
    submit(&mut state, "vf-00001", answer("real", 0.9));
    assert_eq!(
        status(&state, "t-00001"),
        (ItemStatus::Done, Some(Verdict::Real))
    );
    assert_eq!(state.counts(Phase::Triage).done, 2);
}

#[test]
fn every_security_dismissal_gets_an_opus_second_opinion_even_a_confident_one_in_a_batch() {
    let mut state = run_of(&["security", "security"], 8);
    let batch = launched(&mut state);
    assert_eq!(batch, [("tb-00001".to_owned(), "sonnet".to_owned())]);
    let mut first = answer("intended", 0.97);
    first["item"] = json!("t-00001");
    let mut second = answer("real", 0.9);
    second["item"] = json!("t-00002");
    submit(&mut state, "tb-00001", json!({"verdicts": [first, second]}));
    assert_eq!(
        status(&state, "t-00002"),
        (ItemStatus::Done, Some(Verdict::Real))
    );
    assert_eq!(
        launched(&mut state),
        [("vf-00001".to_owned(), "opus".to_owned())]
    );
    submit(&mut state, "vf-00001", answer("false_positive", 0.9));
    assert_eq!(
        status(&state, "t-00001"),
        (ItemStatus::Done, Some(Verdict::FalsePositive)),
        "two agents dismissed it: the dismissal stands"
    );
}

#[test]
fn an_unsure_gets_a_second_look_that_decides_and_the_verifier_is_never_verified() {
    let mut state = run_of(&["generic"], 1);
    launched(&mut state);
    submit(&mut state, "t-00001", answer("unsure", 0.3));
    assert_eq!(
        launched(&mut state),
        [("vf-00001".to_owned(), "sonnet".to_owned())]
    );
    submit(&mut state, "vf-00001", answer("intended", 0.5));
    assert_eq!(
        status(&state, "t-00001"),
        (ItemStatus::Done, Some(Verdict::Intended))
    );
    assert!(state.item("vf-00001").is_some());
    assert_eq!(
        state
            .items
            .iter()
            .filter(|i| i.kind == ItemKind::Verify)
            .count(),
        1
    );
}

#[test]
fn a_verifier_answering_unsure_on_a_dismissal_keeps_the_finding_real() {
    assert_eq!(
        crate::settle_verdict(Verdict::FalsePositive, Verdict::Unsure),
        (Verdict::Real, crate::VerifyOutcome::KeptReal)
    );
    assert_eq!(
        crate::settle_verdict(Verdict::Intended, Verdict::FalsePositive),
        (Verdict::FalsePositive, crate::VerifyOutcome::Confirmed)
    );
}

#[test]
fn a_quarantined_verifier_leaves_its_finding_unsure() {
    let mut state = run_of(&["generic"], 1);
    state.config.tiers.verify = Tier::Opus;
    launched(&mut state);
    submit(&mut state, "t-00001", answer("false_positive", 0.2));
    // Sonnet, then opus, each launched and ending without a result.
    for _ in 0..2 {
        let out = launched(&mut state);
        assert_eq!(out[0].0, "vf-00001");
        apply(
            &mut state,
            &JournalEntry {
                at: NOW,
                event: Event::Shown {
                    item: "vf-00001".into(),
                },
            },
        );
    }
    decide_stop(&mut state, &stop(), NOW);
    assert_eq!(
        state.item("vf-00001").unwrap().status,
        ItemStatus::Quarantined
    );
    assert_eq!(
        status(&state, "t-00001"),
        (ItemStatus::Done, Some(Verdict::Unsure))
    );
}

#[test]
fn a_journaled_answer_without_confidence_from_an_older_version_counts_as_confident() {
    let mut state = run_of(&["generic"], 1);
    launched(&mut state);
    submit(
        &mut state,
        "t-00001",
        json!({"verdict": "false_positive", "root_cause": "unused import",
               "reason": "the name is read only by a test fixture"}),
    );
    assert_eq!(
        status(&state, "t-00001"),
        (ItemStatus::Done, Some(Verdict::FalsePositive))
    );
    assert!(state.item("vf-00001").is_none());
}

/// A stop whose transcript showed `item` launched with `model` (`None`: dropped).
fn stop_after_launch(item: &str, model: Option<&str>) -> StopEvent {
    let mut event = stop();
    event.launched = vec![crate::AgentLaunch {
        item: item.into(),
        model: model.map(str::to_owned),
        ..crate::AgentLaunch::default()
    }];
    event
}

/// A security dismissal on sonnet, its verifier dispatched at opus.
fn security_dismissal_under_verification() -> RunState {
    let mut state = run_of(&["security"], 1);
    launched(&mut state);
    submit(&mut state, "t-00001", answer("false_positive", 0.95));
    assert_eq!(
        launched(&mut state),
        [("vf-00001".to_owned(), "opus".to_owned())]
    );
    state
}

/// Issue 24: a second opinion that ran on a weaker model than its dispatch (haiku for an opus
/// `vf-`, the launch having dropped `model`) still confirmed a dismissal. In a foreground run
/// the answer arrives before the stop that reads the launch: the confirmation is undone there.
#[test]
fn a_second_opinion_that_ran_below_its_dispatch_confirms_nothing_and_is_dispatched_again() {
    let mut state = security_dismissal_under_verification();
    submit(&mut state, "vf-00001", answer("false_positive", 0.9));
    let out = decide_stop(&mut state, &stop_after_launch("vf-00001", None), NOW);
    assert_eq!(
        status(&state, "t-00001"),
        (ItemStatus::Pending, Some(Verdict::FalsePositive)),
        "back to its first answer, waiting for a second look at opus"
    );
    let Decision::Block(dispatch) = out.decision else {
        panic!("expected the verifier again, got {:?}", out.decision);
    };
    assert_eq!(
        dispatch
            .launch
            .iter()
            .map(|l| (l.item.as_str(), l.model.as_str()))
            .collect::<Vec<_>>(),
        [("vf-00001", "opus")]
    );
    assert!(
        dispatch.summary.contains(
            "vf-00001 MUST keep \"model\": \"opus\" (its last launch dropped it and ran on haiku)"
        ),
        "{}",
        dispatch.summary
    );
    assert_eq!(
        state.item("vf-00001").unwrap().attempts,
        0,
        "not its failure"
    );
    // At opus it disagrees: the finding stays real.
    submit(&mut state, "vf-00001", answer("real", 0.9));
    decide_stop(
        &mut state,
        &stop_after_launch("vf-00001", Some("opus")),
        NOW,
    );
    assert_eq!(
        status(&state, "t-00001"),
        (ItemStatus::Done, Some(Verdict::Real))
    );
}

/// The same in a background run: the launch is read before the answer arrives, and the weaker
/// answer never settles anything.
#[test]
fn a_second_opinion_known_to_run_below_its_dispatch_is_not_taken_when_it_answers() {
    let mut state = security_dismissal_under_verification();
    let mut running = stop_after_launch("vf-00001", None);
    running.running = Some(vec!["vf-00001".to_owned()]);
    decide_stop(&mut state, &running, NOW);
    submit(&mut state, "vf-00001", answer("intended", 0.9));
    assert_eq!(
        status(&state, "t-00001"),
        (ItemStatus::Pending, Some(Verdict::FalsePositive))
    );
    assert_eq!(
        launched(&mut state),
        [("vf-00001".to_owned(), "opus".to_owned())]
    );
}

/// Issue 32: a main session that drops `model` on every launch sent the same verifier out 309
/// times (each weak answer accepted, then set aside by the next stop). Set aside twice, the
/// second look ends unconfirmed: the verifier quarantined with the reason, the finding
/// `unsure` (never the dismissal), and the run goes on to its next phase.
#[test]
fn a_second_look_set_aside_twice_ends_unconfirmed_instead_of_looping() {
    let mut state = security_dismissal_under_verification();
    let mut sends = 1;
    let mut last = None;
    for _ in 0..10 {
        submit(&mut state, "vf-00001", answer("false_positive", 0.9));
        let out = decide_stop(&mut state, &stop_after_launch("vf-00001", None), NOW);
        match out.decision {
            Decision::Block(d) if d.launch.iter().any(|l| l.item == "vf-00001") => sends += 1,
            other => {
                last = Some(other);
                break;
            }
        }
    }
    assert_eq!(
        sends, 2,
        "sent once, and again once after the first set-aside"
    );
    let verifier = state.item("vf-00001").unwrap();
    assert_eq!(verifier.status, ItemStatus::Quarantined);
    assert!(
        verifier
            .errors()
            .last()
            .is_some_and(|e| e.contains("set aside twice")),
        "{:?}",
        verifier.errors()
    );
    assert_eq!(
        status(&state, "t-00001"),
        (ItemStatus::Done, Some(Verdict::Unsure)),
        "an unconfirmed dismissal hides nothing"
    );
    assert_ne!(state.phase, Phase::Triage, "the run went on: {last:?}");
}

/// The same in a background run, where each weak answer is set aside when it arrives.
#[test]
fn a_background_second_look_set_aside_twice_ends_unconfirmed() {
    let mut state = security_dismissal_under_verification();
    for _ in 0..2 {
        let mut running = stop_after_launch("vf-00001", None);
        running.running = Some(vec!["vf-00001".to_owned()]);
        decide_stop(&mut state, &running, NOW);
        submit(&mut state, "vf-00001", answer("intended", 0.9));
        if state.item("vf-00001").unwrap().status == ItemStatus::Pending {
            assert_eq!(launched(&mut state)[0].0, "vf-00001");
        }
    }
    assert_eq!(
        state.item("vf-00001").unwrap().status,
        ItemStatus::Quarantined
    );
    assert_eq!(
        status(&state, "t-00001"),
        (ItemStatus::Done, Some(Verdict::Unsure))
    );
}

/// A weak answer that the next stop sets aside is no progress: the no-progress guard counts
/// what moves the run, not a result accepted and then thrown away.
#[test]
fn a_set_aside_answer_is_no_progress_for_the_guard() {
    let mut state = security_dismissal_under_verification();
    let before = state.progress;
    submit(&mut state, "vf-00001", answer("false_positive", 0.9));
    decide_stop(&mut state, &stop_after_launch("vf-00001", None), NOW);
    assert_eq!(state.progress, before);
}
