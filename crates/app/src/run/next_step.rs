//! What moves a run on from where it is, in words: `status`'s `next:` line, and what
//! `finalize --partial` says continues the run it leaves as it is.

use self_repair_engine::{PauseReason, Phase, RunState, RunStatus};

/// What moves the run on from where it is (`next:` of `status`; `finalize --partial` names it
/// too, since on an active run `resume` has nothing to resume).
pub(crate) fn next_step(state: &RunState) -> String {
    match (state.status, &state.pause) {
        (RunStatus::Complete, _) => format!(
            "done: read .self-repair/runs/{}/report.md; tasks are in backlog/tasks",
            state.run
        ),
        (RunStatus::Cancelled, _) => "cancelled: start a new run with `self-repair start`".to_owned(),
        (RunStatus::Stalled, _) => {
            "stalled (instructions brought no progress): run `self-repair resume`, then end your turn in the bound session".to_owned()
        }
        (RunStatus::Paused, Some(PauseReason::Circuit { kind, signature, .. })) => format!(
            "paused: {} agents failed the same way ({signature}); fix that, then `self-repair resume`",
            kind.as_str()
        ),
        (RunStatus::Paused, Some(PauseReason::Budget { spent_micros, budget_micros })) => format!(
            "paused at the budget (${:.2} spent of ${:.2}): `self-repair resume --budget USD` with more continues",
            *spent_micros as f64 / 1e6,
            *budget_micros as f64 / 1e6
        ),
        (RunStatus::Paused, Some(PauseReason::Confirm { likely_micros, above_micros, .. })) => format!(
            "waits for your go: likely ${:.2} in all, above confirm_above_usd ${:.2}; `self-repair resume --confirm` starts it (add `--budget USD` to cap it), `self-repair cancel` drops it",
            *likely_micros as f64 / 1e6,
            *above_micros as f64 / 1e6
        ),
        (RunStatus::Paused, Some(PauseReason::ApiError { error })) => format!(
            "paused after an API error ({error}); the next turn that ends normally resumes it"
        ),
        (RunStatus::Paused, Some(PauseReason::Refused { launches, .. })) => format!(
            "paused: {launches} agent launch(es) were refused before they ran (nothing charged); a new prompt such as \"continue\" in the bound session, or `self-repair resume`, goes on"
        ),
        (RunStatus::Paused, Some(PauseReason::Launches { launched, likely, item })) => format!(
            "paused: {launched} agents launched, past {}× the {likely} likely{}; `self-repair status --items` shows what failed, `self-repair resume` allows {} more",
            self_repair_engine::CEILING_FACTOR,
            item.as_deref().map_or_else(String::new, |i| format!(" ({i} keeps coming back)")),
            (*likely).max(self_repair_engine::CEILING_FLOOR)
        ),
        (RunStatus::Paused, _) => "paused: `self-repair resume` continues".to_owned(),
        (RunStatus::Active, _) if state.session.is_none() => {
            "not bound to a session yet: in the Claude Code session that should drive it, ask Claude to continue the self-repair run (or run `self-repair adopt` there), then end your turn".to_owned()
        }
        (RunStatus::Active, _) if state.phase == Phase::Finalize => {
            "the next stop finalizes the run (or run `self-repair finalize`)".to_owned()
        }
        (RunStatus::Active, _) => {
            "the Stop hook dispatches the next agents when the bound session ends its turn (`self-repair next` previews it)".to_owned()
        }
    }
}
