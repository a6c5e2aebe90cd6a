//! The measured table (issue 4 part 4): main-thread context growth, model calls, hook wall time
//! per stop, wall time; computed from the recorded requests and the client's debug log.

use std::fmt::Write as _;
use std::time::Duration;

use crate::e2e::hook_log::HookRun;
use crate::measurement::{Measurement, bytes_added, content_bytes};
use crate::recorded_request::RecordedRequest;

/// One row of the table.
#[derive(Debug, Clone, PartialEq)]
pub struct Figures {
    /// What was measured (scenario and launch mode).
    pub label: String,
    /// Triaged findings (triage items).
    pub findings: usize,
    /// Items run by an agent (every phase).
    pub items: usize,
    /// Main-context bytes added during the triage phase, per triaged finding.
    pub triage_growth_per_finding: f64,
    /// Main-context bytes added over the whole run, per triaged finding.
    pub growth_per_finding: f64,
    /// Main-context bytes added over the whole run, per agent item.
    pub growth_per_item: f64,
    /// Answered model calls (main + sub-agents) per triaged finding.
    pub calls_per_finding: f64,
    /// Stop hook runs.
    pub stops: usize,
    /// Median Stop hook wall time.
    pub hook_ms_median: u64,
    /// Slowest Stop hook run.
    pub hook_ms_max: u64,
    /// `claude -p` wall time.
    pub wall: Duration,
}

/// Content bytes added to the main thread up to the call that answered with the first
/// non-triage launch (the end of the triage phase), or up to its last call.
fn triage_bytes_added(main: &[&RecordedRequest]) -> usize {
    let end = main
        .iter()
        .position(|r| {
            r.tool_inputs.iter().any(|i| {
                i.get("prompt").is_some()
                    && i.get("description")
                        .and_then(serde_json::Value::as_str)
                        .is_some_and(|d| !d.starts_with("triage"))
            })
        })
        .unwrap_or(main.len().saturating_sub(1));
    let sizes: Vec<usize> = main[..=end.min(main.len().saturating_sub(1))]
        .iter()
        .map(|r| content_bytes(&r.body))
        .collect();
    bytes_added(&sizes)
}

impl Figures {
    /// Measures one `claude -p` run.
    pub fn measure(
        label: impl Into<String>,
        records: &[RecordedRequest],
        hooks: &[HookRun],
        findings: usize,
        wall: Duration,
    ) -> Figures {
        let m = Measurement::from_records(records);
        let mut main: Vec<&RecordedRequest> = records
            .iter()
            .filter(|r| r.thread == "main" && r.status == 200)
            .collect();
        main.sort_by_key(|r| r.seq);
        let per_finding = |n: usize| {
            if findings == 0 {
                0.0
            } else {
                n as f64 / findings as f64
            }
        };
        let mut stop_ms: Vec<u64> = hooks
            .iter()
            .filter(|h| h.event == "Stop")
            .filter_map(|h| h.millis)
            .collect();
        stop_ms.sort_unstable();
        Figures {
            label: label.into(),
            findings,
            items: m.items,
            triage_growth_per_finding: per_finding(triage_bytes_added(&main)),
            growth_per_finding: per_finding(m.main_bytes_added),
            growth_per_item: m.main_growth_per_item,
            calls_per_finding: per_finding(m.main_calls + m.sub_agent_calls),
            stops: stop_ms.len(),
            hook_ms_median: stop_ms.get(stop_ms.len() / 2).copied().unwrap_or(0),
            hook_ms_max: stop_ms.last().copied().unwrap_or(0),
            wall,
        }
    }
}

/// The rows as a Markdown table.
pub fn render_table(rows: &[Figures]) -> String {
    let mut out = String::from(
        "| run | findings | agent items | main growth / finding, triage phase (B) | main growth / finding, whole run (B) | main growth / agent item (B) | model calls / finding | Stop hooks | hook ms median / max | wall (s) |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {:.0} | {:.0} | {:.0} | {:.1} | {} | {} / {} | {:.1} |",
            r.label,
            r.findings,
            r.items,
            r.triage_growth_per_finding,
            r.growth_per_finding,
            r.growth_per_item,
            r.calls_per_finding,
            r.stops,
            r.hook_ms_median,
            r.hook_ms_max,
            r.wall.as_secs_f64()
        );
    }
    out
}
