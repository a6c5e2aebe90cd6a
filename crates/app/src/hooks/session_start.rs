//! `self-repair hook session-start`: the run summary after a compaction or a resume, and a word
//! about a run in progress in a new session.

use self_repair_engine::{PROTOCOL, RunState, RunStatus, ShownStatus};
use serde_json::json;

use crate::command_env::CommandEnv;
use crate::hooks::answer::{StopAnswer, active_run};
use crate::hooks::input::HookInput;

/// The context and user message for a session that does not drive the project's run.
fn waiting_run_notice(state: &RunState) -> StopAnswer {
    let counts = state.counts(state.phase);
    let driver = if state.session.is_some() {
        "another Claude Code session drives it"
    } else {
        "it was started outside Claude Code"
    };
    let summary = format!(
        "self-repair run {} is in progress in this project: phase {}, {} of {} items done, status \
         {}; {driver}.",
        state.run,
        state.phase.as_str(),
        counts.done,
        counts.total(),
        state.shown()
    );
    let context = if state.shown() == ShownStatus::Waiting {
        format!(
            "{summary} It waits for the user's go on its estimate: nothing has been dispatched. \
             Only if the user asks about it: show them the estimate (`self-repair status --run \
             {run}`) and ask; only when they say go, run `self-repair adopt --run {run}` and \
             `self-repair resume --confirm --run {run}` (a plain `self-repair resume` does not \
             start it), then end your turn. Otherwise leave it alone.",
            run = state.run
        )
    } else {
        format!(
            "{summary} Only if the user asks to continue it: run `self-repair adopt`{}, then \
             end your turn; the Stop hook then drives it. Otherwise leave it alone.",
            match state.shown() {
                ShownStatus::Paused | ShownStatus::Stalled => format!(
                    " and `self-repair resume --run {}` (it is {})",
                    state.run,
                    state.shown()
                ),
                _ => String::new(),
            }
        )
    };
    let message = format!(
        "{summary} To continue it here, ask Claude to continue the self-repair run, or run \
         `self-repair adopt`."
    );
    StopAnswer {
        stdout: Some(
            json!({
                "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": context},
                "systemMessage": message,
            })
            .to_string(),
        ),
        stderr: Vec::new(),
    }
}

/// What the session must do for the run to go on, by its status (`SessionStart` context).
fn how_to_continue(state: &RunState) -> String {
    use self_repair_engine::PauseReason;
    let resume = format!(
        "run `self-repair resume --run {}`, then end your turn",
        state.run
    );
    match (state.status, &state.pause) {
        (RunStatus::Stalled, _) => format!(
            "The Stop hook does NOT drive a stalled run until it is resumed: to continue, {resume} \
             (a new user prompt also resumes it at its first stop)."
        ),
        (RunStatus::Paused, Some(PauseReason::Circuit { signature, .. })) => format!(
            "It is paused because agents kept failing the same way ({signature}): fix the cause, \
             then {resume}."
        ),
        (RunStatus::Paused, Some(PauseReason::Confirm { .. })) => format!(
            "It waits for the user's go on its estimate: show the user `self-repair status`'s \
             estimate and ask; only when they say go, run `self-repair resume --confirm --run {}`, \
             then end your turn.",
            state.run
        ),
        (RunStatus::Paused, Some(PauseReason::ApiError { .. })) => {
            "It is paused after an API error and resumes by itself at the next stop.".to_owned()
        }
        (RunStatus::Paused, Some(PauseReason::Budget { .. })) => format!(
            "It is paused at its budget: only when the user raises it, run `self-repair resume \
             --budget USD --run {}`, then end your turn.",
            state.run
        ),
        (RunStatus::Paused, Some(PauseReason::Refused { .. })) => format!(
            "It is paused because Claude Code refused agent launches before they ran (the \
             user's decision): the user's next prompt resumes it; only when asked to continue, \
             {resume}."
        ),
        (RunStatus::Paused, Some(PauseReason::Launches { .. })) => format!(
            "It is paused because its agent launches passed twice the likely figure (something \
             keeps coming back; `self-repair status --items` shows what): only when the user \
             asks to continue, {resume}."
        ),
        (RunStatus::Paused, _) => {
            format!("It is paused by the user: only when asked to continue, {resume}.")
        }
        _ => "The Stop hook drives it.".to_owned(),
    }
}

/// `self-repair hook session-start`: after a compaction or a resume, remind the session of the
/// run in one paragraph (`SessionStart` stdout becomes context); in any other session, say once
/// that a run is waiting and how to adopt it.
pub fn hook_session_start(env: &CommandEnv, stdin: &[u8]) -> StopAnswer {
    let Ok(input) = HookInput::parse(stdin) else {
        return StopAnswer::allow();
    };
    let Some((_, dir)) = active_run(env, &input) else {
        return StopAnswer::allow();
    };
    let Ok(state) = dir.load_state() else {
        return StopAnswer::allow();
    };
    if matches!(state.status, RunStatus::Complete | RunStatus::Cancelled) {
        return StopAnswer::allow();
    }
    let ours = matches!((&state.session, &input.session_id),
        (Some(bound), Some(session)) if bound == session);
    if !ours {
        // A new session (startup, /clear gives a new id, another terminal): say once that a run
        // is waiting and how to take it over; the Stop hook stays silent for this session.
        return waiting_run_notice(&state);
    }
    if !matches!(input.source.as_deref(), Some("compact" | "resume")) {
        return StopAnswer::allow();
    }
    let counts = state.counts(state.phase);
    let context = format!(
        "A self-repair run is in progress in this project: run {}, phase {}, {} of {} items \
         done, status {}. {} {PROTOCOL} `self-repair status` shows progress.",
        state.run,
        state.phase.as_str(),
        counts.done,
        counts.total(),
        state.shown(),
        how_to_continue(&state)
    );
    StopAnswer {
        stdout: Some(
            json!({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": context}})
                .to_string(),
        ),
        stderr: Vec::new(),
    }
}
