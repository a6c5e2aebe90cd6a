//! `self-repair hook stop`, the adapter: reads the hook's input, finds the run, and answers
//! through the one Stop frame (crate `stop`) with the run's pipeline: a triage run's is the
//! engine's decision table, with `app` finalizing it when every phase is done; a repair run's is
//! crate `repair`'s, and a task of `self-repair fix` whose run just ended is recorded and the
//! next one started.

use std::time::Instant;

use self_repair_engine::RunState;
use self_repair_stop::{StopAnswer, StopInput, TriageHost, TriageStop, answer_stop};
use self_repair_store::{Project, RunDir};

use crate::command_env::CommandEnv;
use crate::hooks::answer::active_run;
use crate::hooks::input::HookInput;
use crate::run::handle::RunHandle;

/// `self-repair hook stop`.
pub fn hook_stop(env: &CommandEnv, stdin: &[u8]) -> StopAnswer {
    let started = Instant::now();
    let input = match HookInput::parse(stdin) {
        Ok(input) => input,
        Err(reason) => {
            return StopAnswer::note(format!(
                "self-repair hook stop: {reason}; allowing the stop"
            ));
        }
    };
    let Some(session) = input.session_id.clone() else {
        return StopAnswer::allow();
    };
    let Some((project, dir)) = active_run(env, &input) else {
        return StopAnswer::allow();
    };
    let stop = stop_input(env, &input, session);
    match RunHandle::open(dir) {
        RunHandle::Triage(dir) => {
            let host = AppHost {
                project: &project,
                finalized: std::cell::RefCell::new(None),
            };
            answer_stop(&TriageStop { host: &host }, &dir, &stop)
        }
        RunHandle::Repair(dir) => {
            let answer = self_repair_repair::repair_stop(&project, &dir, &stop, started);
            crate::hooks::fix_stop::after_repair_stop(&project, env, &dir, &stop.session, answer)
        }
    }
}

/// The stop as both pipelines read it.
fn stop_input(env: &CommandEnv, input: &HookInput, session: String) -> StopInput {
    StopInput {
        session,
        running: input.background_tasks.as_ref().map(|tasks| {
            tasks
                .iter()
                .filter(|t| t.status.as_deref().is_none_or(|s| s == "running"))
                .filter_map(|t| t.description.clone())
                .collect()
        }),
        transcript: input.transcript_path.clone(),
        new_turn: input.stop_hook_active == Some(false),
        last_message: input.last_assistant_message.clone(),
        audience: env.installation.audience,
        now: env.now,
    }
}

/// What a triage run's stop needs of `app`: its finalize, and its closing line's next steps.
struct AppHost<'a> {
    project: &'a Project,
    /// The next steps this stop's finalize counted (the store files it had read), for its
    /// closing line.
    finalized: std::cell::RefCell<Option<self_repair_report::NextSteps>>,
}

impl TriageHost for AppHost<'_> {
    fn finalize(&self, dir: &RunDir, state: &mut RunState, now: u64) -> Result<(), String> {
        let steps = crate::run::finalize::finalize_run(self.project.root(), dir, state, now)
            .map_err(|e| e.to_string())?;
        self.finalized.replace(Some(steps));
        Ok(())
    }

    fn closing_line(&self, dir: &RunDir, state: &RunState, line: &str) -> String {
        match self.finalized.borrow().as_ref() {
            Some(steps) if steps.run == state.run => crate::run::proposals::with_steps(steps, line),
            _ => crate::run::proposals::with_next_steps(dir, state, line),
        }
    }
}
