//! The one vocabulary of run states a person and the model are shown, on every surface
//! (`status`, `runs`, the status line, `next`, refusals, hook texts, report.md): `state.json`'s
//! status, except that a run created waiting for the user's go on its estimate is `waiting`,
//! never `paused` (nothing has run, nothing is paused).

use crate::{PauseReason, RunStatus};

/// A run's state as every surface names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ShownStatus {
    /// The hook drives it.
    Active,
    /// Created above `confirm_above_usd`: nothing is dispatched until the user's go
    /// (`self-repair resume --confirm`).
    Waiting,
    /// Paused by the user, an API error, a budget, the circuit, refused or excess launches.
    Paused,
    /// The session stopped driving it; a resume or a new prompt goes on.
    Stalled,
    Cancelled,
    Complete,
}

impl ShownStatus {
    /// Every state, for tests that hold each surface to the same words.
    pub const ALL: [ShownStatus; 6] = [
        ShownStatus::Active,
        ShownStatus::Waiting,
        ShownStatus::Paused,
        ShownStatus::Stalled,
        ShownStatus::Cancelled,
        ShownStatus::Complete,
    ];

    /// The state of a run whose `state.json` says `status` and `pause`.
    #[must_use]
    pub fn of(status: RunStatus, pause: Option<&PauseReason>) -> ShownStatus {
        match (status, pause) {
            (RunStatus::Paused, Some(PauseReason::Confirm { .. })) => ShownStatus::Waiting,
            (RunStatus::Active, _) => ShownStatus::Active,
            (RunStatus::Paused, _) => ShownStatus::Paused,
            (RunStatus::Stalled, _) => ShownStatus::Stalled,
            (RunStatus::Cancelled, _) => ShownStatus::Cancelled,
            (RunStatus::Complete, _) => ShownStatus::Complete,
        }
    }

    /// The word every surface prints.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            ShownStatus::Active => "active",
            ShownStatus::Waiting => "waiting",
            ShownStatus::Paused => "paused",
            ShownStatus::Stalled => "stalled",
            ShownStatus::Cancelled => "cancelled",
            ShownStatus::Complete => "complete",
        }
    }

    /// Still in progress: neither complete nor cancelled.
    #[must_use]
    pub fn in_progress(self) -> bool {
        !matches!(self, ShownStatus::Cancelled | ShownStatus::Complete)
    }

    /// How a person at a terminal goes on with run `run` in this state, one clause; `bound`:
    /// the Claude Code session it is bound to, if any.
    #[must_use]
    pub fn how_to_go_on(self, run: &str, bound: Option<&str>) -> String {
        match (self, bound) {
            (ShownStatus::Waiting, _) => format!(
                "it waits for your go on its estimate (`self-repair status --run {run}` shows \
                 it): `self-repair resume --confirm --run {run}` starts it"
            ),
            (ShownStatus::Paused | ShownStatus::Stalled, _) => format!(
                "`self-repair status --run {run}` says why it is {}; `self-repair resume --run \
                 {run}` goes on",
                self.as_str()
            ),
            (ShownStatus::Active, Some(session)) => format!(
                "Claude Code session {session} drives it: end a turn there (the Stop hook goes \
                 on), or `self-repair drive {run}` from a terminal"
            ),
            (ShownStatus::Active, None) => format!(
                "no session drives it yet: `self-repair drive {run}` from a terminal, or \
                 `self-repair adopt --run {run}` in the Claude Code session that should"
            ),
            (ShownStatus::Cancelled | ShownStatus::Complete, _) => {
                format!("it is {}: nothing goes on", self.as_str())
            }
        }
    }
}

impl std::fmt::Display for ShownStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_created_waiting_is_waiting_and_never_paused() {
        let confirm = PauseReason::Confirm {
            likely_micros: 1,
            likely_agents: 1,
            above_micros: 0,
            told: false,
        };
        assert_eq!(
            ShownStatus::of(RunStatus::Paused, Some(&confirm)),
            ShownStatus::Waiting
        );
        assert_eq!(
            ShownStatus::of(RunStatus::Paused, Some(&PauseReason::User)),
            ShownStatus::Paused
        );
        let words: std::collections::HashSet<&str> =
            ShownStatus::ALL.iter().map(|s| s.as_str()).collect();
        assert_eq!(words.len(), ShownStatus::ALL.len());
        let waiting = ShownStatus::Waiting.how_to_go_on("r-1", None);
        assert!(waiting.contains("resume --confirm"), "{waiting}");
        assert!(!waiting.contains("paused"), "{waiting}");
    }
}
