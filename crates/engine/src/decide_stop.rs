//! The Stop hook's decision table (ARCHITECTURE §6), as a pure function of state, stop and time.

use std::collections::{HashMap, HashSet};

use crate::advance::advance;
use crate::dispatch::{
    DISPATCH_BUDGET, DISPATCH_START, DISPATCH_VERSION, Dispatch, Launch, PROTOCOL,
};
use crate::held_items::HeldItems;
use crate::{ItemKind, ItemStatus, PauseReason, Phase, RunState, RunStatus, StopEvent};

/// What the hook answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Let the session stop. A `message` is said once, at the transition that produced it (the
    /// run completed, paused or stalled): the hook relays it as the session's last line.
    Allow { message: Option<String> },
    /// Keep the session going with this instruction.
    Block(Dispatch),
    /// Every phase is done: the caller writes tasks and reports, applies `Event::Finalized`,
    /// and decides again.
    Finalize,
}

impl Decision {
    fn silent() -> Decision {
        Decision::Allow { message: None }
    }

    fn tell(message: String) -> Decision {
        Decision::Allow {
            message: Some(message),
        }
    }
}

/// A decision and whether the state changed (nothing is written when it did not).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub decision: Decision,
    pub changed: bool,
}

/// Answers one stop of the main session. `now` is Unix seconds.
pub fn decide_stop(state: &mut RunState, stop: &StopEvent, now: u64) -> Outcome {
    let mut changed = false;
    // Row 2: only the bound session is ever driven; a stop that names no session is nobody's,
    // and a run no session is bound to (started from a terminal) is nobody's until `adopt`
    // binds it: never whichever session happens to stop first in the project.
    match (&state.session, &stop.session) {
        (Some(bound), Some(session)) if bound == session => {}
        _ => return unchanged(),
    }
    // Row 4: cancelled, paused, stalled, complete.
    match state.status {
        RunStatus::Active => {}
        RunStatus::Cancelled => return outcome(Decision::silent(), changed),
        RunStatus::Complete => {
            if state.announced {
                return outcome(closing_line_again(state, stop), changed);
            }
            if stop.running.as_ref().is_some_and(|r| !r.is_empty()) {
                // Background agents that already submitted are still winding down: each will
                // wake the session once more, and whatever it answers would end up after the
                // closing line. Say it at the stop after the last one.
                return outcome(Decision::silent(), changed);
            }
            state.announced = true;
            return outcome(Decision::tell(summary(state)), true);
        }
        RunStatus::Paused => {
            if let Some(message) = crate::confirm::ask_once(state) {
                // A run waiting for the user's go: dispatch nothing, say the estimate once.
                return outcome(Decision::tell(message), true);
            }
            match state.pause {
                Some(PauseReason::ApiError { .. }) => {
                    // A stop means a turn completed: the API answers again.
                    state.status = RunStatus::Active;
                    state.pause = None;
                    changed = true;
                }
                // Refused launches: the user's next prompt ("continue") goes on; a turn that one
                // of the run's agents started (its notification) does not.
                Some(PauseReason::Refused { .. }) if refusal_lifted(stop) => {
                    resume(state);
                    changed = true;
                }
                _ => return outcome(Decision::silent(), changed),
            }
        }
        RunStatus::Stalled => {
            // Progress since the stall, or a new turn ("carry on"): worth another try; the
            // no-progress guard stalls it again after K more empty blocks.
            if stall_lifted(&state.run, state.progress, state.stalled_at, stop) {
                resume(state);
                changed = true;
            } else {
                return outcome(Decision::silent(), changed);
            }
        }
    }
    // Which channel the session follows: the last dispatch launched or not, its client (an
    // active run only: a stop of any other is quiet, and reads nothing).
    changed |= crate::session_channel::observe(state, stop);
    changed |= note_launches(state, &stop.launched);
    let refused = take_back_refused(state, &stop.launched);
    changed |= take_back_forks(state, &stop.launched);
    // Before reconcile: an agent the provider refused ended without a result too, and must not
    // be charged as one that failed.
    changed |= end_refused_by_provider(state, &stop.provider_refused);
    changed |= reconcile(state, stop.running.as_deref(), now);
    // In the interactive UI a "No" at the permission prompt interrupts the turn: no stop comes
    // until the user answers the client's "What should Claude do instead?", so a refusal first
    // seen at the first stop of a turn the user started (no notification in it) was already
    // answered by that prompt: go on at the same tiers instead of asking for another one.
    let answered_by_the_user = stop.new_turn && stop.notified == 0;
    if !answered_by_the_user && let Some(message) = pause_for_refused(state, &refused) {
        return outcome(Decision::tell(message), true);
    }
    if let Some(PauseReason::Circuit {
        kind,
        signature,
        count,
    }) = &state.pause
    {
        let message = format!(
            "self-repair run {}: paused — {count} {} agents in a row failed the same way: \
             {signature}. Fix the cause, then run `self-repair resume` and end your turn.",
            state.run,
            kind.as_str()
        );
        return outcome(Decision::tell(message), true);
    }
    changed |= settle(state);
    if state.phase == Phase::Finalize {
        return outcome(Decision::Finalize, true);
    }
    if state.phase == Phase::Triage {
        changed |= crate::verification::batch_second_looks(state) > 0;
    }
    let in_flight = state.in_flight();
    let room = (state.config.fan_out as usize).saturating_sub(in_flight);
    // What live batches and surveys hold, walked once: it finds the ready items, and still
    // holds after they are dispatched, for the progress note.
    let waiting = if room > 0 {
        HeldItems::waiting(state)
    } else {
        HeldItems::default()
    };
    let ready = ready_items(state, &waiting, room);
    let wanted = ready.len();
    let ready = crate::budget::affordable(state, stop.spend.as_ref(), ready);
    let affordable = ready.len();
    let ready = crate::launch_bound::within_ceiling(state, ready);
    if ready.is_empty() && wanted > 0 && in_flight == 0 {
        let message = if affordable > 0 {
            crate::launch_bound::pause_at_ceiling(state)
        } else {
            crate::budget::pause_at_budget(state, stop.spend.as_ref())
        };
        return outcome(Decision::tell(message), true);
    }
    if ready.is_empty() {
        // Row 5: agents still running (their notifications wake the session), or no room.
        return outcome(Decision::silent(), changed);
    }
    // Row 6: the no-progress guard.
    let stale_blocks = if state.last_block_progress == Some(state.progress) {
        state.stale_blocks + 1
    } else {
        0
    };
    // Under the client's continuation cap whatever the config says: K blocks and the stall
    // line are at most 8 continuations in a row.
    let bound = state.config.stall_blocks.min(crate::MAX_STALL_BLOCKS);
    if stale_blocks >= bound {
        state.status = RunStatus::Stalled;
        state.stalled_at = Some(state.progress);
        let message = format!(
            "self-repair run {}: stalled — {} instructions in a row brought no progress, so \
             this stop is allowed. Nothing is lost. To continue, run `self-repair resume` and \
             end your turn (or send a new prompt such as \"carry on\": the first stop of a new \
             turn resumes a stalled run); `self-repair status` shows where the run is.",
            state.run, bound
        );
        return outcome(Decision::tell(message), true);
    }
    // Row 7: dispatch.
    state.stale_blocks = stale_blocks;
    state.last_block_progress = Some(state.progress);
    state.blocks += 1;
    let mut dispatch = build_dispatch(state, &ready, now);
    let items = dispatch.launch.iter().map(|l| l.item.clone()).collect();
    crate::session_channel::for_dispatch(state, items);
    dispatch.progress = Some(crate::dispatch::progress_note(
        state,
        &waiting,
        stop.spend.as_ref(),
    ));
    outcome(Decision::Block(dispatch), true)
}

/// A run paused on refused launches goes on at the user's next prompt, not at a turn one of
/// the run's agents started (its notification).
pub(crate) fn refusal_lifted(stop: &StopEvent) -> bool {
    stop.new_turn && stop.notified == 0
}

/// A stalled run is worth another try after progress since the stall, or at a new turn
/// ("carry on"); the no-progress guard stalls it again after K more empty blocks. The stop that
/// ends with the run's own stall line (an unattended session relaying it) is no new turn,
/// whatever `stop_hook_active` says: the client has sent it `false` on repeated fires, and
/// taking that for "carry on" would dispatch again past the client's continuation cap.
pub(crate) fn stall_lifted(
    run: &str,
    progress: u64,
    stalled_at: Option<u64>,
    stop: &StopEvent,
) -> bool {
    let relayed_stall = stop
        .last_message
        .as_deref()
        .is_some_and(|m| m.contains(&format!("self-repair run {run}: stalled")));
    stalled_at.is_some_and(|at| progress > at) || (stop.new_turn && !relayed_stall)
}

fn unchanged() -> Outcome {
    outcome(Decision::silent(), false)
}

fn outcome(decision: Decision, changed: bool) -> Outcome {
    Outcome { decision, changed }
}

pub(crate) fn resume(state: &mut RunState) {
    crate::launch_bound::raise_ceiling(state);
    state.status = RunStatus::Active;
    state.pause = None;
    state.stalled_at = None;
    state.stale_blocks = 0;
    state.last_block_progress = None;
    state.streak = crate::FailureStreak::default();
}

/// Settles what code can decide without an agent: items whose inputs all failed, then phase
/// advances. Returns true when anything changed.
pub fn settle(state: &mut RunState) -> bool {
    let mut changed = false;
    loop {
        let settled = settle_dependencies(state) | crate::rule_survey::resolve_surveys(state);
        let advanced = advance(state);
        changed |= settled | advanced;
        if !settled && !advanced {
            return changed;
        }
    }
}

/// Finds what became of dispatched items: still running, answered, or ended without a result.
/// An attempt is charged only on evidence that the item's agent ran: the client listed it in
/// `background_tasks`, it rendered its task (`Event::Shown`), or it sent a rejected submission.
/// Without any, the main session most likely never launched it (a partly launched batch): it
/// goes back to pending uncharged, and the no-progress guard bounds the loop.
fn reconcile(state: &mut RunState, running: Option<&[String]>, now: u64) -> bool {
    let running: Option<HashSet<&str>> = running.map(|r| r.iter().map(String::as_str).collect());
    let lease = state.config.lease_secs();
    let mut failures = Vec::new();
    let mut changed = false;
    for (index, item) in state.items.iter_mut().enumerate() {
        if item.status != ItemStatus::Dispatched {
            continue;
        }
        let ended = match &running {
            Some(set) if set.contains(item.id.as_str()) => {
                if !item.seen_running {
                    item.seen_running = true;
                    changed = true;
                }
                None
            }
            Some(_) => Some("ended without submitting a result".to_owned()),
            None => item
                .lease
                .is_none_or(|at| now.saturating_sub(at) >= lease)
                .then(|| {
                    format!(
                        "no result within the {}-minute lease",
                        state.config.lease_minutes
                    )
                }),
        };
        let Some(error) = ended else {
            continue;
        };
        if item.seen_running || item.last_rejection().is_some() {
            failures.push((index, error));
        } else {
            // Never launched, as far as anything shows: not the item's failure, and no launch
            // (no agent ran). The no-progress guard bounds these re-sends.
            item.status = ItemStatus::Pending;
            item.lease = None;
            item.dispatches = item.dispatches.saturating_sub(1);
            changed = true;
        }
    }
    for (index, error) in failures {
        fail_attempt(state, index, &error);
        changed = true;
    }
    changed
}

/// Records the tier each launch really ran at: the `Agent` call's `model`, or the agent
/// definition's default when the main session dropped it. A batch that already answered (a
/// foreground launch returns after its agent submitted) passes it on to the findings it
/// decided; a verifier that already answered below its dispatch is set aside. A launch the
/// client refused ran at no tier: [`take_back_refused`] handles it.
fn note_launches(state: &mut RunState, launched: &[crate::AgentLaunch]) -> bool {
    let mut changed = false;
    // A fork (no `subagent_type`) is the main session's clone, not the item's agent: it
    // claims no tier and is no evidence the agent ran.
    for launch in launched.iter().filter(|l| l.refused.is_none() && !l.fork) {
        let Some(index) = state.index_of(&launch.item) else {
            continue;
        };
        let item = &mut state.items[index];
        let ran = match &launch.model {
            None => Some(item.kind.default_tier()),
            Some(model) => crate::Tier::parse(model),
        };
        if ran.is_some() && item.ran != ran {
            item.ran = ran;
            changed = true;
        }
        // The client's own record of the launch: the agent ran.
        if item.status == ItemStatus::Dispatched && !item.seen_running {
            item.seen_running = true;
            changed = true;
        }
        let Some(ran) = ran else {
            continue;
        };
        if item.kind == ItemKind::TriageBatch && item.status == ItemStatus::Done {
            changed |= crate::triage_batch::note_members_ran(state, index, ran);
        }
        changed |= crate::verification::reopen_if_weaker(state, index, ran);
    }
    changed
}

/// Launches the client refused before their agent ran (the user answered "No", a permission
/// rule or hook denied it): each item goes back to pending as if never dispatched, with no
/// attempt, no escalation and no tier claim. Returns the items taken back.
fn take_back_refused(
    state: &mut RunState,
    launched: &[crate::AgentLaunch],
) -> Vec<(String, String)> {
    let mut taken = Vec::new();
    for launch in launched {
        let Some(denial) = &launch.refused else {
            continue;
        };
        let Some(index) = state.index_of(&launch.item) else {
            continue;
        };
        let item = &mut state.items[index];
        if item.status != ItemStatus::Dispatched {
            continue;
        }
        if !return_uncharged(item) {
            // Refused again and again: the user's answer, and not asked once more.
            item.record_error(format!(
                "quarantined: its launch was refused {} times ({denial}); not sent again",
                crate::MAX_RESENDS + 1
            ));
            quarantine(state, index);
        }
        taken.push((launch.item.clone(), denial.clone()));
    }
    taken
}

/// A dispatched item whose launch ran no agent of its own goes back to pending as if never
/// dispatched (no attempt, no tier claim); false when it already had [`crate::MAX_RESENDS`]
/// such returns (the caller quarantines it).
fn return_uncharged(item: &mut crate::WorkItem) -> bool {
    item.lease = None;
    item.seen_running = false;
    item.ran = None;
    item.dispatches = item.dispatches.saturating_sub(1);
    item.clear_rejection();
    let again = item.take_resend();
    if again {
        item.status = ItemStatus::Pending;
    }
    again
}

/// Launches the client made a fork of the main session (the call named no `subagent_type`):
/// never the item's agent. An item still in flight goes back to pending with no attempt
/// charged, as if never launched, and its next dispatch insists on the entry as given; after
/// [`crate::MAX_RESENDS`] such returns it is quarantined. One a fork already answered keeps
/// the answer (it passed `submit`'s checks) with a line saying a fork gave it. Returns true when
/// anything changed.
fn take_back_forks(state: &mut RunState, launched: &[crate::AgentLaunch]) -> bool {
    let mut changed = false;
    for launch in launched.iter().filter(|l| l.fork && l.refused.is_none()) {
        let Some(index) = state.index_of(&launch.item) else {
            continue;
        };
        let item = &mut state.items[index];
        changed = true;
        if item.status != ItemStatus::Dispatched {
            item.record_error(format!(
                "answered after {FORKED} (its Agent call named no `subagent_type`)"
            ));
            continue;
        }
        item.record_error(format!(
            "{FORKED}: its Agent call named no `subagent_type`; not its agent, not charged"
        ));
        if !return_uncharged(item) {
            item.record_error(format!(
                "quarantined: its launch was a fork of the main session (no `subagent_type`) {} \
                 times; not sent again",
                crate::MAX_RESENDS + 1
            ));
            quarantine(state, index);
        }
    }
    changed
}

/// How an item's errors say its launch was a fork: the next dispatch insists on the entry.
const FORKED: &str = "launched as a fork of the main session";

/// The reason an item refused by the model provider ends with (`status`, report.md and
/// report.json name it).
pub const REFUSED_BY_PROVIDER: &str = "refused by the model provider";

/// Items whose agent the model provider refused (`stop_reason: "refusal"`): the provider's
/// safety classifier declined the text, so sending the same text again a tier up would be
/// refused again, and billed again. Each dispatched one ends `quarantined` with the reason
/// [`REFUSED_BY_PROVIDER`]: no attempt charged, no escalation, no part in the failure circuit
/// (its own counter, [`RunState::provider_refusals`]), and the run goes on. A batch of several
/// findings is split in halves at the same tier instead (each half is another text; one finding
/// the classifier objects to cannot take the others with it); a batch of one is quarantined
/// with its finding. No retry otherwise (reference/state-machine.md, "Bounds"). Returns true
/// when anything changed.
fn end_refused_by_provider(state: &mut RunState, refused: &[String]) -> bool {
    let mut changed = false;
    for id in refused {
        let Some(index) = state.index_of(id) else {
            continue;
        };
        let item = &mut state.items[index];
        if item.status != ItemStatus::Dispatched {
            continue;
        }
        item.lease = None;
        item.seen_running = false;
        item.clear_rejection();
        item.record_error(format!(
            "{REFUSED_BY_PROVIDER}: its agent's response ended with stop_reason \"refusal\" on \
             {}; not escalated, not charged as a failed attempt",
            item.tier.as_str()
        ));
        state.provider_refusals += 1;
        if item.kind == ItemKind::TriageBatch && item.inputs().len() > 1 {
            let tier = item.tier;
            crate::triage_batch::split(state, index, tier);
        } else {
            quarantine(state, index);
            if state.items[index].kind == ItemKind::TriageBatch {
                mark_members_refused(state, index);
            }
        }
        changed = true;
    }
    changed
}

/// The finding of a quarantined batch of one says why: the provider refused it.
fn mark_members_refused(state: &mut RunState, index: usize) {
    let members = state.items[index].inputs().to_vec();
    for member in members {
        if let Some(item) = state.item_mut(&member) {
            item.record_error(format!("quarantined: {REFUSED_BY_PROVIDER}"));
        }
    }
}

/// After refused launches: pauses the run (the user decides whether it goes on) and says once
/// what happened and how to continue. `None` when nothing was refused or the run is not active.
fn pause_for_refused(state: &mut RunState, refused: &[(String, String)]) -> Option<String> {
    /// Ids named in the message; the rest are counted.
    const NAMED: usize = 5;
    let (_, denial) = refused.first()?;
    if state.status != RunStatus::Active {
        return None;
    }
    let launches = refused.len() as u32;
    state.status = RunStatus::Paused;
    state.pause = Some(PauseReason::Refused {
        launches,
        denial: denial.clone(),
    });
    let mut ids: Vec<&str> = refused
        .iter()
        .take(NAMED)
        .map(|(id, _)| id.as_str())
        .collect();
    let more = format!("{} more", refused.len().saturating_sub(NAMED));
    if refused.len() > NAMED {
        ids.push(&more);
    }
    let (what, allow) = refusal_words(denial);
    Some(format!(
        "self-repair run {run}: paused — {launches} agent launch(es) ({ids}) {what}; no attempt \
         was charged and nothing was escalated. To go on, send a new prompt such as \"continue\" \
         (or run `self-repair resume --run {run}`) {allow}; to drop the run, run `self-repair \
         cancel --run {run}`.",
        run = state.run,
        ids = ids.join(", "),
    ))
}

/// How a refusal of kind `denial` (the client's `toolDenialKind`) is said, and what lets the
/// next launches through.
fn refusal_words(denial: &str) -> (&'static str, &'static str) {
    match denial {
        "user-rejected" => (
            "were declined at Claude Code's permission prompt",
            "and choose Yes when Claude Code asks to launch each agent",
        ),
        "interrupted" | "cancelled" => (
            "were interrupted before their agents ran",
            "and let the agents run",
        ),
        d if d.starts_with("automode") => (
            "were blocked by auto mode",
            "and approve the agents when Claude Code asks (or use manual mode)",
        ),
        _ => (
            "were denied by a permission rule or PreToolUse hook",
            "once the `Agent` tool is allowed for the self-repair agents",
        ),
    }
}

/// Counts a failed attempt: escalate the tier and retry, or quarantine after the strongest
/// tier. Identical failures in a row within one kind open the circuit. A launch that ran below
/// the dispatched tier (the main session dropped `model`) is not that tier's attempt: it is
/// recorded, and the item is dispatched again at the same tier, insisting on the model.
pub(crate) fn fail_attempt(state: &mut RunState, index: usize, error: &str) {
    let item = &mut state.items[index];
    if let Some(ran) = item.ran.filter(|ran| *ran < item.tier)
        && item.take_resend()
    {
        item.clear_rejection();
        item.seen_running = false;
        item.lease = None;
        item.status = ItemStatus::Pending;
        item.record_error(format!(
            "launch dispatched at {} ran on {} (the Agent call dropped `model`), not counted as \
             an attempt: {error}",
            item.tier.as_str(),
            ran.as_str()
        ));
        return;
    }
    let item = &mut state.items[index];
    let signature = item.last_rejection().map(str::to_owned);
    item.clear_rejection();
    let signature =
        signature.map_or_else(|| error.to_owned(), |r| format!("submission rejected: {r}"));
    item.attempts += 1;
    item.seen_running = false;
    item.lease = None;
    item.record_error(format!(
        "attempt {} ({}): {signature}",
        item.attempts,
        item.tier.as_str()
    ));
    let kind = item.kind;
    let id = item.id.to_string();
    if kind == ItemKind::TriageBatch && item.inputs().len() > 1 {
        let tier = item.tier.escalated().unwrap_or(item.tier);
        crate::triage_batch::split(state, index, tier);
    } else if let Some(next) = item.tier.escalated() {
        item.move_to_tier(next);
        item.status = ItemStatus::Pending;
    } else {
        quarantine(state, index);
    }
    let streak = &mut state.streak;
    if streak.kind == Some(kind) && streak.signature == signature {
        if !streak.items.contains(&id) {
            streak.items.push(id);
        }
    } else {
        streak.kind = Some(kind);
        streak.signature = signature;
        streak.items = vec![id];
    }
    let count = streak.items.len() as u32;
    if count >= state.config.circuit_failures && state.status == RunStatus::Active {
        state.status = RunStatus::Paused;
        state.pause = Some(PauseReason::Circuit {
            kind,
            signature: streak.signature.clone(),
            count,
        });
    }
}

/// Ends item `index` as `quarantined`, with what that means for the items it holds: a batch's
/// findings, a verifier's finding (`unsure`: its dismissal was never confirmed).
fn quarantine(state: &mut RunState, index: usize) {
    let item = &mut state.items[index];
    item.status = ItemStatus::Quarantined;
    item.lease = None;
    match item.kind {
        ItemKind::TriageBatch => crate::triage_batch::quarantine_members(state, index),
        ItemKind::Verify => crate::verification::unverified(state, index),
        _ => {}
    }
}

/// Pending items whose dependencies ended without the inputs they need are quarantined; a
/// revise step the reviews asked nothing of is done without an agent.
fn settle_dependencies(state: &mut RunState) -> bool {
    let first = state.triage_items as usize;
    let status: HashMap<compact_str::CompactString, ItemStatus> = state.items[first..]
        .iter()
        .filter(|i| i.kind.phase() == Phase::Plan)
        .map(|i| (i.id.clone(), i.status))
        .collect();
    let mut changed = false;
    for item in &mut state.items[first..] {
        if item.status != ItemStatus::Pending || item.depends_on().is_empty() {
            continue;
        }
        let deps: Vec<ItemStatus> = item
            .depends_on()
            .iter()
            .map(|d| {
                status
                    .get(d.as_str())
                    .copied()
                    .unwrap_or(ItemStatus::Quarantined)
            })
            .collect();
        if !deps.iter().all(|s| s.is_terminal()) {
            continue;
        }
        let usable = match item.kind {
            ItemKind::Synthesize => deps.contains(&ItemStatus::Done),
            ItemKind::Review | ItemKind::Revise | ItemKind::WriteTask => {
                deps[0] == ItemStatus::Done
            }
            _ => true,
        };
        if !usable {
            item.status = ItemStatus::Quarantined;
            item.record_error(format!(
                "inputs failed: {} ended without a usable result",
                item.depends_on().join(", ")
            ));
            changed = true;
        } else if item.kind == ItemKind::Revise && item.inputs().is_empty() {
            // The reviews ask for nothing (no must-fix point, no rework): the plan stands as
            // reviewed, and no agent is launched for it (design note 35).
            item.status = ItemStatus::Done;
            changed = true;
        }
    }
    changed
}

/// Ids of pending items of the current phase whose dependencies are done, up to `room`.
/// `waiting` holds what live batches and surveys hold ([`HeldItems::waiting`]).
fn ready_items(state: &RunState, waiting: &HeldItems, room: usize) -> Vec<usize> {
    if room == 0 {
        return Vec::new();
    }
    let phase = state.phase;
    let first = state.triage_items as usize;
    let status: HashMap<&str, ItemStatus> = if phase == Phase::Plan {
        state.items[first..]
            .iter()
            .map(|i| (i.id.as_str(), i.status))
            .collect()
    } else {
        HashMap::new()
    };
    // Triage items a live batch holds go out with their batch only.
    let held = if phase == Phase::Triage {
        let mut held = waiting.clone();
        held.extend(crate::verification::verified_members(state, false));
        held.extend(crate::verification::second_looks_waiting(state));
        held
    } else {
        HeldItems::default()
    };
    state
        .items
        .iter()
        .enumerate()
        // Held first: most pending findings of a batched run are.
        .filter(|(index, i)| i.status == ItemStatus::Pending && !held.holds(*index, &i.id))
        .filter(|(_, i)| i.kind.phase() == phase)
        .filter(|(_, i)| {
            i.depends_on()
                .iter()
                .all(|d| status.get(d.as_str()).is_some_and(|s| s.is_terminal()))
        })
        .map(|(index, _)| index)
        .take(room)
        .collect()
}

fn build_dispatch(state: &mut RunState, ready: &[usize], now: u64) -> Dispatch {
    let prefix = state.config.agent_prefix.clone();
    let launch_mode = state.config.launch_mode;
    let mut launch = Vec::with_capacity(ready.len());
    let mut insist = Vec::new();
    let mut insist_agent = Vec::new();
    let tell_protocol = state.protocol_told != state.session;
    // What the block takes so far: its frame, the protocol, the two insistences' preambles. A
    // wave that would pass the client's hook text limit is cut here; the rest stays pending for
    // the next stop (issue 41).
    let mut used =
        DISPATCH_START.len() + 40 + if tell_protocol { PROTOCOL.len() + 1 } else { 0 } + 120;
    for &index in ready {
        let item = &mut state.items[index];
        let forked = item.status == ItemStatus::Pending
            && item.errors().last().is_some_and(|e| e.starts_with(FORKED));
        // (whether it insists on the agent, the line): a fork's item on its `subagent_type`,
        // a launch that ran below its tier on its `model`.
        let insisted = if forked {
            Some((
                true,
                format!(
                    "{} MUST keep \"subagent_type\": \"{prefix}{}\" (its last launch named none \
                     and ran as a fork of this session)",
                    item.id,
                    item.kind.agent()
                ),
            ))
        } else {
            item.ran.filter(|ran| *ran < item.tier).map(|ran| {
                (
                    false,
                    format!(
                        "{} MUST keep \"model\": \"{}\" (its last launch dropped it and ran on {})",
                        item.id,
                        item.tier.as_str(),
                        ran.as_str()
                    ),
                )
            })
        };
        let entry = Launch {
            subagent_type: format!("{prefix}{}", item.kind.agent()),
            model: item.tier.as_str().to_owned(),
            description: item.description(),
            prompt: format!("self-repair item {} --run {}", item.id, state.run),
            run_in_background: (launch_mode == crate::LaunchMode::Foreground).then_some(false),
            item: item.id.to_string(),
        };
        let size =
            entry.render_json().len() + 1 + insisted.as_ref().map_or(0, |(_, i)| i.len() + 2);
        if !launch.is_empty() && used + size > DISPATCH_BUDGET {
            break;
        }
        used += size;
        match insisted {
            Some((true, line)) => insist_agent.push(line),
            Some((false, line)) => insist.push(line),
            None => {}
        }
        item.ran = None;
        item.status = ItemStatus::Dispatched;
        item.dispatches += 1;
        item.batch = state.blocks;
        item.seen_running = false;
        item.clear_rejection();
        item.lease = Some(now);
        launch.push(entry);
    }
    // The standing protocol once per session; every other block is its JSON alone (and the
    // rare insistence on a dropped model or agent type).
    let mut summary = Vec::new();
    if tell_protocol {
        summary.push(PROTOCOL.to_owned());
        state.protocol_told.clone_from(&state.session);
    }
    if !insist_agent.is_empty() {
        summary.push(format!(
            "Pass every entry's \"subagent_type\" as given: {}.",
            insist_agent.join("; ")
        ));
    }
    if !insist.is_empty() {
        summary.push(format!(
            "Pass every entry's \"model\" as given: {}.",
            insist.join("; ")
        ));
    }
    Dispatch {
        self_repair: DISPATCH_VERSION,
        progress: None,
        launch,
        then: None,
        summary: summary.join("\n"),
    }
}

/// The one-line outcome of a finished run.
/// After the closing line: a turn that one of the run's background agents started (its agent
/// ended just before the announcing stop, so the client no longer listed it, but its
/// notification was still queued) displaced the line as the session's last message, which is
/// what `claude -p` prints. Say it again then, and only then: a user's later turn is answered
/// in peace. Bounded by the run's notifications: each such turn needs one.
fn closing_line_again(state: &RunState, stop: &StopEvent) -> Decision {
    if closing_line_due_again(&state.run, stop) {
        Decision::tell(summary(state))
    } else {
        Decision::silent()
    }
}

/// [`closing_line_again`]'s condition: a new turn the run woke whose last message is not the
/// closing line of run `run`.
pub(crate) fn closing_line_due_again(run: &str, stop: &StopEvent) -> bool {
    let woken_by_the_run = stop.notified > 0 || !stop.unnotified.is_empty();
    let displaced = stop
        .last_message
        .as_deref()
        .is_some_and(|last| !last.contains(&format!("self-repair run {run} complete")));
    stop.new_turn && woken_by_the_run && displaced
}

pub fn summary(state: &RunState) -> String {
    if state.intake.unique == 0 {
        // A clean report, or one whose every finding is out of the run's scope: a success.
        let why = if state.intake.findings == 0 {
            "the analyzer's report holds no finding".to_owned()
        } else {
            format!(
                "none of the {} finding(s) read is in the run's scope",
                state.intake.findings
            )
        };
        return format!(
            "self-repair run {} complete: nothing to triage ({why}). Report: \
             .self-repair/runs/{}/report.md",
            state.run, state.run
        );
    }
    let triage = state.counts(Phase::Triage);
    let real = state.items[..state.triage_items as usize]
        .iter()
        .filter(|i| i.verdict == Some(crate::Verdict::Real))
        .count();
    let quarantined: usize = state
        .items
        .iter()
        .filter(|i| i.status == ItemStatus::Quarantined)
        .count();
    let written = state.tasks.iter().filter(|t| !t.existing).count();
    let refused = match state.provider_refusals {
        0 => String::new(),
        n => format!(" ({n} {REFUSED_BY_PROVIDER})"),
    };
    format!(
        "self-repair run {} complete: {} findings ({} triaged by agents, {} real) in {} groups; \
         {} tasks written, {} already existed; {} items quarantined{refused}. Report: \
         .self-repair/runs/{}/report.md",
        state.run,
        state.intake.unique,
        triage.done,
        real,
        state.groups.len(),
        written,
        state.tasks.len() - written,
        quarantined,
        state.run
    )
}

#[cfg(test)]
#[path = "decide_stop_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "ready_items_tests.rs"]
mod ready_items_tests;
