//! The run's launches against their bounds (issue 32): a run never spends without end. Every
//! item is sent out at most [`MAX_LAUNCHES_PER_ITEM`] times (the item's own rule), so the run's
//! launches are at most that many times its items ([`launch_bound`]); long before that, a run
//! whose launches pass twice the estimate's likely agents pauses, naming the item that keeps
//! coming back, as a budget does ([`LaunchCeiling`]).

use serde::Serialize;

use crate::{ItemStatus, MAX_LAUNCHES_PER_ITEM, PauseReason, RunState, RunStatus, WorkItem};

/// Launches past the likely figure by this factor pause the run.
pub const CEILING_FACTOR: u64 = 2;
/// Launches a small run may always take beyond its factor: a run of three findings, whose
/// likely figure is a handful, may retry a few items before anyone is asked.
pub const CEILING_FLOOR: u64 = 10;

/// The run's launches as `status` and the status line show them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LaunchCeiling {
    /// Agents launched so far: every dispatch that (as far as anything shows) ran.
    pub launched: u64,
    /// The estimate's likely agents for the whole run: those behind it and those likely ahead.
    pub likely: u64,
    /// Launches past this pause the run (`resume` raises it by the likely figure).
    pub pause_at: u64,
    /// The most launches the run's items so far can take: [`launch_bound`].
    pub bound: u64,
}

/// Agents launched so far (each dispatch that went out and, as far as anything shows, ran).
pub fn launched(state: &RunState) -> u64 {
    state.items.iter().map(|i| u64::from(i.dispatches)).sum()
}

/// The most launches the run can take with the items it has made so far: each is sent out at
/// most [`MAX_LAUNCHES_PER_ITEM`] times (later phases make items, and raise it).
pub fn launch_bound(state: &RunState) -> u64 {
    state.items.len() as u64 * u64::from(MAX_LAUNCHES_PER_ITEM)
}

impl LaunchCeiling {
    /// The figures of `state` now.
    pub fn of(state: &RunState) -> LaunchCeiling {
        let ahead = crate::total_agents(&crate::agents_ahead(state)).1;
        LaunchCeiling::with_likely(
            state,
            u64::from(crate::agents_behind(state)) + u64::from(ahead),
        )
    }

    /// The figures of `state` for a caller that has the likely agents already (the status
    /// line's bar counts them): the estimate reads every item, once is enough.
    pub fn with_likely(state: &RunState, likely: u64) -> LaunchCeiling {
        LaunchCeiling {
            launched: launched(state),
            likely,
            pause_at: (likely * CEILING_FACTOR).max(likely + CEILING_FLOOR) + state.launch_headroom,
            bound: launch_bound(state),
        }
    }

    /// Launches left before the pause.
    pub fn left(&self) -> u64 {
        self.pause_at.saturating_sub(self.launched)
    }
}

/// The ready items (indices) the launch ceiling allows, in order. The estimate behind the
/// ceiling reads every item, so it is asked only once the run has launched more than
/// [`CEILING_FLOOR`] agents again (past each item's first launch): a run without retries is
/// never near its ceiling, and its stops pay one pass over the items' counters instead.
pub(crate) fn within_ceiling(state: &RunState, ready: Vec<usize>) -> Vec<usize> {
    let mut ready = ready;
    if ready.is_empty() {
        return ready;
    }
    let (launched, first_launches) = state.items.iter().fold((0u64, 0u64), |(all, first), i| {
        (
            all + u64::from(i.dispatches),
            first + u64::from(i.dispatches > 0),
        )
    });
    if launched <= first_launches + CEILING_FLOOR + state.launch_headroom {
        return ready;
    }
    let left = LaunchCeiling::of(state).left();
    ready.truncate(usize::try_from(left).unwrap_or(usize::MAX));
    ready
}

/// The item sent out most often: the one that keeps coming back.
fn most_sent(state: &RunState) -> Option<&WorkItem> {
    state
        .items
        .iter()
        .filter(|i| i.dispatches + u32::from(i.resends) > 1)
        .max_by_key(|i| {
            (
                i.dispatches + u32::from(i.resends),
                std::cmp::Reverse(i.id.clone()),
            )
        })
}

/// Pauses the run at its launch ceiling and says why, which item keeps coming back, and how to
/// go on.
pub(crate) fn pause_at_ceiling(state: &mut RunState) -> String {
    let ceiling = LaunchCeiling::of(state);
    let item = most_sent(state).map(|i| {
        let last = i
            .errors()
            .last()
            .map_or(String::new(), |e| format!("; its last error: {e}"));
        (
            i.id.to_string(),
            format!(
                " The item that keeps coming back is {} ({} launches, {} {}{last}).",
                i.id,
                i.dispatches,
                i.status.as_str(),
                i.tier.as_str()
            ),
        )
    });
    let (item, told) = item.unzip();
    state.status = RunStatus::Paused;
    state.pause = Some(PauseReason::Launches {
        launched: ceiling.launched,
        likely: ceiling.likely,
        item,
    });
    let undone = state
        .items
        .iter()
        .filter(|i| i.status == ItemStatus::Pending)
        .count();
    format!(
        "self-repair run {}: paused — {} agents launched, more than {}× the {} the estimate \
         thinks likely; something keeps sending work out again.{} {undone} items wait. Read \
         `self-repair status --items` for what failed; to go on, run `self-repair resume` (it \
         allows {} more launches) and end your turn.",
        state.run,
        ceiling.launched,
        CEILING_FACTOR,
        ceiling.likely,
        told.unwrap_or_default(),
        ceiling.likely.max(CEILING_FLOOR)
    )
}

/// `resume` of a run paused at its ceiling: from the launches so far, it may launch the likely
/// figure again.
pub(crate) fn raise_ceiling(state: &mut RunState) {
    if !matches!(state.pause, Some(PauseReason::Launches { .. })) {
        return;
    }
    let ceiling = LaunchCeiling::of(state);
    let past = ceiling.launched.saturating_sub(ceiling.pause_at);
    state.launch_headroom += past + ceiling.likely.max(CEILING_FLOOR);
}
