//! The few facts of a run a stop reads before its items: enough to tell a stop that changes
//! nothing (another session's, or one of a stalled, paused, cancelled or finished run) from one
//! that must load the whole state. The store keeps them beside `state.json`.

use serde::{Deserialize, Serialize};

use crate::decide_stop::{closing_line_due_again, refusal_lifted, stall_lifted};
use crate::{ItemStatus, PauseReason, RunState, RunStatus, StopEvent};

/// A run's status, binding and counters, without its items.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunHead {
    pub run: String,
    pub status: RunStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pause: Option<PauseReason>,
    /// The bound session.
    #[serde(default)]
    pub session: Option<String>,
    /// The no-progress guard's counter, and where it stood when the run stalled.
    pub progress: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stalled_at: Option<u64>,
    /// The completion summary was shown.
    #[serde(default)]
    pub announced: bool,
    /// A budget is set: a stop carries what the run spent.
    #[serde(default)]
    pub budget: bool,
    /// Bytes of the journal folded into the state: a journal any longer holds news.
    pub journal_offset: u64,
    /// The items in flight (dispatched, not answered): their agents' transcripts are still the
    /// run's to read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dispatched: Vec<String>,
}

impl RunHead {
    /// The head of a state.
    pub fn of(state: &RunState) -> RunHead {
        RunHead {
            run: state.run.clone(),
            status: state.status,
            pause: state.pause.clone(),
            session: state.session.clone(),
            progress: state.progress,
            stalled_at: state.stalled_at,
            announced: state.announced,
            budget: state.config.budget_usd.is_some(),
            journal_offset: state.journal_offset,
            dispatched: state
                .items
                .iter()
                .filter(|i| i.status == ItemStatus::Dispatched)
                .map(|i| i.id.to_string())
                .collect(),
        }
    }

    /// The session's stops drive the run.
    pub fn is_bound_to(&self, session: &str) -> bool {
        self.session.as_deref() == Some(session)
    }

    /// Cancelled, or complete with its closing line said: what its session does now is not
    /// the run's.
    pub fn is_over(&self) -> bool {
        self.status == RunStatus::Cancelled
            || (self.status == RunStatus::Complete && self.announced)
    }

    /// True when [`crate::decide_stop`] on the state this head describes, its journal all
    /// folded, would allow `stop` silently and change nothing, so the stop needs none of the
    /// items. False whenever it might do anything else: the caller loads the state and
    /// decides. An active run is never quiet here (its stop reconciles the items in flight).
    pub fn quiet_stop(&self, stop: &StopEvent) -> bool {
        match (&self.session, &stop.session) {
            (Some(bound), Some(session)) if bound == session => {}
            _ => return true,
        }
        match self.status {
            RunStatus::Active => false,
            RunStatus::Cancelled => true,
            RunStatus::Complete if self.announced => !closing_line_due_again(&self.run, stop),
            // Said at the stop after the last background agent winds down.
            RunStatus::Complete => stop.running.as_ref().is_some_and(|r| !r.is_empty()),
            RunStatus::Paused => match &self.pause {
                Some(PauseReason::Confirm { told, .. }) => *told,
                Some(PauseReason::ApiError { .. }) => false,
                Some(PauseReason::Refused { .. }) => !refusal_lifted(stop),
                _ => true,
            },
            RunStatus::Stalled => !stall_lifted(&self.run, self.progress, self.stalled_at, stop),
        }
    }
}

#[cfg(test)]
#[path = "run_head_tests.rs"]
mod tests;
