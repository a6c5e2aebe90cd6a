//! What the driver reads of the run between sessions; the app implements it over the store, so
//! the driver holds no pipeline logic.

use crate::drive_error::DriveError;

/// What the driver needs to know of the run, read from its state and journal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunObservation {
    /// `active`, `paused`, `stalled`, `complete`, `cancelled`.
    pub status: String,
    /// Paused where only the user goes on (`self-repair pause`, the run's agent launches
    /// refused, its launches past their ceiling): why, in a few words (`paused by you`).
    pub waits_for_user: Option<String>,
    pub phase: String,
    /// The journal's length: the next observation reads from here (a fix queue: the attempts
    /// made and tasks settled so far).
    pub journal_end: u64,
    /// `submitted` journal events after the offset asked for (a fix queue: attempts made and
    /// tasks settled since).
    pub submitted: u64,
    /// The `error` of the last `stop_failure` journal event after that offset.
    pub stop_failure: Option<String>,
    /// The run's one-paragraph summary (for the final message).
    pub summary: String,
    /// The run the next session adopts: the run itself, or the repair run of the fix queue's
    /// running task.
    pub adopt: String,
}

impl RunObservation {
    /// Complete or cancelled: nothing left to drive.
    pub fn finished(&self) -> bool {
        matches!(self.status.as_str(), "complete" | "cancelled")
    }
}

/// Reads the run (the app implements it over the store).
pub trait RunProbe {
    /// The run now; `submitted` and `stop_failure` count journal events after `since`.
    fn observe(&mut self, since: u64) -> Result<RunObservation, DriveError>;
}
