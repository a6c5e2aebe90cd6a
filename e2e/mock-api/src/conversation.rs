//! Read-only views of a Messages API request body: system text, turns, tool calls and results.

use serde_json::Value;

/// A tool call found in an assistant turn.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The `tool_use` id.
    pub id: String,
    /// Tool name.
    pub name: String,
    /// Its input.
    pub input: Value,
}

impl ToolCall {
    /// `input.command` for a `Bash` call, else "".
    pub fn command(&self) -> &str {
        self.input
            .get("command")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }
}

/// A tool result found in a user turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutcome {
    /// The `tool_use` id it answers.
    pub tool_use_id: String,
    /// Its text (text parts joined by newlines).
    pub text: String,
    /// The client's `is_error` flag.
    pub is_error: bool,
}

/// A parsed request body.
#[derive(Debug)]
pub struct Conversation<'a> {
    body: &'a Value,
}

impl<'a> Conversation<'a> {
    /// Wraps a request body.
    pub fn new(body: &'a Value) -> Conversation<'a> {
        Conversation { body }
    }

    /// The `model` field.
    pub fn model(&self) -> &'a str {
        self.body
            .get("model")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    /// The system prompt as one text (string form or the text of every block).
    pub fn system_text(&self) -> String {
        content_text(self.body.get("system").unwrap_or(&Value::Null))
    }

    /// The tool names offered to the model.
    pub fn tool_names(&self) -> Vec<&'a str> {
        self.body
            .get("tools")
            .and_then(Value::as_array)
            .map(|tools| {
                tools
                    .iter()
                    .filter_map(|t| t.get("name").and_then(Value::as_str))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The `input_schema` of the tool named `name`.
    pub fn tool_schema(&self, name: &str) -> Option<&'a Value> {
        self.body
            .get("tools")?
            .as_array()?
            .iter()
            .find(|t| t.get("name").and_then(Value::as_str) == Some(name))?
            .get("input_schema")
    }

    fn messages(&self) -> &'a [Value] {
        self.body
            .get("messages")
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    }

    /// Number of messages.
    pub fn len(&self) -> usize {
        self.messages().len()
    }

    /// Whether there are no messages.
    pub fn is_empty(&self) -> bool {
        self.messages().is_empty()
    }

    /// The text (text blocks only, joined) of the first user message.
    pub fn first_user_text(&self) -> String {
        self.messages()
            .iter()
            .find(|m| role(m) == "user")
            .map(|m| content_text(m.get("content").unwrap_or(&Value::Null)))
            .unwrap_or_default()
    }

    /// Index of the last user or assistant message, when it is a user message. Messages
    /// with role `system` (the client appends some, e.g. "Stop hook blocking error from
    /// command: ...") are skipped.
    pub fn last_user_index(&self) -> Option<usize> {
        let last = self.turn_before(self.len())?;
        (role(&self.messages()[last]) == "user").then_some(last)
    }

    /// Index of the last user or assistant message before `index`.
    pub fn turn_before(&self, index: usize) -> Option<usize> {
        (0..index.min(self.len()))
            .rev()
            .find(|i| role(&self.messages()[*i]) != "system")
    }

    /// Whether message `index` is a user message.
    pub fn is_user(&self, index: usize) -> bool {
        self.messages()
            .get(index)
            .is_some_and(|m| role(m) == "user")
    }

    /// Text blocks (and string content) of message `index`.
    pub fn text_at(&self, index: usize) -> String {
        self.messages()
            .get(index)
            .map(|m| content_text(m.get("content").unwrap_or(&Value::Null)))
            .unwrap_or_default()
    }

    /// Tool results carried by message `index`.
    pub fn outcomes_at(&self, index: usize) -> Vec<ToolOutcome> {
        blocks(self.messages().get(index))
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
            .map(|b| ToolOutcome {
                tool_use_id: str_field(b, "tool_use_id"),
                text: content_text(b.get("content").unwrap_or(&Value::Null)),
                is_error: b.get("is_error").and_then(Value::as_bool).unwrap_or(false),
            })
            .collect()
    }

    /// Tool calls of message `index`.
    pub fn calls_at(&self, index: usize) -> Vec<ToolCall> {
        blocks(self.messages().get(index))
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
            .map(|b| ToolCall {
                id: str_field(b, "id"),
                name: str_field(b, "name"),
                input: b.get("input").cloned().unwrap_or(Value::Null),
            })
            .collect()
    }

    /// Every tool call of the conversation from message `from` on, each with its result
    /// when the client sent one.
    pub fn calls_since(&self, from: usize) -> Vec<(ToolCall, Option<ToolOutcome>)> {
        let outcomes: Vec<ToolOutcome> = (from..self.len())
            .flat_map(|i| self.outcomes_at(i))
            .collect();
        (from..self.len())
            .flat_map(|i| self.calls_at(i))
            .map(|call| {
                let outcome = outcomes.iter().find(|o| o.tool_use_id == call.id).cloned();
                (call, outcome)
            })
            .collect()
    }
}

fn role(message: &Value) -> &str {
    message
        .get("role")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

fn str_field(value: &Value, name: &str) -> String {
    value
        .get(name)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

fn blocks(message: Option<&Value>) -> impl Iterator<Item = &Value> {
    message
        .and_then(|m| m.get("content"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

/// A content value's text: the string itself, or its `text` blocks joined by newlines.
pub fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}
