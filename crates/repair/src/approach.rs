//! The approach asked for in each fix attempt: a different angle every time, not the same
//! fix again.

use serde::{Deserialize, Serialize};

/// What kind of fix an attempt should try.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Approach {
    /// Attempt 1: fix the cause the output points at.
    Direct,
    /// Attempt 2: validate inputs and handle the edge case the first fix missed.
    Defensive,
    /// Attempt 3: a different approach altogether.
    Alternative,
    /// Attempt 4 and later: a stronger model starts over from the failure.
    Rethink,
}

impl Approach {
    /// The approach of attempt `n` (1-based).
    pub fn of_attempt(n: u32) -> Approach {
        match n {
            0 | 1 => Approach::Direct,
            2 => Approach::Defensive,
            3 => Approach::Alternative,
            _ => Approach::Rethink,
        }
    }

    /// Its name, as the attempts table shows it.
    pub fn as_str(self) -> &'static str {
        match self {
            Approach::Direct => "direct",
            Approach::Defensive => "defensive",
            Approach::Alternative => "alternative",
            Approach::Rethink => "rethink",
        }
    }

    /// The instruction the feedback gives for it.
    pub fn instruction(self) -> &'static str {
        match self {
            Approach::Direct => {
                "Direct fix: find the cause the output points at and fix it in the code, in the \
                 smallest change that makes the check pass."
            }
            Approach::Defensive => {
                "Defensive fix: the direct fix did not hold. Validate the inputs and handle the \
                 edge case the failure shows (empty, missing, malformed, boundary values) where \
                 the bad value enters, not where it crashes."
            }
            Approach::Alternative => {
                "Alternative approach: two fixes along the same line failed. Do not refine them; \
                 re-read the failing code path from the start and solve it a different way."
            }
            Approach::Rethink => {
                "Fresh look: earlier attempts failed. Question their assumptions, read the whole \
                 output again, find the root cause, and fix that."
            }
        }
    }
}
