//! `pause`, `resume`, `cancel`, `adopt`: commands that steer a run.

use clap::Args;
use self_repair_engine::Event;

use crate::app_error::AppError;
use crate::command_env::CommandEnv;
use crate::commands::RunArg;
use crate::output::Output;
use crate::run::handle::RunHandle;
use crate::run::steering::steer;

/// `self-repair pause` and `self-repair cancel`.
#[derive(Debug, Args)]
pub struct SteerArgs {
    #[command(flatten)]
    pub run: RunArg,
}

/// `self-repair resume`.
#[derive(Debug, Args)]
pub struct ResumeArgs {
    #[command(flatten)]
    pub run: RunArg,
    /// A new budget in dollars for the whole run (a run paused at its budget, or waiting
    /// for your go, goes on).
    #[arg(
        long,
        value_name = "USD",
        allow_negative_numbers = true,
        value_parser = crate::commands::dollars_above_zero
    )]
    pub budget: Option<f64>,
    /// The user's go for a run that waits on its estimate (above `confirm_above_usd`); with
    /// `--budget USD`, the go with that cap.
    #[arg(long)]
    pub confirm: bool,
}

/// `self-repair adopt`.
#[derive(Debug, Args)]
pub struct AdoptArgs {
    /// Session id (default: `CLAUDE_CODE_SESSION_ID`).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    #[command(flatten)]
    pub run: RunArg,
}

/// Runs `pause`.
pub fn pause(env: &CommandEnv, args: &SteerArgs) -> Result<Output, AppError> {
    steer_run(env, &args.run, Event::Pause).map(Output::text)
}

/// Runs `cancel`: a repair run is cancelled its own way.
pub fn cancel(env: &CommandEnv, args: &SteerArgs) -> Result<Output, AppError> {
    steer_run(env, &args.run, Event::Cancel).map(Output::text)
}

/// Runs `resume`: with `--budget`, the run's new cap first; with `--confirm`, the user's go.
pub fn resume(env: &CommandEnv, args: &ResumeArgs) -> Result<Output, AppError> {
    let Some(usd) = args.budget else {
        let event = if args.confirm {
            Event::Confirm
        } else {
            Event::Resume
        };
        return steer_run(env, &args.run, event).map(Output::text);
    };
    if !(usd.is_finite() && usd > 0.0) {
        return Err(AppError::Usage(format!(
            "--budget {usd}: give the dollars the whole run may spend, above 0"
        )));
    }
    let capped = steer_run(env, &args.run, Event::Budget { usd })?;
    if !args.confirm {
        return Ok(Output::text(capped));
    }
    steer_run(env, &args.run, Event::Confirm).map(Output::text)
}

/// Runs `adopt`: binds the run to this session (or `--session`).
pub fn adopt(env: &CommandEnv, args: AdoptArgs) -> Result<Output, AppError> {
    let session = args.session.or_else(|| env.session.clone()).ok_or_else(|| {
        AppError::Usage(
            "adopt needs the session: run it inside Claude Code (which sets CLAUDE_CODE_SESSION_ID) or pass --session ID"
                .to_owned(),
        )
    })?;
    let (project, handle) = args.run.open(env)?;
    match handle {
        // A repair run (`check`, a task of `fix`) is bound its own way.
        RunHandle::Repair(dir) => {
            self_repair_repair::adopt_repair(&project, dir, env.now, &session)
                .map(Output::text)
                .map_err(AppError::from)
        }
        RunHandle::Triage(dir) => steer(&dir, Event::Adopt { session }, env.now).map(Output::text),
    }
}

fn steer_run(env: &CommandEnv, run: &RunArg, event: Event) -> Result<String, AppError> {
    let (project, handle) = run.open(env)?;
    match handle {
        RunHandle::Repair(dir) if event == Event::Cancel => {
            self_repair_repair::cancel_repair(&project, dir, env.now).map_err(AppError::from)
        }
        handle => steer(&handle.triage("this command")?, event, env.now),
    }
}
