//! `self-repair verify-task`: the fix loop's composite check for one task of a triage run (the
//! analyzer re-run, the project's tests, the weakening guard), run by the repair engine as its
//! check command or by hand.

use std::collections::BTreeSet;

use self_repair_fix::{
    AnalyzerVerdict, TaskCheck, TaskTarget, find_weakenings, run_test_command, tree_changes,
};

use clap::Args;

use crate::app_error::AppError;
use crate::command_env::CommandEnv;
use crate::output::Output;
use crate::run::load::load_folded;
use crate::run::project_config::load_project_config;

use crate::run::detection::analyzer_findings;
use crate::run::finalize::read_findings;

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
pub fn run(env: &CommandEnv, args: VerifyTaskArgs) -> Result<Output, AppError> {
    let request = VerifyTaskRequest {
        task: args.task,
        run: args.run,
        detector: args.detector,
        test: crate::commands::fix::test_words(args.test),
        base: args.base,
        allow_config: args.allow_config,
    };
    let check = verify_task(env, &request)?;
    Ok(Output::gave_up_unless(check.render(), check.passed()))
}

/// What `verify-task` was asked.
#[derive(Debug, Clone, Default)]
pub struct VerifyTaskRequest {
    pub task: String,
    pub run: Option<String>,
    /// The detector to re-run (default: every detector of the config).
    pub detector: Option<String>,
    /// The test command as an argv (default: `checks.test.command` of the config).
    pub test: Option<Vec<String>>,
    /// The commit the fix started from (default `HEAD`).
    pub base: Option<String>,
    /// The group's decided fix is a configuration change: analyzer configuration and inline
    /// suppressions are the fix, not a weakening (test files still are).
    pub allow_config: bool,
}

/// Runs the composite check and returns its result (the caller prints `render()` and exits 6
/// when it did not pass).
pub fn verify_task(env: &CommandEnv, request: &VerifyTaskRequest) -> Result<TaskCheck, AppError> {
    let project = env.find_project()?;
    let root = project.root().to_path_buf();
    let dir = crate::run::load::task_run(&project, request.run.as_deref(), "verify-task")?;
    let state = load_folded(&dir, false)?;
    let findings = read_findings(&dir)?;
    let target = TaskTarget::find(&state, &findings, &request.task)?;
    let (current, detectors) = analyzer_findings(&project, request.detector.as_deref())?;
    let base = request.base.clone().unwrap_or_else(|| "HEAD".to_owned());
    let mut changed = tree_changes(&root, &base)?;
    // The findings file the run was started from is no change of the fix's, wherever it lies
    // (an untracked report in the project's root would count as a file the fix added).
    let inputs = crate::run::inputs::run_input_paths(Some(&dir));
    changed.retain(|c| !inputs.contains(&c.path));
    let touched: BTreeSet<String> = changed.iter().map(|c| c.path.clone()).collect();
    let analyzer = AnalyzerVerdict::judge(&target.findings, &findings, &current, &touched);
    let test_command = match &request.test {
        Some(command) => Some(command.clone()),
        None => load_project_config(&project.store_dir(), None)?
            .checks
            .get("test")
            .map(|c| c.command.clone())
            .filter(|c| !c.is_empty()),
    };
    let tests = test_command.map(|command| run_test_command(&root, &command));
    Ok(TaskCheck {
        task_id: target.task.task_id.clone(),
        title: target.task.title.clone(),
        task_file: target.task.file.clone(),
        detectors,
        analyzer,
        group_findings: target.findings.len(),
        tests,
        weakenings: find_weakenings(&changed, request.allow_config),
        files_changed: touched.into_iter().collect(),
    })
}
