//! A scripted Messages API server for end-to-end tests on the real Claude Code client: it
//! answers `POST /v1/messages` as SSE following self-repair's protocol (dispatch -> `Agent`
//! calls; sub-agent -> `show`, `submit`), injects faults, and records every request.

mod conversation;
pub mod e2e;
mod fault;
mod fix_script;
mod http_request;
mod main_thread;
mod measurement;
mod mock_error;
mod mock_server;
mod model;
mod recorded_request;
mod reply;
mod result_generator;
mod scenario;
mod show_output;
mod sse;
mod sub_agent;
mod thread;

pub use conversation::{Conversation, ToolCall, ToolOutcome, content_text};
pub use fault::{Fault, FaultKind, ThreadSelector};
pub use fix_script::{FixScript, FixStep, script_for};
pub use http_request::HttpRequest;
pub use main_thread::{
    STOP_CONTEXT, STOP_FEEDBACK, TASK_NOTIFICATION, agent_input, main_reply, parse_dispatch,
    stop_feedback,
};
pub use measurement::{Measurement, content_bytes};
pub use mock_error::MockError;
pub use mock_server::{MockServer, append_jsonl};
pub use model::respond;
pub use recorded_request::RecordedRequest;
pub use reply::{Block, Reply, StopReason};
pub use result_generator::{
    generate, generate_invalid, generate_with, is_markdown, sample_of_pattern, submission_text,
};
pub use scenario::{
    Behaviour, ChooseResult, DEFAULT_SUB_AGENT_MARKER, ItemRule, ResultFn, Scenario,
};
pub use show_output::ShowOutput;
pub use sse::{MessageMeta, SseEvent, encode_events, encode_message};
pub use sub_agent::{sub_agent_reply, submit_command};
pub use thread::{SUB_AGENT_BILLING_FLAG, Thread, item_of_prompt, run_of_prompt};
