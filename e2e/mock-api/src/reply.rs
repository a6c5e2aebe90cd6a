//! What the scripted model answers in one turn: content blocks and a stop reason.

use serde_json::Value;

/// One content block of an assistant message.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// Plain text.
    Text(String),
    /// A tool call; `id` is unique within the server's lifetime.
    ToolUse {
        /// The `tool_use` id the client echoes in its `tool_result`.
        id: String,
        /// Tool name, e.g. `Agent` or `Bash`.
        name: String,
        /// The tool's input object.
        input: Value,
    },
}

/// Why the assistant stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// The turn is over.
    EndTurn,
    /// The client must run the tool calls and call again.
    ToolUse,
    /// The provider's safety classifier stopped the answer (`stop_details` says why).
    Refusal,
}

impl StopReason {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            StopReason::EndTurn => "end_turn",
            StopReason::ToolUse => "tool_use",
            StopReason::Refusal => "refusal",
        }
    }
}

/// One assistant message.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// The blocks, in order.
    pub blocks: Vec<Block>,
    /// `tool_use` when any block is a tool call, else `end_turn`.
    pub stop_reason: StopReason,
}

impl Reply {
    /// A text answer that ends the turn.
    pub fn text(text: impl Into<String>) -> Reply {
        Reply {
            blocks: vec![Block::Text(text.into())],
            stop_reason: StopReason::EndTurn,
        }
    }

    /// The provider's refusal: no content, `stop_reason: "refusal"` (the Messages API's
    /// streaming-refusal shape, with `stop_details` on the `message_delta`).
    pub fn refusal() -> Reply {
        Reply {
            blocks: Vec::new(),
            stop_reason: StopReason::Refusal,
        }
    }

    /// Tool calls `(name, input)` in one message; ids are filled in by the server.
    pub fn tools(calls: Vec<(String, Value)>) -> Reply {
        Reply {
            blocks: calls
                .into_iter()
                .map(|(name, input)| Block::ToolUse {
                    id: String::new(),
                    name,
                    input,
                })
                .collect(),
            stop_reason: StopReason::ToolUse,
        }
    }

    /// One `Bash` call of `command`, with a short description.
    pub fn bash(command: impl Into<String>, description: &str) -> Reply {
        Reply::tools(vec![(
            "Bash".to_owned(),
            serde_json::json!({"command": command.into(), "description": description}),
        )])
    }

    /// The tool names this reply calls, in order.
    pub fn tool_names(&self) -> Vec<&str> {
        self.blocks
            .iter()
            .filter_map(|b| match b {
                Block::ToolUse { name, .. } => Some(name.as_str()),
                Block::Text(_) => None,
            })
            .collect()
    }
}
