//! The JSON Claude Code sends a hook on stdin, read tolerantly: unknown fields ignored, every
//! field optional.

use std::path::PathBuf;

use serde::Deserialize;

/// One entry of `background_tasks`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct BackgroundTask {
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub status: Option<String>,
}

/// The fields self-repair uses, of any hook event.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct HookInput {
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub hook_event_name: Option<String>,
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    #[serde(default)]
    pub stop_hook_active: Option<bool>,
    /// `Stop`: the text of the session's last message.
    #[serde(default)]
    pub last_assistant_message: Option<String>,
    /// The main session's transcript (JSONL): the `Agent` calls it really made.
    #[serde(default)]
    pub transcript_path: Option<PathBuf>,
    /// `None` when the client sent no such field (older clients): leases decide then.
    #[serde(default)]
    pub background_tasks: Option<Vec<BackgroundTask>>,
    /// `StopFailure`: `rate_limit`, `overloaded`, `authentication_failed`, ...
    #[serde(default)]
    pub error: Option<String>,
    #[serde(default)]
    pub error_details: Option<String>,
    /// Set when the event comes from a sub-agent (a sub-agent's `StopFailure` carries them).
    #[serde(default)]
    pub agent_id: Option<String>,
    #[serde(default)]
    pub agent_type: Option<String>,
    /// `SessionStart`: `startup`, `resume`, `clear`, `compact`.
    #[serde(default)]
    pub source: Option<String>,
}

impl HookInput {
    /// Parses stdin; `Err` carries a one-line reason for stderr.
    pub fn parse(stdin: &[u8]) -> Result<HookInput, String> {
        if stdin.iter().all(u8::is_ascii_whitespace) {
            return Err("empty stdin: expected the hook's JSON object".to_owned());
        }
        serde_json::from_slice(stdin)
            .map_err(|e| format!("stdin is not the hook's JSON object ({e})"))
    }
}
