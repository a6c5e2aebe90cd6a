//! `self-repair export`: a run's verdicts out to where teams keep findings. `export sarif`
//! writes SARIF 2.1.0 (the analyzers' own results with dismissals as suppressions and real
//! findings linked to their task); `export github-dismissals` prints the `gh api` calls that
//! dismiss the matching GitHub code scanning alerts, for the user to run (reference/export.md).

use std::collections::HashMap;
use std::path::PathBuf;

use clap::{Args, Subcommand};
use self_repair_engine::{RunState, TriageResult};
use self_repair_export::{
    DismissalScript, ExportError, SarifSource, export_sarif_audited, load_inputs,
};
use self_repair_report::RunReport;
use self_repair_store::RunDir;

use crate::app_error::AppError;
use crate::command_env::CommandEnv;
use crate::commands::RunArg;
use crate::output::Output;
use crate::run::audit_store::{gate_refusal, gate_status, store_of};
use crate::run::finalize::{build_report, read_findings};
use crate::run::load::load_folded;

/// `self-repair export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    #[command(subcommand)]
    pub action: ExportAction,
}

/// What to export.
#[derive(Debug, Subcommand)]
pub enum ExportAction {
    /// SARIF 2.1.0 of the run's findings: each SARIF input's results as the analyzer wrote them,
    /// other formats as one run per tool; `false_positive` and `intended` as accepted suppressions,
    /// real findings linked to their task. Fits GitHub code scanning's upload limits.
    Sarif(SarifArgs),
    /// Print the `gh api` calls that dismiss the GitHub code scanning alerts of the findings the
    /// run dismissed (false positive, won't fix, used in tests): by number for alerts the run
    /// read, else found by tool, rule, path and line. Nothing is sent: run them yourself, in a
    /// clone of the repository, with gh (and jq to find alerts).
    GithubDismissals(DismissalArgs),
}

/// `self-repair export sarif`.
#[derive(Debug, Args)]
pub struct SarifArgs {
    #[command(flatten)]
    pub run: RunArg,
    /// Write the SARIF to FILE (and a summary to standard output) instead of printing it.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// `self-repair export github-dismissals`.
#[derive(Debug, Args)]
pub struct DismissalArgs {
    #[command(flatten)]
    pub run: RunArg,
}

/// Runs `export`.
pub fn run(env: &CommandEnv, args: ExportArgs) -> Result<Output, AppError> {
    match args.action {
        ExportAction::Sarif(args) => sarif(env, &args),
        ExportAction::GithubDismissals(args) => {
            let (dir, state, findings, mut answers) = open(env, &args.run)?;
            let report = build_report(&dir, &state, &findings, &mut answers);
            if let Some(refusal) = store_of(&dir)
                .map(|store| gate_status(store, &report))
                .transpose()?
                .and_then(|status| gate_refusal(&report.run, status))
            {
                return Err(AppError::Usage(refusal));
            }
            let loaded = load_inputs(dir.path()).map_err(|e| {
                AppError::Usage(format!("run {} ({}): {e}", dir.id(), dir.path().display()))
            })?;
            let index = loaded.as_ref().map(|(index, _)| index);
            Ok(Output::text(
                DismissalScript::build(&report, &findings, index).text,
            ))
        }
    }
}

/// A run opened for export: its folder, state, findings and triage answers.
type Opened = (
    RunDir,
    RunState,
    Vec<self_repair_engine::FindingRecord>,
    HashMap<String, TriageResult>,
);

/// The run, its state, findings and triage answers: what its report as of now (verdicts so
/// far on a run still going) is built from, borrowing them.
fn open(env: &CommandEnv, run: &RunArg) -> Result<Opened, AppError> {
    let (_, dir) = run.open_triage(env, "`export`")?;
    let state = load_folded(&dir, false)?;
    let findings = read_findings(&dir)?;
    let answers = crate::run::finalize::triage_answers(&dir, &state);
    Ok((dir, state, findings, answers))
}

fn sarif(env: &CommandEnv, args: &SarifArgs) -> Result<Output, AppError> {
    let (dir, state, findings, mut answers) = open(env, &args.run)?;
    let report = build_report(&dir, &state, &findings, &mut answers);
    let in_run = |e: ExportError| {
        AppError::Usage(format!("run {} ({}): {e}", dir.id(), dir.path().display()))
    };
    let loaded = load_inputs(dir.path()).map_err(in_run)?;
    let kept_inputs = loaded.is_some();
    let (index, texts) = loaded.unwrap_or_default();
    let sources: Vec<SarifSource<'_>> = index
        .inputs
        .iter()
        .zip(&texts)
        .filter_map(|(input, text)| {
            Some(SarifSource {
                input,
                text: text.as_deref()?,
            })
        })
        .collect();
    let held = store_of(&dir)
        .map(|store| gate_status(store, &report))
        .transpose()?
        .and_then(|status| gate_refusal(&report.run, status));
    let export =
        export_sarif_audited(&report, &findings, &sources, held.as_deref()).map_err(in_run)?;
    let mut notes: Vec<String> = export.notices.iter().map(|n| n.message.clone()).collect();
    if let Some(held) = held {
        notes.push(format!(
            "every dismissal is written unsuppressed and marked `audit: unaudited`: {held}"
        ));
    }
    if !kept_inputs {
        notes.push(format!(
            "run {} was started before runs kept their inputs: every finding was written from \
             findings.json, without the analyzers' own partialFingerprints (a new `start` keeps them)",
            report.run
        ));
    }
    notes.extend(unfinished_note(&report));
    let Some(output) = &args.output else {
        return Ok(Output::text(export.text).with_notes(notes));
    };
    let path = env.cwd.join(output);
    std::fs::write(&path, &export.text).map_err(AppError::io("write", &path))?;
    let counts = &export.counts;
    let mut text = format!(
        "Wrote {}: {} results in {} SARIF run{} ({} copied from SARIF inputs), {} dismissed as \
         accepted suppressions, {} real ones linked to their task (run {}).\n",
        output.display(),
        counts.results,
        counts.runs,
        if counts.runs == 1 { "" } else { "s" },
        counts.copied_runs,
        counts.suppressed,
        counts.linked,
        report.run
    );
    for note in &notes {
        text.push_str(&format!("note: {note}\n"));
    }
    text.push_str(
        "Upload it with github/codeql-action/upload-sarif under the analysis' own category; \
         `self-repair export github-dismissals` prints the calls that dismiss alerts already open \
         (reference/export.md).\n",
    );
    Ok(Output::text(text))
}

/// The note for a run that is not complete: how many of its findings are written with no
/// verdict, neither dismissed nor linked to a task.
fn unfinished_note(report: &RunReport<'_>) -> Option<String> {
    let undecided = report
        .findings
        .iter()
        .filter(|f| f.verdict.is_none())
        .count();
    (report.status != "complete" && undecided > 0).then(|| {
        format!(
            "run {} is {}: {undecided} of {} finding(s) have no verdict yet and are written as \
             the analyzer reported them, neither dismissed nor linked to a task; upload it only \
             if that is what you want, or finish the run first (`self-repair status --run {}`)",
            report.run,
            report.status,
            report.findings.len(),
            report.run
        )
    })
}
