//! `self-repair tick`: advances a repair run by one deterministic step outside Claude Code (CI,
//! debugging): runs the pending check, autofix or backoff; asks for the next attempt (printing
//! its feedback); or ends the attempt under way and rechecks.

use self_repair_store::Project;

use crate::attempts_table::attempts_table;
use crate::repair_machine::{Action, next_action};
use crate::repair_run::{Budget, Pause, RepairRun};
use crate::{
    FixTier, RepairEnv, RepairError, RepairEvent, RepairStatus, render_feedback, render_fixer_task,
};

/// One step; returns what happened and what comes next.
pub fn tick(
    project: &Project,
    env: &RepairEnv,
    run: Option<&str>,
) -> Result<RepairReply, RepairError> {
    let dir = project.run_or_active(run)?;
    let _lock = dir.lock()?;
    let mut run = RepairRun::load(project.root(), dir, env.now)?;
    if next_action(&run.state, run.now) == Action::Stalled {
        run.record(&RepairEvent::Resumed)?;
    }
    let pause = match run.step(Budget::Unbounded)? {
        None => run.step_pause(),
        Some(Pause::Ask(n)) => {
            run.ask(n)?;
            let store = project.store_dir();
            let text = match run.state.spec.tier_of(n) {
                FixTier::Main => render_feedback(&store, &run.state, n)?,
                FixTier::Agent(_) => render_fixer_task(&store, &run.state, n)?,
            };
            run.save()?;
            return Ok(RepairReply {
                text: format!(
                    "{text}\n\n(attempt {n} asked: make the fix, then run `self-repair tick` again to recheck)"
                ),
                gave_up: false,
            });
        }
        Some(Pause::AwaitFix(n)) => {
            run.end_fix(n)?;
            run.step(Budget::Unbounded)?;
            run.step_pause()
        }
        Some(pause) => pause,
    };
    if pause == Pause::Finished && !run.state.announced {
        run.record(&RepairEvent::Announced)?;
    }
    if run.dirty {
        run.save()?;
    }
    Ok(describe(&run, pause))
}

impl RepairRun {
    /// Where the run is now, as a pause (without doing anything).
    pub(crate) fn step_pause(&self) -> Pause {
        match next_action(&self.state, self.now) {
            Action::Ask { attempt } => Pause::Ask(attempt),
            Action::AwaitFix { attempt } => Pause::AwaitFix(attempt),
            Action::Wait { until } => Pause::Waiting { until, new: false },
            Action::Stalled => Pause::Stalled,
            Action::Finished => Pause::Finished,
            Action::RunCheck { .. }
            | Action::RunAutofix
            | Action::Backoff { .. }
            | Action::Resume => Pause::DelegateCheck,
        }
    }
}

/// What `check` and `tick` print, and whether the run ended without a passing check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepairReply {
    /// The attempts table and the next step, or the outcome.
    pub text: String,
    /// The run is over and the check still fails: quarantined, escalated or an infra failure
    /// (the text names the hand-off report). Scripts see it as exit 6.
    pub gave_up: bool,
}

/// The attempts table and the next step, for `check` and `tick`.
pub(crate) fn describe(run: &RepairRun, pause: Pause) -> RepairReply {
    let state = &run.state;
    let next = match pause {
        Pause::Finished => run.outcome_line(),
        Pause::Ask(n) => format!(
            "next: fix attempt {n} of {} ({}). {}",
            state.spec.max_attempts,
            state.spec.tier_of(n),
            match &state.session {
                Some(session) => format!(
                    "The Stop hook of Claude Code session {session} asks for it when its turn \
                     ends; elsewhere run `self-repair tick`."
                ),
                None => "Started outside Claude Code, it is bound to no session: run \
                         `self-repair tick` here, or `self-repair adopt` in the Claude Code \
                         session that should make the attempts (no stop binds it)."
                    .to_owned(),
            }
        ),
        Pause::AwaitFix(n) => format!(
            "next: attempt {n} is under way; when it is done, the next stop (or `self-repair tick`) rechecks."
        ),
        Pause::Waiting { until, .. } => format!(
            "next: a transient failure; waiting until {} before rerunning (stop again after then, or run `self-repair tick`).",
            self_repair_engine::timestamp::rfc3339(until)
        ),
        Pause::DelegateCheck => "next: run the check: `self-repair tick`.".to_owned(),
        Pause::Stalled => "next: stalled; `self-repair tick` continues.".to_owned(),
    };
    let gave_up = pause == Pause::Finished
        && matches!(
            state.status,
            RepairStatus::Quarantined | RepairStatus::Escalated | RepairStatus::InfraFailure
        );
    RepairReply {
        text: format!(
            "self-repair check: run {} for `{}`\n\n{}\n{next}\n",
            state.run,
            state.spec.command_line(),
            attempts_table(state)
        ),
        gave_up,
    }
}
