//! The outer loop: start a session that adopts the run, read how it ended, wait or stop. It
//! holds no pipeline logic: the Stop hook and the run's state decide everything inside a
//! session; the driver only relaunches and keeps the logs.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use signal_hook::consts::{SIGINT, SIGTERM};

use crate::claude_session::{SessionLaunch, run_session};
use crate::drive_error::DriveError;
use crate::drive_log::{
    DRIVE_LOG_VERSION, DriveStopRecord, SessionRecord, append_session, append_stop, read_drive_log,
};
use crate::drive_policy::{DriveLimits, DrivePolicy, NextStep, SessionSummary, StopReason};
use crate::error_catalog::ErrorCatalog;
use crate::run_probe::{RunObservation, RunProbe};
use crate::session_end::{SessionEnd, classify};

/// Everything `drive` was asked.
#[derive(Debug, Clone)]
pub struct DriveOptions {
    pub run: String,
    /// The run's folder (`drive.jsonl`, `errors.jsonl`, `drive/` go here).
    pub run_dir: PathBuf,
    /// The project folder the sessions run in.
    pub project: PathBuf,
    pub claude: PathBuf,
    pub extra_args: Vec<String>,
    pub limits: DriveLimits,
    /// Multiplies every backoff (`SELF_REPAIR_DRIVE_BACKOFF_SCALE`, test-only).
    pub backoff_scale: f64,
    /// What is driven, for messages: `run R`, or `the fix queue of run R`.
    pub what: String,
    /// The command that lifts the user's pause (`self-repair resume --run R`, or
    /// `self-repair fix --run R` after a cancelled task).
    pub resume: String,
    /// Variables added to every session's environment: `SELF_REPAIR_RUN=R` for a triage run,
    /// so the session's hooks and commands work on R even when another run is the project's
    /// active one (a partition of `drive --partitions`).
    pub session_env: Vec<(String, String)>,
}

/// How driving ended.
#[derive(Debug, Clone, PartialEq)]
pub enum DriveOutcome {
    /// The run is complete or cancelled.
    Finished { status: String },
    /// Driving stopped before that.
    Stopped(StopReason),
    /// The run was paused by the user: only `self-repair resume` lifts that.
    PausedByUser,
}

/// The result of `drive`.
#[derive(Debug, Clone, PartialEq)]
pub struct DriveReport {
    pub outcome: DriveOutcome,
    /// What to print: the run's summary or why driving stopped and what to do.
    pub message: String,
    pub sessions: u32,
    pub spent_usd: f64,
}

/// The prompt of every session: adopt the run, end the turn, the hook does the rest.
pub fn session_prompt(run: &str) -> String {
    format!(
        "Continue the self-repair run {run}: run the command below, then end your turn. The Stop hook gives every next step.\n$ self-repair adopt --run {run}"
    )
}

/// `1 session`, `2 sessions`.
fn plural(n: u32, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Waits `secs`, waking early when interrupted; returns whether it was.
fn wait_unless_interrupted(secs: u64, interrupt: &AtomicBool) -> bool {
    let end = std::time::Instant::now() + Duration::from_secs(secs);
    while std::time::Instant::now() < end {
        if interrupt.load(Ordering::SeqCst) {
            return true;
        }
        thread::sleep(Duration::from_millis(100));
    }
    interrupt.load(Ordering::SeqCst)
}

fn outcome_name(outcome: &DriveOutcome) -> String {
    match outcome {
        DriveOutcome::Finished { status } => status.clone(),
        DriveOutcome::PausedByUser => "paused_by_user".to_owned(),
        DriveOutcome::Stopped(reason) => match reason {
            StopReason::AuthRequired => "auth_required",
            StopReason::MaxSessions { .. } => "max_sessions",
            StopReason::NoProgress { .. } => "no_progress",
            StopReason::Refused { .. } => "refused",
            StopReason::Budget { .. } => "budget",
            StopReason::Until { .. } => "until",
            StopReason::Interrupted => "interrupted",
        }
        .to_owned(),
    }
}

/// The driver's state for one invocation.
struct Driver<'a> {
    options: &'a DriveOptions,
    probe: &'a mut dyn RunProbe,
    report: &'a mut dyn FnMut(&str),
    interrupt: Arc<AtomicBool>,
    policy: DrivePolicy,
    /// The last sessions' failure signatures, newest last.
    recent_errors: Vec<String>,
    log: PathBuf,
    catalog: PathBuf,
}

/// Takes the run folder's `drive.lock` (held until the file is dropped). One driver per run:
/// two would adopt the run from each other's sessions. The OS releases the lock if this
/// process dies; the sessions do not inherit it (close-on-exec).
pub fn lock_run(run_dir: &Path) -> Result<std::fs::File, DriveError> {
    let path = run_dir.join("drive.lock");
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(DriveError::io("open", &path))?;
    if lock.try_lock().is_err() {
        return Err(DriveError::AlreadyDriving { path });
    }
    Ok(lock)
}

/// Drives the run until it ends or a stop condition holds. `report` receives one progress
/// line per session as it goes.
pub fn drive(
    options: &DriveOptions,
    probe: &mut dyn RunProbe,
    report: &mut dyn FnMut(&str),
) -> Result<DriveReport, DriveError> {
    let _lock = lock_run(&options.run_dir)?;
    let interrupt = Arc::new(AtomicBool::new(false));
    for signal in [SIGINT, SIGTERM] {
        signal_hook::flag::register(signal, Arc::clone(&interrupt)).map_err(DriveError::Signals)?;
    }
    let streams = options.run_dir.join("drive");
    std::fs::create_dir_all(&streams).map_err(DriveError::io("create", &streams))?;
    let mut driver = Driver {
        options,
        probe,
        report,
        interrupt,
        policy: DrivePolicy::new(options.limits, options.backoff_scale),
        recent_errors: Vec::new(),
        log: options.run_dir.join("drive.jsonl"),
        catalog: options.run_dir.join("errors.jsonl"),
    };
    let (outcome, observed) = driver.run()?;
    let message = driver.message(&outcome, &observed);
    append_stop(
        &driver.log,
        &DriveStopRecord {
            schema_version: DRIVE_LOG_VERSION,
            event: "drive_stop".to_owned(),
            at: unix_now(),
            outcome: outcome_name(&outcome),
            message: message.lines().next().unwrap_or_default().to_owned(),
            sessions: driver.policy.sessions(),
            spent_usd: driver.policy.spent_usd(),
        },
    )?;
    Ok(DriveReport {
        outcome,
        message,
        sessions: driver.policy.sessions(),
        spent_usd: driver.policy.spent_usd(),
    })
}

impl Driver<'_> {
    fn run(&mut self) -> Result<(DriveOutcome, RunObservation), DriveError> {
        let mut observed = self.probe.observe(u64::MAX)?;
        let mut number = read_drive_log(&self.log)?.sessions.len() as u32;
        loop {
            if observed.finished() {
                let status = observed.status.clone();
                return Ok((DriveOutcome::Finished { status }, observed));
            }
            if observed.waits_for_user.is_some() {
                return Ok((DriveOutcome::PausedByUser, observed));
            }
            if self.interrupt.load(Ordering::SeqCst) {
                return Ok((DriveOutcome::Stopped(StopReason::Interrupted), observed));
            }
            if let Err(stop) = self.policy.may_start(unix_now()) {
                return Ok((DriveOutcome::Stopped(stop), observed));
            }
            number += 1;
            let (next, after) = self.one_session(number, &observed)?;
            observed = after;
            match next {
                NextStep::Stop(reason) => return Ok((DriveOutcome::Stopped(reason), observed)),
                NextStep::Relaunch { wait_secs } => {
                    if wait_secs > 0 {
                        (self.report)(&format!(
                            "drive: waiting {wait_secs} s before session {}",
                            number + 1
                        ));
                    }
                    if wait_unless_interrupted(wait_secs, &self.interrupt) {
                        return Ok((DriveOutcome::Stopped(StopReason::Interrupted), observed));
                    }
                }
            }
        }
    }

    /// Runs session `number` and logs it; returns the next step and the run after it.
    fn one_session(
        &mut self,
        number: u32,
        before: &RunObservation,
    ) -> Result<(NextStep, RunObservation), DriveError> {
        let streams = self.options.run_dir.join("drive");
        let launch = SessionLaunch {
            claude: self.options.claude.clone(),
            prompt: session_prompt(&before.adopt),
            extra_args: self.options.extra_args.clone(),
            cwd: self.options.project.clone(),
            stream_log: streams.join(format!("session-{number}.jsonl")),
            stderr_log: streams.join(format!("session-{number}.stderr")),
            env: self.options.session_env.clone(),
        };
        (self.report)(&format!(
            "drive: session {number} starting ({}, phase {})",
            self.options.what, before.phase
        ));
        let started_at = unix_now();
        let run = run_session(&launch, &self.interrupt)?;
        let ended_at = unix_now();
        let after = self.probe.observe(before.journal_end)?;
        let end = classify(
            &run.facts,
            run.exit,
            after.stop_failure.as_deref(),
            run.interrupted,
        );
        let progressed = after.submitted > 0 || after.phase != before.phase || after.finished();
        let result = run.facts.result.clone().unwrap_or_default();
        let summary = SessionSummary {
            end: end.clone(),
            seconds: run.wall.as_secs(),
            progressed,
            cost_usd: result.total_cost_usd,
        };
        // Counted even when the run is over, so the totals include the last session.
        let next = self.policy.after(&summary, ended_at);
        // A failed session, or one that ended its turn without progress, goes to the catalog.
        let failure = if end.is_error() {
            Some((end.signature(), end.category()))
        } else if progressed {
            None
        } else if result.permission_denials.is_empty() {
            Some(("ended its turn without progress".to_owned(), "no_progress"))
        } else {
            Some((
                format!(
                    "ended its turn without progress after {} permission denials",
                    result.permission_denials.len()
                ),
                "no_progress",
            ))
        };
        let detail = if failure.is_none() {
            String::new()
        } else if !result.permission_denials.is_empty() {
            format!(
                "the client refused: {}",
                result.permission_denials.join("; ")
            )
        } else {
            let stderr = std::fs::read_to_string(&launch.stderr_log).unwrap_or_default();
            let retry = run.facts.last_retry_status.map(|status| {
                format!(
                    "the client was retrying after {status} {}",
                    run.facts.last_retry_error.as_deref().unwrap_or("")
                )
            });
            let text = if !result.text.is_empty() {
                result.text.clone()
            } else if let Some(retry) = retry {
                retry.trim_end().to_owned()
            } else {
                stderr.lines().last().unwrap_or_default().to_owned()
            };
            text.chars().take(200).collect()
        };
        let (next_name, backoff) = match (&next, after.finished()) {
            (_, true) => ("done", 0),
            (NextStep::Relaunch { wait_secs }, false) => ("relaunch", *wait_secs),
            (NextStep::Stop(_), false) => ("stop", 0),
        };
        let record = SessionRecord {
            schema_version: DRIVE_LOG_VERSION,
            session: number,
            claude_session: run.facts.session_id.clone(),
            started_at,
            ended_at,
            duration_ms: run.wall.as_millis() as u64,
            exit_code: run.exit.code,
            signal: run.exit.signal,
            end: end.clone(),
            detail: detail.clone(),
            submitted: after.submitted,
            phase_before: before.phase.clone(),
            phase_after: after.phase.clone(),
            status_after: after.status.clone(),
            progressed,
            cost_usd: result.total_cost_usd,
            tokens: result.tokens.into(),
            api_retries: run.facts.api_retries,
            next: next_name.to_owned(),
            backoff_secs: backoff,
        };
        append_session(&self.log, &record)?;
        if let Some((signature, category)) = &failure
            && end != SessionEnd::Interrupted
        {
            let mut catalog = ErrorCatalog::load(&self.catalog)?;
            catalog.record(signature, category, number, ended_at, &detail);
            catalog.save(&self.catalog)?;
        }
        let label = match &failure {
            Some((signature, _)) => signature.clone(),
            None => "ended its turn".to_owned(),
        };
        self.recent_errors
            .push(format!("session {number}: {label}"));
        (self.report)(&format!(
            "drive: session {number} {}: {label}; {} submitted, phase {} -> {}, run {}, ${:.4}",
            end.category(),
            after.submitted,
            before.phase,
            after.phase,
            after.status,
            result.total_cost_usd
        ));
        Ok((next, after))
    }

    /// What `drive` prints at the end.
    fn message(&self, outcome: &DriveOutcome, observed: &RunObservation) -> String {
        let run = &self.options.run;
        let what = &self.options.what;
        let sessions = self.policy.sessions();
        let spent = self.policy.spent_usd();
        let last: Vec<&str> = self
            .recent_errors
            .iter()
            .rev()
            .take(3)
            .rev()
            .map(String::as_str)
            .collect();
        let last = if last.is_empty() {
            String::new()
        } else {
            format!(" Last sessions: {}.", last.join("; "))
        };
        let logs = format!(
            "The drive log is {}, the errors `self-repair errors {run}`, each session's stream {}/drive/.",
            self.log.display(),
            self.options.run_dir.display()
        );
        let again = format!("`self-repair drive {run}` goes on from where the run is.");
        match outcome {
            DriveOutcome::Finished { status } => format!(
                "drive: {what} is {status} after {} (${spent:.4}).\n{}",
                plural(sessions, "session"),
                observed.summary
            ),
            DriveOutcome::PausedByUser => format!(
                "drive: {what} is {}; nothing was started. Run `{}`, then {again}",
                observed
                    .waits_for_user
                    .as_deref()
                    .unwrap_or("paused by you"),
                self.options.resume
            ),
            DriveOutcome::Stopped(reason) => {
                let why = match reason {
                    StopReason::AuthRequired => "the API refused the credentials (401/403): a human must act. Log in again (`claude` then `/login`) or set a valid ANTHROPIC_API_KEY, check the account's access, then run it again.".to_owned(),
                    StopReason::MaxSessions { sessions } => format!("{sessions} sessions ran (--max-sessions). Raise --max-sessions or run it again."),
                    StopReason::NoProgress { sessions } => format!("the circuit is open: {sessions} sessions in a row made no progress (no item submitted, no phase advanced).{last} Read the errors and the last session's stream, fix the cause (`self-repair status`, `self-repair doctor`), then run it again."),
                    StopReason::Refused { sessions } => format!("the model provider refused the main session {sessions} times in a row (stop_reason \"refusal\"): the run's own text is declined, and another session would be refused and billed again. Read the last session's stream (`drive/session-N.jsonl`) for what it was asked, cancel or finish the item it names by hand (`self-repair status --items`), then run it again."),
                    StopReason::Budget { spent_usd, budget_usd } => format!("the sessions cost ${spent_usd:.4}, reaching --budget ${budget_usd:.2}. Raise --budget to go on."),
                    StopReason::Until { until } => format!("--until {} passed: no new session starts after it.", self_repair_engine::timestamp::rfc3339(*until)),
                    StopReason::Interrupted => "interrupted (SIGINT/SIGTERM): the running session was stopped, the run is kept as it is.".to_owned(),
                };
                let last = if matches!(reason, StopReason::NoProgress { .. }) {
                    String::new()
                } else {
                    last
                };
                format!(
                    "drive: stopped driving {what} (phase {}, {}) after {} (${spent:.4}): {why}{last}\n{logs}\n{again}",
                    observed.phase,
                    observed.status,
                    plural(sessions, "session")
                )
            }
        }
    }
}
