//! `drive`, `errors` and `timeline`: wires the driver (crate `drive`) to the run on disk.

mod partitions;
mod sessions;

use std::path::{Path, PathBuf};

use clap::Args;
use partitions::Partitioned;
use self_repair_drive::{ErrorCatalog, build_timeline, read_drive_log};
use self_repair_engine::{Event, PauseReason, RunStatus, Verdict};
use self_repair_repair::RepairEnv;
use self_repair_store::{Project, RunDir};
use sessions::{StoreProbe, checked_limits, drive_options, exit_status};

use crate::app_error::AppError;
use crate::app_error::ExitStatus;
use crate::command_env::CommandEnv;
use crate::output::Output;
use crate::run::handle::RunHandle;
use crate::run::load::load_folded;
use crate::run::partitions::shares_of;
use crate::run::queue_drive::{FixQueueProbe, fix_queue_run, queue_left_a_task};
use crate::run::steering::steer;

pub use sessions::DriveRequest;

/// `self-repair drive`.
#[derive(Debug, Args)]
pub struct DriveArgs {
    /// Run id (default: the project's active run): a triage run, or one whose `self-repair fix`
    /// queue is in progress (then the queue is driven).
    pub run: Option<String>,
    /// The Claude Code executable (default: `claude` on PATH).
    #[arg(long, value_name = "PATH")]
    pub claude: Option<PathBuf>,
    /// Stop after this many sessions.
    #[arg(long, value_name = "N")]
    pub max_sessions: Option<u32>,
    /// Stop once the sessions' summed `total_cost_usd` reaches this many US dollars.
    #[arg(
        long,
        value_name = "USD",
        allow_negative_numbers = true,
        value_parser = crate::commands::dollars_above_zero
    )]
    pub budget: Option<f64>,
    /// Start a run that waits for the user's go (its likely cost is above `confirm_above_usd`)
    /// without a budget; without it or `--budget`, `drive` refuses such a run (exit 23).
    #[arg(long)]
    pub yes: bool,
    /// Start no session after TIME: Unix seconds, `2026-11-24T06:00:00Z`, or `06:00` (UTC).
    #[arg(long, value_name = "TIME")]
    pub until: Option<String>,
    /// Exit 24 when the run completes with real findings (a pull-request job gates on it).
    #[arg(long)]
    pub fail_on_real: bool,
    /// Split the run (before its first dispatch) into N partitions, drive their N sessions at
    /// once, then merge them and drive the rest (2 to 16).
    #[arg(long, value_name = "N")]
    pub partitions: Option<u32>,
    /// Arguments for every `claude` session (after `--`: `--plugin-dir DIR`, `--model M`, ...).
    #[arg(last = true, value_name = "CLAUDE_ARGS")]
    pub claude_args: Vec<String>,
}

/// `self-repair errors` and `self-repair timeline`.
#[derive(Debug, Args)]
pub struct RunViewArgs {
    /// Run id (default: the project's active run).
    pub run: Option<String>,
    /// Print it as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs `drive`: progress lines on stderr as sessions end, the final message on stdout.
pub fn run(env: &CommandEnv, args: DriveArgs) -> Result<Output, AppError> {
    let request = DriveRequest {
        run: args.run,
        claude: args.claude,
        max_sessions: args.max_sessions,
        budget: args.budget,
        yes: args.yes,
        until: args.until,
        fail_on_real: args.fail_on_real,
        partitions: args.partitions,
        claude_args: args.claude_args,
        backoff_scale: env.backoff_scale.clone(),
        path_var: env.path_var.clone(),
    };
    let (text, status) = drive(env, &request, &mut |line| {
        use std::io::Write;
        let _ = writeln!(std::io::stderr().lock(), "{line}");
    })?;
    Ok(Output::with_status(text, status))
}

/// Runs `errors`.
pub fn errors(env: &CommandEnv, args: &RunViewArgs) -> Result<Output, AppError> {
    drive_errors(env, args.run.as_deref(), args.json).map(Output::text)
}

/// Runs `timeline`.
pub fn timeline_command(env: &CommandEnv, args: &RunViewArgs) -> Result<Output, AppError> {
    timeline(env, args.run.as_deref(), args.json).map(Output::text)
}

/// Runs `drive`; `progress` gets one line per session as it goes. Returns the final message
/// and the exit status (reference/cli.md).
pub fn drive(
    env: &CommandEnv,
    request: &DriveRequest,
    progress: &mut dyn FnMut(&str),
) -> Result<(String, ExitStatus), AppError> {
    let project = env.find_project()?;
    let dir = project.run_or_active(request.run.as_deref())?;
    if let Some(triage) = fix_queue_run(&project, &dir)? {
        return drive_fix_queue(env, request, project, &triage, progress);
    }
    let dir = match RunHandle::open(dir) {
        RunHandle::Triage(dir) => dir,
        RunHandle::Repair(dir) => {
            return Err(AppError::Usage(format!(
                "run {} is a repair run of `self-repair check`: `drive` drives triage runs and the fix queue (`self-repair fix`, then `self-repair drive`); a check goes on with `self-repair tick`",
                dir.id()
            )));
        }
    };
    let limits = checked_limits(request, env.now)?;
    go_for_drive(&dir, request.yes, request.budget, env.now)?;
    if let Some(n) = partitions::partitions_of(request, &dir)? {
        return match partitions::drive_partitions(env, request, &project, &dir, n, progress)? {
            Partitioned::Ended(text, status) => Ok((text, status)),
            // The shares are merged (or were): the merged run is driven as any run.
            Partitioned::DriveMerged(rest) => drive(env, &rest, progress),
        };
    }
    let options = drive_options(
        request,
        &project,
        &dir,
        limits,
        format!("run {}", dir.id()),
        format!("self-repair resume --run {}", dir.id()),
        true,
    )?;
    let mut probe = StoreProbe { project, dir };
    let mut report = self_repair_drive::drive(&options, &mut probe, progress)?;
    let status = exit_status(&report.outcome);
    let state = load_folded(&probe.dir, false)?;
    if state.status == RunStatus::Complete && state.intake.unique == 0 {
        // Green, and why: a clean report (or nothing in scope) left nothing to triage.
        report.message = format!(
            "{}
{}
",
            report.message.trim_end(),
            self_repair_engine::summary(&state)
        );
    }
    if request.fail_on_real && status == ExitStatus::Success {
        let real = real_findings(&probe.dir)?;
        if real > 0 {
            return Ok((
                format!(
                    "{}\n{real} real finding(s): exit 24 (--fail-on-real); report.md lists them",
                    report.message.trim_end()
                ),
                ExitStatus::FoundReal,
            ));
        }
    }
    Ok((report.message, status))
}

/// `drive` on the fix queue of the triage run in `dir` (reference/fix.md, "Unattended"): each
/// session adopts the running task's repair run, and the Stop hook makes its attempts and starts
/// the next task. Exits as `drive` does on a triage run, and 6, as `fix`, when the queue ended
/// with a task not fixed.
fn drive_fix_queue(
    env: &CommandEnv,
    request: &DriveRequest,
    project: Project,
    dir: &RunDir,
    progress: &mut dyn FnMut(&str),
) -> Result<(String, ExitStatus), AppError> {
    if request.fail_on_real {
        return Err(AppError::Usage(format!(
            "--fail-on-real gates a triage run on its real findings; the fix queue of run {} ends with exit 6 when a task is not fixed",
            dir.id()
        )));
    }
    let limits = checked_limits(request, env.now)?;
    let options = drive_options(
        request,
        &project,
        dir,
        limits,
        format!("the fix queue of run {}", dir.id()),
        format!("self-repair fix --run {}", dir.id()),
        // The queue moves from one task's repair run to the next within a session.
        false,
    )?;
    let repair_env = RepairEnv {
        now: env.now,
        session: None,
        user_install: env.user_install_root(),
    };
    let mut probe = FixQueueProbe::new(project, dir.clone(), repair_env);
    let report = self_repair_drive::drive(&options, &mut probe, progress)?;
    let status = exit_status(&report.outcome);
    if status == ExitStatus::Success && queue_left_a_task(dir)? {
        return Ok((report.message, ExitStatus::GaveUp));
    }
    Ok((report.message, status))
}

/// The findings of a complete run whose verdict is `real`, whoever decided it (an agent, a
/// survey, the known registry, a rule).
fn real_findings(dir: &RunDir) -> Result<usize, AppError> {
    let state = load_folded(dir, false)?;
    if state.status != RunStatus::Complete {
        return Ok(0);
    }
    let findings = crate::run::finalize::read_findings(dir)?;
    Ok(findings
        .iter()
        .filter(|record| {
            let verdict = match &record.predecided {
                Some(decided) => Some(decided.verdict),
                None => record
                    .item
                    .as_deref()
                    .and_then(|id| state.item(id))
                    .and_then(|item| item.verdict),
            };
            verdict == Some(Verdict::Real)
        })
        .count())
}

fn run_dir(env: &CommandEnv, run: Option<&str>) -> Result<RunDir, AppError> {
    Ok(env.find_project()?.run_or_active(run)?)
}

fn to_json<T: serde::Serialize>(value: &T) -> Result<String, AppError> {
    serde_json::to_string_pretty(value).map_err(|e| AppError::Usage(e.to_string()))
}

/// `self-repair errors [RUN] [--json]`: the run's error catalog.
pub fn drive_errors(env: &CommandEnv, run: Option<&str>, json: bool) -> Result<String, AppError> {
    let dir = run_dir(env, run)?;
    let catalog = ErrorCatalog::load(&dir.path().join("errors.jsonl"))?;
    if json {
        return to_json(&serde_json::json!({
            "schema_version": 1,
            "run": dir.id(),
            "errors": catalog.entries,
        }));
    }
    Ok(catalog.render())
}

fn read_text(path: &Path) -> Result<String, AppError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(AppError::io("read", path)(e)),
    }
}

/// `self-repair timeline [RUN] [--json]`.
pub fn timeline(env: &CommandEnv, run: Option<&str>, json: bool) -> Result<String, AppError> {
    let dir = run_dir(env, run)?;
    let journal = read_text(&dir.path().join("journal.jsonl"))?;
    let log = read_drive_log(&dir.path().join("drive.jsonl"))?;
    let state = load_folded(&dir, false)?;
    let triage = state.triage_items as usize;
    let phases: std::collections::HashMap<&str, &'static str> = state
        .items
        .iter()
        .skip(triage)
        .map(|item| (item.id.as_str(), item.kind.phase().as_str()))
        .collect();
    let phase_of = |id: &str| -> Option<String> {
        if id.starts_with("t-") {
            return state.item(id).map(|_| "triage".to_owned());
        }
        phases.get(id).map(|p| (*p).to_owned())
    };
    let ended: Vec<(String, String)> = state
        .items
        .iter()
        .filter(|i| i.status == self_repair_engine::ItemStatus::Quarantined)
        .map(|i| {
            let why = i.errors().last().cloned().unwrap_or_default();
            (i.id.to_string(), why)
        })
        .collect();
    let own = build_timeline(&dir.id(), &journal, &log, &phase_of, &ended);
    let project = env.find_project()?;
    // A run split by `drive --partitions`, or the run merged from its shares: their timelines
    // follow (a CI job's shares are folders elsewhere, not runs of this project: left out).
    let mut shares = shares_of(&project, &dir);
    shares.extend(
        state
            .merged_from
            .iter()
            .filter_map(|share| project.run(&share.run).ok()),
    );
    if json {
        if shares.is_empty() {
            return to_json(&own);
        }
        let mut all = vec![serde_json::to_value(&own).map_err(|e| AppError::Usage(e.to_string()))?];
        for share in &shares {
            let text = timeline(env, Some(&share.id()), true)?;
            all.push(serde_json::from_str(&text).map_err(|e| AppError::Usage(e.to_string()))?);
        }
        return to_json(&all);
    }
    let mut out = own.render();
    for share in &shares {
        out.push_str(&format!("\npartition {}:\n", share.id()));
        out.push_str(&timeline(env, Some(&share.id()), false)?);
    }
    Ok(out)
}

/// `drive` on a waiting run: `--yes` or `--budget USD` is the go (the budget also caps the
/// run); without either, the refusal says what to pass.
fn go_for_drive(dir: &RunDir, yes: bool, budget: Option<f64>, now: u64) -> Result<(), AppError> {
    let state = load_folded(dir, false)?;
    let Some(PauseReason::Confirm {
        likely_micros,
        likely_agents,
        above_micros,
        ..
    }) = state.pause
    else {
        return Ok(());
    };
    match (budget, yes) {
        (Some(usd), _) => {
            steer(dir, Event::Budget { usd }, now)?;
        }
        (None, true) => {}
        (None, false) => {
            return Err(AppError::NeedsGo(format!(
                "run {} waits for your go: it will likely launch {likely_agents} agents and cost \
                 ${:.2} (above confirm_above_usd ${:.2}); `drive` starts it only with --yes, or \
                 with --budget USD, which also caps what it may spend (`self-repair status` shows \
                 the estimate)",
                state.run,
                likely_micros as f64 / 1e6,
                above_micros as f64 / 1e6
            )));
        }
    }
    steer(dir, Event::Confirm, now)?;
    Ok(())
}
