//! `self-repair verify-task`: the fix loop's composite check for one task of a triage run (the
//! analyzer re-run, the project's tests, the weakening guard), run by the repair engine as its
//! check command or by hand.

use std::collections::BTreeSet;

use self_repair_engine::Finding;
use self_repair_fix::{
    AnalyzerVerdict, TaskCheck, TaskTarget, find_weakenings, run_test_command, tree_changes,
};
use self_repair_ingest::{Format, IngestOptions};
use self_repair_repair::read_check_config;
use self_repair_store::Project;

use crate::{AppError, CommandEnv, load_folded, load_project_config, read_findings, run_detectors};

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
    // The active run is often the task's own repair run: the default is the latest triage run.
    let dir = match &request.run {
        Some(id) => project.run(id)?,
        None => crate::fix_command::latest_triage_run(&project)?,
    };
    if self_repair_repair::is_repair_run(&dir) {
        return Err(AppError::Usage(format!(
            "run {} is a repair run: `verify-task` takes the triage run that wrote the task (`self-repair runs` lists them)",
            dir.id()
        )));
    }
    let state = load_folded(&dir, false)?;
    let findings = read_findings(&dir)?;
    let target = TaskTarget::find(&state, &findings, &request.task)?;
    let (current, detectors) = analyzer_findings(&project, request.detector.as_deref())?;
    let base = request.base.clone().unwrap_or_else(|| "HEAD".to_owned());
    let changed = tree_changes(&root, &base)?;
    let touched: BTreeSet<String> = changed.iter().map(|c| c.path.clone()).collect();
    let analyzer = AnalyzerVerdict::judge(&target.findings, &findings, &current, &touched);
    let test_command = match &request.test {
        Some(command) => Some(command.clone()),
        None => read_check_config(&project.store_dir().join("config.json"), "test")
            .map_err(|e| AppError::Usage(e.to_string()))?
            .map(|c| c.command)
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

/// The findings the configured detectors (or the one named) report now, and their names.
pub(crate) fn analyzer_findings(
    project: &Project,
    detector: Option<&str>,
) -> Result<(Vec<Finding>, Vec<String>), AppError> {
    let root = project.root().to_path_buf();
    let config = load_project_config(&project.store_dir(), None)?;
    let detections = run_detectors(&root, &config.detectors, detector)?;
    let mut current = Vec::new();
    for detection in &detections {
        let mut options = IngestOptions::new(detection.input.source.clone(), root.clone());
        if let Some(dir) = &detection.input.relative_to {
            options = options.with_relative_to(dir.clone());
        }
        let parsed = self_repair_ingest::parse(
            &detection.input.text,
            detection.input.format.unwrap_or(Format::Auto),
            &options,
        );
        match parsed {
            Ok(parsed) => current.extend(parsed.findings),
            // An analyzer that finds nothing may print nothing: no finding is its answer.
            Err(_) if detection.input.text.trim().is_empty() => {}
            Err(e) => {
                return Err(AppError::Usage(format!(
                    "detector `{}`: its output cannot be read: {e}",
                    detection.name
                )));
            }
        }
    }
    Ok((current, detections.iter().map(|d| d.name.clone()).collect()))
}
