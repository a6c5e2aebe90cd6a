//! The Claude Code hook entry points: each reads the hook's JSON from stdin and answers with at
//! most one JSON object; a hook always exits 0 (reference/cli.md, the `hook` rows).

pub mod answer;
pub mod fix_stop;
pub mod input;
pub mod post_tool_use;
pub mod pre_tool_use;
pub mod session_notices;
pub mod session_start;
pub mod status_line_offer;
pub mod stop;
pub mod stop_failure;

use clap::Subcommand;

use crate::command_env::CommandEnv;
use crate::hooks::answer::StopAnswer;

/// Hook events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Subcommand)]
pub enum HookEvent {
    /// The Stop hook: allow, or block with the next instruction.
    Stop,
    /// A turn ended on an API error: pause instead of re-blocking.
    StopFailure,
    /// At a session's start: the run summary after a compaction or resume, and a word about a
    /// waiting run in a new session.
    SessionStart,
    /// The permission gate: our agents' own commands run without a prompt, nothing else of
    /// theirs is approved (reference/permissions.md).
    PreToolUse,
    /// After one of our agents returns: its hand-back to the main session becomes one line.
    PostToolUse,
}

impl HookEvent {
    /// The event a `hook` subcommand names (`stop`, `session-start`, ...).
    pub fn from_name(name: &str) -> Option<HookEvent> {
        Some(match name {
            "stop" => HookEvent::Stop,
            "stop-failure" => HookEvent::StopFailure,
            "session-start" => HookEvent::SessionStart,
            "pre-tool-use" => HookEvent::PreToolUse,
            "post-tool-use" => HookEvent::PostToolUse,
            _ => return None,
        })
    }
}

/// Answers one hook event from the hook's JSON input.
pub fn run(event: HookEvent, env: &CommandEnv, stdin: &[u8]) -> StopAnswer {
    // Every text a hook writes fits the client's limit (a dispatch does by construction).
    answer(event, env, stdin).fit_hook_limit()
}

fn answer(event: HookEvent, env: &CommandEnv, stdin: &[u8]) -> StopAnswer {
    match event {
        HookEvent::Stop => stop::hook_stop(env, stdin),
        HookEvent::StopFailure => stop_failure::hook_stop_failure(env, stdin),
        HookEvent::SessionStart => {
            let mut answer = session_start::hook_session_start(env, stdin);
            for notice in session_notices::session_notices(&env.installation, stdin) {
                answer.announce(&notice);
            }
            if let Some(offer) = status_line_offer::status_line_offer(env, stdin) {
                answer.announce(offer);
            }
            answer
        }
        HookEvent::PreToolUse => pre_tool_use::hook_pre_tool_use(env, stdin, env.exe.as_deref()),
        HookEvent::PostToolUse => post_tool_use::hook_post_tool_use(env, stdin),
    }
}
