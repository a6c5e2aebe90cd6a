//! `self-repair apply-fixes`: the fix loop's tool-agnostic autofix. The analyzer's own edits for
//! a task's findings (kept at `start`, reference/state-file.md) applied by self-repair to the
//! files, where they still hold the text each edit expects; `verify-task` then checks the result.

use self_repair_fix::{EditApplication, TaskTarget, apply_analyzer_edits};

use clap::Args;

use crate::app_error::AppError;
use crate::command_env::CommandEnv;
use crate::output::Output;
use crate::run::finalize::read_findings;
use crate::run::load::load_folded;

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
pub fn run(env: &CommandEnv, args: &ApplyFixesArgs) -> Result<Output, AppError> {
    let applied = apply_fixes(env, &args.task, args.run.as_deref())?;
    Ok(Output::gave_up_unless(
        applied.render(),
        applied.application.all_applied(),
    ))
}

/// What `apply-fixes` did, and for which task.
#[derive(Debug, Clone)]
pub struct AppliedFixes {
    pub task_id: String,
    pub title: String,
    pub application: EditApplication,
}

impl AppliedFixes {
    /// The report printed: a line per finding, the files written, the verdict line.
    pub fn render(&self) -> String {
        self.application.render(&self.task_id, &self.title)
    }
}

/// Applies the kept edits of the task's findings (`task` in the triage run `run`, default the
/// latest triage run).
pub fn apply_fixes(
    env: &CommandEnv,
    task: &str,
    run: Option<&str>,
) -> Result<AppliedFixes, AppError> {
    let project = env.find_project()?;
    let dir = crate::run::load::task_run(&project, run, "apply-fixes")?;
    let state = load_folded(&dir, false)?;
    let findings = read_findings(&dir)?;
    let target = TaskTarget::find(&state, &findings, task)?;
    Ok(AppliedFixes {
        application: apply_analyzer_edits(project.root(), &target.findings),
        task_id: target.task.task_id,
        title: target.task.title,
    })
}
