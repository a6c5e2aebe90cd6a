//! Where a run stands in money and time, for `status`: agents finished per minute over the last
//! ten minutes (the journal's `submitted` events), what is left, an ETA at that pace, and
//! spent / estimated / budget (reference/cost.md, "Progress").

use std::io::{Read, Seek, SeekFrom};

use self_repair_engine::RunState;
use self_repair_store::{Project, RunDir};
use serde::Serialize;

/// The window the pace is measured over.
const WINDOW_SECS: u64 = 600;
/// How much of the journal's end is read for it: enough for thousands of submissions.
const TAIL_BYTES: u64 = 1 << 20;

/// Money and time so far, and what is left.
#[derive(Debug, Clone, Serialize)]
pub struct Progress {
    /// Since `start`.
    pub elapsed_secs: u64,
    /// Agents whose result arrived in the last ten minutes.
    pub finished_last_10_min: u32,
    pub agents_per_minute: f64,
    /// Agents the run likely still launches: the count `start`'s estimate made, now
    /// (`agents_ahead`; the phases to come projected).
    pub agents_left: u32,
    /// At the last ten minutes' pace; `None` with no result in that window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eta_minutes: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spent_usd: Option<f64>,
    /// Spent (0 before the hook has read the transcripts) plus the likely cost of the agents
    /// left and the main session's share (reference/cost.md, "Progress").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimated_usd: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget_usd: Option<f64>,
}

/// The run's progress at `now` (Unix seconds).
pub(crate) fn progress(
    project: &Project,
    dir: &RunDir,
    state: &RunState,
    now: u64,
    spent: Option<f64>,
) -> Progress {
    let finished = submitted_since(dir, now.saturating_sub(WINDOW_SECS));
    let rate = f64::from(finished) / (WINDOW_SECS as f64 / 60.0);
    let ledger = crate::run::cost::ledger_spend(dir);
    let prices = crate::run::preflight::Prices::for_run(project, state, ledger.as_ref());
    let ahead = crate::run::preflight::bill(state, &prices);
    let agents_left = ahead.agents_likely;
    Progress {
        elapsed_secs: now.saturating_sub(state.created_at),
        finished_last_10_min: finished,
        agents_per_minute: rate,
        agents_left,
        eta_minutes: (finished > 0).then(|| f64::from(agents_left) / rate),
        spent_usd: spent,
        estimated_usd: Some(spent.unwrap_or(0.0) + ahead.usd_likely),
        budget_usd: state.config.budget_usd,
    }
}

/// `submitted` journal events at or after `since`, from the journal's last megabyte.
fn submitted_since(dir: &RunDir, since: u64) -> u32 {
    let Ok(mut file) = std::fs::File::open(dir.path().join("journal.jsonl")) else {
        return 0;
    };
    let len = file.metadata().map_or(0, |m| m.len());
    let start = len.saturating_sub(TAIL_BYTES);
    if file.seek(SeekFrom::Start(start)).is_err() {
        return 0;
    }
    let mut text = String::new();
    if file.read_to_string(&mut text).is_err() {
        return 0;
    }
    // A tail starting mid-line: drop that line.
    let body = if start > 0 {
        text.split_once('\n').map_or("", |(_, rest)| rest)
    } else {
        &text
    };
    body.lines()
        .filter(|l| l.contains("\"event\":\"submitted\""))
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["at"].as_u64().is_some_and(|at| at >= since))
        .count() as u32
}

impl Progress {
    /// The lines `status` prints.
    pub fn render(&self) -> String {
        let minutes = |secs: u64| format!("{}h{:02}m", secs / 3600, (secs % 3600) / 60);
        let mut out = format!(
            "progress: {} since start; {:.1} agents/min over the last 10 min ({} finished); likely {} agents left",
            minutes(self.elapsed_secs),
            self.agents_per_minute,
            self.finished_last_10_min,
            self.agents_left
        );
        match self.eta_minutes {
            _ if self.agents_left == 0 => {}
            Some(eta) => out.push_str(&format!(
                " (about {} at this pace)",
                minutes((eta * 60.0).round() as u64)
            )),
            None => out.push_str(" (no ETA: no result in the last 10 min)"),
        }
        out.push('\n');
        let budget = self
            .budget_usd
            .map_or_else(|| "none".to_owned(), |b| format!("${b:.2}"));
        let estimated = self.estimated_usd.unwrap_or(0.0);
        match self.spent_usd {
            Some(spent) => out.push_str(&format!(
                "money: spent ${spent:.2}, likely ${estimated:.2} in all (the main session included), budget {budget}\n"
            )),
            None => out.push_str(&format!(
                "money: likely ${estimated:.2} ahead (the main session included); what was spent is not known until the Stop hook has read the session's transcripts; budget {budget}\n"
            )),
        }
        out
    }
}
