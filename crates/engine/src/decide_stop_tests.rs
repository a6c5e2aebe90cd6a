//! One test per row of the decision table, plus the loop-safety and escalation rules.

use serde_json::json;

use super::*;
use crate::{Config, Event, Intake, JournalEntry, RoutedFinding, Tier, apply, create_run};

use self_repair_test_support::NOW;

fn run(findings: u32) -> RunState {
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
    // These tests pin the background rules (agents seen in `background_tasks`), one item per
    // finding in waves of 8; foreground ones set the mode themselves.
    let config = Config {
        launch_mode: crate::LaunchMode::Background,
        triage_batch: 1,
        fan_out: 8,
        // Per-finding and batch behaviour, without a rule survey in front.
        survey_min: 0,
        ..Config::default()
    };
    create_run(
        "r-test".into(),
        NOW,
        config,
        intake,
        Some("s1".into()),
        &routed,
    )
}

use crate::test_support::stop_event as stop;

use crate::test_support::submit;

fn real(cause: &str) -> serde_json::Value {
    json!({"confidence": 0.9, "verdict": "real", "root_cause": cause, "reason": "the import is never used anywhere"})
}

fn block(outcome: &Outcome) -> &Dispatch {
    match &outcome.decision {
        Decision::Block(d) => d,
        other => panic!("expected a block, got {other:?}"),
    }
}

fn ids(dispatch: &Dispatch) -> Vec<String> {
    dispatch
        .launch
        .iter()
        .map(|l| {
            l.prompt
                .split_whitespace()
                .nth(2)
                .unwrap_or_default()
                .to_owned()
        })
        .collect()
}

#[test]
fn row2_foreign_session_is_allowed_silently_and_changes_nothing() {
    let mut state = run(3);
    state.session = Some("mine".into());
    let before = state.clone();
    let out = decide_stop(&mut state, &stop("other", Some(&[])), NOW);
    assert_eq!(out.decision, Decision::Allow { message: None });
    assert!(!out.changed);
    assert_eq!(state, before);
}

#[test]
fn row2_stop_without_session_id_is_nobodys() {
    let mut state = run(3);
    let out = decide_stop(&mut state, &StopEvent::default(), NOW);
    assert!(!out.changed);
    assert_eq!(state.session.as_deref(), Some("s1"));
}

/// The bug: a run started from a terminal was bound to whichever session stopped first in
/// the project. Only `adopt` binds it.
#[test]
fn a_run_started_from_a_terminal_is_bound_only_by_adopt_not_by_the_first_session_to_stop() {
    let mut state = run(3);
    state.session = None;
    let before = state.clone();
    let out = decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
    assert_eq!(out.decision, Decision::Allow { message: None });
    assert!(!out.changed);
    assert_eq!(state, before);
    apply(
        &mut state,
        &JournalEntry {
            at: NOW,
            event: Event::Adopt {
                session: "s2".into(),
            },
        },
    );
    assert!(!decide_stop(&mut state, &stop("s1", Some(&[])), NOW).changed);
    let out = decide_stop(&mut state, &stop("s2", Some(&[])), NOW);
    assert_eq!(ids(block(&out)), ["t-00001", "t-00002", "t-00003"]);
}

#[test]
fn row4_cancelled_and_user_paused_runs_allow_silently() {
    for event in [Event::Cancel, Event::Pause] {
        let mut state = run(3);
        apply(&mut state, &JournalEntry { at: NOW, event });
        let out = decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
        assert_eq!(out.decision, Decision::Allow { message: None });
    }
}

#[test]
fn row4_complete_run_announces_its_summary_once() {
    let mut state = run(0);
    assert_eq!(state.phase, Phase::Finalize);
    apply(
        &mut state,
        &JournalEntry {
            at: NOW,
            event: Event::Finalized { tasks: vec![] },
        },
    );
    let first = decide_stop(&mut state, &stop("s1", None), NOW);
    let Decision::Allow {
        message: Some(text),
    } = first.decision
    else {
        panic!("expected a summary");
    };
    assert!(text.contains("complete"), "{text}");
    let second = decide_stop(&mut state, &stop("s1", None), NOW);
    assert_eq!(second.decision, Decision::Allow { message: None });
}

#[test]
fn row5_agents_running_and_no_room_allows_silently() {
    let mut state = run(12);
    let first = decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
    let launched = ids(block(&first));
    assert_eq!(launched.len(), 8, "fan-out default is 8");
    let running: Vec<&str> = launched.iter().map(String::as_str).collect();
    let out = decide_stop(&mut state, &stop("s1", Some(&running)), NOW);
    assert_eq!(out.decision, Decision::Allow { message: None });
    assert_eq!(state.in_flight(), 8);
}

#[test]
fn row5_with_room_dispatches_only_new_items() {
    let mut state = run(12);
    let first = ids(block(&decide_stop(&mut state, &stop("s1", Some(&[])), NOW)));
    submit(&mut state, &first[0], real("unused import"));
    let running: Vec<&str> = first[1..].iter().map(String::as_str).collect();
    let out = decide_stop(&mut state, &stop("s1", Some(&running)), NOW);
    let next = ids(block(&out));
    assert_eq!(
        next,
        ["t-00009"],
        "one slot freed, one new item, nothing relaunched"
    );
}

#[test]
fn row6_no_progress_guard_allows_after_k_blocks_and_marks_stalled() {
    let mut state = run(5);
    let mut blocks = 0;
    let mut stalled_message = None;
    for _ in 0..1000 {
        let out = decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
        match out.decision {
            Decision::Block(_) => blocks += 1,
            Decision::Allow { message } => {
                if message.is_some() {
                    stalled_message = message;
                }
            }
            Decision::Finalize => panic!("nothing was submitted"),
        }
    }
    assert_eq!(blocks, 3, "at most K=3 blocks without progress");
    assert_eq!(state.status, RunStatus::Stalled);
    assert!(stalled_message.unwrap().contains("self-repair resume"));
}

#[test]
fn stalled_run_resumes_on_progress() {
    let mut state = run(2);
    for _ in 0..4 {
        decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
    }
    assert_eq!(state.status, RunStatus::Stalled);
    submit(&mut state, "t-00001", real("unused import"));
    let out = decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
    assert!(matches!(out.decision, Decision::Block(_)));
    assert_eq!(state.status, RunStatus::Active);
}

#[test]
fn stop_hook_active_does_not_matter_pending_work_still_blocks() {
    // The engine never sees stop_hook_active: a continuation stop decides like a first stop.
    let mut state = run(1);
    let out = decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
    assert!(matches!(out.decision, Decision::Block(_)));
}

#[test]
fn row7_dispatch_follows_the_contract() {
    let mut state = run(1);
    let out = decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
    let dispatch = block(&out);
    let parsed: serde_json::Value = serde_json::from_str(&dispatch.render_json()).unwrap();
    assert_eq!(
        parsed,
        json!({"self_repair": 2, "progress": "0 of ~6 agents",
               "launch": [{"subagent_type": "self-repair:triage-investigator", "model": "haiku",
                           "description": "triage t-00001", "prompt": "self-repair item t-00001 --run r-test"}]})
    );
    let reason = dispatch.render_reason();
    assert_eq!(reason.lines().next().unwrap(), PROTOCOL);
    assert_eq!(Dispatch::parse_reason(&reason).as_ref(), Some(dispatch));
    assert_eq!(state.items[0].status, ItemStatus::Dispatched);
    assert_eq!(state.items[0].lease, Some(NOW));
}

#[test]
fn the_protocol_is_said_in_the_first_block_of_a_session_and_each_later_block_is_its_json() {
    let mut state = run(10);
    state.config.fan_out = 2;
    let first = decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
    assert!(block(&first).render_reason().starts_with(PROTOCOL));
    submit(&mut state, "t-00001", real("unused import"));
    submit(&mut state, "t-00002", real("unused import"));
    let second = decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
    let reason = block(&second).render_reason();
    assert!(
        reason.starts_with("{\"self_repair\":2,\"progress\":\"2 of ~"),
        "{reason}"
    );
    assert!(
        reason.ends_with("}]}") && !reason.contains('\n'),
        "{reason}"
    );
    assert_eq!(
        Dispatch::parse_reason(&reason).as_ref(),
        Some(block(&second))
    );
}

#[test]
fn a_dispatch_carries_the_whole_runs_progress_and_the_dollars_of_the_budget() {
    let mut state = run(10);
    state.config.fan_out = 2;
    state.config.budget_usd = Some(5.0);
    decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
    submit(&mut state, "t-00001", real("unused import"));
    submit(&mut state, "t-00002", real("unused import"));
    let mut later = stop("s1", Some(&[]));
    later.spend = Some(crate::Spend {
        spent_micros: 420_000,
        per_agent_micros: std::collections::BTreeMap::new(),
    });
    let out = decide_stop(&mut state, &later, NOW);
    let ahead = crate::total_agents(&crate::agents_ahead(&state)).1;
    assert_eq!(
        block(&out).progress.as_deref(),
        Some(format!("2 of ~{} agents, $0.42/$5.00", 2 + ahead).as_str())
    );
}

#[test]
fn a_session_that_adopts_the_run_hears_the_protocol_with_its_first_dispatch() {
    let mut state = run(4);
    state.config.fan_out = 2;
    decide_stop(&mut state, &stop("old", Some(&[])), NOW);
    apply(
        &mut state,
        &JournalEntry {
            at: NOW,
            event: Event::Adopt {
                session: "new".into(),
            },
        },
    );
    let new = decide_stop(&mut state, &stop("new", Some(&[])), NOW);
    assert!(block(&new).render_reason().starts_with(PROTOCOL));
    assert_eq!(state.protocol_told.as_deref(), Some("new"));
}

#[test]
fn an_insisted_model_is_said_before_the_json_without_the_protocol_again() {
    let mut state = run(1);
    decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
    state.items[0].status = ItemStatus::Pending;
    state.items[0].tier = Tier::Sonnet;
    state.items[0].ran = Some(Tier::Haiku);
    let out = decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
    let dispatch = block(&out);
    assert_eq!(
        dispatch.summary,
        "Pass every entry's \"model\" as given: t-00001 MUST keep \"model\": \"sonnet\" (its last \
         launch dropped it and ran on haiku)."
    );
    assert_eq!(
        Dispatch::parse_reason(&dispatch.render_reason()).as_ref(),
        Some(dispatch)
    );
}

#[test]
fn row8_finished_phase_advances_then_dispatches_the_next() {
    let mut state = run(2);
    decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
    submit(&mut state, "t-00001", real("unused import"));
    submit(&mut state, "t-00002", real("unused import"));
    let out = decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
    assert_eq!(state.phase, Phase::Aggregate);
    assert_eq!(ids(block(&out)), ["agg-1"]);
}

#[test]
fn row8_finalize_is_requested_when_every_phase_is_done() {
    let mut state = run(1);
    decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
    submit(
        &mut state,
        "t-00001",
        json!({"confidence": 0.9, "verdict": "false_positive", "root_cause": "tool bug", "reason": "the name is used through getattr"}),
    );
    let out = decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
    assert_eq!(state.phase, Phase::RuleReview);
    assert_eq!(ids(block(&out)), ["rr-1"]);
    submit(&mut state, "rr-1", json!({"rules": []}));
    let out = decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
    assert_eq!(
        out.decision,
        Decision::Finalize,
        "no real finding: nothing to plan"
    );
}

#[test]
fn empty_run_skips_every_llm_phase() {
    let state = run(0);
    assert_eq!(state.phase, Phase::Finalize);
    assert!(state.items.is_empty());
}

#[test]
fn item_that_ends_without_result_escalates_then_quarantines() {
    let mut state = run(2);
    let mut tiers = Vec::new();
    for _ in 0..3 {
        let out = decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
        let dispatch = block(&out);
        tiers.push(dispatch.launch[0].model.clone());
        // Seen running, then gone without a submission.
        decide_stop(&mut state, &stop("s1", Some(&["t-00001", "t-00002"])), NOW);
        submit(&mut state, "t-00002", real("x")); // keeps the run progressing
        state.items[1].status = ItemStatus::Pending; // reuse t-00002 as a steady worker
        state.items[1].verdict = None;
    }
    assert_eq!(tiers, ["haiku", "sonnet", "opus"]);
    decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
    assert_eq!(state.items[0].status, ItemStatus::Quarantined);
    assert_eq!(state.items[0].attempts, 3);
}

#[test]
fn lease_expiry_counts_as_failure_when_no_background_tasks_are_reported() {
    let mut state = run(1);
    decide_stop(&mut state, &stop("s1", None), NOW);
    shown(&mut state, "t-00001");
    let out = decide_stop(&mut state, &stop("s1", None), NOW + 60);
    assert_eq!(
        out.decision,
        Decision::Allow { message: None },
        "lease still valid"
    );
    let out = decide_stop(&mut state, &stop("s1", None), NOW + 15 * 60);
    assert_eq!(block(&out).launch[0].model, "sonnet");
    // An agent that never showed its task within the lease was not launched: no attempt.
    let out = decide_stop(&mut state, &stop("s1", None), NOW + 30 * 60);
    assert_eq!(block(&out).launch[0].model, "sonnet");
    assert_eq!(state.items[0].attempts, 1);
}

fn shown(state: &mut RunState, item: &str) {
    apply(
        state,
        &JournalEntry {
            at: NOW,
            event: Event::Shown { item: item.into() },
        },
    );
}

#[test]
fn identical_failures_open_the_circuit_and_pause() {
    let mut state = run(6);
    let first = ids(block(&decide_stop(&mut state, &stop("s1", Some(&[])), NOW)));
    let running: Vec<&str> = first.iter().map(String::as_str).collect();
    decide_stop(&mut state, &stop("s1", Some(&running)), NOW);
    for id in &first {
        apply(
            &mut state,
            &JournalEntry {
                at: NOW,
                event: Event::Rejected {
                    item: id.clone(),
                    error: "field `verdict` is missing".into(),
                },
            },
        );
    }
    let out = decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
    let Decision::Allow {
        message: Some(text),
    } = out.decision
    else {
        panic!("expected the circuit message, got {:?}", out.decision);
    };
    assert!(text.contains("field `verdict` is missing"), "{text}");
    assert_eq!(state.status, RunStatus::Paused);
    let again = decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
    assert_eq!(again.decision, Decision::Allow { message: None });
}

#[test]
fn api_error_pause_lifts_on_the_next_stop() {
    let mut state = run(1);
    apply(
        &mut state,
        &JournalEntry {
            at: NOW,
            event: Event::StopFailure {
                error: "rate_limit".into(),
            },
        },
    );
    assert_eq!(state.status, RunStatus::Paused);
    let out = decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
    assert!(matches!(out.decision, Decision::Block(_)));
}

#[test]
fn adopt_moves_the_run_and_requeues_in_flight_items_without_an_attempt() {
    let mut state = run(2);
    decide_stop(&mut state, &stop("old", Some(&[])), NOW);
    apply(
        &mut state,
        &JournalEntry {
            at: NOW,
            event: Event::Adopt {
                session: "new".into(),
            },
        },
    );
    assert_eq!(state.items[0].status, ItemStatus::Pending);
    assert_eq!(state.items[0].attempts, 0);
    let old = decide_stop(&mut state, &stop("old", Some(&[])), NOW);
    assert!(!old.changed);
    let new = decide_stop(&mut state, &stop("new", Some(&[])), NOW);
    assert_eq!(ids(block(&new)).len(), 2);
}

#[test]
fn reroute_sends_the_item_back_once_with_a_new_route() {
    let mut state = run(1);
    decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
    submit(
        &mut state,
        "t-00001",
        json!({"confidence": 0.9, "verdict": "unsure", "root_cause": "maybe injection", "reason": "this looks like a security problem", "reroute": "security"}),
    );
    assert_eq!(state.items[0].status, ItemStatus::Pending);
    assert_eq!(state.items[0].route.as_deref(), Some("security"));
    assert_eq!(state.items[0].tier, Tier::Sonnet);
}

#[test]
fn plan_phase_runs_groups_in_parallel_with_dependencies() {
    let mut state = run(3);
    state.config.full_plan_min = 1;
    decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
    submit(&mut state, "t-00001", real("unused import"));
    submit(&mut state, "t-00002", real("Unused  import"));
    submit(&mut state, "t-00003", real("none comparison"));
    decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
    submit(
        &mut state,
        "agg-1",
        json!({"groups": [
            {"label": "unused import", "root_cause": "dead imports", "items": ["t-00001", "t-00002"]},
            {"label": "none comparison", "root_cause": "== None", "items": ["t-00003"]}]}),
    );
    decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
    // Two labels: the label-merge agent keeps them apart.
    submit(&mut state, "ml-1", json!({"merges": []}));
    decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
    submit(&mut state, "rr-1", json!({"rules": []}));
    let out = decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
    assert_eq!(state.phase, Phase::Plan);
    assert_eq!(state.groups.len(), 2);
    assert_eq!(state.groups[0].members, ["t-00001", "t-00002"]);
    let first = ids(block(&out));
    assert_eq!(
        first,
        [
            "plan-g1-1",
            "plan-g1-2",
            "plan-g1-3",
            "plan-g1-4",
            "plan-g1-5",
            "plan-g2-1",
            "plan-g2-2",
            "plan-g2-3"
        ]
    );
}

#[test]
fn foreground_agent_that_showed_its_task_and_ended_without_a_result_counts_as_failed() {
    let mut state = run(3);
    state.config.launch_mode = crate::LaunchMode::Foreground;
    let first = decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
    let dispatch = block(&first);
    assert_eq!(dispatch.launch[0].run_in_background, Some(false));
    assert!(
        dispatch
            .render_json()
            .contains("\"run_in_background\":false")
    );
    // The batch ran in the foreground: two answered, one showed its task and ended without
    // a result.
    for id in ["t-00001", "t-00002", "t-00003"] {
        shown(&mut state, id);
    }
    submit(&mut state, "t-00001", real("unused import"));
    submit(&mut state, "t-00002", real("unused import"));
    let out = decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
    assert_eq!(state.items[2].attempts, 1, "it ran and failed");
    assert_eq!(block(&out).launch[0].model, "sonnet");
}

#[test]
fn foreground_items_the_session_never_launched_are_not_charged_and_never_open_the_circuit() {
    let mut state = run(8);
    state.config.launch_mode = crate::LaunchMode::Foreground;
    // Every block, the session launches only the first two entries of the batch.
    for _ in 0..10 {
        let out = decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
        let Decision::Block(dispatch) = out.decision else {
            break;
        };
        if state.phase != Phase::Triage {
            break;
        }
        for launch in dispatch.launch.iter().take(2) {
            let id = launch.prompt.split_whitespace().nth(2).unwrap().to_owned();
            shown(&mut state, &id);
            submit(&mut state, &id, real("unused import"));
        }
    }
    assert!(
        state.items[..8]
            .iter()
            .all(|i| i.attempts == 0 && i.tier == Tier::Haiku && i.dispatches == 1),
        "nobody was charged: {:?}",
        state
            .items
            .iter()
            .map(|i| (i.id.as_str(), i.attempts))
            .collect::<Vec<_>>()
    );
    assert_eq!(state.status, RunStatus::Active, "{:?}", state.pause);
    assert_eq!(
        state.counts(Phase::Triage).done,
        8,
        "all answered in the end"
    );
}

#[test]
fn background_dispatch_entries_carry_no_run_in_background_field() {
    let mut state = run(1);
    let out = decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
    assert!(!block(&out).render_json().contains("run_in_background"));
}

fn reject(state: &mut RunState, item: &str) {
    apply(
        state,
        &JournalEntry {
            at: NOW,
            event: Event::Rejected {
                item: item.into(),
                error: "field `verdict` is missing".into(),
            },
        },
    );
}

#[test]
fn one_item_failing_through_every_tier_is_quarantined_without_opening_the_circuit() {
    let mut state = run(4);
    let first = ids(block(&decide_stop(&mut state, &stop("s1", Some(&[])), NOW)));
    let running: Vec<&str> = first.iter().map(String::as_str).collect();
    decide_stop(&mut state, &stop("s1", Some(&running)), NOW);
    for id in &first[1..] {
        submit(&mut state, id, real("unused import"));
    }
    for tier in ["sonnet", "opus"] {
        reject(&mut state, "t-00001");
        let out = decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
        assert_eq!(block(&out).launch[0].model, tier);
        decide_stop(&mut state, &stop("s1", Some(&["t-00001"])), NOW);
    }
    reject(&mut state, "t-00001");
    let out = decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
    assert_eq!(state.items[0].status, ItemStatus::Quarantined);
    assert_eq!(state.status, RunStatus::Active, "{:?}", state.pause);
    assert_eq!(ids(block(&out)), ["agg-1"], "the run goes on");
}

#[test]
fn foreground_lone_item_that_was_rejected_escalates_instead_of_looking_unlaunched() {
    let mut state = run(1);
    state.config.launch_mode = crate::LaunchMode::Foreground;
    let mut models = Vec::new();
    for _ in 0..3 {
        let out = decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
        models.push(block(&out).launch[0].model.clone());
        reject(&mut state, "t-00001");
    }
    assert_eq!(models, ["haiku", "sonnet", "opus"]);
    let out = decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
    assert_eq!(state.items[0].status, ItemStatus::Quarantined);
    assert_ne!(state.status, RunStatus::Stalled);
    assert!(
        matches!(out.decision, Decision::Finalize),
        "{:?}",
        out.decision
    );
}

#[test]
fn foreground_run_whose_session_ignores_the_dispatch_stalls_rather_than_blaming_agents() {
    let mut state = run(5);
    state.config.launch_mode = crate::LaunchMode::Foreground;
    let mut blocks = 0;
    for _ in 0..50 {
        if matches!(
            decide_stop(&mut state, &stop("s1", Some(&[])), NOW).decision,
            Decision::Block(_)
        ) {
            blocks += 1;
        }
    }
    assert_eq!(blocks, 3);
    assert_eq!(state.status, RunStatus::Stalled);
    assert!(state.items.iter().all(|i| i.attempts == 0));
}

/// A run of no finding that has just been finalized: its next stop says the closing line.
fn finalized() -> RunState {
    let mut state = run(0);
    apply(
        &mut state,
        &JournalEntry {
            at: NOW,
            event: Event::Finalized { tasks: vec![] },
        },
    );
    state
}

#[test]
fn the_closing_line_waits_until_no_background_agent_of_the_run_is_still_winding_down() {
    let mut state = finalized();
    // An agent that already submitted is still listed in `background_tasks`: its notification
    // will wake the session once more, so the closing line is not said yet.
    let early = decide_stop(&mut state, &stop("s1", Some(&["t-00001"])), NOW);
    assert_eq!(early.decision, Decision::Allow { message: None });
    assert!(!state.announced);
    let last = decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
    assert!(
        matches!(last.decision, Decision::Allow { message: Some(ref text) } if text.contains("complete")),
        "{last:?}"
    );
}

#[test]
fn the_closing_line_is_said_again_when_a_queued_notification_displaced_it() {
    let mut state = finalized();
    // The last agent ended just before the stop: the client no longer lists it, so the line is
    // said; its notification was queued and starts one more turn (seen on 2.1.330: claude -p
    // printed the model's answer to it instead of the closing line).
    let first = decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
    assert!(state.announced);
    let Decision::Allow {
        message: Some(line),
    } = first.decision
    else {
        panic!("{first:?}");
    };
    let relayed = StopEvent {
        last_message: Some(line.clone()),
        ..stop("s1", Some(&[]))
    };
    assert_eq!(
        decide_stop(&mut state, &relayed, NOW).decision,
        Decision::Allow { message: None }
    );
    // The notification's turn, whether its row is on disk yet (notified) or not (unnotified).
    for woken in [
        StopEvent {
            notified: 1,
            ..stop("s1", Some(&[]))
        },
        StopEvent {
            unnotified: vec!["tw-g2".to_owned()],
            ..stop("s1", Some(&[]))
        },
    ] {
        let displaced = StopEvent {
            new_turn: true,
            last_message: Some("Noted.".to_owned()),
            ..woken
        };
        let again = decide_stop(&mut state, &displaced, NOW);
        assert_eq!(
            again.decision,
            Decision::Allow {
                message: Some(line.clone())
            }
        );
        assert!(!again.changed, "nothing to write");
    }
    // A user's own later turn is left alone.
    let user = StopEvent {
        new_turn: true,
        last_message: Some("Here is the answer to your question.".to_owned()),
        ..stop("s1", Some(&[]))
    };
    assert_eq!(
        decide_stop(&mut state, &user, NOW).decision,
        Decision::Allow { message: None }
    );
}

/// A stop of the bound session listing `running`, whose transcript showed `launches` (item,
/// model) since the previous stop.
fn stop_after_launches(running: &[&str], launches: &[(&str, Option<&str>)]) -> StopEvent {
    let mut event = stop("s1", Some(running));
    event.launched = launches
        .iter()
        .map(|(item, model)| crate::AgentLaunch {
            item: (*item).to_owned(),
            model: model.map(str::to_owned),
            ..crate::AgentLaunch::default()
        })
        .collect();
    event
}

/// Issue 24: after an ordinary escalation the block said `t-00001 MUST keep "model": "sonnet"
/// (its last launch dropped it and ran on haiku)`, though that launch kept `"model": "haiku"`
/// as dispatched: the check compared the tier it ran at with the tier after the escalation.
#[test]
fn an_escalation_after_a_launch_that_kept_its_model_claims_no_dropped_model() {
    let mut state = run(1);
    assert_eq!(
        block(&decide_stop(&mut state, &stop("s1", Some(&[])), NOW)).launch[0].model,
        "haiku"
    );
    decide_stop(
        &mut state,
        &stop_after_launches(&["t-00001"], &[("t-00001", Some("haiku"))]),
        NOW,
    );
    let out = decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
    let dispatch = block(&out);
    assert_eq!(dispatch.launch[0].model, "sonnet", "escalated");
    assert_eq!(state.items[0].attempts, 1);
    assert!(
        !dispatch.summary.contains("MUST keep"),
        "a false claim: {}",
        dispatch.summary
    );
    // A launch that does drop it is still insisted on, naming what it really ran on.
    decide_stop(
        &mut state,
        &stop_after_launches(&["t-00001"], &[("t-00001", None)]),
        NOW,
    );
    let out = decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
    assert!(
        block(&out).summary.contains(
            "t-00001 MUST keep \"model\": \"sonnet\" (its last launch dropped it and ran on haiku)"
        ),
        "{}",
        block(&out).summary
    );
}

/// Issue 24: a launch the user refused at the permission prompt was counted as a failed agent
/// (an attempt, an escalation, a "MUST keep" claim). It is the user's decision: nothing is
/// charged, the run pauses and says once how to go on, and the user's next prompt goes on at
/// the same tier.
#[test]
fn a_launch_the_user_refused_charges_nothing_and_waits_for_the_next_prompt() {
    let mut state = run(2);
    let first = ids(block(&decide_stop(&mut state, &stop("s1", Some(&[])), NOW)));
    assert_eq!(first, ["t-00001", "t-00002"]);
    // A deny rule or hook refuses them (the session goes on and ends its turn, `claude -p`):
    // the next stop is in the same turn.
    let mut refused = stop_after_launches(&[], &[("t-00001", Some("haiku")), ("t-00002", None)]);
    for launch in &mut refused.launched {
        launch.refused = Some("user-rejected".into());
    }
    let out = decide_stop(&mut state, &refused, NOW);
    let Decision::Allow {
        message: Some(message),
    } = out.decision
    else {
        panic!("expected the pause to be said, got {:?}", out.decision);
    };
    assert!(
        message.contains(
            "2 agent launch(es) (t-00001, t-00002) were declined at Claude Code's permission prompt"
        ) && message.contains("\"continue\""),
        "{message}"
    );
    assert_eq!(state.status, RunStatus::Paused);
    for item in &state.items[..2] {
        assert_eq!(
            (
                item.status,
                item.attempts,
                item.dispatches,
                item.tier,
                item.ran
            ),
            (ItemStatus::Pending, 0, 0, Tier::Haiku, None),
            "{}",
            item.id
        );
    }
    // Said once: the stops of the same turn are silent.
    let again = decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
    assert_eq!(again.decision, Decision::Allow { message: None });
    // The user's next prompt ("continue"): the same items at the same tier, no claim.
    let mut next_prompt = stop("s1", Some(&[]));
    next_prompt.new_turn = true;
    let out = decide_stop(&mut state, &next_prompt, NOW);
    let dispatch = block(&out);
    assert_eq!(ids(dispatch), ["t-00001", "t-00002"]);
    assert!(dispatch.launch.iter().all(|l| l.model == "haiku"));
    assert!(
        !dispatch.summary.contains("MUST keep"),
        "{}",
        dispatch.summary
    );
}

/// Issue 24, measured in the interactive UI (e2e `interactive-refused-continue`): a "No" at the
/// permission prompt interrupts the turn, so the hook first sees the refusal at the stop that
/// ends the user's next prompt (their answer to "What should Claude do instead?", e.g.
/// "continue"). Pausing there asked the user for a second "continue"; the prompt they gave is
/// their decision: the refused items go out again at the same tier, nothing charged.
#[test]
fn a_refusal_first_seen_after_the_users_next_prompt_goes_on_without_a_second_prompt() {
    let mut state = run(2);
    let first = ids(block(&decide_stop(&mut state, &stop("s1", Some(&[])), NOW)));
    assert_eq!(first, ["t-00001", "t-00002"]);
    let mut after_prompt = stop_after_launches(
        &[],
        &[("t-00001", Some("haiku")), ("t-00002", Some("haiku"))],
    );
    after_prompt.launched[0].refused = Some("user-rejected".into());
    after_prompt.launched[1].refused = Some("interrupted".into());
    after_prompt.new_turn = true;
    let out = decide_stop(&mut state, &after_prompt, NOW);
    let dispatch = block(&out);
    assert_eq!(ids(dispatch), ["t-00001", "t-00002"]);
    assert!(dispatch.launch.iter().all(|l| l.model == "haiku"));
    assert_eq!(state.status, RunStatus::Active);
    for item in &state.items[..2] {
        assert_eq!((item.attempts, item.tier), (0, Tier::Haiku), "{}", item.id);
    }
    // A turn a background agent's notification started is no answer from the user: it pauses.
    let mut state = run(2);
    decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
    let mut notified = after_prompt.clone();
    notified.notified = 1;
    let out = decide_stop(&mut state, &notified, NOW);
    assert!(
        matches!(out.decision, Decision::Allow { message: Some(_) }),
        "{:?}",
        out.decision
    );
    assert_eq!(state.status, RunStatus::Paused);
}

/// A stop after the agents of `refused` ended refused by the model provider (no longer running).
fn stop_after_provider_refusal(running: &[&str], refused: &[&str]) -> StopEvent {
    StopEvent {
        provider_refused: refused.iter().map(|id| (*id).to_owned()).collect(),
        ..stop("s1", Some(running))
    }
}

#[test]
fn an_agent_refused_by_the_provider_is_quarantined_unescalated_and_uncharged() {
    let mut state = run(2);
    let first = ids(block(&decide_stop(&mut state, &stop("s1", Some(&[])), NOW)));
    assert_eq!(first, ["t-00001", "t-00002"]);
    decide_stop(&mut state, &stop("s1", Some(&["t-00001", "t-00002"])), NOW);
    submit(&mut state, "t-00002", real("unused import"));
    let out = decide_stop(
        &mut state,
        &stop_after_provider_refusal(&[], &["t-00001"]),
        NOW,
    );
    let item = &state.items[0];
    assert_eq!(item.status, ItemStatus::Quarantined);
    assert_eq!(
        (item.attempts, item.tier),
        (0, Tier::Haiku),
        "not escalated"
    );
    assert!(
        item.errors()
            .last()
            .is_some_and(|e| e.starts_with(REFUSED_BY_PROVIDER)),
        "{:?}",
        item.errors()
    );
    assert_eq!(state.provider_refusals, 1);
    assert!(
        state.streak.items.is_empty(),
        "kept out of the failure circuit"
    );
    // The run goes on: nothing of triage is left, so it moves to the next phase.
    assert_eq!(state.status, RunStatus::Active);
    assert!(
        !matches!(&out.decision, Decision::Allow { message: Some(m) } if m.contains("paused")),
        "{:?}",
        out.decision
    );
}

#[test]
fn provider_refusals_never_open_the_circuit_and_the_run_completes() {
    let mut state = run(6);
    let first = ids(block(&decide_stop(&mut state, &stop("s1", Some(&[])), NOW)));
    let running: Vec<&str> = first.iter().map(String::as_str).collect();
    decide_stop(&mut state, &stop("s1", Some(&running)), NOW);
    // Every agent refused at once: six identical endings, where three failures open the circuit.
    decide_stop(&mut state, &stop_after_provider_refusal(&[], &running), NOW);
    assert_eq!(state.provider_refusals, 6);
    assert_eq!(state.status, RunStatus::Active);
    assert!(state.pause.is_none(), "{:?}", state.pause);
    assert!(
        state.items[..6]
            .iter()
            .all(|i| i.status == ItemStatus::Quarantined && i.attempts == 0 && i.dispatches == 1)
    );
    // Nothing real: the run finalizes without another agent.
    let mut finalize = false;
    for _ in 0..5 {
        match decide_stop(&mut state, &stop("s1", Some(&[])), NOW).decision {
            Decision::Finalize => {
                finalize = true;
                break;
            }
            Decision::Block(d) => panic!("nothing should be sent again: {:?}", d.launch),
            Decision::Allow { .. } => {}
        }
    }
    assert!(finalize, "the run reaches finalize");
    apply(
        &mut state,
        &JournalEntry {
            at: NOW,
            event: Event::Finalized { tasks: Vec::new() },
        },
    );
    let Decision::Allow {
        message: Some(line),
    } = decide_stop(&mut state, &stop("s1", Some(&[])), NOW).decision
    else {
        panic!("expected the closing line");
    };
    assert!(
        line.contains("6 items quarantined (6 refused by the model provider)"),
        "{line}"
    );
}

#[test]
fn a_refusal_reported_for_an_item_no_longer_in_flight_changes_nothing() {
    let mut state = run(1);
    decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
    submit(&mut state, "t-00001", real("unused import"));
    let before = state.clone();
    decide_stop(
        &mut state,
        &stop_after_provider_refusal(&[], &["t-00001"]),
        NOW,
    );
    assert_eq!(state.items[0], before.items[0]);
    assert_eq!(state.provider_refusals, 0);
}

#[test]
fn a_stop_while_every_agent_still_runs_changes_nothing() {
    let mut state = run(3);
    let first = decide_stop(&mut state, &stop("s1", Some(&[])), NOW);
    let items = ids(block(&first));
    let running: Vec<&str> = items.iter().map(String::as_str).collect();
    let mut launched = stop("s1", Some(&running));
    launched.launched = items
        .iter()
        .map(|item| crate::AgentLaunch {
            item: item.clone(),
            model: Some("haiku".into()),
            background: true,
            ..crate::AgentLaunch::default()
        })
        .collect();
    decide_stop(&mut state, &launched, NOW);
    let before = state.clone();
    let quiet = decide_stop(&mut state, &stop("s1", Some(&running)), NOW);
    assert_eq!(quiet.decision, Decision::Allow { message: None });
    assert!(!quiet.changed, "nothing to journal");
    assert_eq!(state, before);
}

#[test]
fn the_summary_counts_only_the_findings_answered_real_as_real() {
    let mut state = run(3);
    submit(&mut state, "t-00001", real("unused import"));
    submit(
        &mut state,
        "t-00002",
        json!({"confidence": 0.9, "verdict": "false_positive", "root_cause": "a plugin hook",
            "reason": "the import registers a plugin when the module loads"}),
    );
    let text = summary(&state);
    assert!(
        text.contains(": 3 findings (2 triaged by agents, 1 real) in "),
        "{text}"
    );
}
