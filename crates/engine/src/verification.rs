//! Verified verdicts (issue 14 item 1): a dismissal that hides a finding now, and through
//! `known.json` in later runs, stands only when a second agent agrees where one agent is not
//! enough: a `false_positive` or `intended` below `verify_below` confidence, any dismissal on
//! the security route, and any `unsure` that asked for no re-route. A `real` below
//! `verify_below` gets a blind second look too (issue 48): it stays `real` only when the second
//! look agrees, else it is `unsure` (a person decides), never closed on that one dismissal.
//!
//! The second agent works on a `vf-` item (`vf-00042` for `t-00042`) that holds its triage item
//! as a live batch holds its members: the triage item keeps its first verdict but stays pending
//! (never dispatched on its own) until the verifier answers; then code settles the verdict
//! ([`settle_verdict`]). One verification per finding, at most.

use compact_str::CompactString;
use std::collections::{HashMap, HashSet};

use serde::Serialize;

use crate::{ItemKind, ItemStatus, RunState, Tier, TriageResult, Verdict, WorkItem};

/// The route whose dismissals always get a second opinion.
pub(crate) const SECURITY: &str = "security";

/// Why a verdict gets a second agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VerifyReason {
    /// A `false_positive` or `intended` answered below `verify_below` confidence: checked one
    /// tier up, the first answer shown as a claim to check.
    LowConfidence,
    /// A dismissal on the security route: an independent second opinion (`tiers.verify`,
    /// opus by default) that does not see the first answer.
    SecurityDismissal,
    /// `unsure` without a re-route: a second look one tier up.
    Unsure,
    /// A `real` answered below `verify_below` confidence (issue 48): an independent second
    /// opinion at `tiers.verify` that does not see the first answer, batched per rule as the
    /// security dismissals' are.
    LowConfidenceReal,
}

impl VerifyReason {
    pub fn as_str(self) -> &'static str {
        match self {
            VerifyReason::LowConfidence => "low_confidence",
            VerifyReason::SecurityDismissal => "security_dismissal",
            VerifyReason::Unsure => "unsure",
            VerifyReason::LowConfidenceReal => "low_confidence_real",
        }
    }
}

/// How the second answer settled the verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VerifyOutcome {
    /// Both agents dismissed the finding (the second's dismissal stands), or both called a
    /// low-confidence `real` real (it stands).
    Confirmed,
    /// The agents disagree on a dismissal: the finding stays `real`, with both reasons.
    KeptReal,
    /// The first was `unsure`: the second answer decides.
    Decided,
    /// A low-confidence `real` the second look did not share (it dismissed it, or could not
    /// tell): the finding is `unsure`, and a person decides (issue 48).
    Disputed,
}

impl VerifyOutcome {
    pub fn as_str(self) -> &'static str {
        match self {
            VerifyOutcome::Confirmed => "confirmed",
            VerifyOutcome::KeptReal => "kept_real",
            VerifyOutcome::Decided => "decided",
            VerifyOutcome::Disputed => "disputed",
        }
    }
}

fn is_dismissal(verdict: Verdict) -> bool {
    matches!(verdict, Verdict::FalsePositive | Verdict::Intended)
}

/// Whether a triage answer needs a second agent before it stands. `None` for an answer that
/// asks for a re-route (the re-routed investigation answers instead). A `duplicate` on the
/// security route is a dismissal too (issue 40): its second look is asked for once its chain
/// resolves to a dismissed finding ([`crate::duplicate_chain`]), never at the answer.
pub fn needs_verification(
    verify_below: f64,
    route: Option<&str>,
    result: &TriageResult,
) -> Option<VerifyReason> {
    if result.reroute.is_some() {
        return None;
    }
    match result.verdict {
        Verdict::Unsure => Some(VerifyReason::Unsure),
        v if (is_dismissal(v) || v == Verdict::Duplicate) && route == Some(SECURITY) => {
            Some(VerifyReason::SecurityDismissal)
        }
        v if is_dismissal(v) && result.confidence.is_some_and(|c| c < verify_below) => {
            Some(VerifyReason::LowConfidence)
        }
        Verdict::Real if result.confidence.is_some_and(|c| c < verify_below) => {
            Some(VerifyReason::LowConfidenceReal)
        }
        _ => None,
    }
}

/// The verdict that stands after the second answer, and how it was reached. A first
/// `duplicate` (its chain ended on a dismissed finding) is a dismissal; a second look's
/// `duplicate` is not one (second looks are not offered it: an older journal may hold one).
/// Under the two-look rule, `unsure` then a dismissal decides nothing yet: [`record_answer`]
/// sends the dismissal to one more blind look before this settles it. A first `real` (below
/// `verify_below`) stands only when the second is `real` too; anything else makes it
/// `unsure`: one dismissal never closes a finding an investigator called real.
pub fn settle_verdict(first: Verdict, second: Verdict) -> (Verdict, VerifyOutcome) {
    if first == Verdict::Unsure {
        return (second, VerifyOutcome::Decided);
    }
    if first == Verdict::Real {
        return if second == Verdict::Real {
            (Verdict::Real, VerifyOutcome::Confirmed)
        } else {
            (Verdict::Unsure, VerifyOutcome::Disputed)
        };
    }
    if is_dismissal(second) {
        (second, VerifyOutcome::Confirmed)
    } else {
        // A dismissal the second agent did not share (real, or unsure): the finding stays.
        (Verdict::Real, VerifyOutcome::KeptReal)
    }
}

/// `vf-00042` for `t-00042`.
pub fn verify_id(triage_id: &str) -> String {
    format!("vf-{}", triage_id.strip_prefix("t-").unwrap_or(triage_id))
}

/// `t-00042` for `vf-00042`.
pub fn triage_id_of_verify(verify_id: &str) -> String {
    format!("t-{}", verify_id.strip_prefix("vf-").unwrap_or(verify_id))
}

/// The tier one above `tier` (opus stays opus).
fn one_up(tier: Tier) -> Tier {
    match tier {
        Tier::Haiku => Tier::Sonnet,
        Tier::Sonnet | Tier::Opus => Tier::Opus,
    }
}

/// After a triage item got `result` (its first answer at `tier`): when the answer needs a
/// second agent, keeps the verdict as the first one, holds the item pending and creates its
/// `vf-` item. Returns whether it did. Never a second time for the same item.
pub(crate) fn request(state: &mut RunState, index: usize, result: &TriageResult) -> bool {
    if result.verdict == Verdict::Duplicate {
        // Its chain decides first (at the end of triage): a duplicate of a real finding is real.
        return false;
    }
    let item = &state.items[index];
    let route = if item.two_looks() {
        Some(SECURITY)
    } else {
        item.route.as_deref()
    };
    let Some(reason) = needs_verification(state.config.verify_below, route, result) else {
        return false;
    };
    request_for(state, index, reason)
}

/// A duplicate under the two-look rule whose chain ends on a dismissed finding: its own blind
/// second look (issue 40). Returns whether it asked for one.
pub(crate) fn request_for_duplicate(state: &mut RunState, index: usize) -> bool {
    request_for(state, index, VerifyReason::SecurityDismissal)
}

fn request_for(state: &mut RunState, index: usize, reason: VerifyReason) -> bool {
    let item = &state.items[index];
    let id = verify_id(&item.id);
    if state.index_of(&id).is_some() {
        return false;
    }
    let answered_at = item.ran.unwrap_or(item.tier);
    let tier = match reason {
        VerifyReason::SecurityDismissal | VerifyReason::LowConfidenceReal => {
            state.config.tiers.verify.max(answered_at)
        }
        VerifyReason::LowConfidence | VerifyReason::Unsure => one_up(answered_at),
    };
    let mut verify = WorkItem::new(id, ItemKind::Verify, tier);
    // The first answer, kept on the verifier: what its item goes back to if the second look
    // is set aside.
    verify.verdict = item.verdict;
    verify.root_cause.clone_from(&item.root_cause);
    verify.route = if item.two_looks() {
        // Whatever route it ended on, its second look is the security one: blind, at
        // `tiers.verify` (issue 40).
        Some(SECURITY.into())
    } else {
        item.route.clone()
    };
    verify.finding = item.finding;
    verify.extra_mut().inputs = vec![item.id.clone()];
    let item = &mut state.items[index];
    item.status = ItemStatus::Pending;
    item.seen_running = false;
    state.items.push(verify);
    true
}

/// The verifier's answer: settles its triage item's verdict and root cause, and the verifier
/// is done. Returns false when the answer is set aside instead: the verifier's launch is known
/// to have run below the tier it was dispatched at (the `Agent` call dropped `model`), and a
/// second look must be at least as strong as its dispatch (issue 24). It goes out again at its
/// tier once, the block insisting on the model; set aside again, it ends unconfirmed. False
/// too when the answer sends the verifier out once more ([`look_again`]).
pub(crate) fn record_answer(state: &mut RunState, index: usize, result: &TriageResult) -> bool {
    let verifier = &mut state.items[index];
    if let Some(ran) = verifier.ran.filter(|ran| *ran < verifier.tier) {
        set_aside(state, index, ran);
        return false;
    }
    verifier.status = ItemStatus::Done;
    let stashed = verifier.verdict;
    let Some(target) = verifier.inputs().first().cloned() else {
        return true;
    };
    let Some(item) = state.item_mut(&target) else {
        return true;
    };
    let first = stashed.or(item.verdict).unwrap_or(Verdict::Unsure);
    if first == Verdict::Unsure && is_dismissal(result.verdict) && item.two_looks() {
        look_again(state, index, result);
        return false;
    }
    let Some(item) = state.item_mut(&target) else {
        return true;
    };
    let (verdict, _) = settle_verdict(first, result.verdict);
    item.verdict = Some(verdict);
    item.root_cause = Some(result.root_cause.as_str().into());
    item.status = ItemStatus::Done;
    true
}

/// Under the two-look rule, a second look dismissed a finding whose first look was `unsure`:
/// one dismissal, not two (issue 40). The dismissal becomes the answer the verifier checks,
/// and the verifier goes out once more, blind and at `tiers.verify`, its finding still held:
/// the next answer settles it as any security dismissal ([`settle_verdict`]). At most once per
/// finding (its stash is a dismissal from then on); this launch takes the place of the
/// re-route a second look never asks, so [`crate::MAX_LAUNCHES_PER_ITEM`] holds.
fn look_again(state: &mut RunState, index: usize, result: &TriageResult) {
    let tier = state.config.tiers.verify;
    let verifier = &mut state.items[index];
    verifier.verdict = Some(result.verdict);
    verifier.root_cause = Some(result.root_cause.as_str().into());
    verifier.status = ItemStatus::Pending;
    verifier.seen_running = false;
    verifier.lease = None;
    let at = verifier.tier.max(tier);
    verifier.move_to_tier(at);
    verifier.ran = None;
    // An answer: the run moved.
    state.progress += 1;
}

/// A verifier whose answer does not count. The first time, it is pending again at its own
/// tier, its `ran` kept (the next block says the launch dropped `model`); no attempt is
/// charged: the agent did not fail. A second look is sent again once, whatever took it back
/// before: the next set-aside ends it unconfirmed ([`end_unconfirmed`]).
fn set_aside(state: &mut RunState, index: usize, ran: Tier) {
    let verifier = &mut state.items[index];
    if verifier.status == ItemStatus::Quarantined {
        // A late answer of a second look that already ended: nothing to settle again.
        return;
    }
    let why = format!(
        "answer set aside: dispatched at {} it ran on {} (the Agent call dropped `model`); a \
         second look must be at least as strong as its dispatch",
        verifier.tier.as_str(),
        ran.as_str()
    );
    verifier.record_error(why);
    verifier.seen_running = false;
    verifier.lease = None;
    if verifier.resends == 0 && verifier.take_resend() {
        verifier.status = ItemStatus::Pending;
    } else {
        end_unconfirmed(state, index, ran);
    }
}

/// What a finding ends as when its second look never counted: `unsure` for a dismissal or an
/// `unsure` (it hides nothing and teaches `known.json` nothing), `real` for a low-confidence
/// `real` (issue 48: only a second look that disagrees makes it `unsure`; none did).
fn unconfirmed_end(first: Option<Verdict>) -> Verdict {
    if first == Some(Verdict::Real) {
        Verdict::Real
    } else {
        Verdict::Unsure
    }
}

/// A second look set aside twice for running below its dispatch ends the way an unconfirmed
/// dismissal ends (issue 32): the verifier is quarantined with that reason, and its finding is
/// `unsure` (never `false_positive` or `intended`: it hides nothing and teaches `known.json`
/// nothing; a low-confidence `real` stays `real`), its first answer's root cause kept. The run
/// goes on.
fn end_unconfirmed(state: &mut RunState, index: usize, ran: Tier) {
    let verifier = &mut state.items[index];
    verifier.status = ItemStatus::Quarantined;
    verifier.ran = Some(ran);
    let end = unconfirmed_end(verifier.verdict);
    let reason = format!(
        "quarantined: its answer was set aside twice, each launch below its dispatch at {} \
         (the last ran on {}); an unconfirmed second look decides nothing, so its finding is \
         {}",
        verifier.tier.as_str(),
        ran.as_str(),
        end.as_str()
    );
    verifier.record_error(reason);
    let (id, cause, target) = (
        verifier.id.to_string(),
        verifier.root_cause.clone(),
        verifier.inputs().first().cloned(),
    );
    if let Some(item) = target.and_then(|t| state.item_mut(&t)) {
        item.verdict = Some(end);
        if cause.is_some() {
            item.root_cause = cause;
        }
        item.status = ItemStatus::Done;
        item.record_error(format!(
            "its verification {id} ran below its tier twice and was quarantined: {}",
            end.as_str()
        ));
    }
    // A verdict: the run moved.
    state.progress += 1;
}

/// A verifier that already answered, whose launch the transcript shows only now (a foreground
/// run: the answer arrives before the stop that reads the launch) to have run at `ran`, below
/// its dispatch: its answer is set aside, and its triage item goes back to the first answer,
/// waiting for the second look again (or, set aside before, the finding ends `unsure`). The
/// accepted answer's progress is taken back: a result thrown away moves nothing, so the
/// no-progress guard sees the loop. Returns whether it did. Only while triage is under way:
/// nothing has been built on the settled verdict yet.
pub(crate) fn reopen_if_weaker(state: &mut RunState, index: usize, ran: Tier) -> bool {
    let verifier = &state.items[index];
    let reopens = verifier.kind == ItemKind::Verify
        && verifier.status == ItemStatus::Done
        && ran < verifier.tier
        && verifier.verdict.is_some()
        && state.phase == crate::Phase::Triage;
    if !reopens {
        return false;
    }
    let (first, cause, target) = (
        verifier.verdict,
        verifier.root_cause.clone(),
        verifier.inputs().first().cloned(),
    );
    if let Some(item) = target.and_then(|t| state.item_mut(&t))
        && item.status == ItemStatus::Done
    {
        item.verdict = first;
        item.root_cause = cause;
        item.status = ItemStatus::Pending;
    }
    state.progress = state.progress.saturating_sub(1);
    set_aside(state, index, ran);
    true
}

/// A verifier quarantined after its tiers: its dismissal was never confirmed, so the finding
/// is `unsure` (it hides nothing and teaches `known.json` nothing); a low-confidence `real`
/// nobody disputed stays `real`.
pub(crate) fn unverified(state: &mut RunState, index: usize) {
    let Some(target) = state.items[index].inputs().first().cloned() else {
        return;
    };
    let verifier = state.items[index].id.to_string();
    let end = unconfirmed_end(state.items[index].verdict);
    if let Some(item) = state.item_mut(&target)
        && !item.status.is_terminal()
    {
        item.verdict = Some(end);
        item.status = ItemStatus::Done;
        item.record_error(format!(
            "its verification {verifier} was quarantined: {}",
            end.as_str()
        ));
    }
}

/// Whether `batch` is a batch of second looks (its members are `vf-` items), not of first looks.
#[must_use]
pub fn holds_second_looks(batch: &WorkItem) -> bool {
    // Members kept as their column's numbers are findings (`t-N`): none is read to know.
    batch.kind == ItemKind::TriageBatch
        && batch.members_text().is_none()
        && batch.inputs().first().is_some_and(|m| m.starts_with("vf-"))
}

/// A blind second look that has never gone out: on a security dismissal, or on a
/// low-confidence `real` of any route (issue 48). One that may join a batch of second looks.
pub(crate) fn batchable(item: &WorkItem) -> bool {
    let blind = match item.verdict {
        Some(Verdict::Real) => true,
        Some(v) => (is_dismissal(v) || v == Verdict::Duplicate) && item.two_looks(),
        None => false,
    };
    item.kind == ItemKind::Verify
        && item.status == ItemStatus::Pending
        && blind
        && item.attempts == 0
        && item.dispatches == 0
        && item.resends == 0
}

/// The rules (`None`: findings of batches of mixed rules, or of no batch) whose first looks
/// are not all in: a live batch of first looks stands for its rule, and for `None`.
fn rules_still_triaged(state: &RunState) -> HashSet<Option<&str>> {
    let mut rules = HashSet::new();
    for batch in &state.items[state.triage_items as usize..] {
        if batch.kind == ItemKind::TriageBatch
            && !batch.status.is_terminal()
            && !holds_second_looks(batch)
        {
            rules.insert(batch.rule());
            rules.insert(None);
        }
    }
    rules
}

/// The second looks that may join a batch and are in none yet: most runs have none, and then
/// nothing else is scanned (this runs at every stop of the triage phase).
fn unbatched_second_looks(state: &RunState) -> Vec<usize> {
    let first = state.triage_items as usize;
    let mut looks: Vec<usize> = (first..state.items.len())
        .filter(|&i| batchable(&state.items[i]))
        .collect();
    if looks.is_empty() {
        return looks;
    }
    let batched: HashSet<&str> = state.items[first..]
        .iter()
        .filter(|b| holds_second_looks(b) && !b.status.is_terminal())
        .flat_map(|b| b.inputs().iter().map(CompactString::as_str))
        .collect();
    looks.retain(|&i| !batched.contains(state.items[i].id.as_str()));
    looks
}

/// Blind second looks (security dismissals, low-confidence reals) that wait for the other first
/// looks of their rule, to be checked with them by one agent: never dispatched meanwhile. None when `verify_batch` is
/// 1 (each goes out on its own at once).
#[must_use]
pub(crate) fn second_looks_waiting(state: &RunState) -> HashSet<&str> {
    if state.config.verify_batch < 2 {
        return HashSet::new();
    }
    let looks = unbatched_second_looks(state);
    if looks.is_empty() {
        return HashSet::new();
    }
    let rules = rules_still_triaged(state);
    looks
        .into_iter()
        .map(|i| &state.items[i])
        .filter(|v| rules.contains(&v.rule()))
        .map(|v| v.id.as_str())
        .collect()
}

/// A batch of second looks' key: its route and its rule.
type RouteRule = (Option<std::sync::Arc<str>>, Option<String>);

/// Puts the blind second looks (security dismissals, low-confidence reals) whose rule's first
/// looks are all in into batches (`tb-` items of `vf-` members): one agent checks up to
/// `verify_batch` findings of one rule and route, each judged on its own, balanced so no batch is much smaller than the others. A
/// second look left alone goes out on its own. Returns the batches formed.
pub(crate) fn batch_second_looks(state: &mut RunState) -> usize {
    let size = state.config.verify_batch as usize;
    if size < 2 {
        return 0;
    }
    let looks = unbatched_second_looks(state);
    if looks.is_empty() {
        return 0;
    }
    let rules = rules_still_triaged(state);
    // Never two routes in one batch: the route picks its template and its tier.
    let mut by_rule: std::collections::BTreeMap<RouteRule, Vec<usize>> =
        std::collections::BTreeMap::new();
    for index in looks {
        let item = &state.items[index];
        if !rules.contains(&item.rule()) {
            by_rule
                .entry((item.route.clone(), item.rule().map(str::to_owned)))
                .or_default()
                .push(index);
        }
    }
    let mut formed = 0;
    let first = crate::triage_batch::next_batch_number(state);
    for ((_, rule), members) in by_rule {
        let count = members.len().div_ceil(size);
        let each = members.len().div_ceil(count);
        for part in members.chunks(each).filter(|p| p.len() > 1) {
            let items: Vec<&WorkItem> = part.iter().map(|&i| &state.items[i]).collect();
            let mut batch = crate::triage_batch::numbered_batch(first + formed, &items);
            batch.extra_mut().rule.clone_from(&rule);
            state.items.push(batch);
            formed += 1;
        }
    }
    formed
}

/// The triage items live verifiers hold: never dispatched on their own.
/// `dispatched_only` keeps those whose verifier is in flight (what `status` counts as running).
#[must_use]
pub fn verification_held(state: &RunState, dispatched_only: bool) -> HashSet<&str> {
    verified_members(state, dispatched_only).collect()
}

/// The ids of [`verification_held`], one by one.
pub(crate) fn verified_members(
    state: &RunState,
    dispatched_only: bool,
) -> impl Iterator<Item = &str> {
    state.items[state.triage_items as usize..]
        .iter()
        .filter(|v| v.kind == ItemKind::Verify)
        .filter(move |v| {
            if dispatched_only {
                v.status == ItemStatus::Dispatched
            } else {
                !v.status.is_terminal()
            }
        })
        .flat_map(|v| v.inputs().iter().map(CompactString::as_str))
}

/// For each triage item that got a second agent, its `vf-` item.
#[must_use]
pub fn verifier_of(state: &RunState) -> HashMap<&str, &WorkItem> {
    state.items[state.triage_items as usize..]
        .iter()
        .filter(|v| v.kind == ItemKind::Verify)
        .filter_map(|v| Some((v.inputs().first()?.as_str(), v)))
        .collect()
}

#[cfg(test)]
#[path = "verification_tests.rs"]
mod tests;
