//! Finalize: write one backlog task per planned group, then `report.json` and `report.md`.
//! Idempotent: a task whose group fingerprint is already in the backlog is not written again.

use std::collections::HashMap;
use std::path::Path;

use self_repair_engine::{
    Event, FindingRecord, ItemStatus, JournalEntry, RunState, StableHash, TaskDraft, TriageResult,
};
use self_repair_report::{Backlog, RunReport, TaskToWrite};
use self_repair_store::{RunDir, write_atomic, write_json};

use crate::AppError;

/// Most findings listed in a task's description; the rest are counted.
const LISTED_FINDINGS: usize = 20;

/// Writes tasks, records `Finalized` in the journal and the state, writes the reports.
pub fn finalize_run(
    root: &Path,
    dir: &RunDir,
    state: &mut RunState,
    now: u64,
) -> Result<(), AppError> {
    let findings = read_findings(dir)?;
    let by_item: HashMap<&str, &FindingRecord> = findings
        .iter()
        .filter_map(|r| r.item.as_deref().map(|i| (i, r)))
        .collect();
    let mut tasks = Vec::new();
    for group in state.groups.iter().filter(|g| g.planned) {
        let writer = format!("tw-{}", group.id);
        if state
            .item(&writer)
            .is_none_or(|i| i.status != ItemStatus::Done)
        {
            continue;
        }
        let Some(path) = dir.item_file(&writer, "json") else {
            continue;
        };
        let text = std::fs::read_to_string(&path).map_err(AppError::io("read", &path))?;
        let draft: TaskDraft = serde_json::from_str(&text).map_err(|e| AppError::Io {
            action: "parse",
            path: path.clone(),
            source: std::io::Error::other(e),
        })?;
        let members: Vec<&FindingRecord> = group
            .members
            .iter()
            .filter_map(|m| by_item.get(m.as_str()).copied())
            .collect();
        let mut fingerprints: Vec<&str> = members.iter().map(|r| r.fingerprint.as_str()).collect();
        fingerprints.sort_unstable();
        tasks.push(TaskToWrite {
            group: group.id.clone(),
            draft,
            fingerprint: StableHash::of_fields(fingerprints),
            footer: footer(&state.run, &group.id, &members),
        });
    }
    let records = Backlog::new(root).write(&tasks, now)?;
    dir.record(
        state,
        &[JournalEntry {
            at: now,
            event: Event::Finalized { tasks: records },
        }],
    )?;
    write_reports(dir, state, &findings)
}

/// Rewrites `report.json` and `report.md` from the state (also `self-repair finalize` on a
/// complete run).
pub fn write_reports(
    dir: &RunDir,
    state: &RunState,
    findings: &[FindingRecord],
) -> Result<(), AppError> {
    let mut triage = HashMap::new();
    for item in state.items[..state.triage_items as usize]
        .iter()
        .filter(|i| i.status == ItemStatus::Done)
    {
        let Some(path) = dir.item_file(&item.id, "json") else {
            continue;
        };
        if let Some(result) = std::fs::read_to_string(&path)
            .ok()
            .and_then(|t| serde_json::from_str::<TriageResult>(&t).ok())
        {
            triage.insert(item.id.clone(), result);
        }
    }
    let report = RunReport::build(state, findings, &triage);
    write_json(&dir.path().join("report.json"), &report)?;
    write_atomic(
        &dir.path().join("report.md"),
        report.render_markdown().as_bytes(),
    )?;
    Ok(())
}

/// The run's `findings.json`.
pub fn read_findings(dir: &RunDir) -> Result<Vec<FindingRecord>, AppError> {
    let path = dir.findings_path();
    let bytes = std::fs::read(&path).map_err(AppError::io("read", &path))?;
    serde_json::from_slice(&bytes).map_err(|e| AppError::Io {
        action: "parse",
        path,
        source: std::io::Error::other(e),
    })
}

fn footer(run: &str, group: &str, members: &[&FindingRecord]) -> String {
    let mut lines = Vec::new();
    for record in members.iter().take(LISTED_FINDINGS) {
        let f = &record.finding;
        let at = f
            .line
            .map_or_else(|| f.path.clone(), |l| format!("{}:{l}", f.path));
        let extra = match record.occurrences.len() {
            0 | 1 => String::new(),
            n => format!(" (+{} more)", n - 1),
        };
        let message: String = f.message.split_whitespace().collect::<Vec<_>>().join(" ");
        lines.push(format!("{at} {} {}: {message}{extra}", f.tool, f.rule_id));
    }
    if members.len() > LISTED_FINDINGS {
        lines.push(format!("... and {} more", members.len() - LISTED_FINDINGS));
    }
    let body = lines.join("\n");
    let fence = "`".repeat(longest_backticks(&body).max(2) + 1);
    format!(
        "Findings ({}), from self-repair run {run}, group {group}:\n\n{fence}text\n{body}\n{fence}",
        members.len()
    )
}

fn longest_backticks(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}
