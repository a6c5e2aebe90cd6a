//! Batched triage: which triage items one agent investigates together (`tb-` items), what a
//! batch's result does to its members, and how a batch that died is split for its retry.
//!
//! The triage items (`t-00042`) stay the per-finding records: verdict, root cause, route. A
//! batch is only the dispatch unit: its `inputs` are its members, and while it is live (not
//! terminal) they are never dispatched on their own.

use compact_str::CompactString;
use std::collections::{BTreeMap, HashMap, HashSet};

use crate::{ItemKind, ItemStatus, RoutedFinding, RunState, TriageBatchResult, WorkItem};

/// The id of the `n`-th (1-based) batch: `tb-00003`.
fn batch_id(n: usize) -> String {
    format!("tb-{n:05}")
}

/// Forms the run's first batches, right after its triage items: never two routes in one batch
/// (the route picks the template and the tier); a rule's findings fill batches first (in path
/// order), and what is left of each rule fills batches by path (same file, then the next
/// files). A finding left alone stays a plain triage item. Nothing when `triage_batch` is 1.
/// The findings in `surveyed` wait for their rule survey instead.
pub(crate) fn form_batches(
    state: &mut RunState,
    routed: &[RoutedFinding],
    surveyed: &HashSet<usize>,
) {
    let size = state.config.triage_batch as usize;
    if size < 2 {
        return;
    }
    let mut by_route: BTreeMap<&str, BTreeMap<&str, Vec<usize>>> = BTreeMap::new();
    for (i, r) in routed.iter().enumerate() {
        if surveyed.contains(&i) {
            continue;
        }
        by_route
            .entry(r.route.as_str())
            .or_default()
            .entry(r.rule.as_str())
            .or_default()
            .push(i);
    }
    let by_path = |i: &usize| (routed[*i].path.as_str(), *i);
    let mut batches: Vec<Vec<usize>> = Vec::new();
    for rules in by_route.into_values() {
        let mut rest = Vec::new();
        for mut members in rules.into_values() {
            members.sort_by_key(by_path);
            let full = members.len() / size * size;
            batches.extend(members[..full].chunks(size).map(<[usize]>::to_vec));
            rest.extend_from_slice(&members[full..]);
        }
        rest.sort_by_key(by_path);
        batches.extend(rest.chunks(size).map(<[usize]>::to_vec));
    }
    batches.retain(|b| b.len() > 1);
    batches.sort_by_key(|b| b.iter().min().copied());
    for (n, members) in batches.into_iter().enumerate() {
        let items: Vec<&WorkItem> = members.iter().map(|&i| &state.items[i]).collect();
        let mut batch = new_batch(batch_id(n + 1), &items);
        let rule = &routed[members[0]].rule;
        if members.iter().all(|&i| routed[i].rule == *rule) {
            batch.extra_mut().rule = Some(rule.clone());
        }
        state.items.push(batch);
    }
}

/// The number of the run's next batch: one past every batch so far. Counted once by a caller
/// that forms many (a survey's release forms 12,500 at 100,000 findings; counting again for
/// each was most of that stop).
pub(crate) fn next_batch_number(state: &RunState) -> usize {
    1 + state.items[state.triage_items as usize..]
        .iter()
        .filter(|i| i.kind == ItemKind::TriageBatch)
        .count()
}

/// Batch number `number` of `members` (see [`next_batch_number`]).
pub(crate) fn numbered_batch(number: usize, members: &[&WorkItem]) -> WorkItem {
    new_batch(batch_id(number), members)
}

/// A pending batch of `members`, at their highest tier.
fn new_batch(id: String, members: &[&WorkItem]) -> WorkItem {
    let highest = members
        .iter()
        .map(|m| m.tier)
        .max()
        .unwrap_or(crate::Tier::Haiku);
    let mut batch = WorkItem::new(id, ItemKind::TriageBatch, highest);
    batch.route = members.first().and_then(|m| m.route.clone());
    batch.extra_mut().inputs = members.iter().map(|m| m.id.clone()).collect();
    batch
}

/// The triage items that live batches hold: they are dispatched only with their batch.
/// `dispatched_only` keeps those of batches in flight (what `status` counts as running).
#[must_use]
pub fn batch_members_held(state: &RunState, dispatched_only: bool) -> HashSet<&str> {
    batch_members(state, dispatched_only).collect()
}

/// The ids of [`batch_members_held`], one by one (an id two batches hold, twice).
pub(crate) fn batch_members(state: &RunState, dispatched_only: bool) -> impl Iterator<Item = &str> {
    live_batches(state, dispatched_only)
        .flat_map(|(_, b)| b.inputs().iter().map(CompactString::as_str))
}

/// The batches not ended (`dispatched_only`: those in flight), with their indices.
pub(crate) fn live_batches(
    state: &RunState,
    dispatched_only: bool,
) -> impl Iterator<Item = (usize, &WorkItem)> {
    let first = state.triage_items as usize;
    state.items[first..]
        .iter()
        .enumerate()
        .map(move |(n, b)| (first + n, b))
        .filter(|(_, b)| b.kind == ItemKind::TriageBatch)
        .filter(move |(_, b)| {
            if dispatched_only {
                b.status == ItemStatus::Dispatched
            } else {
                !b.status.is_terminal()
            }
        })
}

/// How many members `batch` has, counted off its column's runs (`1-8`) while they are kept as
/// read: no id is made.
pub(crate) fn member_count(batch: &WorkItem) -> usize {
    let Some(text) = batch.members_text() else {
        return batch.inputs().len();
    };
    let mut count = 0;
    // Checked when read: cannot fail (and would count what expanding it finds if it did).
    let _ = crate::member_list::ranges(text, |first, last| count += last - first + 1);
    usize::try_from(count).unwrap_or(usize::MAX)
}

/// For each triage item a batch decided, that batch's id (a member that left its batch for a
/// re-route was decided on its own, and is not listed).
#[must_use]
pub fn batch_of(state: &RunState) -> HashMap<&str, &str> {
    let mut out = HashMap::new();
    for batch in state.items[state.triage_items as usize..]
        .iter()
        .filter(|b| b.kind == ItemKind::TriageBatch && b.status == ItemStatus::Done)
    {
        for member in batch.inputs() {
            if state.item(member).is_some_and(|m| m.reroutes == 0) {
                out.insert(member.as_str(), batch.id.as_str());
            }
        }
    }
    out
}

/// Applies a batch's result to its members: each gets its verdict, except one asking for a
/// re-route (first time), which leaves the batch as a pending triage item on the new route and
/// is dispatched on its own. Members already decided (a late answer of a batch that was split)
/// keep their verdict. Batches left with nothing to decide are retired.
pub(crate) fn decide_members(state: &mut RunState, batch: usize, result: &TriageBatchResult) {
    let (tier, ran, batch_id) = {
        let b = &state.items[batch];
        (b.tier, b.ran, b.id.to_string())
    };
    let rule = state.items[batch].rule().map(str::to_owned);
    for verdict in &result.verdicts {
        let Some(index) = state.index_of(&verdict.item) else {
            continue;
        };
        let member = &mut state.items[index];
        if member.kind == ItemKind::Verify {
            // A batch of second looks: each settles its own finding.
            if !member.status.is_terminal() {
                member.ran = ran;
                member.lease = None;
                crate::verification::record_answer(state, index, &verdict.result);
            }
            continue;
        }
        // Decided, or held by its verifier with its first verdict.
        if member.kind != ItemKind::Triage
            || member.status == ItemStatus::Done
            || member.verdict.is_some()
        {
            continue;
        }
        member.ran = ran;
        member.tier = tier;
        member.lease = None;
        let triage = &verdict.result;
        if let Some(new_route) = triage.reroute.as_ref().filter(|_| member.reroutes == 0) {
            member.reroutes += 1;
            let route_tier = crate::route::route(new_route).map_or(tier, |r| r.tier);
            member.move_to_tier(tier.max(route_tier));
            member.set_route(new_route);
            member.status = ItemStatus::Pending;
            continue;
        }
        member.verdict = Some(triage.verdict);
        member.root_cause = Some(triage.root_cause.as_str().into());
        member.set_duplicate_of(triage.duplicate_of.as_deref());
        member.status = ItemStatus::Done;
        if crate::verification::request(state, index, triage)
            && let Some(verifier) = state.items.last_mut()
        {
            verifier.extra_mut().rule.clone_from(&rule);
        }
    }
    retire_decided(state, &batch_id);
}

/// A batch that answered before its launch was read (foreground: the `Agent` call returns
/// after its agent submitted): the findings it decided ran at `ran` too. Returns whether any
/// changed.
pub(crate) fn note_members_ran(state: &mut RunState, batch: usize, ran: crate::Tier) -> bool {
    let members = state.items[batch].inputs().to_vec();
    let mut changed = false;
    for member in members {
        if let Some(index) = state.index_of(&member)
            && state.items[index].kind == ItemKind::Verify
        {
            changed |= crate::verification::reopen_if_weaker(state, index, ran);
            continue;
        }
        if let Some(item) = state.item_mut(&member)
            && item.kind == ItemKind::Triage
            && item.reroutes == 0
            && item.verdict.is_some()
            && item.ran != Some(ran)
        {
            item.ran = Some(ran);
            changed = true;
        }
    }
    changed
}

/// For each batch (by item index), a member last seen not terminal: while it still is, the
/// batch cannot be retired, and checking it costs one look instead of an id lookup per member.
/// A batch's members never change, so a witness stays a member; an item never goes back from
/// terminal, so only a witness that ended needs a new look. Kept in memory for the process
/// (a wave stop folds 20 results, each checking every live batch), never written, and equal
/// to any other: it only says where to look first, never what is found.
#[derive(Clone, Default)]
pub(crate) struct BatchWitnesses(Vec<u32>);

impl PartialEq for BatchWitnesses {
    fn eq(&self, _: &BatchWitnesses) -> bool {
        true
    }
}

impl std::fmt::Debug for BatchWitnesses {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BatchWitnesses")
    }
}

/// No witness known.
const NO_WITNESS: u32 = u32::MAX;

/// Live batches whose members are all terminal have nothing left to do: they end as failed,
/// naming the batch that decided their findings.
/// A live batch whose witness member is still open is skipped at once; the others have their
/// members looked up by id (`t-N` is item N-1), each an index lookup.
fn retire_decided(state: &mut RunState, decided_by: &str) {
    let first = state.triage_items as usize;
    let mut witnesses = std::mem::take(&mut state.witnesses.0);
    witnesses.resize(state.items.len(), NO_WITNESS);
    let retired: Vec<usize> = (first..state.items.len())
        .filter(|&i| {
            let batch = &state.items[i];
            if batch.kind != ItemKind::TriageBatch || batch.status.is_terminal() {
                return false;
            }
            let known = witnesses[i] as usize;
            if state
                .items
                .get(known)
                .is_some_and(|m| !m.status.is_terminal())
            {
                return false;
            }
            let mut all_terminal = true;
            for member in crate::member_list::member_indices(state, batch) {
                match member {
                    Some(m) if state.items[m].status.is_terminal() => {}
                    Some(m) => {
                        witnesses[i] = u32::try_from(m).unwrap_or(NO_WITNESS);
                        all_terminal = false;
                        break;
                    }
                    // Not an item (yet): not retired, and no witness to keep.
                    None => {
                        all_terminal = false;
                        break;
                    }
                }
            }
            all_terminal
        })
        .collect();
    state.witnesses.0 = witnesses;
    for i in retired {
        let batch = &mut state.items[i];
        batch.status = ItemStatus::Failed;
        batch.lease = None;
        batch.record_error(format!("its findings were decided by {decided_by}"));
    }
}

/// A batch of several findings ended without a result: it is split in halves, each a new
/// batch retried at `tier` (the escalated one), so one finding that kills agents cannot take
/// the others with it. The batch itself ends as failed and keeps its failed attempt; the halves
/// start with none of their own (carrying it too made one dead agent three failed attempts in
/// report.md, issue 24).
pub(crate) fn split(state: &mut RunState, index: usize, tier: crate::Tier) {
    let next = 1 + state.items[state.triage_items as usize..]
        .iter()
        .filter(|i| i.kind == ItemKind::TriageBatch)
        .count();
    let members = state.items[index].inputs().to_vec();
    let half = members.len().div_ceil(2);
    let route = state.items[index].route.clone();
    let rule = state.items[index].rule().map(str::to_owned);
    let ids = [batch_id(next), batch_id(next + 1)];
    for (id, part) in ids.iter().zip(members.chunks(half)) {
        let mut batch = WorkItem::new(id.clone(), ItemKind::TriageBatch, tier);
        batch.route.clone_from(&route);
        batch.extra_mut().inputs = part.to_vec();
        batch.extra_mut().rule.clone_from(&rule);
        state.items.push(batch);
    }
    let batch = &mut state.items[index];
    batch.status = ItemStatus::Failed;
    batch.record_error(format!(
        "split into {} and {} for the retry",
        ids[0], ids[1]
    ));
}

/// A batch of one was quarantined: so is its finding (it shows as quarantined, decided by
/// nobody, as a single triage item would).
pub(crate) fn quarantine_members(state: &mut RunState, index: usize) {
    let batch = &state.items[index];
    let (id, tier) = (batch.id.to_string(), batch.tier);
    let members = batch.inputs().to_vec();
    for member in members {
        if let Some(item) = state.item_mut(&member)
            && !item.status.is_terminal()
        {
            item.status = ItemStatus::Quarantined;
            item.tier = tier;
            item.record_error(format!("quarantined with its batch {id}"));
            if item.kind == ItemKind::Verify
                && let Some(index) = state.index_of(&member)
            {
                // An unconfirmed dismissal: its finding is unsure.
                crate::verification::unverified(state, index);
            }
        }
    }
}

#[cfg(test)]
#[path = "triage_batch_tests.rs"]
mod tests;
