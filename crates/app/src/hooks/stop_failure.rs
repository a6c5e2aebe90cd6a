//! `self-repair hook stop-failure`: a turn ended on an API error; the run pauses instead of
//! re-blocking.

use self_repair_engine::{Event, JournalEntry, RunStatus};

use crate::command_env::CommandEnv;
use crate::hooks::answer::{StopAnswer, active_run};
use crate::hooks::input::HookInput;
use crate::run::handle::RunHandle;

/// `self-repair hook stop-failure`: the turn ended on an API error; pause instead of
/// re-blocking. The next successful stop lifts the pause.
pub fn hook_stop_failure(env: &CommandEnv, stdin: &[u8]) -> StopAnswer {
    let input = match HookInput::parse(stdin) {
        Ok(input) => input,
        Err(reason) => return StopAnswer::note(format!("self-repair hook stop-failure: {reason}")),
    };
    // A sub-agent's failed API call also fires StopFailure (with its agent_id): the main
    // session goes on, and the item's failure is handled at the next stop.
    if input.agent_id.is_some() || input.agent_type.is_some() {
        return StopAnswer::allow();
    }
    let (Some(session), Some((_, dir))) = (input.session_id.clone(), active_run(env, &input))
    else {
        return StopAnswer::allow();
    };
    let dir = match RunHandle::open(dir) {
        RunHandle::Triage(dir) => dir,
        RunHandle::Repair(dir) => {
            return self_repair_repair::repair_stop_failure(&dir, &session);
        }
    };
    let result = (|| -> Result<(), crate::app_error::AppError> {
        let _lock = dir.lock()?;
        let mut state = dir.load_state()?;
        if state
            .session
            .as_ref()
            .is_some_and(|bound| *bound != session)
            || state.status != RunStatus::Active
        {
            return Ok(());
        }
        let items_before = state.items.len();
        dir.fold(&mut state)?;
        let error = match (&input.error, &input.error_details) {
            (Some(e), Some(d)) => format!("{e}: {d}"),
            (Some(e), None) => e.clone(),
            (None, Some(d)) => d.clone(),
            (None, None) => "unknown API error".to_owned(),
        };
        dir.record(
            &mut state,
            &[JournalEntry {
                at: env.now,
                event: Event::StopFailure { error },
            }],
        )?;
        dir.save_state(&state, items_before)?;
        Ok(())
    })();
    match result {
        Ok(()) => StopAnswer::allow(),
        Err(e) => StopAnswer::note(format!("self-repair hook stop-failure: {e}")),
    }
}
