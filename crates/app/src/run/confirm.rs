//! The user's go for a run whose likely cost is above `confirm_above_usd`: `start` creates it
//! waiting, `resume --confirm` (with `--budget USD`: and a cap) starts it, `drive` refuses it
//! without `--yes` or `--budget` (reference/cost.md, "Confirmation").

use self_repair_engine::{PauseReason, RunState};

/// True when the run waits for the user's go.
pub(crate) fn waits_for_go(state: &RunState) -> bool {
    matches!(state.pause, Some(PauseReason::Confirm { .. }))
}
