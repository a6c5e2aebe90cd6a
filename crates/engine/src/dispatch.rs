//! The dispatch instruction (ARCHITECTURE §7): one summary line and a fenced JSON contract.

use serde::{Deserialize, Serialize};

/// Version of the dispatch JSON contract (`self_repair` field).
pub const DISPATCH_VERSION: u32 = 1;

/// What the main session must do after launching.
pub const THEN: &str = "end your turn; do not read or relay the agents' results";

/// What follows the one line that says how a run ended, paused or stalled, in the one block
/// that carries it: a hook's `systemMessage` reaches neither the model nor `claude -p` output,
/// the session's last message does (reference/design-notes.md, note 15).
pub const RELAY_INSTRUCTION: &str =
    "Reply with exactly the line above as your whole message, then end your turn. Do nothing else.";

/// The block reason that relays `line`.
pub fn relay_reason(line: &str) -> String {
    format!("{line}\n{RELAY_INSTRUCTION}")
}

/// One `Agent` tool call, field for field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Launch {
    pub subagent_type: String,
    pub model: String,
    pub description: String,
    pub prompt: String,
    /// `false` in foreground launch mode; absent (the client's default, background) otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_in_background: Option<bool>,
    /// The item it launches (not part of the `Agent` tool's input).
    #[serde(skip)]
    pub item: String,
}

/// The JSON block of a block reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dispatch {
    pub self_repair: u32,
    pub run: String,
    pub phase: String,
    pub launch: Vec<Launch>,
    pub then: String,
    /// The human summary line that precedes the JSON block.
    #[serde(skip)]
    pub summary: String,
}

impl Dispatch {
    /// The JSON block: one launch entry a line, so the instruction stays readable.
    pub fn render_json(&self) -> String {
        let quote = |s: &str| serde_json::Value::String(s.to_owned()).to_string();
        let launches: Vec<String> = self
            .launch
            .iter()
            .map(|l| {
                format!(
                    "  {{\"subagent_type\":{},\"model\":{},\"description\":{},\"prompt\":{}{}}}",
                    quote(&l.subagent_type),
                    quote(&l.model),
                    quote(&l.description),
                    quote(&l.prompt),
                    l.run_in_background
                        .map_or_else(String::new, |b| format!(",\"run_in_background\":{b}"))
                )
            })
            .collect();
        format!(
            "{{\"self_repair\":{},\"run\":{},\"phase\":{},\"launch\":[\n{}\n],\"then\":{}}}",
            self.self_repair,
            quote(&self.run),
            quote(&self.phase),
            launches.join(",\n"),
            quote(&self.then)
        )
    }

    /// The block `reason` the model reads.
    pub fn render_reason(&self) -> String {
        format!("{}\n```json\n{}\n```", self.summary, self.render_json())
    }

    /// Extracts the dispatch from a block reason (what tools and tests use).
    pub fn parse_reason(reason: &str) -> Option<Dispatch> {
        let start = reason.find("```json\n")? + "```json\n".len();
        let end = start + reason[start..].find("\n```")?;
        let mut dispatch: Dispatch = serde_json::from_str(&reason[start..end]).ok()?;
        reason[..reason.find("\n```json")?].clone_into(&mut dispatch.summary);
        for launch in &mut dispatch.launch {
            // `self-repair item <id> --run <run>`
            launch.item = launch
                .prompt
                .split_whitespace()
                .nth(2)
                .unwrap_or_default()
                .to_owned();
        }
        Some(dispatch)
    }
}
