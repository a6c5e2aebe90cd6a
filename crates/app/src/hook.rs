//! The hooks: `hook stop` (the decision table), `hook stop-failure`, `hook session-start`.
//! A hook never fails: every problem becomes an allow, with a line on stderr and, when the user
//! must act, a `systemMessage`.

use self_repair_engine::{
    Decision, Event, ItemKind, JournalEntry, PROTOCOL, RunState, RunStatus, StopEvent, decide_stop,
    relay_reason,
};
use self_repair_store::{Project, RunDir, StoreError};
use serde_json::json;

use crate::{CommandEnv, HookInput, finalize_run};

/// What a hook prints: at most one JSON object on stdout, diagnostics on stderr; exit 0.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HookAnswer {
    pub stdout: Option<String>,
    pub stderr: Vec<String>,
}

impl HookAnswer {
    fn allow() -> HookAnswer {
        HookAnswer::default()
    }

    /// Adds `message` for the user to whatever this answer prints.
    pub fn announce(&mut self, message: &str) {
        let mut object = self
            .stdout
            .as_deref()
            .and_then(|text| serde_json::from_str::<serde_json::Value>(text).ok())
            .and_then(|value| value.as_object().cloned())
            .unwrap_or_default();
        let text = match object.get("systemMessage").and_then(|v| v.as_str()) {
            Some(existing) => format!("{message}\n{existing}"),
            None => message.to_owned(),
        };
        object.insert("systemMessage".to_owned(), text.into());
        self.stdout = Some(serde_json::Value::Object(object).to_string());
    }

    fn note(line: String) -> HookAnswer {
        HookAnswer {
            stdout: None,
            stderr: vec![line],
        }
    }

    /// Allows the stop and tells the user, not only stderr: the run cannot go on until they run
    /// `self-repair doctor` (the error says so).
    fn needs_doctor(e: &StoreError) -> HookAnswer {
        HookAnswer {
            stdout: Some(json!({ "systemMessage": format!("self-repair: {e}") }).to_string()),
            stderr: vec![format!("self-repair hook stop: {e}")],
        }
    }
}

/// The project and active run a hook input points at, if any (cheap: a few file checks).
fn active_run(env: &CommandEnv, input: &HookInput) -> Option<(Project, RunDir)> {
    let start = env
        .project
        .as_deref()
        .or(env.project_dir.as_deref())
        .or(input.cwd.as_deref())
        .unwrap_or(&env.cwd);
    let project = Project::find(start)?;
    let id = project.active_run_id()?;
    let dir = project.run(&id).ok()?;
    Some((project, dir))
}

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
    // A repair run's state.json is not a triage RunState: hand the stop to the repair crate.
    if self_repair_repair::is_repair_run(&dir) {
        let stop = self_repair_repair::StopInput {
            session,
            running: input.background_tasks.as_ref().map(|tasks| {
                tasks
                    .iter()
                    .filter(|t| t.status.as_deref().is_none_or(|s| s == "running"))
                    .filter_map(|t| t.description.clone())
                    .collect()
            }),
        };
        let repair = dir.clone();
        let session = stop.session.clone();
        let answer = self_repair_repair::repair_stop(&project, dir, env.now, &stop);
        let answer = HookAnswer {
            stdout: answer.stdout,
            stderr: answer.stderr,
        };
        return crate::fix_hook::after_repair_stop(&project, env, &repair, &session, answer);
    }
    let lock = match dir.lock() {
        Ok(lock) => lock,
        Err(e) => {
            return HookAnswer::note(format!("self-repair hook stop: {e}; allowing the stop"));
        }
    };
    let mut state = match dir.load_state() {
        Ok(state) => state,
        Err(e @ StoreError::CorruptState { .. }) => return HookAnswer::needs_doctor(&e),
        Err(e) => {
            return HookAnswer::note(format!("self-repair hook stop: {e}; allowing the stop"));
        }
    };
    // Row 2 before anything is folded: another session's stop must not write, nor a stop in
    // a run no session is bound to (started from a terminal: only `adopt` binds it).
    if state.session.as_ref() != Some(&session) {
        return HookAnswer::allow();
    }
    let stop_running = input.running_items();
    let agents = crate::agent_launches::agents_since_last_stop(
        &dir,
        input.transcript_path.as_deref(),
        &state.run,
    );
    // Before the decision: what the run has spent is known when it dispatches.
    // A turn one of the run's background agents started (its notification) is the run's
    // work, even after the closing line: the cost is read on through it.
    let run_turn = input.stop_hook_active == Some(false)
        && (agents.notified > 0 || !agents.unnotified.is_empty());
    let (spend, cost_failure) = crate::run_cost::account_stop(
        &dir,
        &state,
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
        spend: spend.filter(|_| state.config.budget_usd.is_some()),
        new_turn: input.stop_hook_active == Some(false),
    };
    let mut answer = drive(env, &project, &dir, &mut state, &stop);
    drop(lock);
    answer.stderr.extend(cost_failure);
    // The process ends right after the answer is printed: freeing 100,000 items one by one
    // would be a fifth of the hook's time (reference/benchmarks.md).
    std::mem::forget(state);
    answer
}

/// Folds, decides, finalizes when asked, journals what changed, saves, answers.
fn drive(
    env: &CommandEnv,
    project: &Project,
    dir: &RunDir,
    state: &mut RunState,
    stop: &StopEvent,
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
        // Before the agents can exist: `submit` refuses items its run never dispatched.
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
    if dirty && let Err(e) = dir.save_state(state, items_before) {
        stderr.push(format!("self-repair hook stop: {e}"));
    }
    let stdout = match decision {
        Decision::Block(dispatch) => {
            Some(json!({ "decision": "block", "reason": dispatch.render_reason() }).to_string())
        }
        // The run just ended, paused or stalled (the engine says so once, at the transition):
        // a `systemMessage` reaches neither the model nor `claude -p` output, so the session is
        // asked, once, to end its turn with the line (reference/design-notes.md, note 15).
        Decision::Allow { message: Some(m) } => {
            let m = if state.status == RunStatus::Complete {
                let m = crate::run_cost::with_cost_and_duration(dir, state, env.now, &m);
                crate::proposals::with_next_steps(dir, state, &m)
            } else {
                m
            };
            Some(
                json!({ "decision": "block", "reason": relay_reason(&m), "systemMessage": m })
                    .to_string(),
            )
        }
        Decision::Allow { message: None } | Decision::Finalize => {
            failure.map(|m| json!({ "systemMessage": m }).to_string())
        }
    };
    HookAnswer { stdout, stderr }
}

/// Leaves `items/<id>.dispatched`, the cheap proof `submit` checks that this run launched an
/// agent for the item (design note 4: `submit` never reads the state). Empty and not synced:
/// at most the fan-out's worth of small creates per block.
fn mark_dispatched(dir: &RunDir, item: &str) -> Result<(), crate::AppError> {
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
        std::fs::write(&path, b"").map_err(|_| crate::AppError::Io {
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
fn set_aside_weak_answer(dir: &RunDir, item: &str) -> Result<(), crate::AppError> {
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
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(crate::AppError::Io {
            action: "move aside",
            path: answer,
            source: e,
        }),
        _ => Ok(()),
    }
}

/// `self-repair hook stop-failure`: the turn ended on an API error; pause instead of
/// re-blocking. The next successful stop lifts the pause.
pub fn hook_stop_failure(env: &CommandEnv, stdin: &[u8]) -> HookAnswer {
    let input = match HookInput::parse(stdin) {
        Ok(input) => input,
        Err(reason) => return HookAnswer::note(format!("self-repair hook stop-failure: {reason}")),
    };
    // A sub-agent's failed API call also fires StopFailure (with its agent_id): the main
    // session goes on, and the item's failure is handled at the next stop.
    if input.agent_id.is_some() || input.agent_type.is_some() {
        return HookAnswer::allow();
    }
    let (Some(session), Some((_, dir))) = (input.session_id.clone(), active_run(env, &input))
    else {
        return HookAnswer::allow();
    };
    if self_repair_repair::is_repair_run(&dir) {
        let answer = self_repair_repair::repair_stop_failure(&dir, &session);
        return HookAnswer {
            stdout: answer.stdout,
            stderr: answer.stderr,
        };
    }
    let result = (|| -> Result<(), crate::AppError> {
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
        Ok(()) => HookAnswer::allow(),
        Err(e) => HookAnswer::note(format!("self-repair hook stop-failure: {e}")),
    }
}

/// The context and user message for a session that does not drive the project's run.
fn waiting_run_notice(state: &RunState) -> HookAnswer {
    let counts = state.counts(state.phase);
    let driver = if state.session.is_some() {
        "another Claude Code session drives it"
    } else {
        "it was started outside Claude Code"
    };
    let summary = format!(
        "self-repair run {} is waiting in this project: phase {}, {} of {} items done, status \
         {}; {driver}.",
        state.run,
        state.phase.as_str(),
        counts.done,
        counts.total(),
        state.status.as_str()
    );
    let context = format!(
        "{summary} Only if the user asks to continue it: run `self-repair adopt` (and \
         `self-repair resume` when it is paused or stalled), then end your turn; the Stop hook \
         then drives it. Otherwise leave it alone."
    );
    let message = format!(
        "{summary} To continue it here, ask Claude to continue the self-repair run, or run \
         `self-repair adopt`."
    );
    HookAnswer {
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
        (RunStatus::Paused, _) => {
            format!("It is paused by the user: only when asked to continue, {resume}.")
        }
        _ => "The Stop hook drives it.".to_owned(),
    }
}

/// `self-repair hook session-start`: after a compaction or a resume, remind the session of the
/// run in one paragraph (`SessionStart` stdout becomes context); in any other session, say once
/// that a run is waiting and how to adopt it.
pub fn hook_session_start(env: &CommandEnv, stdin: &[u8]) -> HookAnswer {
    let Ok(input) = HookInput::parse(stdin) else {
        return HookAnswer::allow();
    };
    let Some((_, dir)) = active_run(env, &input) else {
        return HookAnswer::allow();
    };
    let Ok(state) = dir.load_state() else {
        return HookAnswer::allow();
    };
    if matches!(state.status, RunStatus::Complete | RunStatus::Cancelled) {
        return HookAnswer::allow();
    }
    let ours = matches!((&state.session, &input.session_id),
        (Some(bound), Some(session)) if bound == session);
    if !ours {
        // A new session (startup, /clear gives a new id, another terminal): say once that a run
        // is waiting and how to take it over; the Stop hook stays silent for this session.
        return waiting_run_notice(&state);
    }
    if !matches!(input.source.as_deref(), Some("compact" | "resume")) {
        return HookAnswer::allow();
    }
    let counts = state.counts(state.phase);
    let context = format!(
        "A self-repair run is in progress in this project: run {}, phase {}, {} of {} items \
         done, status {}. {} {PROTOCOL} `self-repair status` shows progress.",
        state.run,
        state.phase.as_str(),
        counts.done,
        counts.total(),
        state.status.as_str(),
        how_to_continue(&state)
    );
    HookAnswer {
        stdout: Some(
            json!({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": context}})
                .to_string(),
        ),
        stderr: Vec::new(),
    }
}
