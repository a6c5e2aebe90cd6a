//! `pause`, `resume`, `cancel`, `adopt`, `finalize`, `next`: commands that steer a run.

use self_repair_engine::{
    Decision, Event, JournalEntry, Phase, RunStatus, StopEvent, decide_stop, settle,
};
use self_repair_store::{Project, RunDir};

use crate::{AppError, finalize_run, load_folded, read_findings, write_reports};

/// `self-repair finalize --partial`: what the run has produced so far, the run left as it is.
pub fn finalize_partial(project: &Project, dir: &RunDir, now: u64) -> Result<String, AppError> {
    let state = load_folded(dir, true)?;
    if state.phase == Phase::Complete {
        return Err(AppError::Usage(format!(
            "run {} is complete: `self-repair finalize` (without --partial) rewrites its reports",
            state.run
        )));
    }
    crate::finalize::finalize_partial(project.root(), dir, &state, now)
}

/// Applies a steering event under the lock and saves; returns what changed, in words.
pub fn steer(dir: &RunDir, event: Event, now: u64) -> Result<String, AppError> {
    let _lock = dir.lock()?;
    let mut state = dir.load_state()?;
    let items_before = state.items.len();
    dir.fold(&mut state)?;
    let before = (state.status, state.session.clone());
    let name = match &event {
        Event::Pause => "pause",
        Event::Resume => "resume",
        Event::Confirm => "confirm",
        Event::Budget { .. } => "budget",
        Event::Cancel => "cancel",
        Event::Adopt { .. } => "adopt",
        _ => "event",
    };
    let outcome = dir.record(&mut state, &[JournalEntry { at: now, event }])?;
    dir.save_state(&state, items_before)?;
    let changed = outcome.iter().any(|o| o.changed);
    let run = &state.run;
    Ok(match (name, changed) {
        ("pause", true) => {
            format!("paused run {run}: the hook allows every stop until `self-repair resume`")
        }
        ("confirm", true) => format!(
            "run {run} confirmed: end your turn and the Stop hook dispatches its first agents"
        ),
        ("resume", false) if crate::confirm::waits_for_go(&state) => format!(
            "run {run} waits for the user's go on its estimate, not a plain resume: \
             `self-repair resume --confirm` starts it (`self-repair status` shows the estimate)"
        ),
        ("confirm", false) => format!(
            "run {run} is {} and waits for no go: nothing to confirm",
            before.0.as_str()
        ),
        ("resume", true) => {
            format!("resumed run {run}: end your turn and the Stop hook continues it")
        }
        ("cancel", true) => format!("cancelled run {run}: the hook will not drive it again"),
        ("budget", _) if crate::confirm::waits_for_go(&state) => format!(
            "run {run} may spend ${:.2} in all, and still waits for the user's go on its \
             estimate: `self-repair resume --confirm` starts it",
            state.config.budget_usd.unwrap_or(0.0)
        ),
        ("budget", _) => format!(
            "run {run} may spend ${:.2} in all ({}): end your turn and the Stop hook continues it",
            state.config.budget_usd.unwrap_or(0.0),
            state.status.as_str()
        ),
        ("adopt", _) => format!(
            "run {run} is now bound to session {}: end your turn and the Stop hook continues it{}",
            state.session.as_deref().unwrap_or("?"),
            if before.1.is_some() && before.1 != state.session {
                " (its previous session no longer drives it)"
            } else {
                ""
            }
        ),
        (_, false) => format!("run {run} is {}: nothing to {name}", before.0.as_str()),
        _ => format!("run {run}: {name} done"),
    })
}

/// The first line of `next`'s dispatch preview: a model reading it must not launch from it.
pub const NEXT_PREVIEW: &str = "PREVIEW ONLY, changes nothing: this is what the Stop hook would \
     dispatch at the next stop. Do not launch these agents yourself; end your turn and let the \
     hook dispatch them.";

/// `self-repair next`: the dispatch the hook would give now, without changing anything.
pub fn next(dir: &RunDir, now: u64) -> Result<String, AppError> {
    let mut state = load_folded(dir, false)?;
    let session = state
        .session
        .clone()
        .unwrap_or_else(|| "(the next session to stop)".to_owned());
    let stop = StopEvent {
        session: Some(session),
        running: None,
        launched: Vec::new(),
        unnotified: Vec::new(),
        notified: 0,
        last_message: None,
        new_turn: false,
        // What the hook would see: the spend so far, for a run with a budget.
        spend: crate::run_cost::ledger_spend(dir).filter(|_| state.config.budget_usd.is_some()),
    };
    let outcome = decide_stop(&mut state, &stop, now);
    Ok(match outcome.decision {
        Decision::Block(dispatch) => format!(
            "{NEXT_PREVIEW}\nphase {}: {} agent(s)\n{}",
            state.phase.as_str(),
            dispatch.launch.len(),
            dispatch.render_reason()
        ),
        Decision::Finalize => {
            "the next stop finalizes the run: tasks and reports are written".to_owned()
        }
        Decision::Allow { message: Some(m) } => format!("the next stop is allowed: {m}"),
        Decision::Allow { message: None } => match state.status {
            RunStatus::Active if state.in_flight() > 0 => format!(
                "nothing new to dispatch: {} agent(s) still running; their notifications wake the session",
                state.in_flight()
            ),
            status => format!(
                "the next stop is allowed silently (run {})",
                status.as_str()
            ),
        },
    })
}

/// `self-repair finalize`: write tasks and reports now if every phase is done; on a complete
/// run, rewrite the reports.
pub fn finalize(project: &Project, dir: &RunDir, now: u64) -> Result<String, AppError> {
    let _lock = dir.lock()?;
    let mut state = dir.load_state()?;
    let items_before = state.items.len();
    dir.fold(&mut state)?;
    settle(&mut state);
    match state.phase {
        Phase::Finalize => {
            finalize_run(project.root(), dir, &mut state, now)?;
            dir.save_state(&state, items_before)?;
            Ok(crate::proposals::with_next_steps(
                dir,
                &state,
                &self_repair_engine::summary(&state),
            ))
        }
        Phase::Complete => {
            write_reports(dir, &state, &read_findings(dir)?)?;
            Ok(format!("run {} was complete; reports rewritten", state.run))
        }
        phase => Err(AppError::Usage(format!(
            "run {} is in phase {}: finalize runs when every phase is done (`self-repair status`)",
            state.run,
            phase.as_str()
        ))),
    }
}
