//! `self-repair apply-fixes`: the fix loop's tool-agnostic autofix. The analyzer's own edits for
//! a task's findings (kept at `start`, reference/state-file.md) applied by self-repair to the
//! files, where they still hold the text each edit expects; `verify-task` then checks the result.
//! It rewrites files only in a git work tree with a commit (how the user sees and undoes the
//! change); `--dry-run` prints the diff and writes nothing, anywhere.

use self_repair_fix::{
    EditApplication, EditPreview, TaskTarget, apply_analyzer_edits, preview_analyzer_edits,
};
use self_repair_process::Git;

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
    /// Print the diff the fixes would make; write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// Runs `apply-fixes`: the report on stdout; exit 0 when every finding's fix applied (or would,
/// with `--dry-run`), 6 when one did not (the report says which and why). Outside a git work
/// tree with a commit: refused, exit 2, nothing written (`--dry-run` works anywhere).
pub fn run(env: &CommandEnv, args: &ApplyFixesArgs) -> Result<Output, AppError> {
    if args.dry_run {
        let (preview, task_id, title) = preview_fixes(env, &args.task, args.run.as_deref())?;
        return Ok(Output::gave_up_unless(
            preview.render(&task_id, &title),
            preview.application.all_applied(),
        ));
    }
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
/// latest triage run); refused outside a git work tree with a commit.
pub fn apply_fixes(
    env: &CommandEnv,
    task: &str,
    run: Option<&str>,
) -> Result<AppliedFixes, AppError> {
    let project = env.find_project()?;
    if Git::at(project.root())
        .text(&["rev-parse", "--verify", "HEAD"])
        .is_err()
    {
        let run = run.map(|r| format!(" --run {r}")).unwrap_or_default();
        return Err(crate::run::fix_queue::needs_git(
            "apply-fixes",
            "it rewrites the task's files, and git is how you see and undo what it changed",
            Some(&format!(
                "`self-repair apply-fixes {task}{run} --dry-run` prints the diff and writes nothing"
            )),
        ));
    }
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

/// What [`apply_fixes`] would do to the task's files, writing nothing; with the task's id and
/// title.
pub fn preview_fixes(
    env: &CommandEnv,
    task: &str,
    run: Option<&str>,
) -> Result<(EditPreview, String, String), AppError> {
    let project = env.find_project()?;
    let dir = crate::run::load::task_run(&project, run, "apply-fixes")?;
    let state = load_folded(&dir, false)?;
    let findings = read_findings(&dir)?;
    let target = TaskTarget::find(&state, &findings, task)?;
    Ok((
        preview_analyzer_edits(project.root(), &target.findings),
        target.task.task_id,
        target.task.title,
    ))
}
