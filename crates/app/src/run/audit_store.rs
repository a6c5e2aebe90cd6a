//! The audit's files in the project (`.self-repair/audit.jsonl`, the team's) and what the rest
//! of the app takes from them: a person's disagreement reopens the finding in every report and
//! export (`reopen_in_report`) and in the known registry (`reopen_in_known`), the figure, and
//! the gate `export` obeys (crates/audit, reference/audit.md).

use std::path::{Path, PathBuf};

use self_repair_audit::{AUDIT_FILE, AuditFigure, AuditLabels, AuditPolicy, GateStatus};
use self_repair_classify::{KnownEntry, KnownRegistry};
use self_repair_engine::Verdict;
use self_repair_report::RunReport;
use self_repair_store::{RunDir, write_atomic};

use crate::app_error::AppError;

/// What `decided_by` says of a finding a person's audit reopened.
pub(crate) const REOPENED_BY: &str = "audit";

/// `.self-repair/audit.jsonl`.
pub(crate) fn labels_path(store_dir: &Path) -> PathBuf {
    store_dir.join(AUDIT_FILE)
}

/// The store folder of a run folder (`<store>/runs/<id>`).
pub(crate) fn store_of(dir: &RunDir) -> Option<&Path> {
    dir.path().parent()?.parent()
}

/// The project's audit answers; none when the file is absent.
pub(crate) fn load_labels(store_dir: &Path) -> Result<AuditLabels, AppError> {
    let path = labels_path(store_dir);
    match std::fs::read_to_string(&path) {
        Ok(text) => AuditLabels::parse(&text, &path).map_err(|e| AppError::Usage(e.to_string())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(AuditLabels::default()),
        Err(e) => Err(AppError::io("read", &path)(e)),
    }
}

/// Writes the answers, sorted, one a line.
pub(crate) fn save_labels(store_dir: &Path, labels: &AuditLabels) -> Result<(), AppError> {
    write_atomic(&labels_path(store_dir), labels.render().as_bytes())?;
    Ok(())
}

/// The team's audit policy (`config.json`'s `audit`).
pub(crate) fn audit_policy(store_dir: &Path) -> Result<AuditPolicy, AppError> {
    Ok(crate::run::project_config::load_project_config(store_dir, None)?.audit)
}

/// Every finding of `report` a person reopened becomes `real`, with their reason, decided by
/// the audit: what `export` hands out, `report.md` and `status` read. A file that does not read
/// changes nothing here (`audit` and `status` report it).
pub(crate) fn reopen_in_report(dir: &RunDir, report: &mut RunReport) {
    let Some(labels) = store_of(dir).and_then(|store| load_labels(store).ok()) else {
        return;
    };
    let reopened = labels.reopened();
    if reopened.is_empty() {
        return;
    }
    for outcome in &mut report.findings {
        let Some(label) = reopened.get(&*outcome.fingerprint) else {
            continue;
        };
        outcome.reason = Some(reopened_reason(label).into());
        outcome.verdict = Some("real".into());
        outcome.decided_by = REOPENED_BY.into();
    }
}

/// `reopened by a person's audit (alice, run R): <reason>`.
fn reopened_reason(label: &self_repair_audit::AuditLabel) -> String {
    format!(
        "reopened by a person's audit ({}, run {}): {}",
        label.by, label.run, label.note
    )
}

/// Every reopened finding is `real` in `known.json` with the person's reason, so no later run
/// reuses the dismissal; returns how many entries changed. Run after the registry learns a
/// run's verdicts, so an audit stands over an agent's later answer.
pub(crate) fn reopen_in_known(store_dir: &Path, now: u64) -> Result<usize, AppError> {
    if load_labels(store_dir)?.reopened().is_empty() {
        return Ok(0);
    }
    let mut known = KnownRegistry::load(store_dir).map_err(|e| AppError::Usage(e.to_string()))?;
    let changed = reopen_in(store_dir, &mut known, now)?;
    if changed > 0 {
        known
            .save(store_dir)
            .map_err(|e| AppError::Usage(e.to_string()))?;
    }
    Ok(changed)
}

/// [`reopen_in_known`] on a registry already loaded (finalize's, which it saves once); returns
/// how many entries changed.
pub(crate) fn reopen_in(
    store_dir: &Path,
    known: &mut KnownRegistry,
    now: u64,
) -> Result<usize, AppError> {
    let labels = load_labels(store_dir)?;
    let mut changed = 0;
    for (fingerprint, label) in labels.reopened() {
        let entry = KnownEntry {
            fixed: known.get(fingerprint).and_then(|e| e.fixed.clone()),
            ..KnownEntry::without_agent(
                Verdict::Real,
                reopened_reason(label),
                REOPENED_BY.to_owned(),
                format!("{} {} at {}", label.tool, label.rule, label.path),
            )
        };
        changed += usize::from(known.insert_at(fingerprint.to_owned(), entry, now));
    }
    Ok(changed)
}

/// The audit figure of run `run` (every run's with `None`), at the policy's confidence.
pub(crate) fn audit_figure(store_dir: &Path, run: Option<&str>) -> Result<AuditFigure, AppError> {
    let labels = load_labels(store_dir)?;
    let confidence = audit_policy(store_dir)?.confidence;
    Ok(match run {
        Some(run) => AuditFigure::of(labels.of_run(run), confidence),
        None => AuditFigure::of(labels.labels.values(), confidence),
    })
}

/// The gate on `report`'s run: whether its dismissals may go out.
pub(crate) fn gate_status(store_dir: &Path, report: &RunReport) -> Result<GateStatus, AppError> {
    let policy = audit_policy(store_dir)?;
    let labels = load_labels(store_dir)?;
    let closed = report
        .findings
        .iter()
        .filter(|f| matches!(f.verdict.as_deref(), Some("false_positive" | "intended")))
        .count();
    Ok(GateStatus::of(&policy, &labels, &report.run, closed))
}

/// What `export github-dismissals` says when the gate holds.
pub(crate) fn gate_refusal(run: &str, status: GateStatus) -> Option<String> {
    let GateStatus::Unaudited { answered, needed } = status else {
        return None;
    };
    Some(format!(
        "run {run}'s dismissals are not handed out: the project's audit gate (config.json \
         `audit.gate`) asks a person to audit {needed} of them and {answered} are answered. \
         Audit them in your own terminal with `self-repair audit {run}` (or `self-repair audit \
         {run} --write audit.md`, fill it in, then `--read audit.md`), or set `audit.gate` to \
         false (reference/audit.md)"
    ))
}

/// `report.md`'s audit section for run `run`: empty until a person answered something in it.
pub(crate) fn audit_section(root: &Path, run: &str) -> String {
    let store_dir = root.join(self_repair_store::STORE_DIR);
    match audit_figure(&store_dir, Some(run)) {
        Ok(figure) if figure.all.answered > 0 => format!("\n{}", figure.render_markdown()),
        _ => String::new(),
    }
}

/// `runs --compare`'s audit trend: each of `runs` (oldest first) a person audited, then every
/// run together. Empty when nothing was audited.
pub(crate) fn audit_trend(store_dir: &Path, runs: &[String]) -> String {
    let Ok(all) = audit_figure(store_dir, None) else {
        return String::new();
    };
    if all.all.answered == 0 {
        return String::new();
    }
    let mut out = String::from("\nAudit by a person, run by run:\n");
    for run in runs {
        if let Ok(figure) = audit_figure(store_dir, Some(run))
            && figure.all.answered > 0
        {
            out.push_str(&format!(
                "  {run}: {}\n",
                figure.all.sentence(figure.confidence)
            ));
        }
    }
    out.push_str(&format!(
        "  every run: {}\n",
        all.all.sentence(all.confidence)
    ));
    out
}
