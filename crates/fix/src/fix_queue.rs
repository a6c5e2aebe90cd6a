//! `fix.json` in a triage run's folder: the tasks `self-repair fix` works through, one repair run
//! at a time, and how each ended.

use serde::{Deserialize, Serialize};

/// Version of the `fix.json` layout.
pub const FIX_QUEUE_SCHEMA_VERSION: u32 = 1;
/// The queue's file name in the triage run's folder.
pub const FIX_QUEUE_FILE: &str = "fix.json";
/// The file in a repair run's folder that says which task of which triage run it fixes.
pub const FIX_TASK_FILE: &str = "fix-task.json";

/// Where one task is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FixStatus {
    /// Not started.
    Open,
    /// Its repair run is under way.
    Running,
    /// Verified, and the task file says `Done`.
    Fixed,
    /// Its repair run gave up (quarantined, escalated, infra failure, cancelled): see the hand-off.
    Quarantined,
    /// The detectors do not report its findings before any change (another rule selection, a
    /// stale run), so their re-run cannot verify a fix: no repair run was made. A `fix` that
    /// names no task leaves it; naming it tries again (after the detector changed).
    NotReproduced,
}

impl FixStatus {
    /// Its name, as `status` and `report.md` show it.
    pub fn as_str(self) -> &'static str {
        match self {
            FixStatus::Open => "open",
            FixStatus::Running => "running",
            FixStatus::Fixed => "fixed",
            FixStatus::Quarantined => "quarantined",
            FixStatus::NotReproduced => "not reproduced",
        }
    }
}

/// One task in the queue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueuedTask {
    pub task_id: String,
    pub title: String,
    /// The task file, relative to the project root.
    pub file: String,
    pub status: FixStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repair_run: Option<String>,
    /// The commit the weakening guard compares against.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// The hand-off report of a quarantined task, relative to the project root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handoff: Option<String>,
    /// Why the task was not fixed, when no repair run says it (`not reproduced: ...`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The commit `--commit` made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
}

/// The options of the `fix` that made the queue, and its tasks in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FixQueue {
    pub schema_version: u32,
    /// The triage run.
    pub run: String,
    /// The `self-repair` binary the checks run (the hook starts the next task with it).
    pub self_repair: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detector: Option<String>,
    #[serde(default)]
    pub commit: bool,
    #[serde(default)]
    pub allow_config: bool,
    /// Repair options passed on to each task's run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tiers: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_attempts: Option<u32>,
    pub tasks: Vec<QueuedTask>,
    /// The tasks the latest `fix` asked for, in order: what its closing line counts and its
    /// exit code judges (the queue also keeps earlier `fix`es' settled tasks). Empty in a queue
    /// written before it existed: every task counts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub asked: Vec<String>,
}

impl FixQueue {
    /// The task whose repair run is under way.
    pub fn running(&self) -> Option<usize> {
        self.tasks
            .iter()
            .position(|t| t.status == FixStatus::Running)
    }

    /// The next task to start.
    pub fn next_open(&self) -> Option<usize> {
        self.tasks.iter().position(|t| t.status == FixStatus::Open)
    }

    /// The tasks the latest `fix` asked for (every task of a queue that does not say).
    pub fn asked_tasks(&self) -> impl Iterator<Item = &QueuedTask> {
        self.tasks
            .iter()
            .filter(|t| self.asked.is_empty() || self.asked.contains(&t.task_id))
    }
}

/// `fix-task.json`: the link from a repair run back to its task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FixTaskLink {
    pub schema_version: u32,
    pub run: String,
    pub task_id: String,
}
