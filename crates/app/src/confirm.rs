//! The user's go for a run whose likely cost is above `confirm_above_usd`: `start` creates it
//! waiting, `resume --confirm` (with `--budget USD`: and a cap) starts it, `drive` refuses it
//! without `--yes` or `--budget` (reference/cost.md, "Confirmation").

use self_repair_engine::{Event, PauseReason, RunState};
use self_repair_store::RunDir;

use crate::{AppError, load_folded};

/// True when the run waits for the user's go.
pub(crate) fn waits_for_go(state: &RunState) -> bool {
    matches!(state.pause, Some(PauseReason::Confirm { .. }))
}

/// `drive` on a waiting run: `--yes` or `--budget USD` is the go (the budget also caps the
/// run); without either, the refusal says what to pass.
pub(crate) fn go_for_drive(
    dir: &RunDir,
    yes: bool,
    budget: Option<f64>,
    now: u64,
) -> Result<(), AppError> {
    let state = load_folded(dir, false)?;
    let Some(PauseReason::Confirm {
        likely_micros,
        likely_agents,
        above_micros,
        ..
    }) = state.pause
    else {
        return Ok(());
    };
    match (budget, yes) {
        (Some(usd), _) => {
            crate::steer(dir, Event::Budget { usd }, now)?;
        }
        (None, true) => {}
        (None, false) => {
            return Err(AppError::NeedsGo(format!(
                "run {} waits for your go: it will likely launch {likely_agents} agents and cost \
                 ${:.2} (above confirm_above_usd ${:.2}); `drive` starts it only with --yes, or \
                 with --budget USD, which also caps what it may spend (`self-repair status` shows \
                 the estimate)",
                state.run,
                likely_micros as f64 / 1e6,
                above_micros as f64 / 1e6
            )));
        }
    }
    crate::steer(dir, Event::Confirm, now)?;
    Ok(())
}
