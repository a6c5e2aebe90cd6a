//! One request as the server saw it, with what it answered; kept in memory and as JSONL.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Headers never recorded (credentials).
const SECRET_HEADERS: [&str; 2] = ["x-api-key", "authorization"];

/// A received request and the server's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedRequest {
    /// Arrival order, from 1.
    pub seq: u64,
    /// Milliseconds since the server started, at arrival.
    pub at_ms: u64,
    /// Milliseconds since the server started, when the answer was fully written.
    pub done_ms: u64,
    /// HTTP method.
    pub method: String,
    /// Path and query as sent.
    pub target: String,
    /// Headers (lower-case names), credentials removed.
    pub headers: Vec<(String, String)>,
    /// `main`, `item:<id>`, `sub_agent`, `aux`, or `-` for non-model endpoints.
    pub thread: String,
    /// The request's `model`, if any.
    pub model: Option<String>,
    /// The body, parsed (a string when it was not JSON).
    pub body: Value,
    /// HTTP status answered (0 for a hung request closed without an answer).
    pub status: u16,
    /// What was answered: `end_turn text`, `tool_use Agent,Agent`, `fault 429`, `hang 5000ms`.
    pub answer: String,
    /// The answered blocks' tool inputs, in order (empty for text or faults).
    pub tool_inputs: Vec<Value>,
}

impl RecordedRequest {
    /// Keeps the headers worth recording.
    pub(crate) fn keep_headers(headers: &[(String, String)]) -> Vec<(String, String)> {
        headers
            .iter()
            .filter(|(k, _)| !SECRET_HEADERS.contains(&k.as_str()))
            .cloned()
            .collect()
    }

    /// Whether this is a `POST /v1/messages` model call.
    pub fn is_model_call(&self) -> bool {
        self.target.split('?').next() == Some("/v1/messages")
    }

    /// The first value of header `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Reads a JSONL record file back.
    pub fn read_jsonl(text: &str) -> Result<Vec<RecordedRequest>, serde_json::Error> {
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .map(serde_json::from_str)
            .collect()
    }
}
