//! The fix queue (reference/fix.md): a triage run's tasks worked through one at a time, each a
//! repair run whose check is `self-repair verify-task`. When one task's run ends (in `fix`, in the
//! Stop hook that drove it, in `tick`, or in `drive` between sessions) its outcome is recorded
//! and the next task starts. What `fix` starts, the hooks, `tick`, `drive` and `status` go on
//! with here.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use self_repair_fix::{
    AnalyzerVerdict, FIX_QUEUE_FILE, FIX_QUEUE_SCHEMA_VERSION, FIX_TASK_FILE, FixQueue, FixRecord,
    FixStatus, FixTaskLink, TaskTarget, mark_task_done,
};
use self_repair_repair::{
    CheckRequest, GitBaseline, RepairEnv, RepairState, RepairStatus, report_path, shell_words,
    start_check,
};
use self_repair_store::{Project, RunDir, write_json};

use crate::app_error::AppError;
use crate::run::detection::analyzer_findings;
use crate::run::finalize::read_findings;
use crate::run::load::load_folded;
use crate::run::project_config::load_project_config;

/// Called by the Stop hook after a repair run's stop: when that run fixes a task of a queue and
/// is over, records the task's outcome and starts the next. Returns what it did, one line.
/// A stop of another session than the one the run is bound to changes nothing; `tick` (no
/// session) always may.
pub fn continue_fix(
    project: &Project,
    env: &RepairEnv,
    repair: &RunDir,
    session: Option<&str>,
) -> Option<String> {
    let text = std::fs::read_to_string(repair.path().join(FIX_TASK_FILE)).ok()?;
    let link: FixTaskLink = serde_json::from_str(&text).ok()?;
    let state = read_repair_state(repair).ok()?;
    let other_session = session.is_some_and(|s| state.session.as_deref().is_some_and(|b| b != s));
    if !state.status.is_final() || other_session {
        return None;
    }
    let dir = project.run(&link.run).ok()?;
    let queue = read_queue(&dir).ok()??;
    queue.running()?;
    let mut lines = Vec::new();
    match advance(project, env, &dir, &mut lines) {
        Ok(_) => Some(lines.join("\n")),
        Err(e) => Some(format!("stopped: {e}")),
    }
}

/// Records the outcome of an earlier `fix`'s running task whose repair run is over (the session
/// ended before the hook saw it), so a new queue does not lose it.
pub(crate) fn settle_running(
    project: &Project,
    dir: &RunDir,
    lines: &mut Vec<String>,
) -> Result<(), AppError> {
    let Some(mut queue) = read_queue(dir)? else {
        return Ok(());
    };
    let Some(i) = queue.running() else {
        return Ok(());
    };
    let Some(repair) = queue.tasks[i]
        .repair_run
        .clone()
        .and_then(|id| project.run(&id).ok())
    else {
        queue.tasks[i].status = FixStatus::Open;
        return write_json(&queue_path(dir), &queue).map_err(AppError::from);
    };
    let state = read_repair_state(&repair)?;
    if state.status.is_final() {
        lines.push(finish_task(project, dir, &mut queue, i, &repair, &state)?);
        write_json(&queue_path(dir), &queue)?;
    }
    Ok(())
}

/// `self-repair tick` outside Claude Code: after the tick, the fix loop's step for the run it
/// ticked (the same as the Stop hook's), as lines to print.
pub fn continue_fix_after_tick(
    project: &Project,
    env: &RepairEnv,
    run: Option<&str>,
) -> Option<String> {
    let repair = project.run_or_active(run).ok()?;
    continue_fix(project, env, &repair, None).map(|line| format!("self-repair fix: {line}"))
}

/// Ends the running task when its repair run is over, then starts tasks until one is under way
/// or none is left. Returns true when the queue is done and a task was not fixed.
pub(crate) fn advance(
    project: &Project,
    env: &RepairEnv,
    dir: &RunDir,
    lines: &mut Vec<String>,
) -> Result<bool, AppError> {
    loop {
        let mut queue = read_queue(dir)?.ok_or_else(|| {
            AppError::NotFound(format!(
                "run {} has no fix queue: run `self-repair fix`",
                dir.id()
            ))
        })?;
        if let Some(i) = queue.running() {
            let Some(repair_id) = queue.tasks[i].repair_run.clone() else {
                queue.tasks[i].status = FixStatus::Open;
                write_json(&queue_path(dir), &queue)?;
                continue;
            };
            let repair = project.run(&repair_id)?;
            let state = read_repair_state(&repair)?;
            if !state.status.is_final() {
                return Ok(false);
            }
            let line = finish_task(project, dir, &mut queue, i, &repair, &state)?;
            write_json(&queue_path(dir), &queue)?;
            write_report_section(dir, &queue)?;
            lines.push(line);
            if state.status == RepairStatus::Cancelled {
                // The user stopped the fix: the next task waits for them.
                lines.push(format!(
                    "fix paused: run {repair_id} was cancelled; `self-repair fix --run {}` goes on with the open tasks",
                    queue.run
                ));
                return Ok(false);
            }
            continue;
        }
        let Some(i) = queue.next_open() else {
            // This `fix`'s tasks only: an earlier `fix`'s are in the queue too.
            let asked = queue.asked_tasks().count();
            let fixed = queue
                .asked_tasks()
                .filter(|t| t.status == FixStatus::Fixed)
                .count();
            lines.push(format!(
                "fix done: {fixed} of {asked} task(s) fixed; `self-repair status --run {}` lists them",
                queue.run
            ));
            return Ok(fixed < asked);
        };
        let started = start_task(project, env, dir, &mut queue, i)?;
        write_json(&queue_path(dir), &queue)?;
        write_report_section(dir, &queue)?;
        match started {
            StartedTask::Started { reply, repair_id } => {
                lines.push(format!(
                    "{}: repair run {repair_id} started; check: self-repair verify-task {} --run {}",
                    queue.tasks[i].task_id, queue.tasks[i].task_id, queue.run
                ));
                lines.push(reply.trim_end().to_owned());
            }
            StartedTask::NotReproduced(reason) => {
                lines.push(format!("{}: not fixed ({reason})", queue.tasks[i].task_id));
            }
        }
    }
}

pub(crate) fn start_task(
    project: &Project,
    env: &RepairEnv,
    dir: &RunDir,
    queue: &mut FixQueue,
    i: usize,
) -> Result<StartedTask, AppError> {
    let state = load_folded(dir, false)?;
    let findings = read_findings(dir)?;
    let target = TaskTarget::find(&state, &findings, &queue.tasks[i].task_id)?;
    // git first: outside a work tree with a commit nothing can be guarded, so no detector runs.
    let baseline = GitBaseline::record(project.root());
    let Some(base) = baseline.base().map(str::to_owned) else {
        return Err(needs_git(
            "fix",
            "its guard compares every change with the commit the fix started from",
            None,
        ));
    };
    // The check must be able to fail before it is trusted: a detector that does not report the
    // group's findings now (another rule selection, a stale run) would pass every attempt.
    let (current, names) = analyzer_findings(project, queue.detector.as_deref())?;
    let probe = AnalyzerVerdict::judge(&target.findings, &findings, &current, &BTreeSet::new());
    if probe.gone > 0 {
        let reason = not_reproduced(project, queue, &target, &current, &names, &probe)?;
        queue.tasks[i].status = FixStatus::NotReproduced;
        queue.tasks[i].reason = Some(reason.clone());
        return Ok(StartedTask::NotReproduced(reason));
    }
    let command = verify_command(queue, &target.task.task_id, &base);
    let autofix = if target.all_safe_fixes() {
        analyzer_autofix(project, queue, &target)?
    } else {
        None
    };
    let repair_id = new_repair_id(project, &queue.run, &target.task.task_id);
    let request = CheckRequest {
        name: None,
        run_id: Some(repair_id.clone()),
        command,
        autofix,
        max_attempts: queue.max_attempts,
        tiers: queue.tiers.clone(),
        // The triage run's findings files are no change of the fix (its hand-off's diff).
        exclude: crate::run::inputs::run_input_paths(Some(dir)),
        ..CheckRequest::default()
    };
    queue.tasks[i].status = FixStatus::Running;
    queue.tasks[i].repair_run = Some(repair_id.clone());
    queue.tasks[i].base = Some(base);
    write_json(&queue_path(dir), queue)?;
    let settings = load_project_config(&project.store_dir(), None)?.checks;
    let reply = start_check(project, env, &request, &settings)?;
    let repair = project.run(&repair_id)?;
    write_json(
        &repair.path().join(FIX_TASK_FILE),
        &FixTaskLink {
            schema_version: FIX_QUEUE_SCHEMA_VERSION,
            run: queue.run.clone(),
            task_id: target.task.task_id.clone(),
        },
    )?;
    Ok(StartedTask::Started {
        reply: reply.text,
        repair_id,
    })
}

/// The repair run's check: `self-repair verify-task` for the task, from the commit the fix
/// started at, with the queue's detector, test command and configuration allowance.
fn verify_command(queue: &FixQueue, task_id: &str, base: &str) -> Vec<String> {
    let mut command = vec![
        queue.self_repair.clone(),
        "verify-task".to_owned(),
        task_id.to_owned(),
        "--run".to_owned(),
        queue.run.clone(),
        "--base".to_owned(),
        base.to_owned(),
    ];
    if let Some(detector) = &queue.detector {
        command.extend(["--detector".to_owned(), detector.clone()]);
    }
    if let Some(test) = &queue.test {
        command.extend(["--test".to_owned(), test.join(" ")]);
    }
    if queue.allow_config {
        command.push("--allow-config".to_owned());
    }
    command
}

/// `fix-<run>-<task>-<n>`, the first `n` no run of the project has.
fn new_repair_id(project: &Project, run: &str, task_id: &str) -> String {
    let task_slug = task_id.to_ascii_lowercase();
    let mut n = 1;
    loop {
        let id = format!("fix-{run}-{task_slug}-{n}");
        if project.run(&id).is_err() {
            break id;
        }
        n += 1;
    }
}

/// What starting a task did.
pub(crate) enum StartedTask {
    Started {
        reply: String,
        repair_id: String,
    },
    /// The detector does not report the group's findings: no repair run was made.
    NotReproduced(String),
}

/// The refusal of a command that changes files outside a git work tree with a commit (exit 2):
/// `why` says what git is for here, then the commands that make one, then `instead` (what
/// works without git), when there is such a way.
pub(crate) fn needs_git(command: &str, why: &str, instead: Option<&str>) -> AppError {
    let instead = instead.map(|i| format!("; {i}")).unwrap_or_default();
    AppError::Usage(format!(
        "`{command}` needs a git work tree with a commit: {why} (`git init`, `git commit`){instead}"
    ))
}

/// The autofix step for a group whose findings all carry a safe fix: Ruff's own `check --fix
/// --select RULES FILES` for Ruff's findings when a detector runs `ruff` (Ruff re-checks after
/// each pass, so fixes whose edits overlap, two unused names of one import, all apply); else
/// `self-repair apply-fixes` when every finding kept its fix's edits. Otherwise none: the fixer
/// applies the fixes.
/// Why task `target` gets no repair run: its findings are not reported now (`probe`), and, when
/// no configured detector runs one of its tools, which (`not proved`).
fn not_reproduced(
    project: &Project,
    queue: &FixQueue,
    target: &TaskTarget,
    current: &[self_repair_engine::Finding],
    names: &[String],
    probe: &AnalyzerVerdict,
) -> Result<String, AppError> {
    let unchecked = tools_without_detector(project, queue, &target.tools(), current)?;
    let reason = if unchecked.is_empty() {
        format!(
            "not reproduced: the detector does not report {} of the group's {} finding(s) before any change, so its re-run cannot verify a fix (check its rule selection, or run `self-repair start --detect` again)",
            probe.gone,
            probe.gone + probe.remaining.len()
        )
    } else {
        format!(
            "not proved: no configured detector runs {} (the detectors: {}), so nothing can verify a fix of its {} finding(s); add one (reference/config.md, \"Detectors\"), or fix it by hand",
            unchecked.join(", "),
            if names.is_empty() {
                "none".to_owned()
            } else {
                names.join(", ")
            },
            probe.gone + probe.remaining.len()
        )
    };
    Ok(reason)
}

/// The group's tools no configured detector runs: none of them reported a finding now, and no
/// detector names the tool by its program or its `format`.
fn tools_without_detector(
    project: &Project,
    queue: &FixQueue,
    tools: &BTreeSet<String>,
    current: &[self_repair_engine::Finding],
) -> Result<Vec<String>, AppError> {
    let config = load_project_config(&project.store_dir(), None)?;
    let mut run: BTreeSet<String> = current.iter().map(|f| f.tool.to_lowercase()).collect();
    for detector in config
        .detectors
        .iter()
        .filter(|d| queue.detector.as_ref().is_none_or(|n| *n == d.name))
    {
        run.extend(detector.format.iter().map(|f| f.to_lowercase()));
        run.extend(
            detector
                .argv
                .first()
                .and_then(|p| Path::new(p).file_name()?.to_str().map(str::to_lowercase)),
        );
    }
    Ok(tools
        .iter()
        .filter(|tool| !run.contains(&tool.to_lowercase()))
        .cloned()
        .collect())
}

fn analyzer_autofix(
    project: &Project,
    queue: &FixQueue,
    target: &TaskTarget,
) -> Result<Option<Vec<String>>, AppError> {
    if let Some(ruff) = ruff_autofix(project, queue, target)? {
        return Ok(Some(ruff));
    }
    Ok(target.all_fix_edits().then(|| {
        vec![
            queue.self_repair.clone(),
            "apply-fixes".to_owned(),
            target.task.task_id.clone(),
            "--run".to_owned(),
            queue.run.clone(),
        ]
    }))
}

/// Ruff's `check --fix --select RULES FILES`, with the Ruff a detector runs, for a group of
/// Ruff's findings only.
fn ruff_autofix(
    project: &Project,
    queue: &FixQueue,
    target: &TaskTarget,
) -> Result<Option<Vec<String>>, AppError> {
    let tools = target.tools();
    if tools.len() != 1 || !tools.contains("ruff") {
        return Ok(None);
    }
    let config = load_project_config(&project.store_dir(), None)?;
    let ruff = config
        .detectors
        .iter()
        .filter(|d| queue.detector.as_ref().is_none_or(|n| *n == d.name))
        .find_map(|d| {
            let program = Path::new(&d.argv[0]).file_name()?.to_str()?;
            (program == "ruff").then(|| d.argv[0].clone())
        });
    // Only the Ruff the detector runs is known to be there.
    let Some(ruff) = ruff else {
        return Ok(None);
    };
    let mut rules: Vec<String> = target
        .findings
        .iter()
        .map(|r| r.finding.rule_id.clone())
        .collect();
    rules.sort();
    rules.dedup();
    let mut argv = vec![
        ruff,
        "check".to_owned(),
        "--fix".to_owned(),
        "--select".to_owned(),
        rules.join(","),
    ];
    argv.extend(target.files());
    Ok(Some(argv))
}

/// Records how the task's repair run ended: a success updates the task file (and commits with
/// `--commit`); anything else quarantines the task with the run's hand-off.
pub(crate) fn finish_task(
    project: &Project,
    dir: &RunDir,
    queue: &mut FixQueue,
    i: usize,
    repair: &RunDir,
    state: &RepairState,
) -> Result<String, AppError> {
    let task = &mut queue.tasks[i];
    if state.status != RepairStatus::Success {
        task.status = FixStatus::Quarantined;
        let handoff = report_path(project.root(), repair);
        task.handoff = Some(handoff.display().to_string());
        return Ok(format!(
            "{}: not fixed ({}); hand-off: {}",
            task.task_id,
            state.status.as_str(),
            handoff.display()
        ));
    }
    let triage = load_folded(dir, false)?;
    let findings = read_findings(dir)?;
    let target = TaskTarget::find(&triage, &findings, &task.task_id)?;
    let mut record = fix_record(
        project,
        queue.detector.as_ref(),
        queue.test.clone(),
        repair,
        state,
        &target,
    );
    // The run's own findings files are never part of the fix (nor of its commit).
    let inputs = crate::run::inputs::run_input_paths(Some(dir));
    record.files_changed.retain(|f| !inputs.contains(f));
    let files = record.files_changed.clone();
    let path = project.root().join(&task.file);
    let text = std::fs::read_to_string(&path).map_err(AppError::io("read task", &path))?;
    std::fs::write(&path, mark_task_done(&text, &record))
        .map_err(AppError::io("write task", &path))?;
    task.status = FixStatus::Fixed;
    let mut line = format!(
        "{}: fixed ({} attempt(s)); {} is Done",
        task.task_id, record.attempts, task.file
    );
    if queue.commit {
        let mut paths = files;
        paths.push(task.file.clone());
        let message = format!("fix: {} {}", task.task_id.to_ascii_uppercase(), task.title);
        // The task is fixed whether or not the commit works: say so, and leave the tree as is.
        match commit_paths(project.root(), &paths, &message) {
            Ok(commit) => {
                line.push_str(&format!("; committed {commit}"));
                task.commit = Some(commit);
            }
            Err(e) => line.push_str(&format!("; not committed: {e}")),
        }
    }
    if let Err(e) = remember_fix(project, &task.task_id, task.commit.clone(), repair, &target) {
        line.push_str(&format!("; known.json not updated: {e}"));
    }
    Ok(line)
}

/// What the task's repair run did, for the task file's record: the files, who fixed it, and
/// every command that proved it (the check, the detectors, the tests).
/// The files the repair run changed, and who changed them (`autofix`, then each attempt's
/// tier): what a task's record and its pull request say.
pub(crate) fn files_and_tiers(state: &RepairState) -> (Vec<String>, Vec<String>) {
    let mut files: Vec<String> = state
        .attempts
        .iter()
        .flat_map(|a| a.files_changed.clone())
        .chain(state.autofix.iter().flat_map(|a| a.files_changed.clone()))
        .collect();
    files.sort();
    files.dedup();
    let mut tiers: Vec<String> = Vec::new();
    if state.autofix.as_ref().is_some_and(|a| a.exit_code == 0) {
        tiers.push("autofix".to_owned());
    }
    tiers.extend(state.attempts.iter().map(|a| a.tier.as_str().to_owned()));
    (files, tiers)
}

fn fix_record(
    project: &Project,
    detector: Option<&String>,
    test: Option<Vec<String>>,
    repair: &RunDir,
    state: &RepairState,
    target: &TaskTarget,
) -> FixRecord {
    let (files, tiers) = files_and_tiers(state);
    // The check, then what it ran: the detectors and the test command.
    let mut commands: Vec<String> = state.spec.autofix.iter().map(|a| shell_words(a)).collect();
    commands.push(shell_words(&state.spec.command));
    let config = load_project_config(&project.store_dir(), None).ok();
    if let Some(config) = &config {
        commands.extend(
            config
                .detectors
                .iter()
                .filter(|d| detector.is_none_or(|n| *n == d.name))
                .map(|d| shell_words(&d.argv)),
        );
    }
    let test_command = test.or_else(|| {
        config
            .as_ref()?
            .checks
            .get("test")
            .map(|c| c.command.clone())
            .filter(|c| !c.is_empty())
    });
    commands.extend(test_command.iter().map(|t| shell_words(t)));
    FixRecord {
        tools: target.tools().into_iter().collect(),
        tests_passed: test_command.is_some(),
        attempts: state.attempts.len() as u32,
        tiers,
        files_changed: files,
        commands,
        repair_run: repair.id(),
    }
}

/// The registry learns how its real findings were closed: a finding that comes back is
/// triaged again (its code changed), with this fix on record.
fn remember_fix(
    project: &Project,
    task_id: &str,
    commit: Option<String>,
    repair: &RunDir,
    target: &TaskTarget,
) -> Result<(), self_repair_classify::ClassifyError> {
    let fix = self_repair_classify::KnownFix {
        task: task_id.to_owned(),
        run: repair.id(),
        commit,
    };
    let fingerprints: Vec<&str> = target
        .findings
        .iter()
        .map(|f| f.fingerprint.as_str())
        .collect();
    let store = project.store_dir();
    let _registry = self_repair_store::lock_registry(&store)?;
    self_repair_classify::KnownRegistry::load(&store).and_then(|mut known| {
        if known.record_fix(&fingerprints, &fix) > 0 {
            known.save(&store)?;
        }
        Ok(())
    })
}

/// `git add` then `git commit` of exactly `paths` (never a push).
fn commit_paths(root: &Path, paths: &[String], message: &str) -> Result<String, AppError> {
    let git = |args: &[&str]| -> Result<String, AppError> {
        self_repair_process::Git::at(root)
            .text(args)
            .map_err(|e| AppError::Tool(format!("{e}; the fix is in the tree, uncommitted")))
    };
    let mut add = vec!["add", "-A", "--"];
    add.extend(paths.iter().map(String::as_str));
    git(&add)?;
    let mut commit = vec!["commit", "-q", "-m", message, "--"];
    commit.extend(paths.iter().map(String::as_str));
    git(&commit)?;
    git(&["rev-parse", "--short", "HEAD"])
}

/// Marks the fix section of the triage run's `report.md`.
const REPORT_BEGIN: &str = "<!-- self-repair:fix:begin -->";

const REPORT_END: &str = "<!-- self-repair:fix:end -->";

/// Writes (or replaces) the section of `report.md` that says, per task, fixed, quarantined,
/// running or open. A run without `report.md` (not finalized) gets none.
pub(crate) fn write_report_section(dir: &RunDir, queue: &FixQueue) -> Result<(), AppError> {
    let path = dir.path().join("report.md");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(());
    };
    let kept = match (text.find(REPORT_BEGIN), text.find(REPORT_END)) {
        (Some(begin), Some(end)) if end > begin => format!(
            "{}{}",
            &text[..begin],
            text[end + REPORT_END.len()..].trim_start_matches('\n')
        ),
        _ => text,
    };
    let mut section = format!(
        "{REPORT_BEGIN}\n## Fixes (`self-repair fix`)\n\n| task | title | outcome | repair run |\n|---|---|---|---|\n"
    );
    for task in &queue.tasks {
        let outcome = match (&task.commit, &task.handoff, &task.reason) {
            (Some(commit), _, _) => format!("{} (commit {commit})", task.status.as_str()),
            (None, Some(handoff), _) => {
                format!("{} (hand-off: {handoff})", task.status.as_str())
            }
            (None, None, Some(reason)) => format!("{} ({reason})", task.status.as_str()),
            (None, None, None) => task.status.as_str().to_owned(),
        };
        section.push_str(&format!(
            "| {} | {} | {outcome} | {} |\n",
            task.task_id,
            task.title.replace('|', "\\|"),
            task.repair_run.as_deref().unwrap_or("-")
        ));
    }
    section.push_str(REPORT_END);
    section.push('\n');
    let text = format!("{}\n\n{section}", kept.trim_end());
    std::fs::write(&path, text).map_err(AppError::io("write", &path))
}

/// The fix queue of the triage run in `dir`, when `fix` made one.
pub fn read_queue(dir: &RunDir) -> Result<Option<FixQueue>, AppError> {
    let path = queue_path(dir);
    match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text).map(Some).map_err(|e| {
            AppError::Usage(format!(
                "{} is not a fix queue ({e}); remove it and run `self-repair fix` again",
                path.display()
            ))
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(AppError::io("read", &path)(e)),
    }
}

pub(crate) fn queue_path(dir: &RunDir) -> PathBuf {
    dir.path().join(FIX_QUEUE_FILE)
}

pub(crate) fn read_repair_state(dir: &RunDir) -> Result<RepairState, AppError> {
    let path = dir.state_path();
    let text = std::fs::read_to_string(&path).map_err(AppError::io("read", &path))?;
    serde_json::from_str(&text).map_err(|e| {
        AppError::Usage(format!(
            "{}: not a repair state ({e}); run `self-repair doctor --run {}`",
            path.display(),
            dir.id()
        ))
    })
}

/// The run's tasks a `fix` that names none would take (neither fixed, nor Done, nor found not
/// reproduced), and those found not reproduced: what `status`'s next steps count.
pub(crate) fn tasks_left(
    root: &Path,
    dir: &RunDir,
    state: &self_repair_engine::RunState,
) -> (usize, usize) {
    let queue = read_queue(dir).ok().flatten();
    let status = |id: &str| {
        queue
            .as_ref()
            .and_then(|q| q.tasks.iter().find(|t| t.task_id == id))
            .map(|t| t.status)
    };
    let mut left = 0;
    let mut not_reproduced = 0;
    for task in &state.tasks {
        match status(&task.task_id) {
            Some(FixStatus::Fixed) => {}
            Some(FixStatus::NotReproduced) => not_reproduced += 1,
            _ if task_file_done(root, &task.file) => {}
            _ => left += 1,
        }
    }
    (left, not_reproduced)
}

/// True when the task file's front matter says `status: Done`.
pub(crate) fn task_file_done(root: &Path, file: &str) -> bool {
    std::fs::read_to_string(root.join(file)).is_ok_and(|text| {
        text.lines()
            .take_while(|l| !l.starts_with("## "))
            .any(|l| l.trim() == "status: Done")
    })
}
