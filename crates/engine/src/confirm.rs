//! A run that waits for the user's go: created waiting by `start` when its likely cost is above
//! `confirm_above_usd` and no budget was set; the Stop hook dispatches nothing and says the
//! estimate once, for the session to show the user and ask (reference/state-machine.md,
//! "Waiting for the user's go").

use crate::{PauseReason, RunState, RunStatus};

/// Puts a freshly created run in the waiting state when `likely_usd` is above the config's
/// `confirm_above_usd` and no budget caps it. Returns true when it waits.
pub fn wait_for_go(state: &mut RunState, likely_agents: u32, likely_usd: f64) -> bool {
    let Some(above) = state.config.confirm_above_usd else {
        return false;
    };
    if state.config.budget_usd.is_some() || likely_usd <= above {
        return false;
    }
    state.status = RunStatus::Paused;
    state.pause = Some(PauseReason::Confirm {
        likely_micros: crate::to_micros(likely_usd),
        likely_agents,
        above_micros: crate::to_micros(above),
        told: false,
    });
    true
}

/// The line that asks for the go, once: `None` when the run does not wait or it was said.
pub(crate) fn ask_once(state: &mut RunState) -> Option<String> {
    let Some(PauseReason::Confirm {
        likely_micros,
        likely_agents,
        above_micros,
        told,
    }) = &mut state.pause
    else {
        return None;
    };
    if *told {
        return None;
    }
    *told = true;
    Some(waiting_line(
        &state.run,
        *likely_agents,
        *likely_micros,
        *above_micros,
    ))
}

/// What the run waiting for the go says: the estimate, the threshold and how to start it.
pub fn waiting_line(
    run: &str,
    likely_agents: u32,
    likely_micros: u64,
    above_micros: u64,
) -> String {
    format!(
        "self-repair run {run} waits for your go: it will likely launch {likely_agents} agents \
         and cost ${:.2} in all (the main session included; above confirm_above_usd ${:.2}; \
         `self-repair status` shows the range). Nothing has been dispatched. To start it, say \
         so (Claude runs `self-repair resume --confirm`) or run `self-repair resume --confirm` \
         (add `--budget USD` to cap it); `self-repair cancel` drops it.",
        likely_micros as f64 / 1e6,
        above_micros as f64 / 1e6
    )
}
