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

/// Four security findings of one rule in two first-look batches of two.
fn one_security_rule_in_two_batches(verify_batch: u32) -> RunState {
    let findings = [
        ("security", "bandit B608", "a.py"),
        ("security", "bandit B608", "b.py"),
        ("security", "bandit B608", "c.py"),
        ("security", "bandit B608", "d.py"),
    ];
    let config = Config {
        triage_batch: 2,
        verify_batch,
        launch_mode: LaunchMode::Foreground,
        survey_min: 0,
        ..Config::default()
    };
    run_of_findings("r-verify", &findings, config)
}

fn batch_answer(verdicts: &[(&str, &str)]) -> Value {
    json!({"verdicts": verdicts.iter().map(|(item, verdict)| {
        let mut one = answer(verdict, 0.9);
        one["item"] = json!(item);
        one
    }).collect::<Vec<_>>()})
}

/// Issue 34: the dismissals of one security rule wait until every first look of the rule is
/// in, then one agent at the verify tier checks them all, each with its own verdict; each
/// settles its own finding (a disagreement keeps that one real, the others stand).
#[test]
fn security_dismissals_of_one_rule_are_checked_together_once_its_first_looks_are_in() {
    let mut state = one_security_rule_in_two_batches(20);
    let first = launched(&mut state);
    assert_eq!(first.len(), 2, "{first:?}");
    let (one, two) = (first[0].0.clone(), first[1].0.clone());
    let members = |state: &RunState, id: &str| state.item(id).unwrap().inputs().to_vec();
    let (m1, m2) = (members(&state, &one), members(&state, &two));
    submit(
        &mut state,
        &one,
        batch_answer(&[(&m1[0], "false_positive"), (&m1[1], "false_positive")]),
    );
    let out = decide_stop(&mut state, &stop(), NOW);
    assert!(
        !matches!(&out.decision, Decision::Block(d) if d.launch.iter().any(|l| l.item.starts_with("vf-") || l.item != two)),
        "the second looks wait for the rule's other batch: {:?}",
        out.decision
    );
    submit(
        &mut state,
        &two,
        batch_answer(&[(&m2[0], "false_positive"), (&m2[1], "real")]),
    );
    let checks = launched(&mut state);
    assert_eq!(
        checks.len(),
        1,
        "one agent for the rule's dismissals: {checks:?}"
    );
    let (check, model) = &checks[0];
    assert_eq!(model, "opus");
    let looks = members(&state, check);
    assert_eq!(looks, ["vf-00001", "vf-00002", "vf-00003"]);
    assert_eq!(state.item(check).unwrap().rule(), Some("bandit B608"));
    submit(
        &mut state,
        check,
        batch_answer(&[
            ("vf-00001", "false_positive"),
            ("vf-00002", "real"),
            ("vf-00003", "intended"),
        ]),
    );
    decide_stop(&mut state, &stop(), NOW);
    assert_eq!(
        ["t-00001", "t-00002", "t-00003", "t-00004"].map(|t| status(&state, t)),
        [
            (ItemStatus::Done, Some(Verdict::FalsePositive)),
            (ItemStatus::Done, Some(Verdict::Real)),
            (ItemStatus::Done, Some(Verdict::Intended)),
            (ItemStatus::Done, Some(Verdict::Real)),
        ]
    );
    assert_ne!(state.phase, Phase::Triage, "triage is over");
}

/// `verify_batch: 1` sends each security dismissal's second look on its own, as before.
#[test]
fn verify_batch_one_sends_each_second_look_on_its_own() {
    let mut state = one_security_rule_in_two_batches(1);
    let first = launched(&mut state);
    for (batch, _) in &first {
        let m = state.item(batch).unwrap().inputs().to_vec();
        submit(
            &mut state,
            batch,
            batch_answer(&[(&m[0], "false_positive"), (&m[1], "false_positive")]),
        );
    }
    let mut checks: Vec<String> = launched(&mut state).into_iter().map(|(i, _)| i).collect();
    checks.sort();
    assert_eq!(checks, ["vf-00001", "vf-00002", "vf-00003", "vf-00004"]);
}

/// Issue 48: a `real` below `verify_below` gets a blind second look at the verify tier (opus),
/// on any route; one at or above the threshold stands on its one look.
#[test]
fn a_low_confidence_real_gets_a_blind_second_look_at_the_verify_tier_and_a_confident_one_stands() {
    let mut state = run_of(&["generic", "generic"], 1);
    launched(&mut state);
    submit(&mut state, "t-00001", answer("real", 0.6));
    submit(&mut state, "t-00002", answer("real", 0.8));
    assert_eq!(
        status(&state, "t-00002"),
        (ItemStatus::Done, Some(Verdict::Real))
    );
    assert!(state.item("vf-00002").is_none(), "at the threshold: stands");
    assert_eq!(
        status(&state, "t-00001"),
        (ItemStatus::Pending, Some(Verdict::Real)),
        "held by its second look"
    );
    assert_eq!(
        launched(&mut state),
        [("vf-00001".to_owned(), "opus".to_owned())]
    );
    submit(&mut state, "vf-00001", answer("real", 0.9));
    assert_eq!(
        status(&state, "t-00001"),
        (ItemStatus::Done, Some(Verdict::Real)),
        "two investigators call it real: it stands"
    );
}

/// Issue 48: a second look that does not share a low-confidence `real` makes it `unsure` (a
/// person decides), never `false_positive` on that one dismissal; `known.json` learns nothing.
#[test]
fn a_low_confidence_real_the_second_look_dismisses_is_unsure_not_closed() {
    for second in ["false_positive", "intended", "unsure"] {
        let mut state = run_of(&["security"], 1);
        launched(&mut state);
        submit(&mut state, "t-00001", answer("real", 0.6));
        assert_eq!(
            launched(&mut state),
            [("vf-00001".to_owned(), "opus".to_owned())]
        );
        submit(&mut state, "vf-00001", answer(second, 0.95));
        assert_eq!(
            status(&state, "t-00001"),
            (ItemStatus::Done, Some(Verdict::Unsure)),
            "{second}"
        );
        assert_eq!(
            crate::registered(&state, "t-00001", Some(crate::VerifyOutcome::Disputed)),
            crate::Registered::Skip
        );
    }
    assert_eq!(
        crate::settle_verdict(Verdict::Real, Verdict::FalsePositive),
        (Verdict::Unsure, crate::VerifyOutcome::Disputed)
    );
    assert_eq!(
        crate::settle_verdict(Verdict::Real, Verdict::Real),
        (Verdict::Real, crate::VerifyOutcome::Confirmed)
    );
}

/// Issue 48: a low-confidence `real` whose second look never counts (quarantined after its
/// tiers) keeps its first answer: only a second look that disagrees makes it `unsure`.
#[test]
fn a_low_confidence_real_whose_second_look_is_quarantined_stays_real() {
    let mut state = run_of(&["generic"], 1);
    launched(&mut state);
    submit(&mut state, "t-00001", answer("real", 0.5));
    for _ in 0..3 {
        let out = launched(&mut state);
        if out.first().is_none_or(|l| l.0 != "vf-00001") {
            break;
        }
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
    let verifier = state.item("vf-00001").unwrap();
    assert_eq!(verifier.status, ItemStatus::Quarantined);
    assert_eq!(
        status(&state, "t-00001"),
        (ItemStatus::Done, Some(Verdict::Real))
    );
}

/// Issue 48: the second looks of a rule's low-confidence reals wait for its first looks and
/// join its security dismissals' batch: one agent at the verify tier, each finding settled on
/// its own.
#[test]
fn low_confidence_reals_are_checked_in_the_batch_of_their_rules_second_looks() {
    let mut state = one_security_rule_in_two_batches(20);
    let first = launched(&mut state);
    let (one, two) = (first[0].0.clone(), first[1].0.clone());
    let members = |state: &RunState, id: &str| state.item(id).unwrap().inputs().to_vec();
    let (m1, m2) = (members(&state, &one), members(&state, &two));
    let mut low = answer("real", 0.6);
    low["item"] = json!(m1[0]);
    let mut sure = answer("real", 0.95);
    sure["item"] = json!(m1[1]);
    submit(&mut state, &one, json!({"verdicts": [low, sure]}));
    submit(
        &mut state,
        &two,
        batch_answer(&[(&m2[0], "false_positive"), (&m2[1], "real")]),
    );
    let checks = launched(&mut state);
    assert_eq!(checks.len(), 1, "{checks:?}");
    assert_eq!(checks[0].1, "opus");
    assert_eq!(
        members(&state, &checks[0].0),
        ["vf-00001", "vf-00003"],
        "the low-confidence real and the dismissal; the confident reals stand"
    );
    submit(
        &mut state,
        &checks[0].0.clone(),
        batch_answer(&[
            ("vf-00001", "false_positive"),
            ("vf-00003", "false_positive"),
        ]),
    );
    decide_stop(&mut state, &stop(), NOW);
    assert_eq!(
        ["t-00001", "t-00002", "t-00003", "t-00004"].map(|t| status(&state, t)),
        [
            (ItemStatus::Done, Some(Verdict::Unsure)),
            (ItemStatus::Done, Some(Verdict::Real)),
            (ItemStatus::Done, Some(Verdict::FalsePositive)),
            (ItemStatus::Done, Some(Verdict::Real)),
        ]
    );
}

#[test]
fn each_reason_for_a_second_look_has_the_word_report_json_uses() {
    for (why, word) in [
        (super::VerifyReason::LowConfidence, "low_confidence"),
        (super::VerifyReason::SecurityDismissal, "security_dismissal"),
        (super::VerifyReason::Unsure, "unsure"),
        (
            super::VerifyReason::LowConfidenceReal,
            "low_confidence_real",
        ),
    ] {
        assert_eq!(why.as_str(), word);
        assert_eq!(serde_json::to_value(why).unwrap(), word);
    }
}

#[test]
fn a_batch_holds_second_looks_when_its_members_are_verifiers() {
    let item = |id: &str, kind: ItemKind, inputs: &[&str]| {
        let mut item = crate::WorkItem::new(id, kind, crate::Tier::Sonnet);
        item.extra_mut().inputs = inputs.iter().map(|&i| i.into()).collect();
        item
    };
    for (batch, holds) in [
        (
            item("tb-00001", ItemKind::TriageBatch, &["vf-00001", "vf-00002"]),
            true,
        ),
        (
            item("tb-00002", ItemKind::TriageBatch, &["t-00001", "t-00002"]),
            false,
        ),
        (item("tb-00003", ItemKind::TriageBatch, &[]), false),
        (item("vf-00003", ItemKind::Verify, &["vf-00001"]), false),
    ] {
        assert_eq!(super::holds_second_looks(&batch), holds, "{}", batch.id);
    }
}

/// A second look that ends unconfirmed settles its finding: one step of progress for the
/// no-progress guard, as any verdict is (its set-aside answers were none).
#[test]
fn a_second_look_ended_unconfirmed_is_one_step_of_progress() {
    let mut state = security_dismissal_under_verification();
    let mut running = stop_after_launch("vf-00001", None);
    running.running = Some(vec!["vf-00001".to_owned()]);
    decide_stop(&mut state, &running, NOW);
    submit(&mut state, "vf-00001", answer("intended", 0.9));
    assert_eq!(launched(&mut state)[0].0, "vf-00001", "sent again once");
    decide_stop(&mut state, &running, NOW);
    let before = state.progress;
    submit(&mut state, "vf-00001", answer("intended", 0.9));
    assert_eq!(
        state.item("vf-00001").unwrap().status,
        ItemStatus::Quarantined
    );
    assert_eq!(state.progress, before + 1);
}

/// The launch of a second look that already answered says at which tier the second look ran,
/// not its finding's first look: only a batch passes its tier on to the items it decided.
#[test]
fn a_second_look_s_launch_read_after_its_answer_leaves_its_finding_s_tier_alone() {
    let mut state = security_dismissal_under_verification();
    let first_look = state.item("t-00001").unwrap().ran;
    submit(&mut state, "vf-00001", answer("false_positive", 0.9));
    decide_stop(
        &mut state,
        &stop_after_launch("vf-00001", Some("opus")),
        NOW,
    );
    assert_eq!(state.item("vf-00001").unwrap().ran, Some(Tier::Opus));
    assert_eq!(status(&state, "vf-00001").0, ItemStatus::Done);
    assert_eq!(state.item("t-00001").unwrap().ran, first_look);
}
