//! Arguments of `verify-task` (the fix loop's composite check), and how its result is printed.

use clap::Args;
use self_repair_app::{AppError, CommandEnv, ExitStatus, VerifyTaskRequest, verify_task};

/// `self-repair verify-task`.
#[derive(Debug, Args)]
pub struct VerifyTaskArgs {
    /// The task (`task-3`, `TASK-3` or `3`) of the triage run.
    pub task: String,
    /// The triage run (default: the active run).
    #[arg(long, value_name = "ID")]
    pub run: Option<String>,
    /// The detector of `.self-repair/config.json` to re-run (default: every detector).
    #[arg(long, value_name = "NAME")]
    pub detector: Option<String>,
    /// The test command, words separated by spaces, no shell (default: `checks.test.command`).
    #[arg(long, value_name = "CMD")]
    pub test: Option<String>,
    /// The commit the fix started from; changes since it are checked for weakening (default HEAD).
    #[arg(long, value_name = "COMMIT")]
    pub base: Option<String>,
    /// The group's decided fix is a configuration change: analyzer configuration and inline
    /// suppressions are not a weakening (test files still are).
    #[arg(long)]
    pub allow_config: bool,
}

/// Runs `verify-task`: the report on stdout; exit 0 when the task is fixed, 6 when not.
pub fn run_verify_task(
    env: &CommandEnv,
    args: VerifyTaskArgs,
) -> Result<(String, ExitStatus), AppError> {
    let request = VerifyTaskRequest {
        task: args.task,
        run: args.run,
        detector: args.detector,
        test: args
            .test
            .map(|t| t.split_whitespace().map(str::to_owned).collect::<Vec<_>>())
            .filter(|words| !words.is_empty()),
        base: args.base,
        allow_config: args.allow_config,
    };
    let check = verify_task(env, &request)?;
    let status = if check.passed() {
        ExitStatus::Success
    } else {
        ExitStatus::GaveUp
    };
    Ok((check.render(), status))
}
