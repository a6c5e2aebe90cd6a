//! `self-repair fix`: works through a triage run's tasks one at a time, each a repair run whose
//! check is `self-repair verify-task` (reference/fix.md). This is the command: which tasks, the
//! queue it makes, and its first task started; the queue's engine, which every later step
//! shares (the Stop hook, `tick`, `drive`, `status`), is `run::fix_queue`.

pub mod apply_fixes;
pub mod pull_requests;
pub mod verify_task;

use std::path::PathBuf;

use clap::Args;
use self_repair_engine::{FindingRecord, RunState};
use self_repair_fix::{FIX_QUEUE_SCHEMA_VERSION, FixQueue, FixStatus, QueuedTask, TaskTarget};
use self_repair_repair::RepairEnv;
use self_repair_store::{Project, RunDir, write_json};

use crate::app_error::AppError;
use crate::command_env::CommandEnv;
use crate::output::Output;
use crate::run::finalize::read_findings;
use crate::run::fix_queue::{advance, queue_path, read_queue, settle_running, task_file_done};
use crate::run::handle::RunHandle;
use crate::run::load::{latest_triage_run, load_folded};

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
    /// Print the queue as JSON: its run, each task and its status.
    #[arg(long)]
    pub json: bool,
}

/// Runs `fix`: exit 0 while a task's repair run goes on or once every task is fixed, 6 when
/// the queue ended with a task not fixed.
pub fn run(env: &CommandEnv, args: FixArgs) -> Result<Output, AppError> {
    let exe = env.exe.clone().ok_or_else(|| {
        AppError::Usage(
            "cannot find the self-repair binary: the operating system did not say".to_owned(),
        )
    })?;
    let request = FixRequest {
        tasks: args.tasks,
        run: args.run,
        test: test_words(args.test),
        detector: args.detector,
        commit: args.commit,
        allow_config: args.allow_config,
        tiers: args.tiers,
        max_attempts: args.max_attempts,
        exe,
    };
    let json = args.json;
    let reply = fix(env, &request)?;
    if json {
        return Ok(Output {
            status: Output::gave_up_unless("", !reply.gave_up).status,
            ..fix_json(&reply)?
        });
    }
    Ok(Output::gave_up_unless(reply.text, !reply.gave_up))
}

/// `fix --json`: the queue as written in the run folder (every task and its status), whether a
/// task gave up, and the text `fix` prints.
fn fix_json(reply: &FixReply) -> Result<Output, AppError> {
    let value = serde_json::json!({
        "schema_version": 1,
        "queue": reply.queue,
        "gave_up": reply.gave_up,
        "text": reply.text,
    });
    Output::json_or(true, &value, |_| String::new())
}

/// `--test CMD`: its words, split at spaces (no shell); nothing for an empty command.
pub(crate) fn test_words(test: Option<String>) -> Option<Vec<String>> {
    test.map(|t| t.split_whitespace().map(str::to_owned).collect::<Vec<_>>())
        .filter(|words| !words.is_empty())
}

/// What `fix` was asked.
#[derive(Debug, Clone, Default)]
pub struct FixRequest {
    /// Task ids; empty: every task of the run not already fixed.
    pub tasks: Vec<String>,
    pub run: Option<String>,
    pub test: Option<Vec<String>>,
    pub detector: Option<String>,
    pub commit: bool,
    pub allow_config: bool,
    pub tiers: Option<String>,
    pub max_attempts: Option<u32>,
    /// This binary, for the check's argv.
    pub exe: PathBuf,
}

/// What `fix` printed, and whether a task gave up with nothing left to run (exit 6).
#[derive(Debug, Clone)]
pub struct FixReply {
    pub text: String,
    pub gave_up: bool,
    /// The queue after this call (`fix --json`); `None` when there was nothing to fix.
    pub queue: Option<FixQueue>,
}

/// Makes the queue of the chosen tasks and starts the first (and the next, while one ends at
/// once: an autofix that passes, a task already fixed).
pub fn fix(env: &CommandEnv, request: &FixRequest) -> Result<FixReply, AppError> {
    let project = env.find_project()?;
    let dir = run_to_fix(&project, request)?;
    let state = load_folded(&dir, false)?;
    let findings = read_findings(&dir)?;
    let mut settled = Vec::new();
    settle_running(&project, &dir, &mut settled)?;
    let earlier = read_queue(&dir)?;
    let chosen = tasks_to_fix(&project, &state, &findings, earlier.as_ref(), request)?;
    if chosen.is_empty() {
        return Ok(FixReply {
            text: nothing_to_fix(&state.run, earlier.as_ref()),
            gave_up: false,
            queue: None,
        });
    }
    let queue = new_queue(&state, earlier, &chosen, request);
    write_json(&queue_path(&dir), &queue)?;
    let repair_env = RepairEnv {
        now: env.now,
        session: env.session.clone(),
        user_install: env.user_install_root(),
    };
    let mut lines = settled;
    lines.push(format!(
        "self-repair fix, run {}: {} task(s) in order: {}",
        queue.run,
        chosen.len(),
        chosen.join(", ")
    ));
    let gave_up = advance(&project, &repair_env, &dir, &mut lines)?;
    Ok(FixReply {
        text: lines.join("\n") + "\n",
        gave_up,
        queue: read_queue(&dir)?,
    })
}

/// The triage run `fix` works on (`--run`, else the latest), refused while a run is still in
/// progress or when it is a repair run.
fn run_to_fix(project: &Project, request: &FixRequest) -> Result<RunDir, AppError> {
    if let Some((dir, progress)) = crate::run::in_progress::run_in_progress(project) {
        return Err(AppError::RunInProgress(format!(
            "run {} is still in progress ({progress}): let it finish, or `self-repair cancel --run {}`, then run `self-repair fix` again",
            dir.id(),
            dir.id()
        )));
    }
    let dir = match &request.run {
        Some(id) => project.run(id)?,
        None => latest_triage_run(project)?,
    };
    match RunHandle::open(dir) {
        RunHandle::Triage(dir) => Ok(dir),
        RunHandle::Repair(dir) => Err(AppError::Usage(format!(
            "run {} is a repair run: `fix` takes a triage run (`self-repair runs` lists them)",
            dir.id()
        ))),
    }
}

/// `fix` with nothing to do: why, and the not-reproduced tasks it left (naming one tries it
/// again, once the detectors report its findings).
fn nothing_to_fix(run: &str, earlier: Option<&FixQueue>) -> String {
    let left: Vec<&str> = earlier
        .into_iter()
        .flat_map(|q| &q.tasks)
        .filter(|t| t.status == FixStatus::NotReproduced)
        .map(|t| t.task_id.as_str())
        .collect();
    if left.is_empty() {
        return format!("run {run}: no open task to fix (every task is fixed or Done)\n");
    }
    format!(
        "run {run}: no open task to fix: every task is fixed or Done but {} not reproduced by the detectors ({}); once they report a task's findings again (reference/fix.md), name it: `self-repair fix {}`\n",
        left.len(),
        left.join(", "),
        left[0]
    )
}

/// The tasks named, else every task not yet fixed nor Done nor found not reproduced, in order.
fn tasks_to_fix(
    project: &Project,
    state: &RunState,
    findings: &[FindingRecord],
    earlier: Option<&FixQueue>,
    request: &FixRequest,
) -> Result<Vec<String>, AppError> {
    if !request.tasks.is_empty() {
        return request
            .tasks
            .iter()
            .map(|id| Ok(TaskTarget::find(state, findings, id)?.task.task_id))
            .collect();
    }
    let fixed = |id: &str| {
        earlier.is_some_and(|q| {
            q.tasks.iter().any(|t| {
                t.task_id == id && matches!(t.status, FixStatus::Fixed | FixStatus::NotReproduced)
            })
        })
    };
    Ok(state
        .tasks
        .iter()
        .filter(|task| !fixed(&task.task_id) && !task_file_done(project.root(), &task.file))
        .map(|task| task.task_id.clone())
        .collect())
}

/// The queue for this `fix`: the earlier queue's settled tasks, then the chosen ones, open.
fn new_queue(
    state: &RunState,
    earlier: Option<FixQueue>,
    chosen: &[String],
    request: &FixRequest,
) -> FixQueue {
    let mut tasks: Vec<QueuedTask> = earlier
        .map(|q| q.tasks)
        .unwrap_or_default()
        .into_iter()
        .filter(|t| !chosen.contains(&t.task_id) && t.status != FixStatus::Open)
        .collect();
    tasks.extend(
        chosen
            .iter()
            .filter_map(|id| state.tasks.iter().find(|t| &t.task_id == id))
            .map(|t| QueuedTask {
                task_id: t.task_id.clone(),
                title: t.title.clone(),
                file: t.file.clone(),
                status: FixStatus::Open,
                repair_run: None,
                base: None,
                handoff: None,
                commit: None,
                reason: None,
            }),
    );
    FixQueue {
        schema_version: FIX_QUEUE_SCHEMA_VERSION,
        run: state.run.clone(),
        self_repair: request.exe.display().to_string(),
        test: request.test.clone(),
        detector: request.detector.clone(),
        commit: request.commit,
        allow_config: request.allow_config,
        tiers: request.tiers.clone(),
        max_attempts: request.max_attempts,
        tasks,
        asked: chosen.to_vec(),
    }
}
