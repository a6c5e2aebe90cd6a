//! The labelled findings of a row counted by label (real, false) and end (kept, closed,
//! abstained).

use serde::Serialize;

use crate::Ended;

/// Counts of labelled findings by label and by how they ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Confusion {
    /// Labelled real, kept (`real`, `duplicate`): true positives.
    pub real_kept: u32,
    /// Labelled real, closed (`false_positive`, `intended`): unsafe closures.
    pub real_closed: u32,
    /// Labelled real, abstained.
    pub real_abstained: u32,
    /// Labelled false, kept: false alarms.
    pub false_kept: u32,
    /// Labelled false, closed: true negatives.
    pub false_closed: u32,
    /// Labelled false, abstained.
    pub false_abstained: u32,
    /// Abstentions by kind (both labels).
    pub unsure: u32,
    pub quarantined: u32,
    pub refused: u32,
    /// Labelled but not decided yet (a partial run): in no other count.
    pub pending: u32,
}

impl Confusion {
    /// Counts one labelled finding.
    pub fn add(&mut self, real: bool, ended: Ended) {
        match ended {
            Ended::Pending => {
                self.pending += 1;
                return;
            }
            Ended::Unsure => self.unsure += 1,
            Ended::Quarantined => self.quarantined += 1,
            Ended::Refused => self.refused += 1,
            Ended::Real | Ended::FalsePositive | Ended::Intended | Ended::Duplicate => {}
        }
        let slot = match (real, ended.kept(), ended.closed()) {
            (true, true, _) => &mut self.real_kept,
            (true, _, true) => &mut self.real_closed,
            (true, _, _) => &mut self.real_abstained,
            (false, true, _) => &mut self.false_kept,
            (false, _, true) => &mut self.false_closed,
            (false, _, _) => &mut self.false_abstained,
        };
        *slot += 1;
    }

    /// Labelled real findings that were decided or abstained on (not pending).
    pub fn real(&self) -> u32 {
        self.real_kept + self.real_closed + self.real_abstained
    }

    /// Labelled false findings that were decided or abstained on (not pending).
    pub fn false_(&self) -> u32 {
        self.false_kept + self.false_closed + self.false_abstained
    }

    /// Scored findings: every labelled one but the pending.
    pub fn scored(&self) -> u32 {
        self.real() + self.false_()
    }

    /// Findings the run decided (kept or closed).
    pub fn decided(&self) -> u32 {
        self.real_kept + self.real_closed + self.false_kept + self.false_closed
    }

    /// Correct verdicts: real kept, false closed.
    pub fn correct(&self) -> u32 {
        self.real_kept + self.false_closed
    }

    /// Abstentions of both labels.
    pub fn abstentions(&self) -> u32 {
        self.real_abstained + self.false_abstained
    }
}
