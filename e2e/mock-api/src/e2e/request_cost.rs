//! All-in model request input of a run, as the scripted server saw it (issue 13): bytes of
//! every answered request body, main thread and sub-agents, and the share a prompt cache could
//! serve.
//!
//! The cache model is the Messages API's: a request's prefix, in the order tools → system →
//! messages, that an earlier request of the same family already sent is a cache read. A family
//! is the main thread, or every sub-agent request with the same system prompt (the same agent
//! definition: its own later turns and its siblings).

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;

use crate::recorded_request::RecordedRequest;

/// What a run's requests sent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RequestCost {
    /// Answered model requests (compaction and side requests included).
    pub requests: usize,
    /// Bytes of every answered request body.
    pub bytes: u64,
    /// Of which the main thread's.
    pub main_bytes: u64,
    /// Of which sub-agents'.
    pub sub_agent_bytes: u64,
    /// Bytes a prompt cache would serve (see the module comment).
    pub cached_bytes: u64,
}

impl RequestCost {
    /// Adds up the answered `/v1/messages` requests of `records`.
    pub fn of(records: &[RecordedRequest]) -> RequestCost {
        let mut answered: Vec<&RecordedRequest> = records
            .iter()
            .filter(|r| r.status == 200 && r.target.starts_with("/v1/messages"))
            .filter(|r| !r.target.contains("count_tokens"))
            .collect();
        answered.sort_by_key(|r| r.seq);
        let mut cost = RequestCost::default();
        let mut last_of_family: HashMap<String, Vec<u8>> = HashMap::new();
        for record in answered {
            let bytes = record.body.to_string().len() as u64;
            cost.requests += 1;
            cost.bytes += bytes;
            if record.thread == "main" {
                cost.main_bytes += bytes;
            } else if record.thread.starts_with("item:") || record.thread == "sub_agent" {
                cost.sub_agent_bytes += bytes;
            }
            let ordered = cache_order(&record.body);
            let family = family_of(record);
            if let Some(earlier) = last_of_family.get(&family) {
                cost.cached_bytes += common_prefix(earlier, &ordered) as u64;
            }
            last_of_family.insert(family, ordered);
        }
        cost
    }

    /// `bytes / n` (0 when `n` is 0).
    pub fn per(&self, n: usize) -> f64 {
        if n == 0 {
            0.0
        } else {
            self.bytes as f64 / n as f64
        }
    }

    /// The share of `bytes` a cache would serve, in percent.
    pub fn cached_percent(&self) -> f64 {
        if self.bytes == 0 {
            0.0
        } else {
            self.cached_bytes as f64 * 100.0 / self.bytes as f64
        }
    }
}

/// The main thread, or the system prompt of a sub-agent (its definition), or the thread label.
fn family_of(record: &RecordedRequest) -> String {
    if record.thread == "main" {
        return "main".to_owned();
    }
    match record.body.get("system") {
        Some(system) => format!("system:{system}"),
        None => record.thread.clone(),
    }
}

/// The body as the cache reads it: tools, then system, then each message.
fn cache_order(body: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    for key in ["tools", "system"] {
        if let Some(part) = body.get(key) {
            out.extend_from_slice(part.to_string().as_bytes());
        }
    }
    for message in body
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        out.extend_from_slice(message.to_string().as_bytes());
    }
    out
}

fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn record(seq: u64, thread: &str, body: Value) -> RecordedRequest {
        RecordedRequest {
            seq,
            at_ms: 0,
            done_ms: 0,
            method: "POST".to_owned(),
            target: "/v1/messages?beta=true".to_owned(),
            headers: Vec::new(),
            thread: thread.to_owned(),
            model: None,
            body,
            status: 200,
            answer: String::new(),
            tool_inputs: Vec::new(),
        }
    }

    #[test]
    fn siblings_with_one_definition_share_their_prefix_and_the_main_thread_its_own() {
        let system = json!("agent definition");
        let a = json!({"system": system, "messages": [{"role": "user", "content": "item t-1"}]});
        let b = json!({"system": system, "messages": [{"role": "user", "content": "item t-2"}]});
        let main1 = json!({"system": "main", "messages": [{"role": "user", "content": "go"}]});
        let main2 = json!({"system": "main", "messages": [{"role": "user", "content": "go"},
            {"role": "assistant", "content": "ok"}]});
        let records = [
            record(1, "main", main1.clone()),
            record(2, "item:t-1", a.clone()),
            record(3, "item:t-2", b.clone()),
            record(4, "main", main2.clone()),
        ];
        let cost = RequestCost::of(&records);
        assert_eq!(cost.requests, 4);
        let len = |v: &Value| v.to_string().len() as u64;
        assert_eq!(cost.bytes, len(&main1) + len(&a) + len(&b) + len(&main2));
        assert_eq!(cost.main_bytes, len(&main1) + len(&main2));
        assert_eq!(cost.sub_agent_bytes, len(&a) + len(&b));
        // t-2 shares everything up to its item number with t-1; main2 everything main1 sent.
        let sibling = common_prefix(&cache_order(&a), &cache_order(&b)) as u64;
        let main = common_prefix(&cache_order(&main1), &cache_order(&main2)) as u64;
        assert!(sibling > len(&system));
        assert_eq!(cost.cached_bytes, sibling + main);
    }
}
