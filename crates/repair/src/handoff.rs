//! The ending of a repair run: a success summary, or — when it gave up — the hand-off bundle in
//! `.self-repair/runs/<id>/handoff/`: every attempt log, an error report per failing run, the
//! combined diff, `metadata.json`, and `report.md` for the person who takes over.

use std::path::{Path, PathBuf};

use self_repair_context::fenced_block;
use self_repair_engine::timestamp;
use self_repair_store::{RunDir, write_atomic, write_json};
use serde_json::json;

use crate::attempts_table::{attempts_table, format_duration};
use crate::repair_run::RepairRun;
use crate::{CheckRecord, RepairError, RepairState, RepairStatus, shell_words};

/// Lines of the last output quoted in the report.
const REPORT_TAIL_LINES: usize = 30;

/// `handoff/report.md`, relative to the project root when the run is inside it.
pub fn report_path(root: &Path, dir: &RunDir) -> PathBuf {
    let path = dir.path().join("handoff").join("report.md");
    path.strip_prefix(root)
        .map_or(path.clone(), Path::to_path_buf)
}

fn write_text(path: &Path, text: &str) -> Result<(), RepairError> {
    write_atomic(path, text.as_bytes())?;
    Ok(())
}

/// Writes `summary.md` (success) or the hand-off bundle (quarantined, escalated, infra failure,
/// cancelled: the person who takes over gets the logs and the diff either way).
pub(crate) fn write_ending(run: &RepairRun) -> Result<(), RepairError> {
    match run.state.status {
        RepairStatus::Success => write_text(
            &run.dir.path().join("summary.md"),
            &render_summary(&run.state),
        ),
        RepairStatus::Quarantined
        | RepairStatus::Escalated
        | RepairStatus::InfraFailure
        | RepairStatus::Cancelled => write_handoff(run),
        RepairStatus::Active | RepairStatus::Waiting | RepairStatus::Stalled => Ok(()),
    }
}

/// The success summary: outcome and attempts table.
pub fn render_summary(state: &RepairState) -> String {
    let reason = state.ending.as_ref().map_or("", |e| e.reason.as_str());
    format!(
        "# self-repair check: success\n\n`{}` — {reason}.\n\nRun {}, started {}.\n\n{}",
        shell_words(&state.spec.command),
        state.run,
        timestamp::rfc3339(state.created_at),
        attempts_table(state)
    )
}

fn write_handoff(run: &RepairRun) -> Result<(), RepairError> {
    let state = &run.state;
    let out = run.dir.path().join("handoff");
    let logs = out.join("logs");
    let errors = out.join("errors");
    for dir in [&logs, &errors] {
        std::fs::create_dir_all(dir).map_err(RepairError::io("create", dir))?;
    }
    let attempts = run.dir.path().join("attempts");
    if let Ok(entries) = std::fs::read_dir(&attempts) {
        for entry in entries.filter_map(Result::ok) {
            let name = entry.file_name();
            // Only logs the runs wrote: whatever else sits there must not cost the report.
            let is_file = entry.file_type().is_ok_and(|t| t.is_file());
            if is_file && name.to_string_lossy().ends_with(".log") {
                let to = logs.join(&name);
                std::fs::copy(entry.path(), &to).map_err(RepairError::io("copy a log to", &to))?;
            }
        }
    }
    for check in state.checks.iter().filter(|c| !c.passed()) {
        let path = errors.join(format!("check-{:02}.md", check.seq));
        write_text(&path, &render_error(state, check))?;
    }
    let diff = state.git.combined_diff(&run.root, &state.spec.exclude);
    write_text(&out.join("diff.patch"), &diff)?;
    let metadata = json!({
        "schema_version": 1,
        "run": state.run,
        "status": state.status.as_str(),
        "reason": state.ending.as_ref().map(|e| e.reason.clone()),
        "command": state.spec.command,
        "autofix": state.spec.autofix,
        "created_at": timestamp::rfc3339(state.created_at),
        "ended_at": state.ending.as_ref().map(|e| timestamp::rfc3339(e.at)),
        "git": state.git,
        "spec": state.spec,
        "checks": state.checks,
        "attempts": state.attempts,
        "autofix_run": state.autofix,
        "files": {
            "report": "report.md",
            "diff": "diff.patch",
            "logs": "logs/",
            "errors": "errors/",
        },
    });
    write_json(&out.join("metadata.json"), &metadata)?;
    write_text(
        &out.join("report.md"),
        &render_report(state, diff.is_empty()),
    )
}

fn render_error(state: &RepairState, check: &CheckRecord) -> String {
    let what = if check.attempt == 0 {
        check.purpose.as_str().to_owned()
    } else {
        format!("recheck after attempt {}", check.attempt)
    };
    format!(
        "# check run {} ({what})\n\n- command: `{}`\n- result: {}, class {}, signature {}\n- duration: {}\n- full log: logs/{}\n\nLast lines of output:\n\n{}",
        check.seq,
        shell_words(&state.spec.command),
        check.exit_label(),
        check.class.as_str(),
        check.signature,
        format_duration(check.duration_ms),
        check.log.trim_start_matches("attempts/"),
        fenced_block("text", &check.tail)
    )
}

/// Why attempt `n` failed, in one line.
fn attempt_line(state: &RepairState, n: u32) -> String {
    let Some(a) = state.attempt(n) else {
        return String::new();
    };
    let head = format!("- Attempt {} ({}, {}):", a.n, a.tier, a.approach.as_str());
    let check = a
        .check
        .and_then(|seq| state.checks.iter().find(|c| c.seq == seq));
    let before = state.checks.iter().rev().find(|c| c.attempt < n);
    let changed = if a.no_change {
        "changed no file".to_owned()
    } else {
        format!("changed {}", a.files_changed.join(", "))
    };
    let result = match (check, before) {
        (None, _) => "was never rechecked".to_owned(),
        (Some(c), _) if c.passed() => "the check passed".to_owned(),
        (Some(c), Some(b)) if b.signature == c.signature => format!(
            "the check failed the same way ({}, signature {})",
            c.exit_label(),
            c.signature
        ),
        (Some(c), _) => format!(
            "the check failed differently ({}, signature {})",
            c.exit_label(),
            c.signature
        ),
    };
    format!("{head} {changed}; {result}.")
}

fn next_steps(state: &RepairState, no_diff: bool) -> Vec<String> {
    let mut steps = Vec::new();
    let reason = state.ending.as_ref().map_or("", |e| e.reason.as_str());
    match state.status {
        RepairStatus::Escalated => steps.push(
            "The failure looks permanent (permissions, credentials, or a missing command): fix \
             the environment, not the code, then start again with `self-repair check`."
                .to_owned(),
        ),
        RepairStatus::InfraFailure => steps.push(
            "self-repair itself failed (see the reason above); fix that, then start again."
                .to_owned(),
        ),
        RepairStatus::Cancelled => steps.push(
            "The run was cancelled before the check passed: pick up from the last error report \
             in errors/, or start again with `self-repair check`."
                .to_owned(),
        ),
        _ if reason.contains("changed no file") => steps.push(
            "The attempts changed no file: the fixer may not have found where the fault is. \
             Point it at the failing code (a file or function) and run the check again."
                .to_owned(),
        ),
        _ if reason.contains("identical failures") => steps.push(
            "Every attempt ended in the same failure: the cause is probably outside the code \
             the attempts touched (test data, configuration, an environment assumption). Read \
             the first error report in errors/ and question the test's assumptions."
                .to_owned(),
        ),
        _ => steps.push(
            "Each attempt failed differently: read the attempts below in order; the last \
             output is the closest to passing."
                .to_owned(),
        ),
    }
    if no_diff {
        steps.push("No change is left in the work tree (diff.patch is empty).".to_owned());
    } else {
        steps.push(
            "Review diff.patch (every change made since the start); keep what helps, revert \
             the rest yourself."
                .to_owned(),
        );
    }
    steps.push(state.git.restore_hint());
    steps.push("Full outputs: logs/; one report per failing run: errors/.".to_owned());
    steps
}

/// `report.md` of the hand-off bundle.
pub fn render_report(state: &RepairState, no_diff: bool) -> String {
    let reason = state.ending.as_ref().map_or("", |e| e.reason.as_str());
    let mut out = format!(
        "# self-repair hand-off: `{}` still fails\n\nRun {}, {}: {reason}.\n\n## Error summary\n\n",
        shell_words(&state.spec.command),
        state.run,
        state.status.as_str()
    );
    if let Some(last) = state.last_check() {
        out.push_str(&format!(
            "The last run ({}) ended with {}, class {}, signature {}; {} failing run(s) in a row \
             had this signature.\n\n",
            if last.attempt == 0 {
                last.purpose.as_str().to_owned()
            } else {
                format!("recheck after attempt {}", last.attempt)
            },
            last.exit_label(),
            last.class.as_str(),
            last.signature,
            state.identical_failures()
        ));
        let lines: Vec<&str> = last.tail.lines().collect();
        let tail = lines[lines.len().saturating_sub(REPORT_TAIL_LINES)..].join("\n");
        out.push_str(&fenced_block("text", &tail));
        out.push('\n');
    }
    out.push_str("## Attempts\n\n");
    out.push_str(&attempts_table(state));
    out.push('\n');
    if state.attempts.is_empty() {
        out.push_str("No fix attempt was made.\n");
    } else {
        for a in &state.attempts {
            out.push_str(&attempt_line(state, a.n));
            out.push('\n');
        }
    }
    out.push_str("\n## Suggested next steps\n\n");
    for step in next_steps(state, no_diff) {
        out.push_str(&format!("- {step}\n"));
    }
    out
}
