//! Figures computed from recorded requests (issue 4 part 4): main-thread context growth per
//! item, model calls per item, Agent launches, wall time.

use std::collections::BTreeSet;

use serde::Serialize;
use serde_json::Value;

use crate::conversation::content_text;
use crate::recorded_request::RecordedRequest;

/// What one run of a scenario cost, read from the server's records.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Measurement {
    /// Answered model calls of the main thread (faults excluded).
    pub main_calls: usize,
    /// Answered model calls of sub-agents.
    pub sub_agent_calls: usize,
    /// Distinct item ids seen in sub-agent threads.
    pub items: usize,
    /// `Agent` tool calls the server answered with.
    pub agent_launches: usize,
    /// Content bytes of the main thread's messages at its first answered call.
    pub main_bytes_first: usize,
    /// Content bytes of the main thread's messages at its last answered call.
    pub main_bytes_last: usize,
    /// Content bytes added to the main thread's messages over the run: the sum of every rise
    /// from one call to the next, so a compaction (a fall) does not hide what came before it.
    pub main_bytes_added: usize,
    /// `main_bytes_added / items`: what each item adds to the main context.
    pub main_growth_per_item: f64,
    /// All answered model calls divided by items.
    pub calls_per_item: f64,
    /// First arrival to last completion, in milliseconds.
    pub wall_ms: u64,
}

/// Bytes of message content in a request body: text blocks, tool inputs (as JSON) and tool
/// result texts; the system prompt and tool definitions are not counted.
pub fn content_bytes(body: &Value) -> usize {
    let Some(messages) = body.get("messages").and_then(Value::as_array) else {
        return 0;
    };
    messages
        .iter()
        .map(|m| match m.get("content") {
            Some(Value::String(text)) => text.len(),
            Some(Value::Array(blocks)) => blocks.iter().map(block_bytes).sum(),
            _ => 0,
        })
        .sum()
}

fn block_bytes(block: &Value) -> usize {
    match block.get("type").and_then(Value::as_str) {
        Some("text") => block
            .get("text")
            .and_then(Value::as_str)
            .map_or(0, str::len),
        Some("tool_use") => block.get("input").map_or(0, |i| i.to_string().len()),
        Some("tool_result") => content_text(block.get("content").unwrap_or(&Value::Null)).len(),
        _ => 0,
    }
}

/// The sum of every rise between consecutive sizes (a compaction's fall is skipped, and the
/// growth after it counts again).
pub(crate) fn bytes_added(sizes: &[usize]) -> usize {
    sizes
        .windows(2)
        .map(|pair| pair[1].saturating_sub(pair[0]))
        .sum()
}

impl Measurement {
    /// Computes the figures from `records` (any order).
    pub fn from_records(records: &[RecordedRequest]) -> Measurement {
        let answered: Vec<&RecordedRequest> = records
            .iter()
            .filter(|r| r.is_model_call() && r.status == 200)
            .collect();
        let mut main: Vec<&&RecordedRequest> =
            answered.iter().filter(|r| r.thread == "main").collect();
        main.sort_by_key(|r| r.seq);
        let items: BTreeSet<&str> = answered
            .iter()
            .filter_map(|r| r.thread.strip_prefix("item:"))
            .collect();
        let sizes: Vec<usize> = main.iter().map(|r| content_bytes(&r.body)).collect();
        let first = sizes.first().copied().unwrap_or(0);
        let last = sizes.last().copied().unwrap_or(0);
        let added = bytes_added(&sizes);
        let per = |n: usize| {
            if items.is_empty() {
                0.0
            } else {
                n as f64 / items.len() as f64
            }
        };
        Measurement {
            main_calls: main.len(),
            sub_agent_calls: answered
                .iter()
                .filter(|r| r.thread.starts_with("item:"))
                .count(),
            items: items.len(),
            agent_launches: answered
                .iter()
                .map(|r| r.answer.matches("Agent").count())
                .sum(),
            main_bytes_first: first,
            main_bytes_last: last,
            main_bytes_added: added,
            main_growth_per_item: per(added),
            calls_per_item: per(answered.len()),
            wall_ms: records.iter().map(|r| r.done_ms).max().unwrap_or(0)
                - records.iter().map(|r| r.at_ms).min().unwrap_or(0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::bytes_added;

    #[test]
    fn growth_counts_every_rise_and_skips_a_compactions_fall() {
        // 100 → 300 (+200), compaction to 50, → 120 (+70), → 120 (+0).
        assert_eq!(bytes_added(&[100, 300, 50, 120, 120]), 270);
        assert_eq!(bytes_added(&[7]), 0);
        assert_eq!(bytes_added(&[]), 0);
    }
}
