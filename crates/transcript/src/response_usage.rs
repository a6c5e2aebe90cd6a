//! The `usage` of every model response in a transcript, read incrementally. One API response is
//! written as several rows sharing `message.id` and `requestId`, the early ones with placeholder
//! usage; a row with a `stop_reason` is final. Each response is counted once: its first row
//! adds its usage, a later row of the same response adds only what it grew by (so a response
//! split across two reads is still counted once), and `<synthetic>` or API-error rows count
//! nothing.

use std::collections::VecDeque;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::TranscriptError;
use crate::new_lines::{contains, new_lines};
use crate::usage::Usage;

/// Responses remembered between reads so a later row of one is not counted again; responses
/// are written in order, so a short window suffices.
const REMEMBERED_RESPONSES: usize = 64;

/// Where the last read of one transcript stopped, and the responses it last saw.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UsageCursor {
    /// Byte offset after the last complete line read.
    pub offset: u64,
    /// `(message id, request id, usage counted so far)` of the latest responses.
    #[serde(default)]
    pub recent: VecDeque<(String, String, Usage)>,
    /// The item a sub-agent transcript worked on (`self-repair item <id>` in its first user
    /// message), once seen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item: Option<String>,
    /// The run named with `--run` in that message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
}

/// The fields of a transcript row that usage is counted from; the rest is skipped. Each is read
/// as any JSON value, as indexing a whole parsed row read them: one of another type counts as
/// absent, never fails the row.
#[derive(Deserialize)]
struct UsageRow {
    #[serde(default, rename = "requestId")]
    request_id: Value,
    #[serde(default, rename = "isApiErrorMessage")]
    api_error: Value,
    #[serde(default)]
    message: UsageMessage,
}

#[derive(Default, Deserialize)]
struct UsageMessage {
    #[serde(default)]
    model: Value,
    #[serde(default)]
    id: Value,
    /// Present (even `null`: it counts as zero tokens) or absent (the row counts nothing).
    #[serde(default, deserialize_with = "present")]
    usage: Option<Value>,
}

fn present<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

/// Usage added by one read, by model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelUsage {
    pub model: String,
    pub usage: Usage,
}

impl UsageCursor {
    /// Reads what `path` gained since the last read; returns the usage it adds, by model. A
    /// torn last line waits for the next read; a line that is not JSON is skipped; a file
    /// shorter than the offset was replaced and is read from its start.
    pub fn read(&mut self, path: &Path) -> Result<Vec<ModelUsage>, TranscriptError> {
        let read = new_lines(path, self.offset)?;
        if read.start < self.offset {
            *self = UsageCursor::default();
        }
        let mut added: Vec<ModelUsage> = Vec::new();
        for line in read.lines() {
            if self.item.is_none()
                && contains(line, b"\"user\"")
                && let Ok(row) = serde_json::from_slice::<Value>(line)
                && row["type"] == "user"
            {
                self.note_item(&row);
            }
            if !contains(line, b"\"usage\"") {
                continue;
            }
            // Only the fields counted: a row's content (text, tool calls) is skipped unparsed.
            let Ok(row) = serde_json::from_slice::<UsageRow>(line) else {
                continue;
            };
            if let Some((model, usage)) = self.counted(&row) {
                match added.iter_mut().find(|m| m.model == model) {
                    Some(entry) => entry.usage.add(&usage),
                    None => added.push(ModelUsage { model, usage }),
                }
            }
        }
        self.offset = read.end;
        Ok(added)
    }

    /// The usage this row adds over earlier rows of its response, with the model.
    fn counted(&mut self, row: &UsageRow) -> Option<(String, Usage)> {
        let message = &row.message;
        let model = message.model.as_str()?;
        if model == "<synthetic>" || row.api_error == true {
            return None;
        }
        let usage = Usage::from_json(message.usage.as_ref()?);
        let id = message.id.as_str().unwrap_or_default().to_owned();
        let request = row.request_id.as_str().unwrap_or_default().to_owned();
        let known = self
            .recent
            .iter_mut()
            .find(|(m, r, _)| !id.is_empty() && *m == id && *r == request);
        let delta = if let Some((_, _, counted)) = known {
            let delta = usage.since(counted);
            counted.add(&delta);
            delta
        } else {
            self.recent.push_back((id, request, usage));
            if self.recent.len() > REMEMBERED_RESPONSES {
                self.recent.pop_front();
            }
            usage
        };
        Some((model.to_owned(), delta))
    }

    /// Reads the item and run of a sub-agent from its first user message.
    fn note_item(&mut self, row: &Value) {
        let content = &row["message"]["content"];
        let text = match content {
            Value::String(s) => s.clone(),
            Value::Array(blocks) => blocks
                .iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n"),
            _ => return,
        };
        let Some(rest) = text.split("self-repair item ").nth(1) else {
            return;
        };
        let mut words = rest.split_whitespace();
        self.item = words.next().map(str::to_owned);
        let mut words = words.skip_while(|w| *w != "--run");
        self.run = words.nth(1).map(str::to_owned);
    }
}
