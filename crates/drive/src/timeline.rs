//! `self-repair timeline`: the run's journal, the drive log and the sessions' cost records
//! merged into one time-ordered view. Runs of the same event (a wave of submissions) are
//! folded into one line with their count, so the view stays short at thousands of items.

use serde::Serialize;
use serde_json::Value;

use crate::drive_log::{DriveLog, SessionRecord};

/// The version of `timeline --json`.
pub(crate) const TIMELINE_VERSION: u32 = 1;

/// One line of the timeline.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TimelineEntry {
    /// Unix seconds.
    pub at: u64,
    /// `2026-11-23T12:00:00Z`.
    pub time: String,
    /// `journal`, `drive` or `cost`.
    pub source: &'static str,
    /// `session_start`, `session_end`, `phase`, `submitted`, `launched`, `quarantined`,
    /// `failure`, `adopt`, ...
    pub kind: String,
    /// Events folded into this line.
    pub count: u32,
    /// The items named, first and last of a folded run.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub items: Vec<String>,
    pub detail: String,
    /// Orders lines of the same second: a session's start, its events, its end, its cost.
    #[serde(skip)]
    rank: u8,
}

/// The whole timeline of a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Timeline {
    pub schema_version: u32,
    pub run: String,
    pub entries: Vec<TimelineEntry>,
}

fn entry(at: u64, source: &'static str, kind: &str, detail: String, rank: u8) -> TimelineEntry {
    TimelineEntry {
        at,
        time: self_repair_engine::timestamp::rfc3339(at),
        source,
        kind: kind.to_owned(),
        count: 1,
        items: Vec::new(),
        detail,
        rank,
    }
}

fn str_field<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or("")
}

/// The timeline line of one journal line (`None` for the hook's bookkeeping: plain stops,
/// `shown`).
fn journal_entry(value: &Value) -> Option<TimelineEntry> {
    let at = value.get("at").and_then(Value::as_u64)?;
    let event = str_field(value, "event");
    let item = str_field(value, "item").to_owned();
    let mut line = match event {
        "submitted" => entry(at, "journal", "submitted", String::new(), 1),
        "rejected" => {
            let error: String = str_field(value, "error").chars().take(120).collect();
            entry(at, "journal", "rejected", error, 1)
        }
        "stop" => {
            let calls = value.get("launched").and_then(Value::as_array)?;
            let launched: Vec<String> = calls
                .iter()
                .map(|l| str_field(l, "item").to_owned())
                .collect();
            if launched.is_empty() {
                return None;
            }
            // What the main session did to the dispatch: launches that dropped `model` (their
            // agent ran on its definition's default) and launches the client refused.
            let refused = calls.iter().filter(|l| l.get("refused").is_some()).count();
            let dropped = calls
                .iter()
                .filter(|l| l.get("model").is_none() && l.get("refused").is_none())
                .count();
            let flagged = |flag: &str| {
                calls
                    .iter()
                    .filter(|l| l.get(flag).and_then(Value::as_bool) == Some(true))
                    .count()
            };
            let detail = [
                (dropped, "without `model` (run on the agent's default tier)"),
                (refused, "refused by the client"),
                (
                    flagged("fork"),
                    "without `subagent_type` (a fork of the main session, not the item's agent)",
                ),
                (flagged("background"), "run in the background by the client"),
            ]
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, what)| format!("{n} {what}"))
            .collect::<Vec<_>>()
            .join("; ");
            // The hook reads the launches from the transcript at the next stop.
            let mut line = entry(at, "journal", "launched", detail, 1);
            line.count = launched.len() as u32;
            line.items = launched;
            return Some(line);
        }
        // A dispatch is the hook's bookkeeping, but the first by a session's channel says
        // which channel and why (design note 63).
        "dispatched" => {
            let why = value.get("why").and_then(Value::as_str)?;
            let channel = match str_field(value, "channel") {
                "block" => "decision: block",
                _ => "additionalContext",
            };
            entry(
                at,
                "journal",
                "channel",
                format!("dispatches go by {channel}: {why}"),
                1,
            )
        }
        "stop_failure" => entry(
            at,
            "journal",
            "failure",
            format!("the client's StopFailure: {}", str_field(value, "error")),
            1,
        ),
        "adopt" => entry(
            at,
            "journal",
            "adopt",
            format!("bound to session {}", str_field(value, "session")),
            1,
        ),
        "pause" | "resume" | "cancel" => entry(at, "journal", event, String::new(), 1),
        "merged" => {
            let runs: Vec<&str> = value
                .get("runs")
                .and_then(Value::as_array)
                .map(|runs| runs.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            entry(
                at,
                "journal",
                "merged",
                format!(
                    "made from {} partitions' runs: {} (their timelines are theirs)",
                    runs.len(),
                    runs.join(", ")
                ),
                1,
            )
        }
        "finalized" => {
            let tasks = value
                .get("tasks")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            entry(
                at,
                "journal",
                "finalized",
                format!("{tasks} tasks written"),
                1,
            )
        }
        _ => return None,
    };
    if !item.is_empty() {
        line.items.push(item);
    }
    Some(line)
}

/// Folds consecutive lines of the same kind (`submitted`, `launched`, `rejected`) whose
/// times are within a minute: one line with the count and the lowest and highest item id.
fn fold_runs(entries: Vec<TimelineEntry>) -> Vec<TimelineEntry> {
    let mut out: Vec<TimelineEntry> = Vec::new();
    for next in entries {
        let foldable = matches!(next.kind.as_str(), "submitted" | "launched" | "rejected");
        if foldable
            && let Some(last) = out.last_mut()
            && last.kind == next.kind
            && (next.kind != "launched" || last.detail == next.detail)
            && last.source == next.source
            && next.at.saturating_sub(last.at) <= 60
        {
            last.count += next.count;
            last.items.extend(next.items);
            if next.kind == "rejected" {
                last.detail = next.detail;
            }
            continue;
        }
        out.push(next);
    }
    for line in &mut out {
        if line.kind == "rejected" && line.count > 1 {
            line.detail = format!("{} rejections, the last: {}", line.count, line.detail);
        }
        if line.items.len() > 1 {
            line.items.sort_unstable();
            line.items.dedup();
            let highest = line.items.pop();
            line.items.truncate(1);
            line.items.extend(highest);
        }
        if line.detail.is_empty() {
            line.detail = match (line.items.as_slice(), line.count) {
                ([one], 1) => one.clone(),
                ([first, last], n) => format!("{n} items, {first} … {last}"),
                ([first], n) => format!("{n} items from {first}"),
                _ => format!("{} events", line.count),
            };
        }
    }
    out
}

fn dollars(usd: f64) -> String {
    format!("${usd:.4}")
}

/// The drive log's lines: each session's start, end, cost and the driver's stop.
fn drive_entries(sessions: &[SessionRecord]) -> Vec<TimelineEntry> {
    let mut out = Vec::new();
    for s in sessions {
        out.push(entry(
            s.started_at,
            "drive",
            "session_start",
            format!("session {} started in phase {}", s.session, s.phase_before),
            0,
        ));
        let exit = match (s.exit_code, s.signal) {
            (_, Some(sig)) => format!("signal {sig}"),
            (Some(code), None) => format!("exit {code}"),
            (None, None) => "no exit status".to_owned(),
        };
        let next = match s.next.as_str() {
            "relaunch" if s.backoff_secs > 0 => format!("relaunch after {} s", s.backoff_secs),
            "relaunch" => "relaunch now".to_owned(),
            other => other.to_owned(),
        };
        let mut detail = format!(
            "session {} {}: {}, {} submitted, phase {} -> {}, run {}; next: {next}",
            s.session,
            s.end.category(),
            exit,
            s.submitted,
            s.phase_before,
            s.phase_after,
            s.status_after
        );
        if !s.detail.is_empty() {
            detail.push_str(&format!(" ({})", s.detail));
        }
        out.push(entry(s.ended_at, "drive", "session_end", detail, 2));
        let t = s.tokens;
        out.push(entry(
            s.ended_at,
            "cost",
            "session_cost",
            format!(
                "session {}: {} (tokens in {}, out {}, cache read {}, cache write {})",
                s.session,
                dollars(s.cost_usd),
                t.input,
                t.output,
                t.cache_read,
                t.cache_creation
            ),
            3,
        ));
    }
    out
}

/// Puts a `phase` line before the first launch or submission of each phase's items (the
/// journal records no phase change; the items' kinds say which phase they belong to).
fn mark_phases(
    lines: Vec<TimelineEntry>,
    phase_of: &dyn Fn(&str) -> Option<String>,
) -> Vec<TimelineEntry> {
    let mut out = Vec::with_capacity(lines.len());
    let mut seen: Vec<String> = Vec::new();
    for line in lines {
        if matches!(line.kind.as_str(), "submitted" | "launched")
            && let Some(first) = line.items.first()
            && let Some(phase) = phase_of(first)
            && !seen.contains(&phase)
        {
            let mut marker = entry(
                line.at,
                "journal",
                "phase",
                format!("phase {phase}: its first item {first}"),
                1,
            );
            marker.items.push(first.clone());
            out.push(marker);
            seen.push(phase);
        }
        out.push(line);
    }
    out
}

/// Puts a `quarantined` line, with its reason, after the last line that names each item of
/// `ended` (the journal records launches and answers; the state says how an item ended).
fn mark_quarantined(lines: Vec<TimelineEntry>, ended: &[(String, String)]) -> Vec<TimelineEntry> {
    let mut after: std::collections::HashMap<usize, Vec<&(String, String)>> =
        std::collections::HashMap::new();
    for item in ended {
        if let Some(at) = lines.iter().rposition(|l| l.items.contains(&item.0)) {
            after.entry(at).or_default().push(item);
        }
    }
    let mut out = Vec::with_capacity(lines.len() + ended.len());
    for (index, line) in lines.into_iter().enumerate() {
        let at = line.at;
        out.push(line);
        for (item, reason) in after.remove(&index).unwrap_or_default() {
            let reason: String = reason.chars().take(200).collect();
            let mut marker = entry(at, "journal", "quarantined", reason, 1);
            marker.items.push(item.clone());
            out.push(marker);
        }
    }
    out
}

/// Merges a run's journal text (JSONL, unreadable lines skipped) and its drive log;
/// `phase_of` names the phase of an item id (`None` for an id the run does not hold), `ended`
/// the run's quarantined items with their last error.
pub fn build_timeline(
    run: &str,
    journal: &str,
    log: &DriveLog,
    phase_of: &dyn Fn(&str) -> Option<String>,
    ended: &[(String, String)],
) -> Timeline {
    let sessions = &log.sessions;
    let journal_lines: Vec<TimelineEntry> = journal
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| journal_entry(&v))
        .collect();
    let journal_lines = mark_quarantined(mark_phases(journal_lines, phase_of), ended);
    let mut entries = fold_runs(journal_lines);
    entries.extend(drive_entries(sessions));
    entries.extend(log.stops.iter().map(|s| {
        entry(
            s.at,
            "drive",
            "drive_stop",
            format!("{}: {}", s.outcome, s.message),
            4,
        )
    }));
    // Stable: the journal's own order holds within a second and rank.
    entries.sort_by_key(|e| (e.at, e.rank));
    let total: f64 = sessions.iter().map(|s| s.cost_usd).sum();
    if let Some(last) = sessions.iter().map(|s| s.ended_at).max() {
        entries.push(entry(
            last,
            "cost",
            "total_cost",
            format!(
                "{} over {} driven sessions (the results' total_cost_usd)",
                dollars(total),
                sessions.len()
            ),
            5,
        ));
    }
    Timeline {
        schema_version: TIMELINE_VERSION,
        run: run.to_owned(),
        entries,
    }
}

impl Timeline {
    /// One line per entry: time, source, kind, detail.
    pub fn render(&self) -> String {
        if self.entries.is_empty() {
            return format!("Run {}: nothing recorded yet.\n", self.run);
        }
        let mut out = format!("Timeline of run {}\n", self.run);
        for e in &self.entries {
            out.push_str(&format!(
                "{}  {:<7}  {:<13}  {}\n",
                e.time, e.source, e.kind, e.detail
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const JOURNAL: &str = r#"{"at":100,"event":"stop","launched":[{"item":"vf-00011","model":"opus"}]}
{"at":110,"event":"stop","launched":[{"item":"vf-00011"}]}
{"at":120,"event":"submitted","item":"vf-00011","result":{}}
{"at":130,"event":"stop","launched":[{"item":"vf-00011"}]}
{"at":140,"event":"submitted","item":"t-00001","result":{}}
"#;

    #[test]
    fn a_launch_without_its_model_and_the_quarantine_it_led_to_are_in_the_timeline() {
        let ended = [(
            "vf-00011".to_owned(),
            "quarantined: its answer was set aside twice".to_owned(),
        )];
        let timeline = build_timeline(
            "r-1",
            JOURNAL,
            &DriveLog::default(),
            &|_| Some("triage".to_owned()),
            &ended,
        );
        let kinds: Vec<(&str, &str)> = timeline
            .entries
            .iter()
            .map(|e| (e.kind.as_str(), e.detail.as_str()))
            .collect();
        assert!(
            kinds.contains(&(
                "launched",
                "1 without `model` (run on the agent's default tier)"
            )),
            "{kinds:?}"
        );
        let quarantined = timeline
            .entries
            .iter()
            .position(|e| e.kind == "quarantined")
            .expect("a quarantined line");
        assert_eq!(timeline.entries[quarantined].items, ["vf-00011"]);
        assert_eq!(
            timeline.entries[quarantined].at, 130,
            "after its last launch"
        );
        assert_eq!(
            timeline.entries[quarantined - 1].kind,
            "launched",
            "{kinds:?}"
        );
    }

    /// The channel a session's dispatches go by is a line when it is chosen or changes, and a
    /// fork launch says so; the other dispatches stay bookkeeping.
    #[test]
    fn a_channel_switch_and_a_fork_launch_are_in_the_timeline() {
        let journal = r#"{"at":100,"event":"dispatched","launch":[{"item":"t-00001","model":"haiku"}],"channel":"context","why":"the default"}
{"at":110,"event":"stop","launches_read":true}
{"at":110,"event":"dispatched","launch":[{"item":"t-00001","model":"haiku"}],"channel":"block","why":"an additionalContext dispatch was never launched"}
{"at":120,"event":"stop","launched":[{"item":"t-00001","model":"haiku","fork":true}]}
{"at":120,"event":"dispatched","launch":[{"item":"t-00001","model":"haiku"}],"channel":"block"}
"#;
        let timeline = build_timeline("r-1", journal, &DriveLog::default(), &|_| None, &[]);
        let lines: Vec<(&str, &str)> = timeline
            .entries
            .iter()
            .map(|e| (e.kind.as_str(), e.detail.as_str()))
            .collect();
        assert_eq!(
            lines,
            [
                ("channel", "dispatches go by additionalContext: the default"),
                (
                    "channel",
                    "dispatches go by decision: block: an additionalContext dispatch was never launched"
                ),
                (
                    "launched",
                    "1 without `subagent_type` (a fork of the main session, not the item's agent)"
                ),
            ]
        );
    }
}
