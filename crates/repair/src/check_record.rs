//! One run of the check (or the autofix command) as recorded in the state: exit code, duration,
//! signature, class, the output tail, and where the full log is.

use serde::{Deserialize, Serialize};

use crate::FailureClass;

/// Most lines of output kept in the state and shown in feedback.
pub(crate) const TAIL_LINES: usize = 60;
/// Most characters of output kept in the state.
pub(crate) const TAIL_CHARS: usize = 6000;
/// The exit code recorded when the check ran out of time (as `timeout(1)` does).
pub const TIMEOUT_EXIT: i32 = 124;

/// Why the check ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckPurpose {
    /// The first run, before anything changed.
    Baseline,
    /// After the autofix command.
    AutofixRecheck,
    /// After fix attempt `attempt`.
    Recheck,
}

impl CheckPurpose {
    /// Its name.
    pub fn as_str(self) -> &'static str {
        match self {
            CheckPurpose::Baseline => "baseline",
            CheckPurpose::AutofixRecheck => "autofix recheck",
            CheckPurpose::Recheck => "recheck",
        }
    }
}

/// One finished run of the check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckRecord {
    /// 1-based order among the run's check runs.
    pub seq: u32,
    pub purpose: CheckPurpose,
    /// The fix attempt it verifies (0 for the baseline and the autofix recheck).
    pub attempt: u32,
    pub exit_code: i32,
    pub timed_out: bool,
    pub duration_ms: u64,
    /// [`crate::error_signature`] of the output (empty when it passed).
    pub signature: String,
    pub class: FailureClass,
    /// The last lines of output.
    pub tail: String,
    /// The full log, relative to the run folder (`attempts/N.log`).
    pub log: String,
    pub at: u64,
}

impl CheckRecord {
    /// Whether the check passed.
    pub fn passed(&self) -> bool {
        self.class == FailureClass::Pass
    }

    /// `exit 1`, or `timeout` for a run that ran out of time.
    pub fn exit_label(&self) -> String {
        if self.timed_out {
            "timeout".to_owned()
        } else {
            format!("exit {}", self.exit_code)
        }
    }
}

/// The last [`TAIL_LINES`] lines of `output`, at most [`TAIL_CHARS`] characters.
pub fn output_tail(output: &str) -> String {
    let lines: Vec<&str> = output.lines().collect();
    let start = lines.len().saturating_sub(TAIL_LINES);
    let mut tail = lines[start..].join("\n");
    if tail.len() > TAIL_CHARS {
        let mut cut = tail.len() - TAIL_CHARS;
        while !tail.is_char_boundary(cut) {
            cut += 1;
        }
        tail = tail[cut..].to_owned();
    }
    tail
}
