//! `pause`, `resume`, `cancel`, `adopt`: commands that steer a run.

use clap::Args;
use self_repair_engine::{Event, JournalEntry};
use self_repair_store::RunDir;

use crate::app_error::AppError;
use crate::command_env::CommandEnv;
use crate::commands::{RunArg, triage_only};
use crate::output::Output;

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
    #[arg(long, value_name = "USD")]
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
    steer_run(env, &args.run, Event::Adopt { session }).map(Output::text)
}

fn steer_run(env: &CommandEnv, run: &RunArg, event: Event) -> Result<String, AppError> {
    let (project, dir) = run.open(env)?;
    if self_repair_repair::is_repair_run(&dir) && event == Event::Cancel {
        return self_repair_repair::cancel_repair(&project, dir, env.now).map_err(AppError::from);
    }
    triage_only(&dir, "this command")?;
    steer(&dir, event, env.now)
}

/// Applies a steering event under the lock and saves; returns what changed, in words.
pub fn steer(dir: &RunDir, event: Event, now: u64) -> Result<String, AppError> {
    let _lock = dir.lock()?;
    let mut state = dir.load_state()?;
    let items_before = state.items.len();
    dir.fold(&mut state)?;
    let before = (state.status, state.session.clone());
    let name = match &event {
        Event::Pause => "pause",
        Event::Resume => "resume",
        Event::Confirm => "confirm",
        Event::Budget { .. } => "budget",
        Event::Cancel => "cancel",
        Event::Adopt { .. } => "adopt",
        _ => "event",
    };
    let outcome = dir.record(&mut state, &[JournalEntry { at: now, event }])?;
    dir.save_state(&state, items_before)?;
    let changed = outcome.iter().any(|o| o.changed);
    let run = &state.run;
    Ok(match (name, changed) {
        ("pause", true) => {
            format!("paused run {run}: the hook allows every stop until `self-repair resume`")
        }
        ("confirm", true) => format!(
            "run {run} confirmed: end your turn and the Stop hook dispatches its first agents"
        ),
        ("resume", false) if crate::run::confirm::waits_for_go(&state) => format!(
            "run {run} waits for the user's go on its estimate, not a plain resume: \
             `self-repair resume --confirm` starts it (`self-repair status` shows the estimate)"
        ),
        ("confirm", false) => format!(
            "run {run} is {} and waits for no go: nothing to confirm",
            before.0.as_str()
        ),
        ("resume", true) => {
            format!("resumed run {run}: end your turn and the Stop hook continues it")
        }
        ("cancel", true) => format!("cancelled run {run}: the hook will not drive it again"),
        ("budget", _) if crate::run::confirm::waits_for_go(&state) => format!(
            "run {run} may spend ${:.2} in all, and still waits for the user's go on its \
             estimate: `self-repair resume --confirm` starts it",
            state.config.budget_usd.unwrap_or(0.0)
        ),
        ("budget", _) => format!(
            "run {run} may spend ${:.2} in all ({}): end your turn and the Stop hook continues it",
            state.config.budget_usd.unwrap_or(0.0),
            state.status.as_str()
        ),
        ("adopt", _) => format!(
            "run {run} is now bound to session {}: end your turn and the Stop hook continues it{}",
            state.session.as_deref().unwrap_or("?"),
            if before.1.is_some() && before.1 != state.session {
                " (its previous session no longer drives it)"
            } else {
                ""
            }
        ),
        (_, false) => format!("run {run} is {}: nothing to {name}", before.0.as_str()),
        _ => format!("run {run}: {name} done"),
    })
}
