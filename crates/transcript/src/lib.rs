//! Reads what Claude Code's transcripts (`transcript_path`, JSONL, and the sub-agents' beside
//! it) show and the hook input does not: the `Agent` calls the main session really made, with
//! their `model`, the token usage of every model response, and whether the model provider
//! refused a sub-agent.

mod agent_call;
mod new_lines;
mod provider_refusal;
mod response_usage;
mod transcript_error;
mod usage;

pub use agent_call::{
    AgentActivity, AgentCall, AsyncLaunch, client_version, read_agent_activity, read_more,
};
pub use provider_refusal::{agent_transcript, refused_by_provider};
pub use response_usage::{ModelUsage, UsageCursor};
pub use transcript_error::TranscriptError;
pub use usage::Usage;
