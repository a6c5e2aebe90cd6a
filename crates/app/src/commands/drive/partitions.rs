//! `drive --partitions N`: one run split into N shares on one machine, their sessions driven at
//! once, then merged and driven on (design note 56). Each share is a run of its own in the same
//! project (`<run>.p<K>of<N>`, `start --partition hash:K/N --until triage` of the run's input,
//! read again from its `start.json`); each session is started with `SELF_REPAIR_RUN=<share>`,
//! so its hooks and commands work on that share while the project's active run stays the one
//! split. The shares' runs, locks and journals are their own: nothing is shared but the code
//! they read. The merge (`self-repair merge`, with `--replace`) cancels the run split and makes
//! the merged run (`<run>.merged`) active; `drive` then drives it as any run.

use std::sync::mpsc;
use std::time::Instant;

use self_repair_drive::{DriveOutcome, DriveReport};
use self_repair_engine::{Event, ItemStatus, PauseReason, Phase, RunState, RunStatus};
use self_repair_store::{Project, RunDir};

use super::sessions::{DriveRequest, StoreProbe, checked_limits, drive_options, exit_status};
use crate::app_error::{AppError, ExitStatus};
use crate::command_env::CommandEnv;
use crate::commands::merge::{MergeArgs, merge};
use crate::commands::start::start;
use crate::run::load::load_folded;
use crate::run::partitions::{PLAN, SplitPlan, merged_id, read_plan, share_id};
use crate::run::steering::steer;

/// The most partitions one machine drives at once: each is a client with up to 20 agents.
const MOST: u32 = 16;

/// How many partitions to drive the run in `dir` as: the recorded split's, else `--partitions`;
/// `None` for one session at a time.
pub(super) fn partitions_of(request: &DriveRequest, dir: &RunDir) -> Result<Option<u32>, AppError> {
    if let Some(plan) = read_plan(dir)? {
        let n = plan.shares.len() as u32;
        if let Some(asked) = request.partitions
            && asked != n
        {
            return Err(AppError::Usage(format!(
                "run {} is already split into {n} partitions ({}); drive it with --partitions {n} \
                 (or without --partitions)",
                dir.id(),
                plan.shares.join(", ")
            )));
        }
        return Ok(Some(n));
    }
    match request.partitions {
        None => Ok(None),
        Some(n) if (2..=MOST).contains(&n) => Ok(Some(n)),
        Some(1) => Err(AppError::Usage(
            "--partitions 1: drive without --partitions drives the run one session at a time"
                .to_owned(),
        )),
        Some(n) => Err(AppError::Usage(format!(
            "--partitions {n}: give 2 to {MOST} (each partition is a Claude Code session with up \
             to 20 agents of its own)"
        ))),
    }
}

/// How driving a run's partitions ended.
pub(super) enum Partitioned {
    /// Before the merge: a share did not finish, or the budget is spent.
    Ended(String, ExitStatus),
    /// The shares are merged: `drive` goes on with this request, for the merged run.
    DriveMerged(DriveRequest),
}

/// The request that drives the merged run `merged` with what is left of the budget.
fn merged_request(request: &DriveRequest, merged: String, budget: Option<f64>) -> DriveRequest {
    let mut rest = request.clone();
    rest.run = Some(merged);
    rest.partitions = None;
    rest.budget = budget;
    rest
}

/// Drives the run in `dir` as `n` partitions: splits it (unless a first `drive` did), drives
/// the shares' sessions at once and merges them; the merged run is left to `drive`.
pub(super) fn drive_partitions(
    env: &CommandEnv,
    request: &DriveRequest,
    project: &Project,
    dir: &RunDir,
    n: u32,
    progress: &mut dyn FnMut(&str),
) -> Result<Partitioned, AppError> {
    // `drive RUN` on a split merged already (a `drive` stopped after the merge): its merged run.
    let merged = merged_id(dir);
    if project.run(&merged).is_ok() {
        return Ok(Partitioned::DriveMerged(merged_request(
            request,
            merged,
            request.budget,
        )));
    }
    // One `drive` of the split at a time: two would start each share's sessions twice.
    let lock = self_repair_drive::lock_run(dir.path())?;
    let shares = if let Some(plan) = read_plan(dir)? {
        plan.shares
            .iter()
            .map(|id| project.run(id).map_err(AppError::from))
            .collect::<Result<Vec<_>, _>>()?
    } else {
        let shares = split(env, project, dir, n)?;
        progress(&format!(
            "drive: run {} split into {n} partitions: {}",
            dir.id(),
            shares.iter().map(RunDir::id).collect::<Vec<_>>().join(", ")
        ));
        shares
    };
    let started = Instant::now();
    let reports = drive_shares(env, request, project, &shares, progress)?;
    if let Some(ended) = unfinished(dir, n, &shares, &reports) {
        return Ok(ended);
    }
    let spent: f64 = reports.iter().map(|r| r.spent_usd).sum();
    let merged = merge_shares(env, project, dir, &shares)?;
    progress(&format!(
        "drive: the {n} shares are triaged in {:.0} s; merged into run {merged}",
        started.elapsed().as_secs_f64()
    ));
    drop(lock);
    let budget = request.budget.map(|b| b - spent);
    if budget.is_some_and(|left| left <= 0.0) {
        return Ok(Partitioned::Ended(
            format!(
                "the {n} shares spent ${spent:.2} of --budget ${:.2}: run {merged} is made and \
                 waits; `self-repair drive --budget USD` drives it with what you allow it",
                request.budget.unwrap_or_default()
            ),
            ExitStatus::LimitReached,
        ));
    }
    Ok(Partitioned::DriveMerged(merged_request(
        request, merged, budget,
    )))
}

/// The end of a `drive --partitions` some of whose shares did not finish triage, naming each;
/// `None` when every share finished.
fn unfinished(
    dir: &RunDir,
    n: u32,
    shares: &[RunDir],
    reports: &[DriveReport],
) -> Option<Partitioned> {
    let unfinished: Vec<String> = shares
        .iter()
        .zip(reports)
        .filter(|(_, r)| {
            r.outcome
                != DriveOutcome::Finished {
                    status: "complete".to_owned(),
                }
        })
        .map(|(share, r)| format!("{}: {}", share.id(), r.message.lines().next().unwrap_or("")))
        .collect();
    if unfinished.is_empty() {
        return None;
    }
    let status = reports
        .iter()
        .map(|r| exit_status(&r.outcome))
        .find(|s| *s != ExitStatus::Success)
        // Every share ended as its user left it (a share cancelled): their decision.
        .unwrap_or(ExitStatus::LimitReached);
    Some(Partitioned::Ended(
        format!(
            "run {} is split into {n} partitions and {} of them did not finish triage:\n  {}\n\
             `self-repair drive` goes on with them (`self-repair status --run SHARE` shows \
             each); nothing is merged until every share is triaged",
            dir.id(),
            unfinished.len(),
            unfinished.join("\n  ")
        ),
        status,
    ))
}

/// Drives every share's sessions at once, one thread each; returns their reports in order.
fn drive_shares(
    env: &CommandEnv,
    request: &DriveRequest,
    project: &Project,
    shares: &[RunDir],
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<DriveReport>, AppError> {
    let n = shares.len() as u32;
    let mut share_request = request.clone();
    share_request.budget = request.budget.map(|b| b / f64::from(n));
    let limits = checked_limits(&share_request, env.now)?;
    let mut options = Vec::with_capacity(shares.len());
    for (k, share) in shares.iter().enumerate() {
        options.push(drive_options(
            &share_request,
            project,
            share,
            limits,
            format!("share {}/{n}, run {}", k + 1, share.id()),
            format!("self-repair resume --run {}", share.id()),
            true,
        )?);
    }
    // The shares' drivers send their lines here; this thread prints them as they come.
    let (sender, lines) = mpsc::channel::<String>();
    let results = std::thread::scope(|scope| {
        let handles: Vec<_> = shares
            .iter()
            .zip(&options)
            .enumerate()
            .map(|(k, (share, options))| {
                let sender = sender.clone();
                let mut probe = StoreProbe {
                    project: project.clone(),
                    dir: share.clone(),
                };
                scope.spawn(move || {
                    let mut report = |line: &str| {
                        // The receiver outlives every driver: a failed send loses one line.
                        let _ = sender.send(format!("share {}/{n}: {line}", k + 1));
                    };
                    self_repair_drive::drive(options, &mut probe, &mut report)
                })
            })
            .collect();
        drop(sender);
        for line in lines {
            progress(&line);
        }
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(self_repair_drive::DriveError::Run(
                        "a share's driver stopped on a panic".to_owned(),
                    ))
                })
            })
            .collect::<Vec<_>>()
    });
    results
        .into_iter()
        .map(|r| r.map_err(AppError::from))
        .collect()
}

/// Splits the run in `dir` into `n` shares: `start` again on its input with `--partition
/// hash:K/N --until triage`, each share bound to no session and not made active; records the
/// split in `partitions.json`. Nothing is left behind when a share cannot be made.
fn split(
    env: &CommandEnv,
    project: &Project,
    dir: &RunDir,
    n: u32,
) -> Result<Vec<RunDir>, AppError> {
    let state = load_folded(dir, false)?;
    refuse_unless_untouched(&state)?;
    let recipe = crate::run::start_recipe::read(dir)?;
    let mut base = recipe.options(dir)?;
    base.until = Some(Phase::Triage);
    base.detached = true;
    base.budget_usd = state.config.budget_usd.map(|b| b / f64::from(n));
    let share_env = CommandEnv {
        cwd: recipe.cwd().to_path_buf(),
        session: None,
        pinned_run: None,
        project: Some(project.root().to_path_buf()),
        ..env.clone()
    };
    let mut made: Vec<RunDir> = Vec::new();
    let mut unique = 0;
    for k in 1..=n {
        let mut options = base.clone();
        options.run_id = Some(share_id(&state.run, k, n));
        options.scope.partition = Some(format!("hash:{k}/{n}"));
        let report = match start(&share_env, &options) {
            Ok(report) => report,
            Err(e) => {
                remove_runs(&made);
                return Err(e);
            }
        };
        unique += report.intake.unique;
        let share = project.run(&report.run)?;
        made.push(share.clone());
        if report.intake.findings != state.intake.findings {
            remove_runs(&made);
            return Err(input_changed(&state, report.intake.findings));
        }
        // The go given for the run split is the go for its shares.
        if report.estimate.waits_for_go {
            steer(&share, Event::Confirm, env.now)?;
        }
    }
    if unique != state.intake.unique {
        remove_runs(&made);
        return Err(AppError::Usage(format!(
            "run {}: its input read again holds {unique} distinct findings in scope, not {}: the \
             input files or the code changed since it started; start it again (`self-repair start \
             FILE... --replace`), then drive it with --partitions",
            state.run, state.intake.unique
        )));
    }
    let plan = SplitPlan {
        schema_version: 1,
        shares: made.iter().map(RunDir::id).collect(),
    };
    let path = dir.path().join(PLAN);
    let text = serde_json::to_string_pretty(&plan).map_err(|e| AppError::Usage(e.to_string()))?;
    self_repair_store::write_atomic(&path, format!("{text}\n").as_bytes())?;
    Ok(made)
}

fn input_changed(state: &RunState, now: u32) -> AppError {
    AppError::Usage(format!(
        "run {}: its input read again holds {now} findings, not {}: the input files changed since \
         it started; start it again (`self-repair start FILE... --replace`), then drive it with \
         --partitions",
        state.run, state.intake.findings
    ))
}

/// A share that could not be finished is removed with the others: the split is all or nothing.
fn remove_runs(made: &[RunDir]) {
    for dir in made {
        // Best effort: a folder left behind is named in no plan and only listed by `runs`.
        let _ = std::fs::remove_dir_all(dir.path());
    }
}

/// A run is split before its first dispatch only: work already done would be done again.
fn refuse_unless_untouched(state: &RunState) -> Result<(), AppError> {
    let why = if matches!(state.status, RunStatus::Complete | RunStatus::Cancelled) {
        Some(format!("it is {}", state.status.as_str()))
    } else if state.scope.as_ref().is_some_and(|s| s.partition.is_some()) {
        Some("it is a partition already".to_owned())
    } else if state.until.is_some() {
        Some("it ends after triage (`--until triage`): it is a CI job's share".to_owned())
    } else if state.phase != Phase::Triage {
        Some(format!(
            "it is past triage (phase {})",
            state.phase.as_str()
        ))
    } else {
        let started = state
            .items
            .iter()
            .filter(|i| i.status != ItemStatus::Pending || i.attempts > 0)
            .count();
        (started > 0).then(|| format!("{started} of its items were dispatched already"))
    };
    let paused_by_user = state.status == RunStatus::Paused
        && matches!(
            state.pause,
            Some(PauseReason::User | PauseReason::Refused { .. })
        );
    let why = why.or_else(|| {
        paused_by_user.then(|| "you paused it (`self-repair resume` first)".to_owned())
    });
    match why {
        None => Ok(()),
        Some(why) => Err(AppError::Usage(format!(
            "run {} cannot be split into partitions: {why}. `drive --partitions N` splits a run \
             before its first dispatch; drive this one without --partitions, or start a new run \
             (`self-repair start FILE... --replace`) and drive that with --partitions N",
            state.run
        ))),
    }
}

/// Merges the finished shares into `<run>.merged`, cancelling the run split (it is the active
/// run in progress: `--replace`); returns the merged run's id.
fn merge_shares(
    env: &CommandEnv,
    project: &Project,
    dir: &RunDir,
    shares: &[RunDir],
) -> Result<String, AppError> {
    let merged = merged_id(dir);
    let args = MergeArgs {
        folders: shares.iter().map(|s| s.path().to_path_buf()).collect(),
        run_id: Some(merged.clone()),
        replace: true,
        json: false,
    };
    let merge_env = CommandEnv {
        session: None,
        pinned_run: None,
        project: Some(project.root().to_path_buf()),
        ..env.clone()
    };
    merge(&merge_env, &args)?;
    Ok(merged)
}
