//! One repair run on disk, being driven: loads and saves its state, records events in the
//! journal, and does the I/O of each step (run the check or the autofix, snapshot the tree,
//! write the ending).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use self_repair_store::{RunDir, write_json};

use crate::check_record::output_tail;
use crate::repair_journal::append_event;
use crate::repair_machine::{Action, apply_event, new_attempt, next_action};
use crate::run_command::run_logged;
use crate::{
    Attempt, AutofixRecord, CheckPurpose, CheckRecord, RepairError, RepairEvent, RepairState,
    RepairStatus, TreeSnapshot, classify, error_signature, handoff,
};

/// How long the caller may spend: the hook has a budget, the CLI has none.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Budget {
    Unbounded,
    Until(Instant),
}

/// The margin a check must leave in the Stop hook's budget: its expected duration is doubled
/// and one second added before it is compared with the time left.
const HOOK_MARGIN_MS: u64 = 1000;

impl Budget {
    fn fits(self, ms: u64) -> bool {
        match self {
            Budget::Unbounded => true,
            Budget::Until(deadline) => {
                deadline.saturating_duration_since(Instant::now()) >= Duration::from_millis(ms)
            }
        }
    }

    /// How long a check may run under this budget, or `None` when the hook should hand it over
    /// to `self-repair tick`: the hook runs it when the longest of the recent runs, doubled and
    /// plus [`HOOK_MARGIN_MS`], fits the time left; the run is then cut at the time left.
    fn check_limit(self, expected_ms: Option<u64>, timeout_ms: u64) -> Option<u64> {
        match self {
            Budget::Unbounded => Some(timeout_ms),
            Budget::Until(deadline) => {
                let left = deadline
                    .saturating_duration_since(Instant::now())
                    .as_millis() as u64;
                let needed = expected_ms?
                    .saturating_mul(2)
                    .saturating_add(HOOK_MARGIN_MS);
                (needed <= left).then(|| left.min(timeout_ms))
            }
        }
    }
}

/// Where driving stopped: a step only a model (or a later call) can take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pause {
    /// Fix attempt `n` must be asked for.
    Ask(u32),
    /// Fix attempt `n` is under way.
    AwaitFix(u32),
    /// The check (or autofix) does not fit the budget: `self-repair tick` must run it.
    DelegateCheck,
    /// Waiting out a transient failure until this Unix second; `new` when the wait just began.
    Waiting { until: u64, new: bool },
    /// Stalled; `self-repair tick` continues.
    Stalled,
    /// The run is over.
    Finished,
}

/// A loaded repair run.
pub(crate) struct RepairRun {
    pub root: PathBuf,
    pub dir: RunDir,
    pub state: RepairState,
    pub now: u64,
    /// Something was recorded since loading: save before returning.
    pub dirty: bool,
}

/// Reads a repair run's `state.json` with the store's loader: a damaged file is kept aside.
pub(crate) fn load_repair_state(dir: &RunDir) -> Result<RepairState, RepairError> {
    Ok(dir.load_state_as::<RepairState>()?)
}

impl RepairRun {
    /// Loads the run in `dir` (call with the run lock held).
    pub(crate) fn load(root: &Path, dir: RunDir, now: u64) -> Result<RepairRun, RepairError> {
        let state = load_repair_state(&dir)?;
        Ok(RepairRun {
            root: root.to_path_buf(),
            dir,
            state,
            now,
            dirty: false,
        })
    }

    /// Saves `state.json` atomically.
    pub(crate) fn save(&self) -> Result<(), RepairError> {
        write_json(&self.dir.state_path(), &self.state)?;
        Ok(())
    }

    /// Applies an event and appends it to the journal.
    /// The event that ends the run also writes its ending (the summary or the hand-off bundle),
    /// whichever path recorded it: hook, `tick`, `check`, `cancel` or an infra failure.
    pub(crate) fn record(&mut self, event: &RepairEvent) -> Result<(), RepairError> {
        let was_over = self.state.status.is_final();
        apply_event(&mut self.state, event, self.now);
        self.dirty = true;
        append_event(
            self.dir.path(),
            self.now,
            event,
            self.state.step,
            self.state.status,
        )?;
        if !was_over && self.state.status.is_final() {
            handoff::write_ending(self)?;
        }
        Ok(())
    }

    fn log_name(&self, attempt: u32) -> String {
        let earlier = self
            .state
            .checks
            .iter()
            .filter(|c| c.attempt == attempt)
            .count();
        if earlier == 0 {
            format!("attempts/{attempt}.log")
        } else {
            format!("attempts/{attempt}.{}.log", earlier + 1)
        }
    }

    /// Runs the check for at most `limit_ms`; returns whether it overran a limit shorter than
    /// the check's own timeout (the hook's budget), which is recorded but is not a result.
    fn run_check(
        &mut self,
        purpose: CheckPurpose,
        attempt: u32,
        limit_ms: u64,
    ) -> Result<bool, RepairError> {
        let log = self.log_name(attempt);
        let spec = &self.state.spec;
        let run = run_logged(
            &self.root,
            &spec.command,
            Duration::from_millis(limit_ms),
            &self.dir.path().join(&log),
        )?;
        if run.timed_out && limit_ms < spec.timeout_ms {
            self.record(&RepairEvent::CheckOverran {
                ms: run.duration_ms,
            })?;
            return Ok(true);
        }
        let root = self.root.display().to_string();
        let class = classify(&spec.classify, run.exit_code, &run.output);
        let record = CheckRecord {
            seq: self.state.checks.len() as u32 + 1,
            purpose,
            attempt,
            exit_code: run.exit_code,
            timed_out: run.timed_out,
            duration_ms: run.duration_ms,
            signature: if run.exit_code == 0 {
                String::new()
            } else {
                error_signature(run.exit_code, &run.output, &root)
            },
            class,
            tail: output_tail(&run.output.replace(&root, "<root>")),
            log,
            at: self.now,
        };
        self.record(&RepairEvent::CheckFinished { record })?;
        Ok(false)
    }

    fn run_autofix(&mut self) -> Result<(), RepairError> {
        let Some(command) = self.state.spec.autofix.clone() else {
            return self.record(&RepairEvent::InfraFailure {
                error: "the autofix step has no command".to_owned(),
            });
        };
        let before = TreeSnapshot::take(&self.root);
        let log = "attempts/0.autofix.log".to_owned();
        let run = run_logged(
            &self.root,
            &command,
            Duration::from_millis(self.state.spec.timeout_ms),
            &self.dir.path().join(&log),
        )?;
        let after = TreeSnapshot::take(&self.root);
        let record = AutofixRecord {
            exit_code: run.exit_code,
            timed_out: run.timed_out,
            duration_ms: run.duration_ms,
            files_changed: after.changed_since(&before),
            log,
        };
        self.record(&RepairEvent::AutofixFinished { record })
    }

    fn tree_file(&self, n: u32) -> PathBuf {
        self.dir.path().join(format!("attempts/{n}.before.json"))
    }

    /// Asks for attempt `n`: snapshots the tree and records the attempt.
    pub(crate) fn ask(&mut self, n: u32) -> Result<Attempt, RepairError> {
        let snapshot = TreeSnapshot::take(&self.root);
        let path = self.tree_file(n);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(RepairError::io("create", parent))?;
        }
        write_json(&path, &snapshot)?;
        let attempt = new_attempt(&self.state, n, self.now, snapshot.digest());
        self.record(&RepairEvent::FixAsked {
            attempt: attempt.clone(),
        })?;
        Ok(attempt)
    }

    /// Ends attempt `n`: compares the tree with the snapshot taken when it was asked.
    pub(crate) fn end_fix(&mut self, n: u32) -> Result<(), RepairError> {
        let before: TreeSnapshot = std::fs::read(self.tree_file(n))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default();
        let after = TreeSnapshot::take(&self.root);
        let files_changed = after.changed_since(&before);
        self.record(&RepairEvent::FixEnded {
            attempt: n,
            after: after.digest(),
            no_change: files_changed.is_empty(),
            files_changed,
        })
    }

    /// Does the next step if it is code's to do; returns where a model or a later call is
    /// needed instead.
    pub(crate) fn step(&mut self, budget: Budget) -> Result<Option<Pause>, RepairError> {
        match next_action(&self.state, self.now) {
            Action::RunCheck { purpose, attempt } => {
                let Some(limit_ms) =
                    budget.check_limit(self.state.expected_check_ms(), self.state.spec.timeout_ms)
                else {
                    return Ok(Some(Pause::DelegateCheck));
                };
                let mut overran = false;
                self.guard(|run| {
                    overran = run.run_check(purpose, attempt, limit_ms)?;
                    Ok(())
                })?;
                if overran {
                    return Ok(Some(Pause::DelegateCheck));
                }
            }
            Action::RunAutofix => {
                if !budget.fits(self.state.spec.timeout_ms) {
                    return Ok(Some(Pause::DelegateCheck));
                }
                self.guard(RepairRun::run_autofix)?;
            }
            Action::Backoff { ms } => {
                if budget.fits(ms) {
                    std::thread::sleep(Duration::from_millis(ms));
                    self.record(&RepairEvent::BackoffDone)?;
                } else {
                    let until = self.now + ms.div_ceil(1000);
                    self.record(&RepairEvent::Waiting { until })?;
                    return Ok(Some(Pause::Waiting { until, new: true }));
                }
            }
            Action::Wait { until } => return Ok(Some(Pause::Waiting { until, new: false })),
            Action::Resume => self.record(&RepairEvent::Resumed)?,
            Action::Ask { attempt } => return Ok(Some(Pause::Ask(attempt))),
            Action::AwaitFix { attempt } => return Ok(Some(Pause::AwaitFix(attempt))),
            Action::Stalled => return Ok(Some(Pause::Stalled)),
            // `record` wrote the ending when the run ended.
            Action::Finished => return Ok(Some(Pause::Finished)),
        }
        Ok(None)
    }

    /// Steps until a model or a later call is needed (at most a bounded number of steps).
    pub(crate) fn advance(&mut self, budget: Budget) -> Result<Pause, RepairError> {
        for _ in 0..200 {
            if let Some(pause) = self.step(budget)? {
                return Ok(pause);
            }
        }
        Ok(Pause::Stalled)
    }

    /// Runs an I/O step; a failure of self-repair itself ends the run as an infra failure.
    fn guard(
        &mut self,
        step: impl FnOnce(&mut RepairRun) -> Result<(), RepairError>,
    ) -> Result<(), RepairError> {
        match step(self) {
            Ok(()) => Ok(()),
            Err(e) => self.record(&RepairEvent::InfraFailure {
                error: e.to_string(),
            }),
        }
    }

    /// The one-line outcome shown to the user when the run is over.
    pub(crate) fn outcome_line(&self) -> String {
        let state = &self.state;
        let reason = state.ending.as_ref().map_or("", |e| e.reason.as_str());
        let command = crate::shell_words(&state.spec.command);
        match state.status {
            RepairStatus::Success => format!(
                "self-repair check `{command}`: success, {reason} (run {}; `self-repair status` shows the attempts).",
                state.run
            ),
            RepairStatus::Cancelled => format!(
                "self-repair check `{command}`: {reason}. Hand-off report: {}",
                handoff::report_path(&self.root, &self.dir).display()
            ),
            _ => format!(
                "self-repair check `{command}`: {} — {reason}. Hand-off report: {}",
                state.status.as_str(),
                handoff::report_path(&self.root, &self.dir).display()
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_fits_what_its_time_left_holds_and_a_check_twice_its_last_duration_and_a_second() {
        let hour = Budget::Until(Instant::now() + Duration::from_hours(1));
        let spent = Budget::Until(Instant::now());
        // (budget, ms, fits)
        for (budget, ms, fits) in [
            (Budget::Unbounded, u64::MAX, true),
            (hour, 1_000, true),
            (hour, 3_000_000, true),
            (hour, 4_000_000, false),
            (spent, 1, false),
        ] {
            assert_eq!(budget.fits(ms), fits, "{budget:?} {ms}");
        }
        // (budget, expected duration, timeout, the limit of the check run)
        for (budget, expected, timeout, limit) in [
            (Budget::Unbounded, None, 60_000, Some(60_000)),
            (Budget::Unbounded, Some(1), 5_000, Some(5_000)),
            (hour, Some(1_000), 60_000, Some(60_000)),
            // Never run yet: no guess of its duration, so `tick` runs it.
            (hour, None, 60_000, None),
            // 2 × 1,800,000 ms + 1 s: more than the hour left.
            (hour, Some(1_800_000), 60_000, None),
            (spent, Some(0), 60_000, None),
        ] {
            assert_eq!(
                budget.check_limit(expected, timeout),
                limit,
                "{budget:?} {expected:?}"
            );
        }
        // Cut at the time left when that is shorter than the timeout.
        let limit = hour.check_limit(Some(1_000), u64::MAX);
        assert!(
            limit.is_some_and(|ms| ms > 3_000_000 && ms <= 3_600_000),
            "{limit:?}"
        );
    }
}
