//! `self-repair hook stop`: the decision table at every stop: allow, or block with the next
//! instruction.

use self_repair_engine::{
    Decision, Event, ItemKind, JournalEntry, RunHead, RunState, RunStatus, StopEvent,
    continue_with, decide_stop, say_line,
};
use self_repair_store::{Project, RunDir, StoreError};
use serde_json::json;

use crate::command_env::CommandEnv;
use crate::hooks::answer::{HookAnswer, active_run};
use crate::hooks::input::HookInput;
use crate::run::finalize::finalize_run;
use crate::run::handle::RunHandle;

/// `self-repair hook stop`.
pub fn hook_stop(env: &CommandEnv, stdin: &[u8]) -> HookAnswer {
    let input = match HookInput::parse(stdin) {
        Ok(input) => input,
        Err(reason) => {
            return HookAnswer::note(format!(
                "self-repair hook stop: {reason}; allowing the stop"
            ));
        }
    };
    let Some(session) = input.session_id.clone() else {
        return HookAnswer::allow();
    };
    let Some((project, dir)) = active_run(env, &input) else {
        return HookAnswer::allow();
    };
    let dir = match RunHandle::open(dir) {
        RunHandle::Triage(dir) => dir,
        // A repair run's state.json is not a triage RunState: the repair crate answers.
        RunHandle::Repair(dir) => return repair_stop(env, &input, &project, dir, session),
    };
    let lock = match dir.lock() {
        Ok(lock) => lock,
        Err(e) => {
            return HookAnswer::note(format!("self-repair hook stop: {e}; allowing the stop"));
        }
    };
    // The head first (status, binding, counters): a stop that changes nothing needs no item,
    // and on a stalled 10,000-finding run decoding them was most of the stop's cost
    // (reference/benchmarks.md). No head that describes this state and journal: load it all.
    let (head, loaded) = match dir.load_head() {
        Some(head) => (head, None),
        None => match load(&dir) {
            Ok(state) => (RunHead::of(&state), Some(state)),
            Err(answer) => return answer,
        },
    };
    // Row 2 before anything is folded: another session's stop must not write, nor a stop in
    // a run no session is bound to (started from a terminal: only `adopt` binds it).
    if !head.is_bound_to(&session) {
        return HookAnswer::allow();
    }
    let (stop, cost_failure) = stop_event(&dir, &head, &input, session);
    let head_written = loaded.is_none();
    if head_written && head.quiet_stop(&stop) {
        // What `decide_stop` answers on the whole state: allow silently, nothing changes.
        drop(lock);
        return HookAnswer {
            stdout: None,
            stderr: cost_failure.into_iter().collect(),
        };
    }
    let mut state = match loaded.map_or_else(|| load(&dir), Ok) {
        Ok(state) => state,
        Err(answer) => return answer,
    };
    let mut answer = drive(env, &project, &dir, &mut state, &stop, head_written);
    drop(lock);
    answer.stderr.extend(cost_failure);
    // The process ends right after the answer is printed: freeing 100,000 items one by one
    // would be a fifth of the hook's time (reference/benchmarks.md).
    std::mem::forget(state);
    answer
}

/// The stop as the engine sees it: the agents launched and notified since the last stop, and
/// what the run has spent (read before the decision, so a dispatch knows it). The second value
/// is a note when the transcript's cost could not be read.
fn stop_event(
    dir: &RunDir,
    head: &RunHead,
    input: &HookInput,
    session: String,
) -> (StopEvent, Option<String>) {
    let stop_running = input.running_items();
    let agents = crate::hooks::agent_launches::agents_since_last_stop(
        dir,
        input.transcript_path.as_deref(),
        &head.run,
    );
    // Before the decision: what the run has spent is known when it dispatches.
    // A turn one of the run's background agents started (its notification) is the run's
    // work, even after the closing line: the cost is read on through it.
    let run_turn = input.stop_hook_active == Some(false)
        && (agents.notified > 0 || !agents.unnotified.is_empty());
    let (spend, cost_failure) = crate::run::cost::account_stop(
        dir,
        head,
        input.transcript_path.as_deref(),
        stop_running.as_deref(),
        run_turn,
    );
    let stop = StopEvent {
        session: Some(session),
        running: stop_running,
        launched: agents.launched,
        unnotified: agents.unnotified,
        notified: agents.notified,
        last_message: input.last_assistant_message.clone(),
        // Journaled with the stop: only a run with a budget needs it.
        spend: spend.filter(|_| head.budget),
        new_turn: input.stop_hook_active == Some(false),
    };
    (stop, cost_failure)
}

/// The Stop hook on a repair run: the repair crate decides; a task of `self-repair fix` whose
/// run just ended is recorded and the next one started.
fn repair_stop(
    env: &CommandEnv,
    input: &HookInput,
    project: &Project,
    dir: RunDir,
    session: String,
) -> HookAnswer {
    let stop = self_repair_repair::StopInput {
        session,
        running: input.background_tasks.as_ref().map(|tasks| {
            tasks
                .iter()
                .filter(|t| t.status.as_deref().is_none_or(|s| s == "running"))
                .filter_map(|t| t.description.clone())
                .collect()
        }),
        audience: env.installation.audience,
    };
    let repair = dir.clone();
    let answer = self_repair_repair::repair_stop(project, dir, env.now, &stop);
    let answer = HookAnswer {
        stdout: answer.stdout,
        stderr: answer.stderr,
    };
    crate::hooks::fix_stop::after_repair_stop(project, env, &repair, &stop.session, answer)
}

/// Loads the whole state, or the answer when it cannot be read (a damaged one names `doctor`).
fn load(dir: &RunDir) -> Result<RunState, HookAnswer> {
    dir.load_state().map_err(|e| match e {
        StoreError::CorruptState { .. } => HookAnswer::needs_doctor(&e),
        e => HookAnswer::note(format!("self-repair hook stop: {e}; allowing the stop")),
    })
}

/// Folds, decides, finalizes when asked, journals what changed, saves, answers.
/// `head_written`: `state.head.json` describes the state as loaded; when it does not and
/// nothing else is saved, it is written, so the run's next quiet stops read only it.
fn drive(
    env: &CommandEnv,
    project: &Project,
    dir: &RunDir,
    state: &mut RunState,
    stop: &StopEvent,
    head_written: bool,
) -> HookAnswer {
    let mut stderr = Vec::new();
    let items_before = state.items.len();
    let offset_before = state.journal_offset;
    match dir.fold(state) {
        Ok(report) => stderr.extend(report.skipped),
        Err(e @ StoreError::JournalBehindState { .. }) => return HookAnswer::needs_doctor(&e),
        Err(e) => {
            return HookAnswer::note(format!("self-repair hook stop: {e}; allowing the stop"));
        }
    }
    let mut dirty = state.journal_offset != offset_before;
    let mut decision = Decision::Allow { message: None };
    // A finalize failure is said on every stop until it is fixed: a systemMessage, never relayed.
    let mut failure: Option<String> = None;
    for _ in 0..3 {
        let outcome = decide_stop(state, stop, env.now);
        if outcome.changed {
            // Journal the stop so a rebuild replays the same decision.
            let entry = JournalEntry {
                at: env.now,
                event: Event::Stop(stop.clone()),
            };
            match dir.append_applied(state, &[entry]) {
                Ok(()) => dirty = true,
                Err(e) => {
                    return HookAnswer::note(format!(
                        "self-repair hook stop: {e}; allowing the stop"
                    ));
                }
            }
        }
        decision = outcome.decision;
        if decision != Decision::Finalize {
            break;
        }
        if let Err(e) = finalize_run(project.root(), dir, state, env.now) {
            let message = format!(
                "self-repair run {}: finalize failed: {e}. Fix it, then run `self-repair finalize`.",
                state.run
            );
            stderr.push(message.clone());
            failure = Some(message);
            decision = Decision::Allow { message: None };
            break;
        }
        dirty = true;
    }
    if let Decision::Block(dispatch) = &decision {
        prepare_launches(dir, state, dispatch, &mut stderr);
    }
    if dirty {
        if let Err(e) = dir.save_state(state, items_before) {
            stderr.push(format!("self-repair hook stop: {e}"));
        }
    } else if !head_written {
        dir.save_head(state);
    }
    let stdout = answer_text(env, dir, state, decision, failure);
    HookAnswer { stdout, stderr }
}

/// Before the agents can exist: `submit` refuses items its run never dispatched, a weak answer
/// a second look replaces is set aside, and each item's input is on disk.
fn prepare_launches(
    dir: &RunDir,
    state: &RunState,
    dispatch: &self_repair_engine::Dispatch,
    stderr: &mut Vec<String>,
) {
    for launch in &dispatch.launch {
        if let Err(e) = mark_dispatched(dir, &launch.item) {
            stderr.push(format!("self-repair hook stop: {e}"));
        }
        if let Err(e) = set_aside_weak_answer(dir, &launch.item) {
            stderr.push(format!("self-repair hook stop: {e}"));
        }
        if let Err(e) = dir.ensure_input(state, &launch.item) {
            stderr.push(format!("self-repair hook stop: {e}"));
        }
    }
}

/// What the hook prints for the decision: a dispatch, the run's one line, or a finalize failure.
fn answer_text(
    env: &CommandEnv,
    dir: &RunDir,
    state: &RunState,
    decision: Decision,
    failure: Option<String>,
) -> Option<String> {
    // A dispatch continues the session as the Stop event's `additionalContext` (shown as "Stop
    // hook says", not as a problem; reference/design-notes.md, note 48).
    match decision {
        Decision::Block(dispatch) => Some(continue_with(&dispatch.render_reason()).to_string()),
        // The run just ended, paused or stalled (the engine says so once, at the transition):
        // shown once at a terminal; unattended the session is asked, once, to end its turn with
        // the line (notes 15 and 48).
        Decision::Allow { message: Some(m) } => {
            let m = if state.status == RunStatus::Complete {
                let m = crate::run::cost::with_cost_and_duration(dir, state, env.now, &m);
                crate::run::proposals::with_next_steps(dir, state, &m)
            } else {
                m
            };
            Some(say_line(&m, env.installation.audience).to_string())
        }
        Decision::Allow { message: None } | Decision::Finalize => {
            failure.map(|m| json!({ "systemMessage": m }).to_string())
        }
    }
}

/// Leaves `items/<id>.dispatched`, the cheap proof `submit` checks that this run launched an
/// agent for the item (design note 4: `submit` never reads the state). Empty and not synced:
/// at most the fan-out's worth of small creates per block.
fn mark_dispatched(dir: &RunDir, item: &str) -> Result<(), crate::app_error::AppError> {
    let Some(path) = dir.item_file(item, "dispatched") else {
        return Ok(());
    };
    if path.exists() {
        return Ok(());
    }
    if let Err(first) = std::fs::write(&path, b"") {
        // A run created before `items/` existed: make it once and retry.
        std::fs::create_dir_all(dir.items_dir())
            .map_err(crate::AppError::io("create", dir.items_dir()))?;
        std::fs::write(&path, b"").map_err(|_| crate::app_error::AppError::Io {
            action: "write",
            path: path.clone(),
            source: first,
        })?;
    }
    Ok(())
}

/// A verifier dispatched again had its answer set aside (its launch ran below its dispatch,
/// reference/state-machine.md): `items/<id>.json` moves to `items/<id>.set-aside.json`, so
/// `submit` takes the new answer instead of refusing it as a second, different result. Only a
/// `vf-` item with an answer on file can be dispatched again; for any other, nothing to do.
fn set_aside_weak_answer(dir: &RunDir, item: &str) -> Result<(), crate::app_error::AppError> {
    if ItemKind::of_id(item) != Some(ItemKind::Verify) {
        return Ok(());
    }
    let (Some(answer), Some(aside)) = (
        dir.item_file(item, "json"),
        dir.item_file(item, "set-aside.json"),
    ) else {
        return Ok(());
    };
    match std::fs::rename(&answer, &aside) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(crate::app_error::AppError::Io {
            action: "move aside",
            path: answer,
            source: e,
        }),
        _ => Ok(()),
    }
}
