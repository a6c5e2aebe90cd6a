//! Batch formation, a batch's result, splitting and per-half quarantine.

use serde_json::{Value, json};

use crate::test_support::{NOW, run_of_findings};
use crate::{
    Config, Decision, Event, ItemKind, ItemStatus, JournalEntry, LaunchMode, RunState, StopEvent,
    Tier, Verdict, apply, decide_stop,
};

/// `(route, rule, path)` per finding.
fn run_of(findings: &[(&str, &str, &str)], batch: u32) -> RunState {
    let config = Config {
        triage_batch: batch,
        launch_mode: LaunchMode::Foreground,
        // Per-finding and batch behaviour, without a rule survey in front.
        survey_min: 0,
        ..Config::default()
    };
    run_of_findings("r-test", findings, config)
}

fn batches(state: &RunState) -> Vec<(String, Vec<String>)> {
    state
        .items
        .iter()
        .filter(|i| i.kind == ItemKind::TriageBatch)
        .map(|i| {
            (
                i.id.to_string(),
                i.inputs()
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>(),
            )
        })
        .collect()
}

fn stop(running: Option<&[&str]>) -> StopEvent {
    crate::test_support::stop_event("s1", running)
}

fn dispatched(state: &mut RunState, running: Option<&[&str]>) -> Vec<String> {
    match decide_stop(state, &stop(running), NOW).decision {
        Decision::Block(d) => d.launch.into_iter().map(|l| l.description).collect(),
        other => panic!("expected a block, got {other:?}"),
    }
}

use crate::test_support::submit;

fn verdict(item: &str) -> Value {
    json!({"confidence": 0.9, "item": item, "verdict": "real", "root_cause": "unused import",
           "reason": "the name is never read in the module"})
}

fn show(state: &mut RunState, item: &str) {
    apply(
        state,
        &JournalEntry {
            at: NOW,
            event: Event::Shown { item: item.into() },
        },
    );
}

#[test]
fn batches_never_mix_routes_and_fill_by_rule_then_by_path() {
    let state = run_of(
        &[
            ("generic", "ruff E501", "b.py"),
            ("security", "ruff S101", "a.py"),
            ("generic", "ruff F401", "c.py"),
            ("generic", "ruff E501", "a.py"),
            ("generic", "ruff E501", "c.py"),
            ("security", "ruff S105", "a.py"),
            ("generic", "ruff F401", "a.py"),
        ],
        2,
    );
    assert_eq!(
        batches(&state),
        [
            // E501's full batch: a.py then b.py, in path order.
            (
                "tb-00001".to_owned(),
                vec!["t-00004".to_owned(), "t-00001".to_owned()]
            ),
            // Security findings together, never with generic ones.
            (
                "tb-00002".to_owned(),
                vec!["t-00002".to_owned(), "t-00006".to_owned()]
            ),
            // F401's full batch.
            (
                "tb-00003".to_owned(),
                vec!["t-00007".to_owned(), "t-00003".to_owned()]
            ),
        ]
    );
    // E501's remainder (c.py) is alone: a plain triage item.
    let tb2 = state.item("tb-00002").unwrap();
    assert_eq!(
        (tb2.route.as_deref(), tb2.tier),
        (Some("security"), Tier::Sonnet)
    );
}

#[test]
fn what_is_left_of_each_rule_fills_batches_by_file() {
    let state = run_of(
        &[
            ("generic", "ruff A", "z.py"),
            ("generic", "ruff B", "a.py"),
            ("generic", "ruff C", "a.py"),
            ("generic", "ruff D", "m.py"),
        ],
        3,
    );
    assert_eq!(
        batches(&state),
        [(
            "tb-00001".to_owned(),
            vec![
                "t-00002".to_owned(),
                "t-00003".to_owned(),
                "t-00004".to_owned()
            ]
        ),]
    );
}

#[test]
fn a_batch_never_holds_more_than_triage_batch_findings() {
    let findings: Vec<(&str, &str, &str)> =
        (0..20).map(|_| ("generic", "ruff F401", "a.py")).collect();
    let state = run_of(&findings, 8);
    let sizes: Vec<usize> = batches(&state).iter().map(|(_, m)| m.len()).collect();
    assert_eq!(sizes, [8, 8, 4]);
}

#[test]
fn triage_batch_1_makes_no_batch_and_dispatches_each_finding() {
    let mut state = run_of(&[("generic", "ruff F401", "a.py"); 3], 1);
    assert!(batches(&state).is_empty());
    assert_eq!(
        dispatched(&mut state, None),
        ["triage t-00001", "triage t-00002", "triage t-00003"]
    );
}

#[test]
fn a_batch_is_dispatched_instead_of_its_members_and_its_result_decides_each() {
    let mut state = run_of(&[("generic", "ruff F401", "a.py"); 3], 8);
    assert_eq!(dispatched(&mut state, None), ["triage tb-00001"]);
    let counts = state.counts(crate::Phase::Triage);
    assert_eq!((counts.running, counts.total()), (3, 3));
    submit(
        &mut state,
        "tb-00001",
        json!({"verdicts": [verdict("t-00001"), verdict("t-00002"), verdict("t-00003")]}),
    );
    for id in ["t-00001", "t-00002", "t-00003"] {
        let item = state.item(id).unwrap();
        assert_eq!(
            (item.status, item.verdict),
            (ItemStatus::Done, Some(Verdict::Real))
        );
    }
    assert_eq!(
        crate::batch_of(&state).get("t-00002").copied(),
        Some("tb-00001")
    );
    assert_eq!(state.counts(crate::Phase::Triage).done, 3);
}

#[test]
fn a_member_asking_for_a_reroute_leaves_its_batch_and_goes_alone() {
    let mut state = run_of(&[("generic", "ruff F401", "a.py"); 3], 8);
    dispatched(&mut state, None);
    let mut reroute = verdict("t-00002");
    reroute["verdict"] = json!("unsure");
    reroute["reroute"] = json!("security");
    submit(
        &mut state,
        "tb-00001",
        json!({"verdicts": [verdict("t-00001"), reroute, verdict("t-00003")]}),
    );
    let member = state.item("t-00002").unwrap();
    assert_eq!(
        (member.status, member.route.as_deref(), member.tier),
        (ItemStatus::Pending, Some("security"), Tier::Sonnet)
    );
    assert!(!crate::batch_of(&state).contains_key("t-00002"));
    assert_eq!(dispatched(&mut state, None), ["triage t-00002"]);
}

#[test]
fn a_batch_that_ends_without_a_result_is_split_in_halves_at_the_next_tier() {
    let mut state = run_of(&[("generic", "ruff F401", "a.py"); 5], 8);
    dispatched(&mut state, Some(&[]));
    show(&mut state, "tb-00001");
    let halves = dispatched(&mut state, Some(&[]));
    assert_eq!(halves, ["triage tb-00002", "triage tb-00003"]);
    let old = state.item("tb-00001").unwrap();
    assert_eq!(old.status, ItemStatus::Failed);
    assert!(
        old.errors()
            .iter()
            .any(|e| e.contains("split into tb-00002 and tb-00003"))
    );
    let (a, b) = (
        state.item("tb-00002").unwrap(),
        state.item("tb-00003").unwrap(),
    );
    assert_eq!(a.inputs(), ["t-00001", "t-00002", "t-00003"]);
    assert_eq!(b.inputs(), ["t-00004", "t-00005"]);
    assert_eq!((a.tier, a.attempts), (Tier::Sonnet, 0));
}

#[test]
fn a_finding_that_kills_its_agents_is_quarantined_alone() {
    let mut state = run_of(&[("generic", "ruff F401", "a.py"); 2], 8);
    // tb-00001 (t-1, t-2) dies: halves tb-00002 (t-1) and tb-00003 (t-2) at sonnet.
    dispatched(&mut state, Some(&[]));
    show(&mut state, "tb-00001");
    dispatched(&mut state, Some(&[]));
    submit(
        &mut state,
        "tb-00003",
        json!({"verdicts": [verdict("t-00002")]}),
    );
    // tb-00002 dies at sonnet, then at opus: quarantined, and so is its finding.
    for _ in 0..2 {
        show(&mut state, "tb-00002");
        let _ = decide_stop(&mut state, &stop(Some(&[])), NOW);
    }
    let batch = state.item("tb-00002").unwrap();
    assert_eq!(batch.status, ItemStatus::Quarantined);
    let member = state.item("t-00001").unwrap();
    assert_eq!(member.status, ItemStatus::Quarantined);
    assert!(member.errors().iter().any(|e| e.contains("tb-00002")));
    assert_eq!(state.item("t-00002").unwrap().verdict, Some(Verdict::Real));
    assert_ne!(state.phase, crate::Phase::Triage, "the phase went on");
}

#[test]
fn a_late_answer_of_a_split_batch_decides_its_findings_and_retires_the_halves() {
    let mut state = run_of(&[("generic", "ruff F401", "a.py"); 2], 8);
    dispatched(&mut state, Some(&[]));
    show(&mut state, "tb-00001");
    dispatched(&mut state, Some(&[]));
    submit(
        &mut state,
        "tb-00001",
        json!({"verdicts": [verdict("t-00001"), verdict("t-00002")]}),
    );
    for id in ["tb-00002", "tb-00003"] {
        assert_eq!(state.item(id).unwrap().status, ItemStatus::Failed, "{id}");
    }
    assert_eq!(state.counts(crate::Phase::Triage).done, 2);
}

/// The fold remembers a member it saw open in each live batch (a witness) to skip that batch
/// quickly on the next result: once the witness is decided, the batch is looked at again.
#[test]
fn a_half_whose_open_member_is_decided_later_is_retired_then() {
    let mut state = run_of(&[("generic", "ruff F401", "a.py"); 4], 8);
    dispatched(&mut state, Some(&[]));
    show(&mut state, "tb-00001");
    assert_eq!(
        dispatched(&mut state, Some(&[])),
        ["triage tb-00002", "triage tb-00003"]
    );
    submit(
        &mut state,
        "tb-00002",
        json!({"verdicts": [verdict("t-00001"), verdict("t-00002")]}),
    );
    assert_eq!(
        state.item("tb-00003").unwrap().status,
        ItemStatus::Dispatched
    );
    let before = state.clone();
    submit(
        &mut state,
        "tb-00001",
        json!({"verdicts": [verdict("t-00001"), verdict("t-00002"), verdict("t-00003"),
                            verdict("t-00004")]}),
    );
    let half = state.item("tb-00003").unwrap();
    assert_eq!(half.status, ItemStatus::Failed);
    assert!(
        half.errors()
            .iter()
            .any(|e| e.contains("decided by tb-00001"))
    );
    // A copy taken before (its witnesses with it) decides the same.
    let mut copy = before;
    submit(
        &mut copy,
        "tb-00001",
        json!({"verdicts": [verdict("t-00001"), verdict("t-00002"), verdict("t-00003"),
                            verdict("t-00004")]}),
    );
    assert_eq!(copy.items, state.items);
}

/// Issue 24: `ran_model` was missing for every finding a batch decided in a foreground run: the
/// batch's answer (and its tier, copied to its findings) arrives before the stop that reads the
/// launch from the transcript.
#[test]
fn findings_a_foreground_batch_decided_record_the_model_its_launch_ran_on() {
    let mut state = run_of(&[("generic", "ruff F401", "a.py"); 3], 8);
    assert_eq!(dispatched(&mut state, Some(&[])), ["triage tb-00001"]);
    submit(
        &mut state,
        "tb-00001",
        json!({"verdicts": [verdict("t-00001"), verdict("t-00002"), verdict("t-00003")]}),
    );
    let mut after = stop(Some(&[]));
    after.launched = vec![crate::AgentLaunch {
        item: "tb-00001".into(),
        model: Some("sonnet".into()),
        ..crate::AgentLaunch::default()
    }];
    decide_stop(&mut state, &after, NOW);
    for id in ["t-00001", "t-00002", "t-00003"] {
        assert_eq!(state.item(id).unwrap().ran, Some(Tier::Sonnet), "{id}");
    }
}

/// Issue 24: one failed batch showed as three failed attempts in report.md (whose table sums
/// `attempts` over items): both halves of its split carried the parent's attempt.
#[test]
fn a_failed_batch_counts_one_failed_attempt_not_one_more_per_half() {
    let mut state = run_of(&[("generic", "ruff F401", "a.py"); 4], 8);
    dispatched(&mut state, Some(&[]));
    show(&mut state, "tb-00001");
    assert_eq!(
        dispatched(&mut state, Some(&[])),
        ["triage tb-00002", "triage tb-00003"]
    );
    let failed: u32 = state.items.iter().map(|i| i.attempts).sum();
    assert_eq!(failed, 1, "one agent died once");
}

/// Issue 24: a refused batch launch was split in halves as if its agent had died.
#[test]
fn a_batch_launch_the_user_refused_is_neither_split_nor_charged() {
    let mut state = run_of(&[("generic", "ruff F401", "a.py"); 4], 8);
    assert_eq!(dispatched(&mut state, Some(&[])), ["triage tb-00001"]);
    let mut refused = stop(Some(&[]));
    refused.launched = vec![crate::AgentLaunch {
        item: "tb-00001".into(),
        model: Some("haiku".into()),
        refused: Some("user-rejected".into()),
        ..crate::AgentLaunch::default()
    }];
    decide_stop(&mut state, &refused, NOW);
    assert_eq!(batches(&state).len(), 1, "not split");
    let batch = state.item("tb-00001").unwrap();
    assert_eq!(
        (batch.status, batch.attempts, batch.tier),
        (ItemStatus::Pending, 0, Tier::Haiku)
    );
}

/// A stop after the model provider refused the agents of `items`.
fn refused(items: &[&str]) -> StopEvent {
    StopEvent {
        provider_refused: items.iter().map(|i| (*i).to_owned()).collect(),
        ..stop(Some(&[]))
    }
}

#[test]
fn a_batch_the_provider_refused_is_split_at_the_same_tier_and_a_refused_finding_alone_is_quarantined()
 {
    let mut state = run_of(&[("security", "bandit B602", "a.py"); 2], 8);
    assert_eq!(dispatched(&mut state, Some(&[])), ["triage tb-00001"]);
    let tier = state.item("tb-00001").unwrap().tier;
    // The provider refused the batch: each half is a new text, sent at the same tier.
    let out = decide_stop(&mut state, &refused(&["tb-00001"]), NOW);
    let Decision::Block(d) = out.decision else {
        panic!("expected the halves, got {:?}", out.decision);
    };
    let halves: Vec<(String, String)> = d.launch.into_iter().map(|l| (l.item, l.model)).collect();
    assert_eq!(
        halves,
        [
            ("tb-00002".to_owned(), tier.as_str().to_owned()),
            ("tb-00003".to_owned(), tier.as_str().to_owned())
        ]
    );
    assert_eq!(state.item("tb-00001").unwrap().attempts, 0);
    // The half holding t-00001 is refused again: quarantined with its finding, not escalated.
    submit(
        &mut state,
        "tb-00003",
        json!({"verdicts": [verdict("t-00002")]}),
    );
    let _ = decide_stop(&mut state, &refused(&["tb-00002"]), NOW);
    let member = state.item("t-00001").unwrap();
    assert_eq!(member.status, ItemStatus::Quarantined);
    assert_eq!(member.tier, tier, "not escalated");
    assert!(
        member
            .errors()
            .iter()
            .any(|e| e.contains(crate::REFUSED_BY_PROVIDER)),
        "{:?}",
        member.errors()
    );
    assert_eq!(state.provider_refusals, 2);
    assert!(state.streak.items.is_empty());
    assert_eq!(state.item("t-00002").unwrap().verdict, Some(Verdict::Real));
    assert_ne!(state.phase, crate::Phase::Triage, "the phase went on");
}
