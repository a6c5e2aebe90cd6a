//! How `drive` starts sessions for one run: what it was asked, the limits and options of its
//! sessions, the probe that reads the run between them, and the exit status of how they ended.

use std::path::PathBuf;

use self_repair_drive::{
    DriveLimits, DriveOptions, DriveOutcome, RunObservation, RunProbe, StopReason, is_executable,
    parse_until,
};
use self_repair_engine::{PauseReason, RunStatus};
use self_repair_store::{Project, RunDir};

use crate::app_error::AppError;
use crate::app_error::ExitStatus;
use crate::command_env::{BACKOFF_SCALE_VAR, RUN_VAR};
use crate::run::load::load_folded;
use crate::run::status_report::report;

/// What `drive` was asked.
#[derive(Debug, Clone, Default)]
pub struct DriveRequest {
    pub run: Option<String>,
    pub claude: Option<PathBuf>,
    pub max_sessions: Option<u32>,
    pub budget: Option<f64>,
    /// `--yes`: the user's go for a run waiting on its estimate.
    pub yes: bool,
    pub until: Option<String>,
    /// `--fail-on-real`: exit 24 when the run completes with real findings.
    pub fail_on_real: bool,
    /// `--partitions N`: split the run and drive its N shares at once.
    pub partitions: Option<u32>,
    pub claude_args: Vec<String>,
    /// The value of [`BACKOFF_SCALE_VAR`], if set.
    pub backoff_scale: Option<String>,
    /// `PATH`, to find `claude` when `--claude` is not given.
    pub path_var: Option<std::ffi::OsString>,
}

/// Reads the run through the store: folds the journal, counts what happened since an offset.
pub(super) struct StoreProbe {
    pub(super) project: Project,
    pub(super) dir: RunDir,
}

impl StoreProbe {
    fn observe_run(&self, since: u64) -> Result<RunObservation, AppError> {
        let state = load_folded(&self.dir, true)?;
        let journal = self.dir.journal();
        let end = journal.byte_len()?;
        let (submitted, stop_failure) = if since >= end {
            (0, None)
        } else {
            let tail = journal.read_from(since)?;
            let mut submitted = 0;
            let mut failure = None;
            for entry in tail.entries {
                match entry.event {
                    self_repair_engine::Event::Submitted { .. } => submitted += 1,
                    self_repair_engine::Event::StopFailure { error } => failure = Some(error),
                    _ => {}
                }
            }
            (submitted, failure)
        };
        Ok(RunObservation {
            status: state.status.as_str().to_owned(),
            // A refused launch is the user's decision too (a "No", a deny rule), and so is going
            // past the launch ceiling: a new session would only meet the same pause.
            waits_for_user: match (state.status, &state.pause) {
                (RunStatus::Paused, Some(PauseReason::User | PauseReason::Refused { .. })) => {
                    Some("paused by you".to_owned())
                }
                (
                    RunStatus::Paused,
                    Some(PauseReason::Launches {
                        launched, likely, ..
                    }),
                ) => Some(format!(
                    "paused at its launch ceiling ({launched} agents launched, {likely} \
                         likely; `self-repair status --items` shows what keeps coming back)"
                )),
                _ => None,
            },
            phase: state.phase.as_str().to_owned(),
            journal_end: end,
            submitted,
            stop_failure,
            summary: report(&self.project, &state).render(),
            adopt: state.run.clone(),
        })
    }
}

impl RunProbe for StoreProbe {
    fn observe(&mut self, since: u64) -> Result<RunObservation, self_repair_drive::DriveError> {
        self.observe_run(since)
            .map_err(|e| self_repair_drive::DriveError::Run(e.to_string()))
    }
}

/// `claude` on `PATH`.
pub(super) fn find_on_path(path_var: Option<&std::ffi::OsStr>, name: &str) -> Option<PathBuf> {
    std::env::split_paths(path_var?)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

pub(super) fn checked_limits(request: &DriveRequest, now: u64) -> Result<DriveLimits, AppError> {
    if request.max_sessions == Some(0) {
        return Err(AppError::Usage(
            "--max-sessions must be at least 1".to_owned(),
        ));
    }
    if let Some(budget) = request.budget
        && !(budget.is_finite() && budget > 0.0)
    {
        return Err(AppError::Usage(format!(
            "--budget {budget}: give a positive number of US dollars (e.g. 25 or 7.5)"
        )));
    }
    let until = match &request.until {
        Some(text) => Some(parse_until(text, now).map_err(AppError::Usage)?),
        None => None,
    };
    Ok(DriveLimits {
        max_sessions: request.max_sessions,
        budget_usd: request.budget,
        until,
    })
}

pub(super) fn backoff_scale(value: Option<&str>) -> Result<f64, AppError> {
    match value {
        None => Ok(1.0),
        Some(text) => text
            .parse::<f64>()
            .ok()
            .filter(|s| s.is_finite() && *s >= 0.0)
            .ok_or_else(|| {
                AppError::Usage(format!(
                    "{BACKOFF_SCALE_VAR}={text:?}: give a number of at least 0 (1 is real time; it is for tests)"
                ))
            }),
    }
}

pub(super) fn exit_status(outcome: &DriveOutcome) -> ExitStatus {
    match outcome {
        DriveOutcome::Finished { .. } => ExitStatus::Success,
        DriveOutcome::PausedByUser => ExitStatus::LimitReached,
        DriveOutcome::Stopped(reason) => match reason {
            StopReason::AuthRequired => ExitStatus::AuthRequired,
            StopReason::MaxSessions { .. }
            | StopReason::NoProgress { .. }
            | StopReason::Refused { .. } => ExitStatus::CircuitOpen,
            StopReason::Budget { .. } | StopReason::Until { .. } => ExitStatus::LimitReached,
            StopReason::Interrupted => ExitStatus::Interrupted,
        },
    }
}

/// What `drive` needs to relaunch sessions for `dir`: `what` names the work in its messages,
/// `resume` the command that goes on after a pause; `pin`: every session gets
/// `SELF_REPAIR_RUN=<run>`, so its hooks and commands work on this run whichever is active.
pub(super) fn drive_options(
    request: &DriveRequest,
    project: &Project,
    dir: &RunDir,
    limits: DriveLimits,
    what: String,
    resume: String,
    pin: bool,
) -> Result<DriveOptions, AppError> {
    let backoff_scale = backoff_scale(request.backoff_scale.as_deref())?;
    let session_env = if pin {
        vec![(RUN_VAR.to_owned(), dir.id())]
    } else {
        Vec::new()
    };
    Ok(DriveOptions {
        run: dir.id(),
        run_dir: dir.path().to_owned(),
        project: project.root().to_owned(),
        claude: claude_program(request)?,
        extra_args: request.claude_args.clone(),
        limits,
        backoff_scale,
        what,
        resume,
        session_env,
    })
}

pub(super) fn claude_program(request: &DriveRequest) -> Result<PathBuf, AppError> {
    match &request.claude {
        Some(path) => Ok(path.clone()),
        None => find_on_path(request.path_var.as_deref(), "claude").ok_or_else(|| {
            AppError::Usage(
                "no `claude` on PATH: install Claude Code or pass --claude PATH".to_owned(),
            )
        }),
    }
}
