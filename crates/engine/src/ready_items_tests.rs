//! A stop's ready items and progress note, read off the one walk of what live batches and
//! surveys hold (`HeldItems::waiting`), against their definitions with hashed sets of ids, at
//! every stop of runs driven to their end, each stop reading the run from its file as the hook
//! does: batches, a rule survey open then being checked, a finding that left its batch, security
//! second looks, then the plan phase's dependencies.

use std::collections::{HashMap, HashSet};

use serde_json::{Value, json};

use super::*;
use crate::held_items::HeldItems;
use crate::test_support::{NOW, per_finding_run, run_of_findings, stop_event, submit};
use crate::{Config, ItemKind, LaunchMode, WorkItem, agents_ahead, agents_behind, total_agents};

/// The ready items by their definition: the pending items of the phase that no live batch,
/// survey or second look holds, whose dependencies all ended, in order, at most `room`.
fn ready_by_definition(state: &RunState, room: usize) -> Vec<usize> {
    let mut held: HashSet<&str> = HashSet::new();
    if state.phase == Phase::Triage {
        held.extend(crate::triage_batch::batch_members(state, false));
        held.extend(crate::rule_survey::survey_members(state, false));
        held.extend(crate::verification::verified_members(state, false));
        held.extend(crate::verification::second_looks_waiting(state));
    }
    let first = state.triage_items as usize;
    let status: HashMap<&str, ItemStatus> = if state.phase == Phase::Plan {
        state.items[first..]
            .iter()
            .map(|i| (i.id.as_str(), i.status))
            .collect()
    } else {
        HashMap::new()
    };
    let ended = |id: &String| status.get(id.as_str()).is_some_and(|s| s.is_terminal());
    (0..state.items.len())
        .filter(|&index| {
            let item = &state.items[index];
            item.status == ItemStatus::Pending
                && item.kind.phase() == state.phase
                && !held.contains(item.id.as_str())
                && item.depends_on().iter().all(ended)
        })
        .take(room)
        .collect()
}

/// What a scripted agent answers for `item`: security findings dismissed at their first look
/// (each gets a blind second look), the first batch's second member asking for a re-route (it
/// leaves its batch), a survey's policy `fix_all`, every other finding real.
fn answer(state: &RunState, item: &WorkItem, rerouted: &mut bool) -> Value {
    let verdict = |id: &str| {
        let finding = state.item(id).unwrap_or_else(|| panic!("no {id}"));
        let dismissed =
            finding.kind == ItemKind::Triage && finding.route.as_deref() == Some("security");
        json!({"item": id, "verdict": if dismissed { "false_positive" } else { "real" },
               "confidence": 0.9, "root_cause": "comparison to None",
               "reason": "the code compares with == on purpose here"})
    };
    match item.kind {
        ItemKind::Triage | ItemKind::Verify => {
            let mut one = verdict(&item.id);
            one.as_object_mut().map(|o| o.remove("item"));
            one
        }
        ItemKind::TriageBatch => {
            let mut verdicts: Vec<Value> = item.inputs().iter().map(|m| verdict(m)).collect();
            if !*rerouted && verdicts.len() > 1 && item.inputs()[1].starts_with("t-") {
                *rerouted = true;
                verdicts[1]["verdict"] = json!("unsure");
                verdicts[1]["reroute"] = json!("security");
            }
            json!({ "verdicts": verdicts })
        }
        ItemKind::RuleSurvey => json!({"policy": "fix_all", "root_cause": "comparison to None",
            "reason": "every sampled line compares to None with =="}),
        ItemKind::Aggregate => json!({"groups": [{"label": "comparison to None",
            "root_cause": "comparisons to None with ==", "items": item.inputs()}]}),
        ItemKind::RuleReview => json!({"rules": []}),
        ItemKind::Plan => json!(format!(
            "## Plan {}\n\nReplace `== None` with `is None` at each line.",
            item.id
        )),
        ItemKind::Synthesize => json!({
            "scores": item.inputs().iter().map(|p| json!({"plan": p, "correctness": 4,
                "simplicity": 4, "scope": 4, "tests": 3, "regression_risk": 4})).collect::<Vec<_>>(),
            "plan": "## Summary\nUse `is None`.\n\n## Changes\n1. Replace `== None` at each line."}),
        ItemKind::Review => json!(
            "## Verdict\napprove with changes, step 1 misses a case.\n\n## Must fix\n1. Also \
             fix `src/m2.py`.\n\n## Checked\nthe files the plan names"
        ),
        ItemKind::Revise => json!({
            "plan": "## Summary\nUse `is None`, revised.\n\n## Changes\n1. Replace `== None`.",
            "points": item.inputs().iter().map(|p| json!({"point": p, "outcome": "applied",
                "how": "step 1 now does it"})).collect::<Vec<_>>()}),
        ItemKind::WriteTask => json!({"title": "Compare to None with is",
            "description": "Replace every == None with is None.",
            "acceptance_criteria": ["ruff reports no E711"]}),
        ItemKind::MergeLabels => panic!("not in these runs: {}", item.id),
    }
}

/// Drives `state` to its end. Before each stop, the ready items for several rooms are the
/// ones their definition names; each dispatch's progress note is what a fresh count of the run
/// after the wave says. Returns the phases and survey stages seen at a dispatch.
fn drive_checking_each_stop(state: &mut RunState) -> HashSet<String> {
    let mut seen = HashSet::new();
    let mut rerouted = false;
    for _ in 0..200 {
        // As the hook finds it: read from its file, batches' members kept as their column's
        // numbers until something reads their ids.
        *state = serde_json::from_str(&serde_json::to_string(state).unwrap()).unwrap();
        let batch_live = |i: &WorkItem| i.kind == ItemKind::TriageBatch && !i.status.is_terminal();
        if state
            .items
            .iter()
            .any(|i| batch_live(i) && i.members_text().is_some())
        {
            seen.insert("a live batch's members as read".to_owned());
        }
        let ready = ready_by_definition(state, usize::MAX);
        if ready
            .iter()
            .any(|&i| state.items[i].kind == ItemKind::Triage)
            && state.items.iter().any(batch_live)
        {
            seen.insert("a finding no batch holds, beside live batches".to_owned());
        }
        for room in [1, 3, 1000] {
            assert_eq!(
                ready_items(state, &HeldItems::waiting(state), room),
                ready_by_definition(state, room),
                "room {room}, phase {:?}",
                state.phase
            );
        }
        let outcome = decide_stop(state, &stop_event("s1", Some(&[])), NOW);
        let Decision::Block(dispatch) = outcome.decision else {
            return seen;
        };
        // Counted afresh, every batch's members expanded into ids first.
        let mut expanded = state.clone();
        for item in &mut expanded.items {
            if item.members_text().is_some() {
                item.extra_mut();
            }
        }
        let behind = agents_behind(&expanded);
        let ahead = total_agents(&agents_ahead(&expanded)).1;
        assert_eq!(
            dispatch.progress,
            Some(format!("{behind} of ~{} agents", behind + ahead))
        );
        seen.insert(format!("{:?}", state.phase));
        seen.extend(state.surveys.iter().map(|s| format!("{:?}", s.stage)));
        for launch in &dispatch.launch {
            let item = state.item(&launch.item).unwrap().clone();
            let result = answer(state, &item, &mut rerouted);
            submit(state, &launch.item, result);
        }
    }
    panic!("the run did not end in 200 stops");
}

#[test]
fn a_batched_and_surveyed_run_finds_each_stops_ready_items_and_note_as_defined() {
    let mut findings = vec![("generic", "ruff E711", "a.py"); 7];
    findings.extend([("generic", "ruff F401", "b.py"); 11]);
    findings.extend([("security", "ruff S101", "c.py"); 5]);
    findings.push(("generic", "ruff E712", "d.py"));
    let config = Config {
        launch_mode: LaunchMode::Foreground,
        survey_min: 6,
        triage_batch: 4,
        fan_out: 3,
        ..Config::default()
    };
    let mut state = run_of_findings("r-ready", &findings, config);
    state.until = Some(Phase::Triage);
    let seen = drive_checking_each_stop(&mut state);
    for what in [
        "Triage",
        "Open",
        "Checking",
        "a finding no batch holds, beside live batches",
        "a live batch's members as read",
    ] {
        assert!(seen.contains(what), "{what} not seen: {seen:?}");
    }
    assert!(
        state.items.iter().any(|i| i.kind == ItemKind::Verify),
        "second looks were made"
    );
    assert!(
        state.items.iter().any(|i| i.reroutes == 1),
        "a finding left its batch"
    );
}

#[test]
fn a_full_depth_plan_dispatches_each_item_once_its_dependencies_ended() {
    let config = Config {
        full_plan_min: 3,
        fan_out: 2,
        ..Config::default()
    };
    let mut state = per_finding_run("r-plan", 3, "ruff E711", |_| "generic", |_| false, config);
    let seen = drive_checking_each_stop(&mut state);
    assert!(seen.contains("Plan"), "{seen:?}");
    assert_eq!(state.phase, Phase::Finalize);
}
