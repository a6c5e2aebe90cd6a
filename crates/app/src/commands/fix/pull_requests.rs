//! `self-repair pull-requests`: after `fix --commit`, each task fixed and verified becomes its own
//! branch and draft pull request through `gh` (reference/fix.md, "A draft pull request per
//! task"). Running it again force-pushes the branches and edits the open pull requests; a task
//! not fixed opens nothing. The branch names, the bodies and the `gh` calls are
//! `self_repair_fix::TaskPullRequest`; this command reads the records and runs the calls.

use std::path::Path;
use std::time::Duration;

use clap::Args;
use self_repair_fix::{
    ClosedFinding, FixQueue, FixStatus, OpenPullRequest, PullRequestEvidence, QueuedTask,
    TaskPullRequest, TaskTarget, replay_task_commit,
};
use self_repair_process::{Captured, Git, ProcessRequest, SpawnError, run_process};
use self_repair_repair::shell_words;
use self_repair_store::{Project, RunDir};

use crate::app_error::AppError;
use crate::command_env::CommandEnv;
use crate::output::Output;
use crate::run::finalize::read_findings;
use crate::run::fix_queue::{files_and_tiers, read_queue, read_repair_state};
use crate::run::handle::RunHandle;
use crate::run::load::{latest_triage_run, load_folded};
use crate::run::project_config::load_project_config;

/// One `gh` or `git push` call may take this long (the network, GitHub's API).
const NETWORK_TIMEOUT: Duration = Duration::from_mins(2);

/// `self-repair pull-requests`.
#[derive(Debug, Args)]
pub struct PullRequestsArgs {
    /// The triage run whose fix queue to publish (default: the latest triage run).
    #[arg(long, value_name = "ID")]
    pub run: Option<String>,
    /// The branch the pull requests go into (default: the current branch's upstream, e.g.
    /// `main` for `origin/main`).
    #[arg(long, value_name = "BRANCH")]
    pub base: Option<String>,
    /// The remote the task branches are pushed to.
    #[arg(long, value_name = "NAME", default_value = "origin")]
    pub remote: String,
}

/// Runs `pull-requests`: exit 0 when every fixed task has its pull request, 6 when one could not
/// get one (its line says why), 4 when the run has no fix queue.
pub fn run(env: &CommandEnv, args: &PullRequestsArgs) -> Result<Output, AppError> {
    let project = env.find_project()?;
    let dir = match &args.run {
        Some(id) => project.run(id)?,
        None => latest_triage_run(&project)?,
    };
    let dir = match RunHandle::open(dir) {
        RunHandle::Triage(dir) => dir,
        RunHandle::Repair(dir) => {
            return Err(AppError::Usage(format!(
                "run {} is a repair run: `pull-requests` takes the triage run `fix` worked on (`self-repair runs` lists them)",
                dir.id()
            )));
        }
    };
    let queue = read_queue(&dir)?.ok_or_else(|| {
        AppError::NotFound(format!(
            "run {} has no fix queue: run `self-repair fix --commit` (and `self-repair drive`) first",
            dir.id()
        ))
    })?;
    let root = project.root();
    let base = match &args.base {
        Some(base) => base.clone(),
        None => upstream_branch(root, &args.remote)?,
    };
    let onto = base_commit(root, &args.remote, &base)?;
    let mut lines = vec![format!(
        "self-repair pull-requests, run {}: into {base} ({} on {})",
        queue.run,
        short(&onto),
        args.remote
    )];
    let mut failed = 0;
    for task in &queue.tasks {
        let line = match publish_task(&project, &dir, &queue, task, &base, &onto, &args.remote) {
            Ok(line) => line,
            Err(e) => {
                failed += 1;
                format!("{}: no pull request: {e}", task.task_id)
            }
        };
        lines.push(line);
    }
    let made = queue
        .tasks
        .iter()
        .filter(|t| t.status == FixStatus::Fixed)
        .count()
        - failed;
    lines.push(format!(
        "{made} pull request(s) for {} task(s) fixed of {}",
        made + failed,
        queue.tasks.len()
    ));
    Ok(Output::gave_up_unless(lines.join("\n") + "\n", failed == 0))
}

/// One task: nothing for a task not fixed; else its branch pushed and its pull request made or
/// updated. Returns the line to print; an error is a fixed task left without one.
fn publish_task(
    project: &Project,
    dir: &RunDir,
    queue: &FixQueue,
    task: &QueuedTask,
    base: &str,
    onto: &str,
    remote: &str,
) -> Result<String, AppError> {
    if task.status != FixStatus::Fixed {
        let status = task.status.as_str();
        let why = task
            .reason
            .as_deref()
            // The reason of a not-reproduced task starts with its status: say it once.
            .map(|r| {
                r.strip_prefix(&format!("{status}: "))
                    .unwrap_or(r)
                    .to_owned()
            })
            .or_else(|| task.handoff.as_ref().map(|h| format!("hand-off: {h}")))
            .map(|w| format!(" ({w})"))
            .unwrap_or_default();
        return Ok(format!(
            "{}: not fixed, no pull request: {status}{why}",
            task.task_id
        ));
    }
    let Some(commit) = &task.commit else {
        return Err(AppError::Usage(
            "fixed but not committed: a pull request needs the task's own commit; run `self-repair fix --commit` next time, or commit the fix by hand as `fix: TASK-N <title>`".to_owned(),
        ));
    };
    let evidence = task_evidence(project, dir, queue, task, commit)?;
    let pull_request = TaskPullRequest::new(&evidence, base);
    let root = project.root();
    let scratch = std::env::temp_dir().join(format!(
        "self-repair-pr-{}-{}",
        std::process::id(),
        pull_request.branch.replace('/', "-")
    ));
    let replayed = replay_task_commit(root, onto, commit, &task.file, &scratch)?;
    let refspec = format!("{replayed}:refs/heads/{}", pull_request.branch);
    Git::at(root)
        .within(NETWORK_TIMEOUT)
        .output(&["push", "--quiet", "--force", remote, &refspec])
        .map_err(|e| {
            AppError::Tool(format!(
                "{e}; the branch was not pushed (check that `{remote}` exists and the job may push: `permissions: contents: write`)"
            ))
        })?;
    let listed = gh(root, &pull_request.list_argv())?;
    let open = OpenPullRequest::from_pr_list(&listed)?;
    let written = gh(root, &pull_request.write_argv(open.as_ref()))?;
    Ok(match open {
        Some(open) => format!(
            "{}: pull request #{} updated ({}): {}",
            task.task_id, open.number, pull_request.branch, open.url
        ),
        None => format!(
            "{}: draft pull request opened ({}): {}",
            task.task_id,
            pull_request.branch,
            written.trim()
        ),
    })
}

/// What the task's pull request says, from the queue, the task file, the repair run's state
/// and the triage run's findings.
fn task_evidence(
    project: &Project,
    dir: &RunDir,
    queue: &FixQueue,
    task: &QueuedTask,
    commit: &str,
) -> Result<PullRequestEvidence, AppError> {
    let repair_id = task.repair_run.clone().ok_or_else(|| {
        AppError::NotFound(format!(
            "fix.json names no repair run for {}: run `self-repair doctor --run {}`",
            task.task_id, queue.run
        ))
    })?;
    let state = read_repair_state(&project.run(&repair_id)?)?;
    let triage = load_folded(dir, false)?;
    let findings = read_findings(dir)?;
    let target = TaskTarget::find(&triage, &findings, &task.task_id)?;
    let path = project.root().join(&task.file);
    let task_text = std::fs::read_to_string(&path).map_err(AppError::io("read task", &path))?;
    let (analyzer_commands, test_command) = verifying_commands(project, queue);
    let (files, tiers) = files_and_tiers(&state);
    let check_report = state
        .checks
        .iter()
        .rev()
        .find(|c| c.passed())
        .map(|c| c.tail.clone())
        .unwrap_or_default();
    Ok(PullRequestEvidence {
        run: queue.run.clone(),
        task_id: task.task_id.clone(),
        title: task.title.clone(),
        task_file: task.file.clone(),
        task_text,
        commit: commit.to_owned(),
        repair_run: repair_id,
        attempts: u32::try_from(state.attempts.len()).unwrap_or(u32::MAX),
        tiers,
        files_changed: files,
        autofix_command: state.spec.autofix.as_deref().map(typed),
        analyzer_commands,
        test_command,
        check_command: typed(&state.spec.command),
        check_report,
        findings: target
            .findings
            .iter()
            .map(|r| ClosedFinding {
                fingerprint: r.fingerprint.clone(),
                tool: r.finding.tool.clone(),
                rule: r.finding.rule_id.clone(),
                path: r.finding.path.clone(),
                line: r.finding.line,
                message: r.finding.message.clone(),
            })
            .collect(),
    })
}

/// The analyzers the check re-ran (the queue's detector, else every one) and its test command,
/// as typed.
fn verifying_commands(project: &Project, queue: &FixQueue) -> (Vec<String>, Option<String>) {
    let config = load_project_config(&project.store_dir(), None).ok();
    let analyzers = config
        .as_ref()
        .map(|c| {
            c.detectors
                .iter()
                .filter(|d| queue.detector.as_ref().is_none_or(|n| *n == d.name))
                .map(|d| shell_words(&d.argv))
                .collect()
        })
        .unwrap_or_default();
    let test = queue
        .test
        .clone()
        .or_else(|| {
            config
                .as_ref()?
                .checks
                .get("test")
                .map(|c| c.command.clone())
        })
        .filter(|c| !c.is_empty())
        .map(|c| shell_words(&c));
    (analyzers, test)
}

/// A command as people type it: this binary as `self-repair`, not its full path.
fn typed(argv: &[String]) -> String {
    let mut words = argv.to_vec();
    if let Some(first) = words.first_mut()
        && Path::new(first.as_str())
            .file_name()
            .and_then(|n| n.to_str())
            == Some("self-repair")
    {
        "self-repair".clone_into(first);
    }
    shell_words(&words)
}

/// The current branch's upstream on `remote` (`origin/main` gives `main`).
fn upstream_branch(root: &Path, remote: &str) -> Result<String, AppError> {
    let upstream = Git::at(root)
        .text(&["rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}"])
        .map_err(|e| {
            AppError::Usage(format!(
                "the current branch has no upstream to open pull requests into ({e}): pass `--base BRANCH`"
            ))
        })?;
    Ok(upstream
        .strip_prefix(&format!("{remote}/"))
        .unwrap_or(&upstream)
        .to_owned())
}

/// The commit the task branches start from: `remote/base` as last fetched, else a local `base`.
fn base_commit(root: &Path, remote: &str, base: &str) -> Result<String, AppError> {
    let git = Git::at(root);
    git.text(&["rev-parse", "--verify", &format!("{remote}/{base}^{{commit}}")])
        .or_else(|_| git.text(&["rev-parse", "--verify", &format!("{base}^{{commit}}")]))
        .map_err(|e| {
            AppError::Usage(format!(
                "cannot find the base branch {base} ({e}): `git fetch {remote} {base}`, or pass `--base BRANCH`"
            ))
        })
}

/// Runs `gh` in the project; its stdout when it exits 0.
fn gh(root: &Path, argv: &[String]) -> Result<String, AppError> {
    let what = argv.iter().take(3).cloned().collect::<Vec<_>>().join(" ");
    let outcome = run_process(&ProcessRequest {
        argv,
        cwd: root,
        stdin: None,
        timeout: Some(NETWORK_TIMEOUT),
        output: Captured::Separately,
    })
    .map_err(|e| match e {
        SpawnError::NotFound { .. } => AppError::Usage(
            "cannot run `gh`: install the GitHub CLI and log in (`gh auth login`; in GitHub Actions, `GH_TOKEN: ${{ github.token }}`)".to_owned(),
        ),
        other => AppError::Tool(format!("{other}")),
    })?;
    if outcome.timed_out {
        return Err(AppError::Tool(format!(
            "`{what}` gave no answer within {} s: check the network and `gh auth status`, then run again",
            NETWORK_TIMEOUT.as_secs()
        )));
    }
    if outcome.exit_code != 0 {
        return Err(AppError::Tool(format!(
            "`{what}` failed (exit {}): {}; check `gh auth status` (the token needs `pull-requests: write`), then run again",
            outcome.exit_code,
            outcome.stderr_text().trim()
        )));
    }
    Ok(outcome.stdout_text())
}

fn short(commit: &str) -> &str {
    commit.get(..7).unwrap_or(commit)
}
