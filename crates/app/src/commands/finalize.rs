//! `self-repair finalize`: write tasks and reports now (normally done by the hook when every
//! phase is done); with `--partial`, what is done so far.

use clap::Args;
use self_repair_engine::{Phase, settle};
use self_repair_store::{Project, RunDir};

use crate::app_error::AppError;
use crate::command_env::CommandEnv;
use crate::commands::RunArg;
use crate::output::Output;
use crate::run::finalize::{finalize_run, read_findings, write_reports};
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
        finalize(&project, &dir, env.now)?
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

/// `self-repair finalize`: write tasks and reports now if every phase is done; on a complete
/// run, rewrite the reports.
pub fn finalize(project: &Project, dir: &RunDir, now: u64) -> Result<String, AppError> {
    let _lock = dir.lock()?;
    let mut state = dir.load_state()?;
    let items_before = state.items.len();
    dir.fold(&mut state)?;
    settle(&mut state);
    match state.phase {
        Phase::Finalize => {
            finalize_run(project.root(), dir, &mut state, now)?;
            dir.save_state(&state, items_before)?;
            Ok(crate::run::proposals::with_next_steps(
                dir,
                &state,
                &self_repair_engine::summary(&state),
            ))
        }
        Phase::Complete => {
            write_reports(project.root(), dir, &state, &read_findings(dir)?)?;
            Ok(format!("run {} was complete; reports rewritten", state.run))
        }
        phase => Err(AppError::Usage(format!(
            "run {} is in phase {}: finalize runs when every phase is done (`self-repair status`); \
             `self-repair finalize --partial --run {}` writes what it has done so far",
            state.run,
            phase.as_str(),
            state.run
        ))),
    }
}
