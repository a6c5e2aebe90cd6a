//! The state of one repair run (`state.json` of a run whose `run.json` says `kind: repair`).

use self_repair_store::VersionedState;
use serde::{Deserialize, Serialize};

use crate::{Approach, CheckRecord, CheckSpec, FixTier, GitBaseline};

/// Version of the repair `state.json` layout.
pub const REPAIR_SCHEMA_VERSION: u32 = 1;

/// Check runs whose durations predict the next one.
pub const RECENT_CHECKS: usize = 3;

/// Where the run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RepairStatus {
    /// Being driven.
    Active,
    /// A transient failure: waiting for `wait_until` before rerunning.
    Waiting,
    /// The hook asked for `self-repair tick` K times and nothing ran; allowed the stop.
    Stalled,
    /// The check passes.
    Success,
    /// Gave up: attempts exhausted, or the circuit opened.
    Quarantined,
    /// A permanent error no code change can fix.
    Escalated,
    /// self-repair itself could not go on (a log could not be written, ...).
    InfraFailure,
    /// Ended by the user.
    Cancelled,
}

impl RepairStatus {
    /// Its name.
    pub fn as_str(self) -> &'static str {
        match self {
            RepairStatus::Active => "active",
            RepairStatus::Waiting => "waiting",
            RepairStatus::Stalled => "stalled",
            RepairStatus::Success => "success",
            RepairStatus::Quarantined => "quarantined",
            RepairStatus::Escalated => "escalated",
            RepairStatus::InfraFailure => "infra_failure",
            RepairStatus::Cancelled => "cancelled",
        }
    }

    /// Whether the run is over.
    pub fn is_final(self) -> bool {
        matches!(
            self,
            RepairStatus::Success
                | RepairStatus::Quarantined
                | RepairStatus::Escalated
                | RepairStatus::InfraFailure
                | RepairStatus::Cancelled
        )
    }
}

/// What the run needs next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Step {
    /// Run the check before anything changes.
    Baseline,
    /// Run the autofix command.
    Autofix,
    /// Run the check after the autofix.
    AutofixRecheck,
    /// Ask for fix attempt `attempt`.
    Ask { attempt: u32 },
    /// Attempt `attempt` is being made (by the main session or a fixer).
    Fixing { attempt: u32 },
    /// Run the check after attempt `attempt`.
    Recheck { attempt: u32 },
    /// Nothing: the run is over.
    Done,
}

/// One fix attempt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attempt {
    pub n: u32,
    /// `fix-N`: the id in the dispatch description and in `self-repair show`.
    pub item: String,
    pub tier: FixTier,
    pub approach: Approach,
    pub asked_at: u64,
    /// Tree digest when it was asked.
    pub before: String,
    #[serde(default)]
    pub ended_at: Option<u64>,
    #[serde(default)]
    pub after: Option<String>,
    #[serde(default)]
    pub files_changed: Vec<String>,
    /// No file changed during the attempt.
    #[serde(default)]
    pub no_change: bool,
    /// `seq` of the recheck that verified it.
    #[serde(default)]
    pub check: Option<u32>,
}

/// What the autofix command did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AutofixRecord {
    pub exit_code: i32,
    pub timed_out: bool,
    pub duration_ms: u64,
    pub files_changed: Vec<String>,
    pub log: String,
}

/// How and why the run ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ending {
    pub at: u64,
    /// One line: why it stopped.
    pub reason: String,
}

/// The whole state of a repair run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RepairState {
    pub schema_version: u32,
    /// Always `repair`.
    pub pipeline: String,
    pub run: String,
    pub created_at: u64,
    pub session: Option<String>,
    pub spec: CheckSpec,
    pub git: GitBaseline,
    pub status: RepairStatus,
    pub step: Step,
    pub checks: Vec<CheckRecord>,
    pub attempts: Vec<Attempt>,
    #[serde(default)]
    pub autofix: Option<AutofixRecord>,
    /// Transient reruns of the current step so far.
    #[serde(default)]
    pub transient_retries: u32,
    /// Milliseconds to wait before the transient rerun (decided by the caller: sleep within
    /// the hook's budget, or wait and resume later).
    #[serde(default)]
    pub backoff_ms: Option<u64>,
    /// Unix seconds before which a transient rerun must not start.
    #[serde(default)]
    pub wait_until: Option<u64>,
    /// Hook blocks asking for `self-repair tick` since the last check ran.
    #[serde(default)]
    pub tick_requests: u32,
    /// How long a check ran in the Stop hook before the hook's budget cut it short: from then
    /// on the checks of this run are left to `self-repair tick`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hook_overrun_ms: Option<u64>,
    #[serde(default)]
    pub ending: Option<Ending>,
    /// The final outcome was shown to the user.
    #[serde(default)]
    pub announced: bool,
}

impl RepairState {
    /// A run that has done nothing yet: the baseline check comes first.
    pub fn new(
        run: String,
        created_at: u64,
        session: Option<String>,
        git: GitBaseline,
        spec: CheckSpec,
    ) -> RepairState {
        RepairState {
            schema_version: REPAIR_SCHEMA_VERSION,
            pipeline: "repair".to_owned(),
            run,
            created_at,
            session,
            spec,
            git,
            status: RepairStatus::Active,
            step: Step::Baseline,
            checks: Vec::new(),
            attempts: Vec::new(),
            autofix: None,
            transient_retries: 0,
            backoff_ms: None,
            wait_until: None,
            tick_requests: 0,
            hook_overrun_ms: None,
            ending: None,
            announced: false,
        }
    }

    /// The last check run.
    pub fn last_check(&self) -> Option<&CheckRecord> {
        self.checks.last()
    }

    /// Attempt `n`.
    pub fn attempt(&self, n: u32) -> Option<&Attempt> {
        self.attempts.iter().find(|a| a.n == n)
    }

    /// Failing check runs in a row, from the last one back, with the last one's signature
    /// (transient reruns do not count).
    pub fn identical_failures(&self) -> u32 {
        let mut counted = self
            .checks
            .iter()
            .rev()
            .filter(|c| c.class != crate::FailureClass::Transient);
        let Some(last) = counted.next() else {
            return 0;
        };
        if last.passed() {
            return 0;
        }
        1 + counted
            .take_while(|c| !c.passed() && c.signature == last.signature)
            .count() as u32
    }

    /// How long the next check is expected to take, from measured runs: the longest of the last
    /// [`RECENT_CHECKS`] runs. `None` before any run was measured and after a run overran the
    /// Stop hook's budget (then only `self-repair tick` runs the check).
    pub fn expected_check_ms(&self) -> Option<u64> {
        if self.hook_overrun_ms.is_some() {
            return None;
        }
        self.checks
            .iter()
            .rev()
            .take(RECENT_CHECKS)
            .map(|c| c.duration_ms)
            .max()
    }

    /// Attempts that changed no file.
    pub fn no_change_attempts(&self) -> u32 {
        self.attempts.iter().filter(|a| a.no_change).count() as u32
    }
}

impl VersionedState for RepairState {
    const SCHEMA_VERSION: u32 = REPAIR_SCHEMA_VERSION;

    fn schema_version(&self) -> u32 {
        self.schema_version
    }
}
