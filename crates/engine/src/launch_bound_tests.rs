//! Issue 32: no loop without a bound. Property tests over random agent behaviours (answer,
//! drop `model`, run on the wrong tier, submit twice, submit nothing, send an invalid result,
//! have the launch refused, never be launched, lose the session) and a user who always says
//! "go on": every item is launched at most [`MAX_LAUNCHES_PER_ITEM`] times (a dispatch the
//! session never launched is no launch: the no-progress guard bounds those), the run's
//! launches stay within [`launch_bound`], and the run ends. Each seed is one run; a failure
//! names it.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::schema_sampler::{Rng, sample};
use crate::test_support::{NOW, run_of_findings};
use crate::{
    AgentLaunch, Config, Decision, Event, ItemKind, JournalEntry, LaunchMode,
    MAX_LAUNCHES_PER_ITEM, PauseReason, RunState, RunStatus, StopEvent, Tier, apply, decide_stop,
    item_input, launch_bound, output_schema, route_names,
};

/// Seeds tried: each is a run of up to 10 findings driven to its end.
const SEEDS: u64 = 400;
/// Stops one run may take before the test calls it a runaway.
const STOPS: usize = 4_000;

/// What one launched agent (or the main session launching it) does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Habit {
    Answer,
    DropModel,
    WrongTier,
    SubmitTwice,
    SubmitNothing,
    Reject,
    Refuse,
    Vanish,
}

const HABITS: [Habit; 8] = [
    Habit::Answer,
    Habit::DropModel,
    Habit::WrongTier,
    Habit::SubmitTwice,
    Habit::SubmitNothing,
    Habit::Reject,
    Habit::Refuse,
    Habit::Vanish,
];

/// A run of `n` findings over three rules and two routes, in the seed's launch mode and batch.
fn random_run(rng: &mut Rng) -> RunState {
    let n = rng.range(1, 10) as usize;
    let names: Vec<(String, String)> = (0..n)
        .map(|i| (format!("ruff R{}", i % 3), format!("m{}.py", i % 4)))
        .collect();
    let findings: Vec<(&str, &str, &str)> = names
        .iter()
        .enumerate()
        .map(|(i, (rule, path))| {
            let route = if rng.range(0, 3) == 0 {
                "security"
            } else {
                "generic"
            };
            let _ = i;
            (route, rule.as_str(), path.as_str())
        })
        .collect();
    let config = Config {
        triage_batch: if rng.range(0, 1) == 0 { 1 } else { 4 },
        survey_min: if rng.range(0, 1) == 0 { 0 } else { 3 },
        launch_mode: if rng.range(0, 1) == 0 {
            LaunchMode::Foreground
        } else {
            LaunchMode::Background
        },
        confirm_above_usd: None,
        ..Config::default()
    };
    run_of_findings("r-bound", &findings, config)
}

/// A valid result for `item`, sampled from its own output schema.
fn valid_result(state: &RunState, item: &str, rng: &mut Rng) -> Value {
    let work = state.item(item).expect("a dispatched item exists");
    let input = item_input(state, work);

    let schema = output_schema(&input, &route_names(), state.triage_items).to_json_schema("t");
    sample(&schema, rng)
}

fn journal(state: &mut RunState, event: Event) {
    apply(state, &JournalEntry { at: NOW, event });
}

/// The tier one below `tier`.
fn below(tier: &str) -> &'static str {
    match Tier::parse(tier) {
        Some(Tier::Opus) => "sonnet",
        _ => "haiku",
    }
}

/// The outcome of one seed: launches per item, and the stops it took.
struct Drive {
    sends: BTreeMap<String, u32>,
    stops: usize,
}

/// Drives one random run to its end with random agent habits and a patient user.
fn drive(seed: u64) -> (RunState, Drive) {
    let mut rng = Rng::new(seed);
    let mut state = random_run(&mut rng);
    // How often agents misbehave in this run: from never to nearly always.
    let misbehaves = rng.range(0, 90);
    let mut session = "s1".to_owned();
    let mut sends: BTreeMap<String, u32> = BTreeMap::new();
    let mut next = StopEvent {
        session: Some(session.clone()),
        running: Some(Vec::new()),
        ..crate::test_support::stop_event("s1", Some(&[]))
    };
    let mut stops = 0;
    while stops < STOPS {
        stops += 1;
        let out = decide_stop(&mut state, &next, NOW);
        next = crate::test_support::stop_event(&session, Some(&[]));
        match out.decision {
            Decision::Finalize => journal(&mut state, Event::Finalized { tasks: Vec::new() }),
            Decision::Allow { .. } => match (state.status, &state.pause) {
                (RunStatus::Complete | RunStatus::Cancelled, _) => break,
                (RunStatus::Paused, Some(PauseReason::Circuit { .. })) => {
                    journal(&mut state, Event::Resume);
                }
                (RunStatus::Paused, Some(PauseReason::Confirm { .. })) => {
                    journal(&mut state, Event::Confirm);
                }
                (RunStatus::Paused, Some(PauseReason::Budget { .. })) => {
                    panic!("seed {seed}: paused at a budget it never had")
                }
                // Stalled, refused, or a quiet stop: the user says "carry on".
                _ => next.new_turn = true,
            },
            Decision::Block(dispatch) => {
                let mut launched = Vec::new();
                let mut submitted = Vec::new();
                for launch in &dispatch.launch {
                    let habit = if rng.range(0, 99) < misbehaves {
                        HABITS[rng.range(1, HABITS.len() as u64 - 1) as usize]
                    } else {
                        Habit::Answer
                    };
                    let model = match habit {
                        Habit::DropModel => None,
                        Habit::WrongTier => Some(below(&launch.model).to_owned()),
                        _ => Some(launch.model.clone()),
                    };
                    let refused = (habit == Habit::Refuse).then(|| "user-rejected".to_owned());
                    if habit != Habit::Vanish {
                        *sends.entry(launch.item.clone()).or_default() += 1;
                        launched.push(AgentLaunch {
                            item: launch.item.clone(),
                            model,
                            refused,
                            ..AgentLaunch::default()
                        });
                    }
                    match habit {
                        Habit::Refuse | Habit::Vanish => {}
                        Habit::SubmitNothing => submitted.push((launch.item.clone(), 0)),
                        Habit::Reject => submitted.push((launch.item.clone(), -1)),
                        Habit::SubmitTwice => submitted.push((launch.item.clone(), 2)),
                        _ => submitted.push((launch.item.clone(), 1)),
                    }
                }
                let background = state.config.launch_mode == LaunchMode::Background;
                if background {
                    // The launches are read while the agents run; their answers come after.
                    let running = launched
                        .iter()
                        .filter(|l| l.refused.is_none())
                        .map(|l| l.item.clone())
                        .collect();
                    let mut reading = crate::test_support::stop_event(&session, Some(&[]));
                    reading.running = Some(running);
                    reading.launched = std::mem::take(&mut launched);
                    stops += 1;
                    decide_stop(&mut state, &reading, NOW);
                }
                for (item, times) in submitted {
                    if state.item(&item).is_none() {
                        continue;
                    }
                    journal(&mut state, Event::Shown { item: item.clone() });
                    if times < 0 {
                        let error = "field `verdict`: missing".to_owned();
                        journal(&mut state, Event::Rejected { item, error });
                        continue;
                    }
                    for _ in 0..times {
                        let result = valid_result(&state, &item, &mut rng);
                        journal(
                            &mut state,
                            Event::Submitted {
                                item: item.clone(),
                                result,
                            },
                        );
                    }
                }
                next.launched = launched;
                // Now and then the session dies with its agents, and a new one adopts the run.
                if rng.range(0, 99) < 3 {
                    session = format!("s{}", stops + 1);
                    journal(
                        &mut state,
                        Event::Adopt {
                            session: session.clone(),
                        },
                    );
                    next = crate::test_support::stop_event(&session, Some(&[]));
                }
            }
        }
    }
    (state, Drive { sends, stops })
}

#[test]
fn every_item_is_launched_a_bounded_number_of_times_and_every_run_ends() {
    let mut worst = (0, String::new(), 0);
    let mut kinds_sent: BTreeMap<ItemKind, u32> = BTreeMap::new();
    for seed in 0..SEEDS {
        let (state, drive) = drive(seed);
        assert_eq!(
            state.status,
            RunStatus::Complete,
            "seed {seed}: the run did not end within {STOPS} stops (phase {}, {} sends)",
            state.phase.as_str(),
            drive.sends.values().sum::<u32>()
        );
        for (item, &sent) in &drive.sends {
            assert!(
                sent <= MAX_LAUNCHES_PER_ITEM,
                "seed {seed}: {item} was launched {sent} times (bound {MAX_LAUNCHES_PER_ITEM}): {:?}",
                state.item(item).map(|i| i.errors().to_vec())
            );
            if sent > worst.2 {
                worst = (seed, item.clone(), sent);
            }
            if let Some(kind) = ItemKind::of_id(item) {
                *kinds_sent.entry(kind).or_default() += 1;
            }
        }
        let total: u32 = drive.sends.values().sum();
        let bound = launch_bound(&state);
        assert!(
            u64::from(total) <= bound,
            "seed {seed}: {total} launches, past the run's bound {bound}"
        );
        assert!(drive.stops < STOPS, "seed {seed}: {} stops", drive.stops);
    }
    eprintln!("most launches of one item: {worst:?}; items sent, by kind: {kinds_sent:?}");
    // The seeds reach the later phases, and some item used most of its bound.
    for kind in [ItemKind::Triage, ItemKind::Verify, ItemKind::Plan] {
        assert!(kinds_sent.contains_key(&kind), "{kinds_sent:?}");
    }
    assert!(worst.2 >= 5, "no item was ever launched much: {worst:?}");
}

/// The bound is tight where it should be: a verifier whose launches always drop `model` is
/// launched twice, then ends unconfirmed (the scenario took 309).
#[test]
fn a_verifier_always_launched_without_its_model_is_launched_twice() {
    let mut state = run_of_findings(
        "r-bound",
        &[("security", "ruff S1", "m.py")],
        Config {
            triage_batch: 1,
            survey_min: 0,
            launch_mode: LaunchMode::Foreground,
            confirm_above_usd: None,
            ..Config::default()
        },
    );
    let mut verifier_sends = 0;
    let mut next = crate::test_support::stop_event("s1", Some(&[]));
    for _ in 0..100 {
        let out = decide_stop(&mut state, &next, NOW);
        next = crate::test_support::stop_event("s1", Some(&[]));
        let Decision::Block(dispatch) = out.decision else {
            if matches!(out.decision, Decision::Finalize) {
                journal(&mut state, Event::Finalized { tasks: Vec::new() });
                continue;
            }
            break;
        };
        for launch in dispatch.launch {
            verifier_sends += u32::from(launch.item.starts_with("vf-"));
            let result = if launch.item.starts_with("t-") {
                serde_json::json!({"verdict": "false_positive", "root_cause": "test only",
                    "confidence": 0.95, "reason": "the input never reaches it"})
            } else {
                let mut rng = Rng::new(7);
                valid_result(&state, &launch.item, &mut rng)
            };
            journal(
                &mut state,
                Event::Submitted {
                    item: launch.item.clone(),
                    result,
                },
            );
            next.launched.push(AgentLaunch {
                item: launch.item,
                model: None,
                refused: None,
                ..AgentLaunch::default()
            });
        }
    }
    assert_eq!(verifier_sends, 2);
    assert_eq!(state.status, RunStatus::Complete);
}

/// A run whose launches pass twice the likely agents pauses before dispatching more, naming
/// the item sent most; `resume` allows the likely figure again; a run without retries never
/// meets the ceiling.
#[test]
fn launches_past_twice_the_likely_figure_pause_the_run_until_resume() {
    let config = Config {
        triage_batch: 1,
        survey_min: 0,
        launch_mode: LaunchMode::Foreground,
        confirm_above_usd: None,
        ..Config::default()
    };
    let findings: Vec<(&str, &str, &str)> =
        (0..4).map(|_| ("generic", "ruff F401", "m.py")).collect();
    let mut state = run_of_findings("r-ceiling", &findings, config);
    let stop = crate::test_support::stop_event("s1", Some(&[]));
    assert!(matches!(
        decide_stop(&mut state, &stop, NOW).decision,
        Decision::Block(_)
    ));
    // Something sent t-00002 out again and again (each time back, uncharged).
    for item in &mut state.items {
        item.status = crate::ItemStatus::Pending;
    }
    state.items[1].dispatches = 60;
    let ceiling = crate::LaunchCeiling::of(&state);
    assert!(ceiling.launched > ceiling.pause_at, "{ceiling:?}");
    let out = decide_stop(&mut state, &stop, NOW);
    let Decision::Allow {
        message: Some(message),
    } = out.decision
    else {
        panic!("expected the pause, got {:?}", out.decision);
    };
    // The whole line, as the session relays it.
    assert_eq!(
        message,
        "self-repair run r-ceiling: paused — 63 agents launched, more than 2× the 11 the \
         estimate thinks likely; something keeps sending work out again. The item that keeps \
         coming back is t-00002 (60 launches, pending haiku). 4 items wait. Read `self-repair \
         status --items` for what failed; to go on, run `self-repair resume` (it allows 11 more \
         launches) and end your turn."
    );
    assert!(matches!(
        state.pause,
        Some(PauseReason::Launches { ref item, .. }) if item.as_deref() == Some("t-00002")
    ));
    // A new turn does not lift it; `resume` does, with room for the likely figure again.
    let mut new_turn = stop.clone();
    new_turn.new_turn = true;
    assert!(matches!(
        decide_stop(&mut state, &new_turn, NOW).decision,
        Decision::Allow { message: None }
    ));
    journal(&mut state, Event::Resume);
    assert!(state.launch_headroom > 0);
    assert!(matches!(
        decide_stop(&mut state, &stop, NOW).decision,
        Decision::Block(_)
    ));
}

/// Near its ceiling, a wave takes only the launches left before the pause: with two left and
/// four items ready, two go out. The shortcut that skips counting the ceiling (a run with few
/// retries) must not fire for a run that has retried this much.
#[test]
fn a_wave_near_the_ceiling_takes_only_the_launches_left() {
    let config = Config {
        triage_batch: 1,
        survey_min: 0,
        fan_out: 8,
        launch_mode: LaunchMode::Foreground,
        confirm_above_usd: None,
        ..Config::default()
    };
    let findings: Vec<(&str, &str, &str)> =
        (0..4).map(|_| ("generic", "ruff F401", "m.py")).collect();
    let mut state = run_of_findings("r-ceiling", &findings, config);
    let stop = crate::test_support::stop_event("s1", Some(&[]));
    let Decision::Block(first) = decide_stop(&mut state, &stop, NOW).decision else {
        panic!("expected the first wave");
    };
    assert_eq!(first.launch.len(), 4);
    // Every item back, uncharged; t-00002 sent out until two launches are left.
    for item in &mut state.items {
        item.status = crate::ItemStatus::Pending;
    }
    let pause_at = crate::LaunchCeiling::of(&state).pause_at;
    state.items[1].dispatches = u32::try_from(pause_at - 2 - 3).unwrap();
    let ceiling = crate::LaunchCeiling::of(&state);
    assert_eq!(ceiling.left(), 2, "{ceiling:?}");
    assert!(
        ceiling.launched > 4 + crate::CEILING_FLOOR,
        "past what the shortcut lets through: {ceiling:?}"
    );
    let Decision::Block(wave) = decide_stop(&mut state, &stop, NOW).decision else {
        panic!("expected a wave of the launches left");
    };
    let ids: Vec<&str> = wave.launch.iter().map(|l| l.item.as_str()).collect();
    assert_eq!(ids.len(), 2, "{ids:?}");
}

/// The shortcut counts the items launched at least once: not every item, nor those never
/// launched. A run of six findings whose one launched item went out 15 times is past the
/// shortcut's bound (14 launches beyond each item's first, more than [`crate::CEILING_FLOOR`])
/// though not past six items plus that floor, nor five unlaunched ones plus it; with one
/// launch left before the pause, its next wave is that one.
#[test]
fn the_ceiling_s_shortcut_counts_the_items_launched_not_every_item() {
    let config = Config {
        triage_batch: 1,
        survey_min: 0,
        fan_out: 4,
        launch_mode: LaunchMode::Foreground,
        confirm_above_usd: None,
        ..Config::default()
    };
    let findings: Vec<(&str, &str, &str)> =
        (0..6).map(|_| ("generic", "ruff F401", "m.py")).collect();
    let mut state = run_of_findings("r-ceiling", &findings, config);
    state.until = Some(crate::Phase::Triage);
    state.items[0].dispatches = 15;
    let ceiling = crate::LaunchCeiling::of(&state);
    assert_eq!((ceiling.launched, ceiling.left()), (15, 1), "{ceiling:?}");
    let stop = crate::test_support::stop_event("s1", Some(&[]));
    let Decision::Block(wave) = decide_stop(&mut state, &stop, NOW).decision else {
        panic!("expected a wave of the launch left");
    };
    assert_eq!(wave.launch.len(), 1, "{:?}", wave.launch);
}
