//! The event stream for text and tool-use replies.

use self_repair_mock_api::{Block, MessageMeta, Reply, StopReason, encode_events, encode_message};
use serde_json::json;

fn meta() -> MessageMeta {
    MessageMeta {
        id: "msg_mock_0001".into(),
        model: "claude-haiku-5-5".into(),
        input_tokens: 123,
        output_tokens: None,
    }
}

#[test]
fn text_reply_streams_as_the_messages_api_event_sequence() {
    let wire: String = encode_events(&Reply::text("t-1: submitted."), &meta())
        .iter()
        .map(self_repair_mock_api::SseEvent::to_wire)
        .collect();
    insta::assert_snapshot!(wire);
}

#[test]
fn tool_use_input_arrives_in_json_deltas_that_join_to_the_input() {
    let input = json!({"subagent_type": "self-repair:triage-investigator", "model": "haiku",
        "description": "triage t-00042", "prompt": "self-repair item t-00042"});
    let reply = Reply {
        blocks: vec![
            Block::ToolUse {
                id: "toolu_a".into(),
                name: "Agent".into(),
                input: input.clone(),
            },
            Block::ToolUse {
                id: "toolu_b".into(),
                name: "Agent".into(),
                input: json!({"prompt": "x"}),
            },
        ],
        stop_reason: StopReason::ToolUse,
    };
    let events = encode_events(&reply, &meta());
    let names: Vec<&str> = events.iter().map(|e| e.name).collect();
    assert_eq!(names.first(), Some(&"message_start"));
    assert_eq!(&names[names.len() - 2..], ["message_delta", "message_stop"]);
    let joined: String = events
        .iter()
        .filter(|e| e.data["index"] == 0 && e.name == "content_block_delta")
        .map(|e| e.data["delta"]["partial_json"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        events
            .iter()
            .filter(|e| e.data["index"] == 0 && e.name == "content_block_delta")
            .count()
            > 1,
        "input should be split over several deltas"
    );
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&joined).unwrap(),
        input
    );
    let starts: Vec<_> = events
        .iter()
        .filter(|e| e.name == "content_block_start")
        .map(|e| e.data["content_block"].clone())
        .collect();
    assert_eq!(
        starts,
        [
            json!({"type": "tool_use", "id": "toolu_a", "name": "Agent", "input": {}}),
            json!({"type": "tool_use", "id": "toolu_b", "name": "Agent", "input": {}})
        ]
    );
    let delta = events.iter().find(|e| e.name == "message_delta").unwrap();
    assert_eq!(delta.data["delta"]["stop_reason"], "tool_use");
    assert!(delta.data["usage"]["output_tokens"].as_u64().unwrap() > 0);
}

#[test]
fn non_streamed_message_carries_the_same_blocks() {
    let message = encode_message(&Reply::bash("ls", "list"), &meta());
    assert_eq!(message["stop_reason"], "tool_use");
    assert_eq!(message["content"][0]["name"], "Bash");
    assert_eq!(message["content"][0]["input"]["command"], "ls");
    assert_eq!(message["model"], "claude-haiku-5-5");
}
