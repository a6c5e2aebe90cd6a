//! `self-repair known baseline|prune|merge-driver`: the registry a team shares in git. A
//! baseline records every finding of one or more reports at once, prune drops entries no recent
//! run read, and the merge driver is what git runs on `known.json` and `rules.json` where
//! `install` registered it (reference/state-file.md, "The registry in git").

use std::path::{Path, PathBuf};

use clap::Args;
use self_repair_classify::{
    Baseline, BaselineCount, KnownRegistry, PruneWindow, RegistryKind, merge_registry_files,
};
use self_repair_engine::Verdict;
use self_repair_ingest::{Format, IngestOptions, fingerprint_all, parse};
use self_repair_store::TeamFiles;

use crate::app_error::AppError;
use crate::command_env::CommandEnv;
use crate::output::Output;

/// `self-repair known baseline`.
#[derive(Debug, Clone, Args)]
pub struct BaselineArgs {
    /// The analyzers' reports whose every finding is accepted.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// The verdict every finding gets: `intended` or `false_positive`.
    #[arg(long)]
    pub verdict: String,
    /// Why, for the next reader (`accepted debt, 2026-11`).
    #[arg(long)]
    pub reason: String,
    /// Input format: auto, jsonl, sarif, clippy, ruff, eslint, knip, vulture, bandit, ts-prune,
    /// github-alerts.
    #[arg(long, default_value = "auto")]
    pub format: String,
    /// Absolute prefix to strip from paths an analyzer wrote on another machine (default:
    /// inferred from the project's files when they lie outside the project).
    #[arg(long, value_name = "DIR")]
    pub base: Option<PathBuf>,
    /// Project folder the analyzer ran in: relative paths in its output are under it.
    #[arg(long, value_name = "DIR")]
    pub relative_to: Option<String>,
    /// Print what it would record; write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// `known baseline FILE... --verdict V --reason TEXT`: every finding of the reports into
/// `known.json`, one file at a time (a report's text and findings are dropped before the next
/// is read), the registry written once at the end. Any bad input: nothing is written.
pub fn baseline(env: &CommandEnv, request: &BaselineArgs) -> Result<Output, AppError> {
    let verdict = Verdict::parse(&request.verdict).ok_or_else(|| {
        AppError::Usage(format!(
            "--verdict {}: a baseline records `intended` or `false_positive`",
            request.verdict
        ))
    })?;
    let format: Format = request
        .format
        .parse()
        .map_err(|e| AppError::Usage(format!("--format: {e}")))?;
    let baseline = Baseline::new(verdict, &request.reason, env.now)?;
    let project = env.project_or_new();
    let root = project.root().to_path_buf();
    let store = project.store_dir();
    // The lock makes `.self-repair/`; a dry run writes nothing, so it only reads.
    let _registry = if request.dry_run {
        None
    } else {
        Some(self_repair_store::lock_registry(&store)?)
    };
    let mut known = KnownRegistry::load(&store)?;
    let before = known.entries.len();
    let mut lines = Vec::new();
    let (mut added, mut kept) = (0, 0);
    for file in &request.files {
        let (line, count) =
            baseline_report(env, request, &root, format, &baseline, &mut known, file)?;
        lines.push(line);
        added += count.added;
        kept += count.kept;
    }
    let mut text = lines.join("\n");
    if request.dry_run {
        text.push_str(&format!(
            "\nknown baseline --dry-run: would record {added} as {} (\"{}\"), {kept} kept as \
             decided before; known.json would hold {} (holds {before}). Nothing written",
            verdict.as_str(),
            request.reason.trim(),
            known.entries.len()
        ));
        return Ok(Output::text(text));
    }
    let team = TeamFiles::ensure(&store)?;
    if added > 0 {
        known.save(&store)?;
    }
    text.push_str(&format!(
        "\nknown baseline: {added} recorded as {} (\"{}\"), {kept} kept as decided before; \
         known.json holds {} (was {before}). The next `self-repair start` triages only findings \
         not in it; commit .self-repair/known.json to share the baseline",
        verdict.as_str(),
        request.reason.trim(),
        known.entries.len()
    ));
    if !team.is_empty() {
        text.push_str(&team_files_line(&team));
    }
    Ok(Output::text(text))
}

/// One report of `known baseline` read, parsed and recorded into `known`: its line and count.
fn baseline_report(
    env: &CommandEnv,
    request: &BaselineArgs,
    root: &Path,
    format: Format,
    baseline: &Baseline,
    known: &mut KnownRegistry,
    file: &Path,
) -> Result<(String, BaselineCount), AppError> {
    let path = env.cwd.join(file);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| AppError::Usage(format!("cannot read report {}: {e}", file.display())))?;
    let mut options = IngestOptions::new(file.display().to_string(), root);
    if let Some(base) = &request.base {
        options = options.with_base(base.clone());
    }
    if let Some(dir) = &request.relative_to {
        options = options.with_relative_to(dir.clone());
    }
    let parsed = parse(&text, format, &options).map_err(|e| AppError::Ingest(Box::new(e)))?;
    drop(text);
    let fingerprints = fingerprint_all(&parsed.findings, root);
    let count = baseline.record(
        known,
        fingerprints
            .iter()
            .map(String::as_str)
            .zip(parsed.findings.iter()),
    );
    let line = format!(
        "{}: {} findings ({}): {} {}, {} already decided",
        file.display(),
        parsed.findings.len(),
        parsed.format.as_str(),
        count.added,
        if request.dry_run {
            "to record"
        } else {
            "recorded"
        },
        count.kept
    );
    Ok((line, count))
}

/// The line saying which team files were written.
fn team_files_line(written: &[PathBuf]) -> String {
    let names: Vec<String> = written
        .iter()
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    format!(
        "\nwrote .self-repair/{}: commit them with known.json (README.md, \"Team and CI\")",
        names.join(" and .self-repair/")
    )
}

/// `known prune --runs N [--dry-run]`.
pub fn prune(env: &CommandEnv, runs: usize, dry_run: bool) -> Result<Output, AppError> {
    let project = env.find_project()?;
    let store = project.store_dir();
    let window = PruneWindow::read(&project, runs)?;
    let _registry = self_repair_store::lock_registry(&store)?;
    let mut known = KnownRegistry::load(&store)?;
    let outcome = known.prune(&window);
    if !dry_run && !outcome.removed.is_empty() {
        known.save(&store)?;
    }
    let verb = if dry_run { "would drop" } else { "dropped" };
    let mut text = format!(
        "known prune: {verb} {} of {} entries: no run of the last {runs} ({}) read their finding",
        outcome.removed.len(),
        known.entries.len() + outcome.removed.len(),
        window.runs.join(", ")
    );
    if outcome.kept_other_tool > 0 {
        text.push_str(&format!(
            "; kept {} of analyzers none of those runs read",
            outcome.kept_other_tool
        ));
    }
    if outcome.kept_younger > 0 {
        text.push_str(&format!(
            "; kept {} decided since the oldest of those runs started",
            outcome.kept_younger
        ));
    }
    for (fingerprint, entry) in &outcome.removed {
        text.push_str(&format!(
            "\n  {fingerprint} {} ({}): {}",
            entry.verdict.as_str(),
            entry.source,
            entry.summary
        ));
    }
    Ok(Output::text(text))
}

/// `known merge-driver BASE OURS THEIRS [PATH]`: what git runs as the `self-repair-known`
/// merge driver. Writes the merge over OURS; reports the findings both branches decided
/// differently (exit 0: the later decision stands). A version that does not read: nothing is
/// written and the exit is non-zero, so git leaves the file conflicted.
pub fn merge_driver(
    base: &Path,
    ours: &Path,
    theirs: &Path,
    name: Option<&str>,
) -> Result<Output, AppError> {
    let shown = name.unwrap_or("the registry");
    let (kind, conflicts) = merge_registry_files(base, ours, theirs, name).map_err(|e| {
        AppError::Usage(format!(
            "known merge-driver: cannot merge {shown} ({e}); git leaves it conflicted: \
             keep both sides' lines, delete the conflict markers, and commit"
        ))
    })?;
    if conflicts.is_empty() {
        return Ok(Output::text(""));
    }
    let what = match kind {
        RegistryKind::Known => "findings",
        RegistryKind::Rules => "rules",
    };
    let mut text = format!(
        "known merge-driver: {shown}: {} {what} decided differently on both branches; the later decision stands (`self-repair known add` or `rules accept|reject` changes it):",
        conflicts.len()
    );
    for conflict in &conflicts {
        text.push_str("\n  ");
        text.push_str(&conflict.render());
    }
    Ok(Output::text(text))
}
