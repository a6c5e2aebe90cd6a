//! What the drive tests share: a scripted run to drive.

use std::collections::VecDeque;

use self_repair_drive::{DriveError, RunObservation, RunProbe};

/// The run as the probe reports it, one observation a call (the last repeats).
pub(crate) struct Script(pub(crate) VecDeque<RunObservation>);

impl RunProbe for Script {
    fn observe(&mut self, _since: u64) -> Result<RunObservation, DriveError> {
        let next = if self.0.len() > 1 {
            self.0.pop_front()
        } else {
            self.0.front().cloned()
        };
        Ok(next.unwrap_or_else(|| observation("complete", "done", 0)))
    }
}

/// The run in `status` and `phase`, `submitted` items since the last look.
pub(crate) fn observation(status: &str, phase: &str, submitted: u64) -> RunObservation {
    RunObservation {
        status: status.to_owned(),
        waits_for_user: None,
        phase: phase.to_owned(),
        journal_end: 0,
        submitted,
        stop_failure: None,
        summary: format!("the run is {status}"),
        adopt: "r1".to_owned(),
    }
}
