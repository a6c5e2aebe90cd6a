//! Reads what Claude Code's session transcript (`transcript_path`, JSONL) shows and the hook
//! input does not: the `Agent` calls the main session really made, with their `model`.

mod agent_call;
mod transcript_error;

pub use agent_call::{AgentCall, read_agent_calls};
pub use transcript_error::TranscriptError;
