//! Arguments of `verify-task` (the fix loop's composite check) and `apply-fixes` (its
//! autofix), and how their results are printed.

use clap::Args;
use self_repair_app::{
    AppError, CommandEnv, ExitStatus, VerifyTaskRequest, apply_fixes, verify_task,
};

/// `self-repair apply-fixes`.
#[derive(Debug, Args)]
pub struct ApplyFixesArgs {
    /// The task (`task-3`, `TASK-3` or `3`) of the triage run.
    pub task: String,
    /// The triage run (default: the latest one).
    #[arg(long, value_name = "ID")]
    pub run: Option<String>,
}

/// Runs `apply-fixes`: the report on stdout; exit 0 when every finding's fix applied, 6 when
/// one did not (the report says which and why).
pub fn run_apply_fixes(
    env: &CommandEnv,
    args: &ApplyFixesArgs,
) -> Result<(String, ExitStatus), AppError> {
    let applied = apply_fixes(env, &args.task, args.run.as_deref())?;
    let status = if applied.application.all_applied() {
        ExitStatus::Success
    } else {
        ExitStatus::GaveUp
    };
    Ok((applied.render(), status))
}

/// `self-repair verify-task`.
#[derive(Debug, Args)]
pub struct VerifyTaskArgs {
    /// The task (`task-3`, `TASK-3` or `3`) of the triage run.
    pub task: String,
    /// The triage run (default: the latest one).
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

/// `self-repair fix`.
#[derive(Debug, Args)]
pub struct FixArgs {
    /// Tasks to fix, in order (default: every task of the run not yet fixed or Done).
    pub tasks: Vec<String>,
    /// The triage run (default: the latest one).
    #[arg(long, value_name = "ID")]
    pub run: Option<String>,
    /// Every open task (the default when no task is named).
    #[arg(long, conflicts_with = "tasks")]
    pub all: bool,
    /// The test command, words separated by spaces, no shell (default: `checks.test.command`).
    #[arg(long, value_name = "CMD")]
    pub test: Option<String>,
    /// The detector of `.self-repair/config.json` to re-run (default: every detector).
    #[arg(long, value_name = "NAME")]
    pub detector: Option<String>,
    /// One commit per fixed task (`fix: TASK-N <title>`), never a push.
    #[arg(long)]
    pub commit: bool,
    /// The groups' decided fix is a configuration change (see `verify-task --allow-config`).
    #[arg(long)]
    pub allow_config: bool,
    /// Who makes attempts 1, 2, ... (default main,sonnet,opus).
    #[arg(long, value_name = "LIST")]
    pub tiers: Option<String>,
    /// Fix attempts per task before it is quarantined (default 5).
    #[arg(long, value_name = "N")]
    pub max_attempts: Option<u32>,
}

/// Runs `fix`: exit 0 while a task's repair run goes on or once every task is fixed, 6 when
/// the queue ended with a task not fixed.
pub fn run_fix(env: &CommandEnv, args: FixArgs) -> Result<(String, ExitStatus), AppError> {
    let exe = std::env::current_exe()
        .map_err(|e| AppError::Usage(format!("cannot find the self-repair binary: {e}")))?;
    let request = self_repair_app::FixRequest {
        tasks: args.tasks,
        run: args.run,
        test: args
            .test
            .map(|t| t.split_whitespace().map(str::to_owned).collect::<Vec<_>>())
            .filter(|words| !words.is_empty()),
        detector: args.detector,
        commit: args.commit,
        allow_config: args.allow_config,
        tiers: args.tiers,
        max_attempts: args.max_attempts,
        exe,
    };
    let reply = self_repair_app::fix(env, &request)?;
    let status = if reply.gave_up {
        ExitStatus::GaveUp
    } else {
        ExitStatus::Success
    };
    Ok((reply.text, status))
}
