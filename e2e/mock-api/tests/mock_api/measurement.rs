//! Figures from recorded requests.

use self_repair_mock_api::{Measurement, RecordedRequest, content_bytes};
use serde_json::{Value, json};

fn record(seq: u64, thread: &str, answer: &str, body: Value) -> RecordedRequest {
    RecordedRequest {
        seq,
        at_ms: seq * 100,
        done_ms: seq * 100 + 50,
        method: "POST".into(),
        target: "/v1/messages?beta=true".into(),
        headers: Vec::new(),
        thread: thread.into(),
        model: Some("claude-opus-5-5".into()),
        body,
        status: 200,
        answer: answer.into(),
        tool_inputs: Vec::new(),
    }
}

#[test]
fn content_bytes_count_texts_tool_inputs_and_results() {
    let body = json!({"system": "ignored", "messages": [
        {"role": "user", "content": "abcd"},
        {"role": "assistant", "content": [{"type": "tool_use", "input": {"a": 1}}]},
        {"role": "user", "content": [{"type": "tool_result", "content": [{"type": "text", "text": "xyz"}]},
                                     {"type": "text", "text": "12"}]}]});
    assert_eq!(content_bytes(&body), 4 + r#"{"a":1}"#.len() + 3 + 2);
}

#[test]
fn growth_per_item_is_the_main_context_delta_over_items() {
    let small = json!({"messages": [{"role": "user", "content": "x".repeat(100)}]});
    let big = json!({"messages": [{"role": "user", "content": "x".repeat(2100)}]});
    let records = vec![
        record(1, "main", "tool_use Agent,Agent", small),
        record(2, "item:t-1", "tool_use Bash", json!({})),
        record(3, "item:t-2", "tool_use Bash", json!({})),
        record(4, "main", "end_turn text", big),
    ];
    let m = Measurement::from_records(&records);
    assert_eq!(
        (m.main_calls, m.sub_agent_calls, m.items, m.agent_launches),
        (2, 2, 2, 2)
    );
    assert_eq!((m.main_bytes_first, m.main_bytes_last), (100, 2100));
    assert!((m.main_growth_per_item - 1000.0).abs() < f64::EPSILON);
    assert!((m.calls_per_item - 2.0).abs() < f64::EPSILON);
    assert_eq!(m.wall_ms, 450 - 100);
}
