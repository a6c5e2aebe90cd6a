//! The run's budget (reference/cost.md): the hook never dispatches an item whose estimated cost
//! would take what the run has spent, plus what is in flight, past `budget_usd`, nor more agents
//! in all than `max_agents`. Kind-agnostic: an item's estimate is the average cost of this run's
//! agents of its kind so far, else a default by its tier.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::launch_bound::launched;
use crate::{ItemStatus, RunState, Tier, WorkItem};

/// What the run has spent, as the hook read it from the session's transcripts, in
/// micro-dollars (so a journaled stop replays to the same decision).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Spend {
    pub spent_micros: u64,
    /// Average cost of one agent of each kind this run has launched so far, by kind.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub per_agent_micros: BTreeMap<String, u64>,
}

/// Micro-dollars of `usd` (negative and NaN as 0).
pub fn to_micros(usd: f64) -> u64 {
    if usd.is_finite() && usd > 0.0 {
        (usd * 1e6).round() as u64
    } else {
        0
    }
}

/// What one agent of a tier costs when the run has no average of its kind yet: the client's own
/// prompt (12k-22k tokens, ARCHITECTURE §12) written to the cache, plus a few thousand tokens of
/// work, at the built-in prices of reference/cost.md.
pub fn default_micros(tier: Tier) -> u64 {
    match tier {
        Tier::Haiku => 5_000,
        Tier::Sonnet => 60_000,
        Tier::Opus => 120_000,
    }
}

/// The estimated cost of one more agent for `item`.
pub fn estimate_micros(spend: Option<&Spend>, item: &WorkItem) -> u64 {
    spend
        .and_then(|s| s.per_agent_micros.get(item.kind.as_str()))
        .copied()
        .unwrap_or_else(|| default_micros(item.tier))
}

/// The ready items (indices) the budget and the agent cap allow, in order.
pub(crate) fn affordable(state: &RunState, spend: Option<&Spend>, ready: Vec<usize>) -> Vec<usize> {
    let mut ready = ready;
    if let Some(max) = state.config.max_agents {
        let left = u64::from(max).saturating_sub(launched(state));
        ready.truncate(usize::try_from(left).unwrap_or(usize::MAX));
    }
    let Some(budget) = state.config.budget_usd.map(to_micros) else {
        return ready;
    };
    let mut committed = spend.map_or(0, |s| s.spent_micros)
        + state
            .items
            .iter()
            .filter(|i| i.status == ItemStatus::Dispatched)
            .map(|i| estimate_micros(spend, i))
            .sum::<u64>();
    let mut allowed = Vec::with_capacity(ready.len());
    for index in ready {
        let cost = estimate_micros(spend, &state.items[index]);
        if committed + cost > budget {
            break;
        }
        committed += cost;
        allowed.push(index);
    }
    allowed
}

/// Pauses the run at its budget (or agent cap) and says what was spent, what is left undone and
/// how to go on.
pub(crate) fn pause_at_budget(state: &mut RunState, spend: Option<&Spend>) -> String {
    let spent_micros = spend.map_or(0, |s| s.spent_micros);
    let left: Vec<&WorkItem> = state
        .items
        .iter()
        .filter(|i| !i.status.is_terminal() && i.kind != crate::ItemKind::Triage)
        .chain(
            state.items[..state.triage_items as usize]
                .iter()
                .filter(|i| !i.status.is_terminal()),
        )
        .collect();
    let undone = left.len();
    let more: u64 = left.iter().map(|i| estimate_micros(spend, i)).sum();
    let dollars = |micros: u64| micros as f64 / 1e6;
    let capped = state
        .config
        .max_agents
        .filter(|max| launched(state) >= u64::from(*max));
    let (limit, raise) = match (capped, state.config.budget_usd) {
        (Some(max), _) => (
            format!("the agent cap is reached ({max} agents launched)"),
            "raise `max_agents` and run `self-repair resume`".to_owned(),
        ),
        (None, budget) => {
            let budget = budget.unwrap_or(0.0);
            // Enough for what is known to be left (later phases may need more).
            let suggested = (dollars(spent_micros + more).ceil()).max(budget.floor() + 1.0);
            (
                format!(
                    "the budget is reached (${:.2} of ${budget:.2} spent)",
                    dollars(spent_micros)
                ),
                format!("run `self-repair resume --budget {suggested:.0}`"),
            )
        }
    };
    state.status = crate::RunStatus::Paused;
    state.pause = Some(crate::PauseReason::Budget {
        spent_micros,
        budget_micros: state.config.budget_usd.map_or(0, to_micros),
    });
    let counts = state.counts(state.phase);
    format!(
        "self-repair run {}: paused — {limit}; ${:.2} spent. Left undone: {undone} items (phase \
         {}: {} of {} done), about ${:.2} more at this run's averages. To go on, {raise} and end \
         your turn; `self-repair status` shows the spend per phase.",
        state.run,
        dollars(spent_micros),
        state.phase.as_str(),
        counts.done,
        counts.total(),
        dollars(more)
    )
}
