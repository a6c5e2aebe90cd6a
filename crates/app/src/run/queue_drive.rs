//! `self-repair drive` on a fix queue: what the driver reads between headless sessions. Each
//! session adopts the running task's repair run and the Stop hook drives its attempts (and starts
//! the next task when one ends, as under `self-repair fix` in a session); between sessions the
//! queue is moved on here, without a model, when a session ended before its hook could.

use std::time::Instant;

use self_repair_drive::{DriveError, RunObservation, RunProbe};
use self_repair_fix::{FIX_TASK_FILE, FixQueue, FixStatus, FixTaskLink};
use self_repair_repair::{RepairEnv, RepairStatus};
use self_repair_store::{Project, RunDir};

use crate::app_error::AppError;
use crate::run::fix_queue::{advance, read_queue, read_repair_state};
use crate::run::load::load_folded;
use crate::run::status_report::report;

/// The triage run whose fix queue `drive` drives: the run named (or active) when it is a
/// triage run with a queue still in progress (a task open or running), or the triage run of
/// the fix task a repair run works on. `None`: not a fix queue to drive.
pub(crate) fn fix_queue_run(project: &Project, dir: &RunDir) -> Result<Option<RunDir>, AppError> {
    let link_path = dir.path().join(FIX_TASK_FILE);
    if let Ok(text) = std::fs::read_to_string(&link_path) {
        let link: FixTaskLink = serde_json::from_str(&text).map_err(|e| {
            AppError::Usage(format!(
                "{} does not read ({e}): it names the task this repair run fixes",
                link_path.display()
            ))
        })?;
        return Ok(Some(project.run(&link.run)?));
    }
    let Ok(Some(queue)) = read_queue(dir) else {
        return Ok(None);
    };
    let in_progress = queue
        .tasks
        .iter()
        .any(|t| matches!(t.status, FixStatus::Open | FixStatus::Running));
    Ok(in_progress.then(|| dir.clone()))
}

/// Whether the queue, once driven, left a task not fixed (`drive` then exits 6, as `fix`).
pub(crate) fn queue_left_a_task(dir: &RunDir) -> Result<bool, AppError> {
    Ok(read_queue(dir)?.is_some_and(|queue| {
        queue
            .asked_tasks()
            .any(|t| matches!(t.status, FixStatus::Quarantined | FixStatus::NotReproduced))
    }))
}

/// Reads (and, between sessions, moves on) the fix queue of one triage run.
pub(crate) struct FixQueueProbe {
    project: Project,
    dir: RunDir,
    env: RepairEnv,
    started: Instant,
}

impl FixQueueProbe {
    pub(crate) fn new(project: Project, dir: RunDir, env: RepairEnv) -> FixQueueProbe {
        FixQueueProbe {
            project,
            dir,
            env,
            started: Instant::now(),
        }
    }

    /// The repair env at this moment: the queue's next task starts now, not when `drive` did.
    fn env_now(&self) -> RepairEnv {
        RepairEnv {
            now: self.env.now + self.started.elapsed().as_secs(),
            ..self.env.clone()
        }
    }

    fn observe_queue(&self, since: u64) -> Result<RunObservation, AppError> {
        let queue = self.queue()?;
        let paused = self.paused_by_cancel(&queue)?;
        // A task whose run is over is recorded, and the next one started, as the Stop hook
        // does at the stop that ends it: a session that ended first (a crash, a usage limit)
        // left that to us. After a cancel the queue waits for the user.
        let settle = match queue.running() {
            Some(i) => self.task_run_over(&queue, i)?,
            None => queue.next_open().is_some() && !paused,
        };
        let (queue, paused) = if settle {
            let mut lines = Vec::new();
            advance(&self.project, &self.env_now(), &self.dir, &mut lines)?;
            let queue = self.queue()?;
            let paused = self.paused_by_cancel(&queue)?;
            (queue, paused)
        } else {
            (queue, paused)
        };
        let mut attempts = 0;
        for task in &queue.tasks {
            if let Some(repair) = self.repair_state(task.repair_run.as_deref())? {
                attempts += repair.attempts.len() as u64;
            }
        }
        let settled = queue
            .tasks
            .iter()
            .filter(|t| {
                matches!(
                    t.status,
                    FixStatus::Fixed | FixStatus::Quarantined | FixStatus::NotReproduced
                )
            })
            .count() as u64;
        // Progress is an attempt made or a task settled: the driver's circuit counts it as a
        // triage run's submissions.
        let done = attempts + settled;
        let running = queue.running();
        let phase = match running {
            Some(i) => {
                let state = self.repair_state(queue.tasks[i].repair_run.as_deref())?;
                let attempt = state.map_or(0, |s| s.attempts.len());
                format!("fix {} attempt {attempt}", queue.tasks[i].task_id)
            }
            None if queue.next_open().is_some() => "fix paused".to_owned(),
            None => "fix done".to_owned(),
        };
        let finished = running.is_none() && queue.next_open().is_none();
        let adopt = running
            .and_then(|i| queue.tasks[i].repair_run.clone())
            .unwrap_or_else(|| queue.run.clone());
        let triage = load_folded(&self.dir, false)?;
        let mut summary = report(&self.project, &triage);
        summary.fixes.clone_from(&queue.tasks);
        Ok(RunObservation {
            status: if finished { "complete" } else { "active" }.to_owned(),
            waits_for_user: (paused && running.is_none()).then(|| "paused by you".to_owned()),
            phase,
            journal_end: done,
            submitted: done.saturating_sub(since),
            stop_failure: None,
            summary: summary.render(),
            adopt,
        })
    }

    fn queue(&self) -> Result<FixQueue, AppError> {
        read_queue(&self.dir)?.ok_or_else(|| {
            AppError::NotFound(format!(
                "run {} has no fix queue: run `self-repair fix --run {}`, then `self-repair drive`",
                self.dir.id(),
                self.dir.id()
            ))
        })
    }

    fn repair_state(
        &self,
        id: Option<&str>,
    ) -> Result<Option<self_repair_repair::RepairState>, AppError> {
        match id.map(|id| self.project.run(id)) {
            Some(Ok(dir)) => read_repair_state(&dir).map(Some),
            Some(Err(_)) | None => Ok(None),
        }
    }

    fn task_run_over(&self, queue: &FixQueue, i: usize) -> Result<bool, AppError> {
        Ok(self
            .repair_state(queue.tasks[i].repair_run.as_deref())?
            .is_none_or(|state| state.status.is_final()))
    }

    /// The user cancelled a task's repair run: the queue waits for `self-repair fix`.
    fn paused_by_cancel(&self, queue: &FixQueue) -> Result<bool, AppError> {
        for task in queue
            .tasks
            .iter()
            .filter(|t| t.status == FixStatus::Quarantined)
        {
            if self
                .repair_state(task.repair_run.as_deref())?
                .is_some_and(|s| s.status == RepairStatus::Cancelled)
            {
                return Ok(queue.next_open().is_some());
            }
        }
        Ok(false)
    }
}

impl RunProbe for FixQueueProbe {
    fn observe(&mut self, since: u64) -> Result<RunObservation, DriveError> {
        self.observe_queue(since)
            .map_err(|e| DriveError::Run(e.to_string()))
    }
}
