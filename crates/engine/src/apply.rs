//! Folds one journal event into the run state. Replaying the whole journal over the initial
//! state rebuilds the run: that is how `doctor` recovers a corrupt `state.json`.

use crate::decide_stop::{Decision, Outcome, decide_stop, resume};
use crate::review_asks::{ReviewAsks, ask_order};
use crate::submission::{ItemInput, Submission, parse_value};
use crate::{
    Event, ItemKind, ItemStatus, JournalEntry, PauseReason, Phase, RunState, RunStatus, WorkItem,
    route,
};
use compact_str::CompactString;

/// Applies one event. Submissions are re-validated; an invalid one is recorded on its item and
/// otherwise ignored, so a hand-edited journal cannot corrupt the state.
pub fn apply(state: &mut RunState, entry: &JournalEntry) -> Outcome {
    let changed = match &entry.event {
        Event::Stop(stop) => return decide_stop(state, stop, entry.at),
        Event::Submitted { item, result } => apply_submission(state, item, result),
        Event::Rejected { item, error } => match state.item_mut(item) {
            Some(work) => {
                work.record_error(format!("rejected: {error}"));
                work.extra_mut().last_rejection = Some(error.clone());
                true
            }
            None => false,
        },
        Event::Shown { item } => match state.item_mut(item) {
            Some(work) if work.status == ItemStatus::Dispatched && !work.seen_running => {
                work.seen_running = true;
                true
            }
            _ => false,
        },
        Event::StopFailure { error } => {
            if state.status == RunStatus::Active {
                state.status = RunStatus::Paused;
                state.pause = Some(PauseReason::ApiError {
                    error: error.clone(),
                });
                true
            } else {
                false
            }
        }
        Event::Adopt { session } => {
            state.session = Some(session.clone());
            // The old session's agents are gone with it: their items go back to pending
            // without counting an attempt. One whose agent ran does so
            // [`crate::MAX_RESENDS`] times at most: an item that keeps outliving its sessions
            // is charged. One never seen running was no launch.
            let mut charged = Vec::new();
            for (index, item) in state.items.iter_mut().enumerate() {
                if item.status != ItemStatus::Dispatched {
                    continue;
                }
                let ran = item.seen_running || item.ran.is_some();
                if ran && !item.take_resend() {
                    charged.push(index);
                    continue;
                }
                item.status = ItemStatus::Pending;
                if !ran {
                    item.dispatches = item.dispatches.saturating_sub(1);
                }
                item.seen_running = false;
                item.lease = None;
            }
            for index in charged {
                crate::decide_stop::fail_attempt(
                    state,
                    index,
                    "its session ended before it answered, again",
                );
            }
            if matches!(state.status, RunStatus::Stalled | RunStatus::Paused)
                && !matches!(
                    state.pause,
                    Some(PauseReason::User | PauseReason::Confirm { .. })
                )
            {
                resume(state);
            }
            state.stale_blocks = 0;
            state.last_block_progress = None;
            true
        }
        Event::Pause => {
            if matches!(state.status, RunStatus::Active | RunStatus::Stalled) {
                state.status = RunStatus::Paused;
                state.pause = Some(PauseReason::User);
                true
            } else {
                false
            }
        }
        Event::Budget { usd } => {
            // `resume --budget`: a new budget, and the run goes on; a run waiting for the
            // user's go keeps waiting (only `resume --confirm` is the go).
            state.config.budget_usd = Some(*usd);
            if matches!(state.status, RunStatus::Paused | RunStatus::Stalled)
                && !matches!(state.pause, Some(PauseReason::Confirm { .. }))
            {
                resume(state);
            }
            true
        }
        Event::Resume => {
            // Only the user's explicit go lifts a wait on the estimate.
            if matches!(state.pause, Some(PauseReason::Confirm { .. })) {
                false
            } else if matches!(state.status, RunStatus::Paused | RunStatus::Stalled) {
                resume(state);
                true
            } else {
                false
            }
        }
        Event::Confirm => {
            if matches!(state.pause, Some(PauseReason::Confirm { .. })) {
                resume(state);
                true
            } else {
                false
            }
        }
        Event::Cancel => {
            if matches!(state.status, RunStatus::Complete | RunStatus::Cancelled) {
                false
            } else {
                state.status = RunStatus::Cancelled;
                true
            }
        }
        Event::Finalized { tasks } => {
            state.tasks.clone_from(tasks);
            state.phase = Phase::Complete;
            if state.status != RunStatus::Cancelled {
                state.status = RunStatus::Complete;
            }
            state.progress += 1;
            true
        }
        Event::Merged { .. } | Event::Dispatched { .. } => false,
    };
    Outcome {
        decision: Decision::Allow { message: None },
        changed,
    }
}

/// What an item works on, as `show` and `submit` need it.
pub fn item_input(state: &RunState, item: &WorkItem) -> ItemInput {
    let group = item.group.map(|g| format!("g{g}"));
    let angle = (item.kind == ItemKind::Review)
        .then(|| {
            let n: usize = item.id.rsplit('-').next()?.parse().ok()?;
            state.config.reviewer_angles.get(n.checked_sub(1)?).cloned()
        })
        .flatten();
    ItemInput {
        item: item.id.to_string(),
        kind: item.kind,
        inputs: item.inputs().iter().map(ToString::to_string).collect(),
        group,
        angle,
    }
}

fn apply_submission(state: &mut RunState, id: &str, result: &serde_json::Value) -> bool {
    let Some(index) = state.index_of(id) else {
        return false;
    };
    if state.items[index].status == ItemStatus::Done {
        // First result wins; `submit` refuses a different second one before it gets here.
        return false;
    }
    let input = item_input(state, &state.items[index]);
    // A review that was still in flight: the revise step cannot have started, so what it asks
    // still reaches it. A late answer of a review already given up on does not (the revise
    // step may be under way); its points still reach the task.
    let in_flight = matches!(
        state.items[index].status,
        ItemStatus::Pending | ItemStatus::Dispatched
    );
    let triage_items = state.triage_items;
    let parsed = parse_value(
        &input,
        with_legacy_confidence(input.kind, result.clone()),
        &route::route_names(),
        triage_items,
    );
    let item = &mut state.items[index];
    let submission = match parsed {
        Ok((submission, _)) => submission,
        Err(rejection) => {
            item.record_error(format!("rejected: {rejection}"));
            return true;
        }
    };
    item.lease = None;
    item.clear_rejection();
    let mut verify = None;
    match submission {
        Submission::Triage(triage) => {
            if let Some(new_route) = triage.reroute.clone().filter(|_| item.reroutes == 0) {
                // The investigator asked for another diagnosis: re-route once, no verdict yet.
                item.reroutes += 1;
                if let Some(r) = route::route(&new_route) {
                    item.move_to_tier(item.tier.max(r.tier));
                }
                item.set_route(&new_route);
                item.status = ItemStatus::Pending;
                item.seen_running = false;
                state.progress += 1;
                return true;
            }
            item.verdict = Some(triage.verdict);
            item.root_cause = Some(triage.root_cause.as_str().into());
            item.set_duplicate_of(triage.duplicate_of.as_deref());
            item.status = ItemStatus::Done;
            verify = Some(triage);
        }
        Submission::Verify(answer) => {
            if !crate::verification::record_answer(state, index, &answer) {
                // Set aside: the verifier ran below its dispatch and goes out again.
                return true;
            }
        }
        Submission::TriageBatch(batch) => {
            item.status = ItemStatus::Done;
            crate::triage_batch::decide_members(state, index, &batch);
        }
        Submission::RuleSurvey(answer) => {
            let id = item.id.to_string();
            crate::rule_survey::record_answer(state, &id, answer);
        }
        Submission::Aggregate(aggregate) => {
            item.status = ItemStatus::Done;
            state.proposals.extend(aggregate.proposals());
        }
        Submission::MergeLabels(merges) => {
            item.status = ItemStatus::Done;
            crate::advance::join_labels(state, &merges);
        }
        Submission::Markdown(review) if item.kind == ItemKind::Review && in_flight => {
            let id = item.id.to_string();
            let group = item.group;
            collect_asks(state, &id, group, &review);
        }
        Submission::RuleReview(_)
        | Submission::Markdown(_)
        | Submission::Synthesize(_)
        | Submission::Revise(_)
        | Submission::WriteTask(_) => {}
    }
    let item = &mut state.items[index];
    item.status = ItemStatus::Done;
    let kind = item.kind;
    if let Some(first) = verify {
        crate::verification::request(state, index, &first);
    }
    if state.streak.kind == Some(kind) {
        state.streak = crate::FailureStreak::default();
    }
    state.progress += 1;
    true
}

/// Adds what review `review` asks (its must-fix points, its rework verdict) to its group's
/// revise step, in review order (design note 35).
fn collect_asks(state: &mut RunState, review: &str, group: Option<u32>, markdown: &str) {
    let asks = ReviewAsks::of(markdown).ask_ids(review);
    if asks.is_empty() {
        return;
    }
    let Some(revise) = group.and_then(|g| state.item_mut(&format!("rv-g{g}"))) else {
        return;
    };
    if revise.status != ItemStatus::Pending || revise.dispatches > 0 {
        return;
    }
    let inputs = &mut revise.extra_mut().inputs;
    inputs.extend(asks.into_iter().map(CompactString::from));
    inputs.sort_by_key(|a| ask_order(a));
    inputs.dedup();
}

/// A triage answer journaled before `confidence` was required (an older self-repair) counts
/// as confident: the run keeps the contract its agents answered under, and replaying its
/// journal gives the state it had.
fn with_legacy_confidence(kind: ItemKind, mut value: serde_json::Value) -> serde_json::Value {
    let fill = |answer: &mut serde_json::Value| {
        if let Some(fields) = answer.as_object_mut()
            && fields.contains_key("verdict")
            && !fields.contains_key("confidence")
        {
            fields.insert("confidence".to_owned(), serde_json::json!(1.0));
        }
    };
    match kind {
        ItemKind::Triage => fill(&mut value),
        ItemKind::TriageBatch => {
            let verdicts = value
                .get_mut("verdicts")
                .and_then(serde_json::Value::as_array_mut);
            for answer in verdicts.into_iter().flatten() {
                fill(answer);
            }
        }
        _ => {}
    }
    value
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::test_support::{NOW, per_finding_run, stop_event, submit};
    use crate::{Config, Event, ItemStatus, JournalEntry, apply, decide_stop};

    /// A rejected submission is remembered until a valid one arrives: the next block repeats
    /// the rejection only while the item still has none.
    #[test]
    fn a_valid_result_forgets_the_rejected_one_before_it() {
        let mut state = per_finding_run(
            "r-apply",
            2,
            "ruff F401",
            |_| "generic",
            |_| false,
            Config::default(),
        );
        decide_stop(&mut state, &stop_event("s1", Some(&[])), NOW);
        let rejected = JournalEntry {
            at: NOW,
            event: Event::Rejected {
                item: "t-00001".into(),
                error: "field `verdict`: missing".into(),
            },
        };
        assert!(apply(&mut state, &rejected).changed);
        assert_eq!(
            state.item("t-00001").unwrap().last_rejection(),
            Some("field `verdict`: missing")
        );
        submit(
            &mut state,
            "t-00001",
            json!({"verdict": "real", "root_cause": "unused import",
                "reason": "nothing reads the name", "confidence": 0.9}),
        );
        let item = state.item("t-00001").unwrap();
        assert_eq!(item.status, ItemStatus::Done);
        assert_eq!(item.last_rejection(), None);
        assert_eq!(item.errors().len(), 1, "the rejection stays in its errors");
    }

    /// A result for an item the run does not have, one past its last finding, changes
    /// nothing (the journal may be hand-edited; ids are looked up by their number).
    #[test]
    fn a_result_for_the_id_one_past_the_last_finding_changes_nothing() {
        let mut state = per_finding_run(
            "r-apply",
            3,
            "ruff F401",
            |_| "generic",
            |_| false,
            Config::default(),
        );
        assert_eq!(state.items.len(), 3, "only the findings' items");
        let entry = JournalEntry {
            at: NOW,
            event: Event::Submitted {
                item: "t-00004".into(),
                result: json!({"verdict": "real", "root_cause": "unused import",
                    "reason": "nothing reads the name", "confidence": 0.9}),
            },
        };
        assert!(!apply(&mut state, &entry).changed);
        assert_eq!(state.index_of("t-00004"), None);
    }
}
