//! The budget and the agent cap: nothing is dispatched past them, in-flight work is waited for,
//! the run pauses with a message that says what was spent, what is left and how to go on, and
//! `resume --budget` (`Event::Budget`) lets it continue.

use std::collections::BTreeMap;

use serde_json::json;

use crate::{
    Config, Decision, Event, Intake, JournalEntry, LaunchMode, PauseReason, RoutedFinding,
    RunState, RunStatus, Spend, StopEvent, Tier, apply, create_run, decide_stop,
};

use self_repair_test_support::NOW;

fn run(findings: u32, budget_usd: Option<f64>, max_agents: Option<u32>) -> RunState {
    let routed: Vec<RoutedFinding> = (0..findings)
        .map(|i| RoutedFinding {
            finding: i,
            route: "generic".into(),
            tier: Tier::Haiku,
            rule: "ruff F401".into(),
            path: format!("src/m{i}.py"),
            safe_fix: false,
            security: false,
            severe: false,
        })
        .collect();
    let intake = Intake {
        findings,
        unique: findings,
        routed: findings,
        ..Intake::default()
    };
    let config = Config {
        launch_mode: LaunchMode::Foreground,
        triage_batch: 1,
        survey_min: 0,
        fan_out: 4,
        budget_usd,
        max_agents,
        ..Config::default()
    };
    create_run(
        "r-b".into(),
        NOW,
        config,
        intake,
        Some("s1".into()),
        &routed,
    )
}

/// A stop where the run has spent `spent` dollars and a triage agent costs `each` on average.
fn stop(spent: f64, each: f64) -> StopEvent {
    StopEvent {
        session: Some("s1".into()),
        running: None,
        launched: Vec::new(),
        unnotified: Vec::new(),
        notified: 0,
        provider_refused: Vec::new(),
        last_message: None,
        new_turn: false,
        spend: Some(Spend {
            spent_micros: crate::to_micros(spent),
            per_agent_micros: BTreeMap::from([("triage".to_owned(), crate::to_micros(each))]),
        }),
        ..StopEvent::default()
    }
}

fn launched(decision: &Decision) -> Vec<String> {
    match decision {
        Decision::Block(d) => d.launch.iter().map(|l| l.item.clone()).collect(),
        other => panic!("expected a block, got {other:?}"),
    }
}

fn submit_all(state: &mut RunState, items: &[String]) {
    for item in items {
        let entry = JournalEntry {
            at: NOW,
            event: Event::Submitted {
                item: item.clone(),
                result: json!({"confidence": 0.9, "verdict": "real", "root_cause": "unused import",
                    "reason": "the import is never used anywhere"}),
            },
        };
        assert!(apply(state, &entry).changed);
    }
}

#[test]
fn nothing_is_dispatched_past_the_budget_and_the_run_pauses_saying_how_to_go_on() {
    // $1.00 budget, $0.30 an agent: three fit in the first wave of four.
    let mut state = run(6, Some(1.0), None);
    let first = decide_stop(&mut state, &stop(0.0, 0.30), NOW);
    let wave = launched(&first.decision);
    assert_eq!(wave, ["t-00001", "t-00002", "t-00003"]);
    submit_all(&mut state, &wave);
    // They cost $0.90: one more agent would take the run to $1.20.
    let second = decide_stop(&mut state, &stop(0.90, 0.30), NOW);
    let Decision::Allow {
        message: Some(message),
    } = &second.decision
    else {
        panic!("expected the budget message, got {:?}", second.decision);
    };
    assert_eq!(state.status, RunStatus::Paused);
    assert!(matches!(
        state.pause,
        Some(PauseReason::Budget {
            spent_micros: 900_000,
            budget_micros: 1_000_000
        })
    ));
    assert!(message.contains("$0.90 spent"), "{message}");
    assert!(message.contains("Left undone: 3 items"), "{message}");
    assert!(
        message.contains("`self-repair resume --budget 2`"),
        "{message}"
    );
    // Paused: later stops dispatch nothing.
    let later = decide_stop(&mut state, &stop(0.90, 0.30), NOW);
    assert_eq!(later.decision, Decision::Allow { message: None });
    // `resume --budget 2`: the rest goes out.
    let raise = JournalEntry {
        at: NOW,
        event: Event::Budget { usd: 2.0 },
    };
    assert!(apply(&mut state, &raise).changed);
    assert_eq!(state.status, RunStatus::Active);
    let resumed = decide_stop(&mut state, &stop(0.90, 0.30), NOW);
    assert_eq!(
        launched(&resumed.decision),
        ["t-00004", "t-00005", "t-00006"]
    );
}

#[test]
fn work_in_flight_counts_against_the_budget_and_is_waited_for() {
    let mut state = run(6, Some(1.0), None);
    let first = decide_stop(&mut state, &stop(0.0, 0.30), NOW);
    assert_eq!(launched(&first.decision).len(), 3);
    // Nothing finished yet, nothing spent yet: the three in flight hold $0.90 of the budget,
    // so nothing more goes out, and the run waits for them rather than pausing.
    let waiting = decide_stop(&mut state, &stop(0.0, 0.30), NOW);
    assert_eq!(waiting.decision, Decision::Allow { message: None });
    assert_eq!(state.status, RunStatus::Active);
}

#[test]
fn the_agent_cap_stops_dispatch_at_max_agents() {
    let mut state = run(6, None, Some(2));
    let first = decide_stop(&mut state, &stop(0.0, 0.0), NOW);
    let wave = launched(&first.decision);
    assert_eq!(wave.len(), 2);
    submit_all(&mut state, &wave);
    let second = decide_stop(&mut state, &stop(0.0, 0.0), NOW);
    let Decision::Allow {
        message: Some(message),
    } = &second.decision
    else {
        panic!("expected the cap message, got {:?}", second.decision);
    };
    assert!(
        message.contains("agent cap is reached (2 agents launched)"),
        "{message}"
    );
    assert_eq!(state.status, RunStatus::Paused);
}

#[test]
fn without_a_known_average_an_item_is_estimated_by_its_tier() {
    // $0.012 budget; a haiku agent is estimated at $0.005 without an average: two fit.
    let mut state = run(4, Some(0.012), None);
    let mut stop = stop(0.0, 0.0);
    stop.spend.as_mut().unwrap().per_agent_micros.clear();
    let first = decide_stop(&mut state, &stop, NOW);
    assert_eq!(launched(&first.decision).len(), 2);
}
