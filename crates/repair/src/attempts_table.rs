//! The attempts table: one row per run of the check (baseline, autofix, each attempt's recheck),
//! as `status`, the success summary and the hand-off report show it.

use crate::{CheckPurpose, CheckRecord, RepairState};

/// `0.25 s`, `75.0 s`.
pub fn format_duration(ms: u64) -> String {
    format!("{:.2} s", ms as f64 / 1000.0)
}

fn files_cell(files: &[String]) -> String {
    match files.len() {
        0 => "0".to_owned(),
        1..=3 => format!("{} ({})", files.len(), files.join(", ")),
        n => n.to_string(),
    }
}

/// The result cell of a check run compared with the run before it.
fn result_cell(check: &CheckRecord, previous: Option<&CheckRecord>) -> String {
    if check.passed() {
        return "pass".to_owned();
    }
    let same = previous.is_some_and(|p| !p.passed() && p.signature == check.signature);
    match (check.class.as_str(), same) {
        ("transient", _) => "transient, rerun".to_owned(),
        ("permanent", _) => "permanent".to_owned(),
        (_, true) => "same failure".to_owned(),
        (_, false) if previous.is_some() => "new failure".to_owned(),
        _ => "fails".to_owned(),
    }
}

/// The table, in markdown.
pub fn attempts_table(state: &RepairState) -> String {
    let mut out = String::from(
        "| attempt | tier | approach | exit | signature | files changed | duration | result |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    let mut previous: Option<&CheckRecord> = None;
    for check in &state.checks {
        let (label, tier, approach, files) = match check.purpose {
            CheckPurpose::Baseline => (
                "baseline".to_owned(),
                "-".to_owned(),
                "-".to_owned(),
                "-".to_owned(),
            ),
            CheckPurpose::AutofixRecheck => (
                "autofix".to_owned(),
                "-".to_owned(),
                "-".to_owned(),
                state
                    .autofix
                    .as_ref()
                    .map_or_else(|| "-".to_owned(), |a| files_cell(&a.files_changed)),
            ),
            CheckPurpose::Recheck => match state.attempt(check.attempt) {
                Some(a) => (
                    a.n.to_string(),
                    a.tier.to_string(),
                    a.approach.as_str().to_owned(),
                    if a.no_change {
                        "0 (no change)".to_owned()
                    } else {
                        files_cell(&a.files_changed)
                    },
                ),
                None => (
                    check.attempt.to_string(),
                    "-".to_owned(),
                    "-".to_owned(),
                    "-".to_owned(),
                ),
            },
        };
        let signature = if check.passed() {
            "-"
        } else {
            check.signature.as_str()
        };
        out.push_str(&format!(
            "| {label} | {tier} | {approach} | {} | {signature} | {files} | {} | {} |\n",
            check.exit_label(),
            format_duration(check.duration_ms),
            result_cell(check, previous)
        ));
        if check.class != crate::FailureClass::Transient {
            previous = Some(check);
        }
    }
    for attempt in state.attempts.iter().filter(|a| a.check.is_none()) {
        out.push_str(&format!(
            "| {} | {} | {} | - | - | - | - | in progress |\n",
            attempt.n,
            attempt.tier,
            attempt.approach.as_str()
        ));
    }
    out
}
