//! `self-repair finalize`: write tasks and reports now (normally done by the hook when every
//! phase is done); with `--partial`, what is done so far.

use clap::Args;
use self_repair_engine::Phase;
use self_repair_store::{Project, RunDir};

use crate::app_error::AppError;
use crate::command_env::CommandEnv;
use crate::commands::RunArg;
use crate::output::Output;
use crate::run::load::load_folded;

/// `self-repair finalize`.
#[derive(Debug, Args)]
pub struct FinalizeArgs {
    #[command(flatten)]
    pub run: RunArg,
    /// Write what is done so far (tasks of finished groups, reports with the verdicts so
    /// far) and leave the run as it is (a run paused at its budget).
    #[arg(long)]
    pub partial: bool,
}

/// Runs `finalize`.
pub fn run(env: &CommandEnv, args: &FinalizeArgs) -> Result<Output, AppError> {
    let (project, dir) = args.run.open_triage(env, "`finalize`")?;
    let text = if args.partial {
        finalize_partial(&project, &dir, env.now)?
    } else {
        crate::run::finalize::finalize_now(&project, &dir, env.now)?
    };
    Ok(Output::text(text))
}

/// `self-repair finalize --partial`: what the run has produced so far, the run left as it is.
pub fn finalize_partial(project: &Project, dir: &RunDir, now: u64) -> Result<String, AppError> {
    let state = load_folded(dir, true)?;
    if state.phase == Phase::Complete {
        return Err(AppError::Usage(format!(
            "run {} is complete: `self-repair finalize` (without --partial) rewrites its reports",
            state.run
        )));
    }
    crate::run::finalize::finalize_partial(project.root(), dir, &state, now)
}
