//! The revise step (design note 35): dispatched after the reviews when one asks for a change,
//! before the task writer, at the synthesizer's tier; settled by code when none does; a rework
//! verdict sends the plan back once.

use serde_json::{Value, json};

use crate::test_support::{per_finding_run, stop_event, submit};
use crate::{
    Config, Decision, ItemKind, ItemStatus, Phase, RunState, Tier, decide_stop, item_input,
};

/// A run of `n` generic findings of one rule, one triage item each, with `config`.
fn run(n: u32, config: Config) -> RunState {
    per_finding_run("r-revise", n, "ruff E711", |_| "generic", |_| false, config)
}

fn full() -> Config {
    Config {
        full_plan_min: 3,
        ..Config::default()
    }
}

/// One stop of the bound session with nothing running; the items it launched.
fn stop(state: &mut RunState) -> Vec<String> {
    match decide_stop(
        state,
        &stop_event("s1", Some(&[])),
        crate::test_support::NOW,
    )
    .decision
    {
        Decision::Block(dispatch) => dispatch.launch.into_iter().map(|l| l.item).collect(),
        _ => Vec::new(),
    }
}

fn review(verdict: &str, must_fix: &str) -> Value {
    json!(format!(
        "## Verdict\n{verdict}\n\n## Must fix\n{must_fix}\n\n## Checked\nthe files the plan names"
    ))
}

fn approve() -> Value {
    review("approve, the plan fixes the cause.", "none")
}

/// The answer a scripted agent gives each item; reviews by `reviews(id)`.
fn answer(state: &RunState, id: &str, reviews: &dyn Fn(&str) -> Value) -> Value {
    let item = state.item(id).unwrap_or_else(|| panic!("no {id}"));
    match item.kind {
        ItemKind::Triage => {
            json!({"verdict": "real", "root_cause": "comparison to None", "reason": "the code compares with ==", "confidence": 0.9})
        }
        ItemKind::Aggregate => json!({"groups": [{"label": "comparison to None",
            "root_cause": "comparisons to None with ==", "items": item.inputs()}]}),
        ItemKind::RuleReview => json!({"rules": []}),
        ItemKind::Plan => json!(format!(
            "## Plan {id}\n\nReplace `== None` with `is None` at each line."
        )),
        ItemKind::Synthesize => json!({
            "scores": item.inputs().iter().map(|p| json!({"plan": p, "correctness": 4,
                "simplicity": 4, "scope": 4, "tests": 3, "regression_risk": 4})).collect::<Vec<_>>(),
            "plan": "## Summary\nUse `is None`.\n\n## Changes\n1. Replace `== None` at each line."}),
        ItemKind::Review => reviews(id),
        ItemKind::Revise => json!({
            "plan": "## Summary\nUse `is None`, revised.\n\n## Changes\n1. Replace `== None`.\n2. Add a test.",
            "points": item.inputs().iter().map(|p| json!({"point": p, "outcome": "applied",
                "how": "step 2 now does it"})).collect::<Vec<_>>()}),
        ItemKind::WriteTask => json!({"title": "Compare to None with is",
            "description": "Replace every == None with is None.",
            "acceptance_criteria": ["ruff reports no E711"]}),
        ItemKind::TriageBatch | ItemKind::RuleSurvey | ItemKind::Verify | ItemKind::MergeLabels => {
            panic!("not in these runs: {id}")
        }
    }
}

/// Drives the run to its end; every item launched, in order.
fn drive(state: &mut RunState, reviews: &dyn Fn(&str) -> Value) -> Vec<String> {
    let mut launched = Vec::new();
    for _ in 0..100 {
        let ids = stop(state);
        if ids.is_empty() {
            break;
        }
        for id in &ids {
            let result = answer(state, id, reviews);
            submit(state, id, result);
        }
        launched.extend(ids);
    }
    launched
}

fn position(launched: &[String], id: &str) -> usize {
    launched
        .iter()
        .position(|l| l == id)
        .unwrap_or_else(|| panic!("{id} was never launched: {launched:?}"))
}

#[test]
fn a_review_with_must_fix_points_dispatches_the_revise_step_before_the_task_writer() {
    let mut state = run(3, full());
    let reviews = |id: &str| match id {
        "rev-g1-2" => review(
            "approve with changes, step 1 misses a case.",
            "1. Step 1: also fix `src/m2.py`.\n2. Name a test.",
        ),
        _ => approve(),
    };
    let launched = drive(&mut state, &reviews);
    assert_eq!(state.phase, Phase::Finalize);
    let revise = state.item("rv-g1").unwrap();
    assert_eq!(revise.status, ItemStatus::Done);
    assert_eq!(revise.dispatches, 1);
    assert_eq!(revise.tier, Tier::Opus, "the synthesizer's tier");
    assert_eq!(revise.inputs(), ["rev-g1-2.1", "rev-g1-2.2"]);
    for review in ["rev-g1-1", "rev-g1-2", "rev-g1-3", "rev-g1-4"] {
        assert!(position(&launched, review) < position(&launched, "rv-g1"));
    }
    assert!(position(&launched, "rv-g1") < position(&launched, "tw-g1"));
    // What `show` renders and `submit` validates against: the asks, one entry each.
    assert_eq!(item_input(&state, revise).inputs, revise.inputs());
}

#[test]
fn reviews_that_ask_for_nothing_settle_the_revise_step_without_an_agent() {
    let mut state = run(3, full());
    let launched = drive(&mut state, &|_| approve());
    assert!(!launched.iter().any(|l| l == "rv-g1"), "{launched:?}");
    let revise = state.item("rv-g1").unwrap();
    assert_eq!(
        (revise.status, revise.dispatches),
        (ItemStatus::Done, 0),
        "done by code"
    );
    assert!(launched.iter().any(|l| l == "tw-g1"));
    assert_eq!(state.phase, Phase::Finalize);
}

#[test]
fn a_rework_review_sends_the_plan_back_once_not_twice() {
    let mut state = run(3, full());
    // Two reviewers say rework: still one revision, launched once, with both verdicts to
    // answer; its result goes to the task writer, not to another review round.
    let reviews = |id: &str| match id {
        "rev-g1-1" => review(
            "rework: the plan fixes the symptom, not the helper.",
            "none",
        ),
        "rev-g1-3" => review("Rework. Wrong file.", "1. The helper is in `src/util.py`."),
        _ => approve(),
    };
    let launched = drive(&mut state, &reviews);
    let revise = state.item("rv-g1").unwrap();
    assert_eq!(
        revise.inputs(),
        ["rev-g1-1.rework", "rev-g1-3.rework", "rev-g1-3.1"]
    );
    assert_eq!(launched.iter().filter(|l| *l == "rv-g1").count(), 1);
    assert_eq!(revise.dispatches, 1);
    let after: Vec<&String> = launched[position(&launched, "rv-g1") + 1..]
        .iter()
        .collect();
    assert_eq!(
        after,
        ["tw-g1"],
        "no second review round, no second revision"
    );
    assert_eq!(
        state
            .items
            .iter()
            .filter(|i| i.kind == ItemKind::Review)
            .count(),
        4
    );
}

#[test]
fn a_light_group_s_review_asking_for_a_change_gets_the_revise_step_and_one_approving_does_not() {
    let mut state = run(3, Config::default());
    let launched = drive(&mut state, &|_| {
        review("approve with changes", "- keep the comparison in `tests/`")
    });
    assert_eq!(
        state.item("rv-g1").unwrap().depends_on(),
        ["plan-g1-1", "rev-g1-1"]
    );
    assert_eq!(state.item("rv-g1").unwrap().inputs(), ["rev-g1-1.1"]);
    assert!(position(&launched, "rev-g1-1") < position(&launched, "rv-g1"));
    assert!(position(&launched, "rv-g1") < position(&launched, "tw-g1"));

    let mut state = run(3, Config::default());
    let launched = drive(&mut state, &|_| approve());
    assert_eq!(launched[launched.len() - 1], "tw-g1");
    assert!(!launched.iter().any(|l| l == "rv-g1"));
    assert_eq!(state.item("rv-g1").unwrap().status, ItemStatus::Done);
}

#[test]
fn a_late_answer_of_a_review_given_up_on_leaves_the_revise_step_as_it_was() {
    let mut state = run(3, Config::default());
    // Drive to the review, then let it fail for good: the revise step is settled by code.
    for _ in 0..20 {
        let ids = stop(&mut state);
        if ids.iter().any(|i| i == "rev-g1-1") {
            break;
        }
        for id in &ids {
            let result = answer(&state, id, &|_| approve());
            submit(&mut state, id, result);
        }
    }
    if let Some(item) = state.item_mut("rev-g1-1") {
        item.status = ItemStatus::Quarantined;
    }
    assert_eq!(stop(&mut state), ["tw-g1"]);
    assert_eq!(state.item("rv-g1").unwrap().status, ItemStatus::Done);
    submit(
        &mut state,
        "rev-g1-1",
        review("rework", "1. Everything is wrong."),
    );
    let revise = state.item("rv-g1").unwrap();
    assert!(revise.inputs().is_empty(), "{:?}", revise.inputs());
}

#[test]
fn a_failed_plan_quarantines_the_revise_step_with_the_task_writer() {
    let mut state = run(3, Config::default());
    for _ in 0..20 {
        let ids = stop(&mut state);
        if ids.iter().any(|i| i == "plan-g1-1") {
            break;
        }
        for id in &ids {
            let result = answer(&state, id, &|_| approve());
            submit(&mut state, id, result);
        }
    }
    if let Some(item) = state.item_mut("plan-g1-1") {
        item.status = ItemStatus::Quarantined;
    }
    assert!(stop(&mut state).is_empty());
    for id in ["rev-g1-1", "rv-g1", "tw-g1"] {
        assert_eq!(
            state.item(id).unwrap().status,
            ItemStatus::Quarantined,
            "{id}"
        );
    }
}

#[test]
fn a_failed_revise_step_still_lets_the_task_writer_run_on_the_plan_as_reviewed() {
    let mut state = run(3, Config::default());
    let asks = |_: &str| review("approve with changes", "1. Name a test.");
    for _ in 0..20 {
        let ids = stop(&mut state);
        if ids.iter().any(|i| i == "rv-g1") {
            break;
        }
        for id in &ids {
            let result = answer(&state, id, &asks);
            submit(&mut state, id, result);
        }
    }
    assert_eq!(state.item("rv-g1").unwrap().dispatches, 1);
    if let Some(item) = state.item_mut("rv-g1") {
        item.status = ItemStatus::Quarantined;
    }
    assert_eq!(stop(&mut state), ["tw-g1"]);
    let result = answer(&state, "tw-g1", &asks);
    submit(&mut state, "tw-g1", result);
    assert!(stop(&mut state).is_empty());
    assert_eq!(state.phase, Phase::Finalize);
}

/// Issue 35's guard, while the other reviews are still out: a review given up on whose answer
/// arrives late adds nothing to the revise step, although the step has not gone out yet.
#[test]
fn a_late_answer_of_a_review_given_up_on_while_others_run_asks_nothing() {
    let mut state = run(3, full());
    let mut reviews = Vec::new();
    for _ in 0..20 {
        let ids = stop(&mut state);
        if ids.iter().any(|i| i.starts_with("rev-g1-")) {
            reviews = ids;
            break;
        }
        for id in &ids {
            let result = answer(&state, id, &|_| approve());
            submit(&mut state, id, result);
        }
    }
    assert!(reviews.len() > 1, "{reviews:?}");
    if let Some(item) = state.item_mut("rev-g1-1") {
        item.status = ItemStatus::Quarantined;
    }
    submit(
        &mut state,
        "rev-g1-1",
        review("rework", "1. Everything is wrong."),
    );
    let revise = state.item("rv-g1").unwrap();
    assert_eq!(
        (revise.status, revise.dispatches),
        (ItemStatus::Pending, 0),
        "the revise step has not gone out"
    );
    assert!(revise.inputs().is_empty(), "{:?}", revise.inputs());
    // A review still out that asks the same is heard.
    submit(
        &mut state,
        "rev-g1-2",
        review("rework", "1. Everything is wrong."),
    );
    assert_eq!(
        state.item("rv-g1").unwrap().inputs(),
        ["rev-g1-2.rework", "rev-g1-2.1"]
    );
}
