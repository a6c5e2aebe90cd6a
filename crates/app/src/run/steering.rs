//! Steering a triage run: pause, resume, the user's go, a new budget, cancel, adopt, each an
//! event journaled under the run's lock, answered in words.

use self_repair_engine::{Event, JournalEntry};
use self_repair_store::RunDir;

use crate::app_error::AppError;

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
    let cancel = matches!(event, Event::Cancel);
    let outcome = dir.record(&mut state, &[JournalEntry { at: now, event }])?;
    dir.save_state(&state, items_before)?;
    let changed = outcome.iter().any(|o| o.changed);
    if cancel && let Some(said) = keep_cancelled(dir, &state, changed, now)? {
        return Ok(said);
    }
    let run = &state.run;
    Ok(match (name, changed) {
        ("pause", true) => {
            format!("paused run {run}: the hook allows every stop until `self-repair resume`")
        }

        ("resume", false) if crate::run::confirm::waits_for_go(&state) => {
            return Err(AppError::NeedsGo(format!(
                "run {run} waits for the user's go on its estimate, not a plain resume; \
                 nothing changed. `self-repair resume --confirm` starts it (`self-repair status` \
                 shows the estimate; add `--budget USD` to cap it)"
            )));
        }
        ("confirm", true) if state.session.is_none() => format!(
            "run {run} confirmed; no Claude Code session drives it yet: in the session that \
             should, ask Claude to continue the self-repair run (or run `self-repair adopt` \
             there) and end your turn, or run `self-repair drive` to drive it unattended"
        ),
        ("confirm", true) => format!(
            "run {run} confirmed: end your turn and the Stop hook dispatches its first agents"
        ),
        ("confirm", false) => format!(
            "run {run} is {} and waits for no go: nothing to confirm",
            before.0.as_str()
        ),
        ("resume", true) => {
            format!("resumed run {run}: end your turn and the Stop hook continues it")
        }
        ("cancel", true) => format!("cancelled run {run}: the hook will not drive it again"),
        ("budget", _) if crate::run::confirm::waits_for_go(&state) => format!(
            "run {run} may spend ${:.2} in all, and still waits for the user's go on its \
             estimate: `self-repair resume --confirm` starts it",
            state.config.budget_usd.unwrap_or(0.0)
        ),
        ("budget", _) => format!(
            "run {run} may spend ${:.2} in all ({}): end your turn and the Stop hook continues it",
            state.config.budget_usd.unwrap_or(0.0),
            state.shown_status()
        ),
        ("adopt", _) if crate::run::confirm::waits_for_go(&state) => format!(
            "run {run} is now bound to session {}, and still waits for the user's go on its \
             estimate: nothing is dispatched until `self-repair resume --confirm --run {run}` \
             (`self-repair status --run {run}` shows the estimate)",
            state.session.as_deref().unwrap_or("?")
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

/// What a cancelled run decided outlives it: its verdicts go into `known.json`, so the next run
/// over these findings pays for none. The line that says so when the cancel changed the run.
fn keep_cancelled(
    dir: &RunDir,
    state: &self_repair_engine::RunState,
    changed: bool,
    now: u64,
) -> Result<Option<String>, AppError> {
    let Some(root) = project_root(dir) else {
        return Ok(None);
    };
    let kept = crate::run::kept_verdicts::keep_run_verdicts(root, dir, state, now)?;
    Ok(changed.then(|| {
        format!(
            "cancelled run {}: the hook will not drive it again; its {kept} decided verdict(s) \
             are kept in known.json, so the next run over these findings decides them without \
             an agent",
            state.run
        )
    }))
}

/// The project a run folder belongs to (`<root>/.self-repair/runs/<id>`); `None` for a folder
/// elsewhere (a partition's artifact).
fn project_root(dir: &RunDir) -> Option<&std::path::Path> {
    let store = dir.path().parent()?.parent()?;
    (store.file_name()? == self_repair_store::STORE_DIR).then(|| store.parent())?
}
