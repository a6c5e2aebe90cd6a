//! Encodes a [`Reply`] as the Messages API event stream (and as a non-streamed message).

use serde_json::{Value, json};

use crate::reply::{Block, Reply, StopReason};

/// How big each `text_delta` / `input_json_delta` piece is: small enough that every block
/// arrives in several deltas, which is what the real API does and what the client must join.
const DELTA_CHARS: usize = 40;

/// Per-message facts the stream carries besides the blocks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageMeta {
    /// `msg_...` id.
    pub id: String,
    /// Echo of the request's model id.
    pub model: String,
    /// Reported input tokens (an estimate from the request size).
    pub input_tokens: u64,
    /// Reported output tokens; `None`: about 4 characters a token over the content.
    pub output_tokens: Option<u64>,
}

/// One server-sent event: its name and JSON data.
#[derive(Debug, Clone, PartialEq)]
pub struct SseEvent {
    /// The `event:` line.
    pub name: &'static str,
    /// The `data:` line.
    pub data: Value,
}

impl SseEvent {
    /// The event's bytes on the wire: `event: NAME\ndata: JSON\n\n`.
    pub fn to_wire(&self) -> String {
        format!("event: {}\ndata: {}\n\n", self.name, self.data)
    }
}

/// Output tokens we report: a rough 4 characters a token over the content.
fn output_tokens(reply: &Reply) -> u64 {
    let chars: usize = reply
        .blocks
        .iter()
        .map(|b| match b {
            Block::Text(t) => t.len(),
            Block::ToolUse { input, .. } => input.to_string().len(),
        })
        .sum();
    (chars / 4).max(1) as u64
}

fn pieces(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return vec![String::new()];
    }
    chars
        .chunks(DELTA_CHARS)
        .map(|c| c.iter().collect())
        .collect()
}

/// The full event sequence for `reply`: `message_start`, per block
/// `content_block_start`/`content_block_delta`.../`content_block_stop`, `message_delta`
/// (stop reason and usage), `message_stop`.
pub fn encode_events(reply: &Reply, meta: &MessageMeta) -> Vec<SseEvent> {
    let mut events = vec![SseEvent {
        name: "message_start",
        data: json!({"type": "message_start", "message": {
            "id": meta.id, "type": "message", "role": "assistant", "model": meta.model,
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": meta.input_tokens, "output_tokens": 1,
                      "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}}),
    }];
    for (index, block) in reply.blocks.iter().enumerate() {
        let (start, deltas) = match block {
            Block::Text(text) => (
                json!({"type": "text", "text": ""}),
                pieces(text)
                    .into_iter()
                    .map(|p| json!({"type": "text_delta", "text": p}))
                    .collect::<Vec<_>>(),
            ),
            Block::ToolUse { id, name, input } => (
                json!({"type": "tool_use", "id": id, "name": name, "input": {}}),
                pieces(&input.to_string())
                    .into_iter()
                    .map(|p| json!({"type": "input_json_delta", "partial_json": p}))
                    .collect(),
            ),
        };
        events.push(SseEvent {
            name: "content_block_start",
            data: json!({"type": "content_block_start", "index": index, "content_block": start}),
        });
        for delta in deltas {
            events.push(SseEvent {
                name: "content_block_delta",
                data: json!({"type": "content_block_delta", "index": index, "delta": delta}),
            });
        }
        events.push(SseEvent {
            name: "content_block_stop",
            data: json!({"type": "content_block_stop", "index": index}),
        });
    }
    let mut delta = json!({"stop_reason": reply.stop_reason.as_str(), "stop_sequence": null});
    if reply.stop_reason == StopReason::Refusal {
        delta["stop_details"] = refusal_details();
    }
    events.push(SseEvent {
        name: "message_delta",
        data: json!({"type": "message_delta", "delta": delta,
            "usage": {"output_tokens": meta.output_tokens.unwrap_or_else(|| output_tokens(reply))}}),
    });
    events.push(SseEvent {
        name: "message_stop",
        data: json!({"type": "message_stop"}),
    });
    events
}

/// The same reply as one non-streamed message object (for requests without `stream: true`).
pub fn encode_message(reply: &Reply, meta: &MessageMeta) -> Value {
    let content: Vec<Value> = reply
        .blocks
        .iter()
        .map(|b| match b {
            Block::Text(text) => json!({"type": "text", "text": text}),
            Block::ToolUse { id, name, input } => {
                json!({"type": "tool_use", "id": id, "name": name, "input": input})
            }
        })
        .collect();
    let mut message = json!({"id": meta.id, "type": "message", "role": "assistant", "model": meta.model,
        "content": content, "stop_reason": reply.stop_reason.as_str(), "stop_sequence": null,
        "usage": {"input_tokens": meta.input_tokens,
                  "output_tokens": meta.output_tokens.unwrap_or_else(|| output_tokens(reply)),
                  "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}});
    if reply.stop_reason == StopReason::Refusal {
        message["stop_details"] = refusal_details();
    }
    message
}

/// The `stop_details` of a refusal, as the Messages API documents it.
fn refusal_details() -> Value {
    json!({"type": "refusal", "category": "cyber",
        "explanation": "This request was declined because it could enable cyber harm."})
}

/// Frames `payload` as one HTTP/1.1 chunk (`Transfer-Encoding: chunked`).
pub(crate) fn chunk(payload: &str) -> String {
    format!("{:x}\r\n{payload}\r\n", payload.len())
}

/// The chunk that ends a chunked body.
pub(crate) const LAST_CHUNK: &str = "0\r\n\r\n";
