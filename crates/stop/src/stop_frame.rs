//! The one Stop frame (issue 33): both pipelines answer a stop through it. The frame holds what
//! they share: the run's lock, loading the run (a damaged state names `doctor`), the binding
//! (row 2: another session's stop, or a stop of a run no session drives, writes nothing),
//! saving what the stop changed, and one answer type. Each pipeline brings its own rules
//! ([`StopPipeline`]): a repair run its decision rules (crate `repair`), a triage run the
//! engine's pure decision, which this file drives ([`TriageStop`]): the head first, the agents
//! launched and the cost since the last stop, the journal folded, `decide_stop` (finalizing in
//! between when it asks), the stop journaled, the launches prepared, the answer written.
//!
//! A Stop hook call reads: the hook adapter (`app`'s `hooks/stop.rs`: the input, which run) →
//! this frame → the decision (`engine`'s `decide_stop.rs`, or `repair`'s `repair_stop.rs`).

use self_repair_engine::{
    Decision, Dispatch, Event, JournalEntry, RunHead, RunState, RunStatus, StopEvent,
    current_channel, decide_stop, dispatch_answer, dispatch_channel,
};
use self_repair_store::{RunDir, StoreError};
use serde_json::json;

use crate::{StopAnswer, StopInput};

/// One pipeline's rules for a stop; the frame ([`answer_stop`]) does the rest.
pub trait StopPipeline {
    /// The run as the pipeline holds it through the stop.
    type Run;

    /// Loads the run (the lock is held); an answer when it cannot be read.
    ///
    /// # Errors
    /// The answer the hook gives instead: a damaged state names `doctor`.
    fn open(&self, dir: &RunDir, input: &StopInput) -> Result<Self::Run, StopAnswer>;

    /// Whether this stop is not the run's to answer (row 2): then nothing is folded or written.
    fn not_ours(&self, run: &Self::Run, session: &str) -> bool;

    /// Decides the stop: changes the run in memory, journals what it records, and answers.
    fn decide(&self, dir: &RunDir, run: &mut Self::Run, input: &StopInput) -> StopAnswer;

    /// Saves what [`StopPipeline::decide`] changed.
    ///
    /// # Errors
    /// What could not be saved, in words: said on stderr (the journal already holds it).
    fn save(&self, dir: &RunDir, run: &mut Self::Run) -> Result<(), String>;
}

/// Answers one stop of the run in `dir` with `pipeline`'s rules: lock, load, binding, decide,
/// save, answer. Never fails: every problem becomes an allow with a line saying why.
pub fn answer_stop<P: StopPipeline>(pipeline: &P, dir: &RunDir, input: &StopInput) -> StopAnswer {
    let lock = match dir.lock() {
        Ok(lock) => lock,
        Err(e) => return StopAnswer::failed(e),
    };
    let mut run = match pipeline.open(dir, input) {
        Ok(run) => run,
        Err(answer) => return answer,
    };
    if pipeline.not_ours(&run, &input.session) {
        return StopAnswer::allow();
    }
    let mut answer = pipeline.decide(dir, &mut run, input);
    if let Err(e) = pipeline.save(dir, &mut run) {
        answer.stderr.push(format!("self-repair hook stop: {e}"));
    }
    drop(lock);
    // The process ends right after the answer is printed: freeing 100,000 items one by one
    // would be a fifth of the hook's time (reference/benchmarks.md).
    std::mem::forget(run);
    answer
}

/// Loads a state, or the answer when it cannot be read (a damaged one names `doctor`).
///
/// # Errors
/// The answer the hook gives instead.
pub fn load_or_answer<T>(load: Result<T, StoreError>) -> Result<T, StopAnswer> {
    load.map_err(|e| match e {
        StoreError::CorruptState { .. } | StoreError::JournalBehindState { .. } => {
            StopAnswer::needs_doctor(&e)
        }
        e => StopAnswer::failed(e),
    })
}

/// What a triage run's stop needs of `app`: the reports and tasks written at the run's end,
/// and the next steps its closing line names.
pub trait TriageHost {
    /// Writes the tasks and reports of a run every phase of which is done.
    ///
    /// # Errors
    /// Why it failed, in words (said on every stop until it is fixed).
    fn finalize(&self, dir: &RunDir, state: &mut RunState, now: u64) -> Result<(), String>;

    /// The closing line of a complete run, with the next steps that apply.
    fn closing_line(&self, dir: &RunDir, state: &RunState, line: &str) -> String;
}

/// A triage run's pipeline: the engine's decision table (reference/state-machine.md).
pub struct TriageStop<'a> {
    pub host: &'a dyn TriageHost,
}

/// A triage run through one stop.
pub struct TriageRun {
    /// Status, binding and counters: what a stop that changes nothing needs.
    head: RunHead,
    /// `state.head.json` described the state on disk: no item was decoded.
    head_only: bool,
    /// The whole state, once loaded.
    state: Option<RunState>,
    items_before: usize,
    /// The state changed and is saved; else, loaded whole, only its head is written.
    dirty: bool,
}

impl StopPipeline for TriageStop<'_> {
    type Run = TriageRun;

    /// The head first (status, binding, counters): a stop that changes nothing needs no item,
    /// and on a stalled 10,000-finding run decoding them was most of the stop's cost
    /// (reference/benchmarks.md). No head that describes this state and journal: all of it.
    fn open(&self, dir: &RunDir, _input: &StopInput) -> Result<TriageRun, StopAnswer> {
        let (head, state) = if let Some(head) = dir.load_head() {
            (head, None)
        } else {
            let state = load_or_answer(dir.load_state())?;
            (RunHead::of(&state), Some(state))
        };
        Ok(TriageRun {
            head,
            head_only: state.is_none(),
            items_before: state.as_ref().map_or(0, |s| s.items.len()),
            state,
            dirty: false,
        })
    }

    /// A stop of another session, or of a run no session is bound to (started from a
    /// terminal: only `adopt` binds it).
    fn not_ours(&self, run: &TriageRun, session: &str) -> bool {
        !run.head.is_bound_to(session)
    }

    fn decide(&self, dir: &RunDir, run: &mut TriageRun, input: &StopInput) -> StopAnswer {
        let (stop, cost_failure) = triage_stop_event(dir, &run.head, input);
        if run.head_only && run.head.quiet_stop(&stop) {
            // What `decide_stop` answers on the whole state: allow silently, nothing changes.
            return StopAnswer {
                stdout: None,
                stderr: cost_failure.into_iter().collect(),
            };
        }
        if run.state.is_none() {
            match load_or_answer(dir.load_state()) {
                Ok(state) => {
                    run.items_before = state.items.len();
                    run.state = Some(state);
                }
                Err(answer) => return answer,
            }
        }
        let Some(state) = run.state.as_mut() else {
            return StopAnswer::allow();
        };
        let mut answer = self.drive(dir, state, &stop, input, &mut run.dirty);
        answer.stderr.extend(cost_failure);
        answer
    }

    /// Saves a state the stop changed; a state loaded whole and unchanged gets its head
    /// written, so the run's next quiet stops read only it.
    fn save(&self, dir: &RunDir, run: &mut TriageRun) -> Result<(), String> {
        let Some(state) = &run.state else {
            return Ok(());
        };
        if run.dirty {
            dir.save_state(state, run.items_before)
                .map_err(|e| e.to_string())?;
        } else if !run.head_only {
            dir.save_head(state);
        }
        Ok(())
    }
}

/// The stop as the engine sees it: the agents launched and notified since the last stop, and
/// what the run has spent (read before the decision, so a dispatch knows it). The second value
/// is a note when the transcript's cost could not be read.
fn triage_stop_event(
    dir: &RunDir,
    head: &RunHead,
    input: &StopInput,
) -> (StopEvent, Option<String>) {
    let running = input.running_items();
    let agents = crate::session_agents::agents_since_last_stop(
        dir,
        input.transcript.as_deref(),
        &head.run,
        running.as_deref(),
    );
    let (spend, cost_failure) = crate::stop_cost::account_stop(
        dir,
        head,
        input.transcript.as_deref(),
        running.as_deref(),
        run_turn(input.new_turn, &agents),
    );
    let stop = StopEvent {
        session: Some(input.session.clone()),
        running,
        launched: agents.launched,
        unnotified: agents.unnotified,
        notified: agents.notified,
        provider_refused: agents.provider_refused,
        last_message: input.last_message.clone(),
        // Journaled with the stop: only a run with a budget needs it.
        spend: spend.filter(|_| head.budget),
        new_turn: input.new_turn,
        launches_read: agents.launches_read,
        client: agents.client,
    };
    (stop, cost_failure)
}

/// Whether this stop ends a turn one of the run's background agents started (its
/// notification, read now or awaited): the run's work, even after the closing line, so the
/// cost is read on through it. `new_turn`: the stop's first of a turn.
fn run_turn(new_turn: bool, agents: &crate::SessionAgents) -> bool {
    new_turn && (agents.notified > 0 || !agents.unnotified.is_empty())
}

impl TriageStop<'_> {
    /// Folds, decides, finalizes when asked, journals what changed, prepares the launches,
    /// answers. `dirty` is set when the state changed.
    fn drive(
        &self,
        dir: &RunDir,
        state: &mut RunState,
        stop: &StopEvent,
        input: &StopInput,
        dirty: &mut bool,
    ) -> StopAnswer {
        let mut stderr = Vec::new();
        let offset_before = state.journal_offset;
        match dir.fold(state) {
            Ok(report) => stderr.extend(report.skipped),
            Err(e @ StoreError::JournalBehindState { .. }) => return StopAnswer::needs_doctor(&e),
            Err(e) => return StopAnswer::failed(e),
        }
        *dirty |= state.journal_offset != offset_before;
        let mut decision = Decision::Allow { message: None };
        // A finalize failure is said on every stop until it is fixed: a systemMessage, never
        // relayed.
        let mut failure: Option<String> = None;
        for _ in 0..3 {
            let outcome = decide_stop(state, stop, input.now);
            if outcome.changed {
                // Journal the stop so a rebuild replays the same decision, and what it
                // dispatched for the record (`eval`'s protocol figures).
                let mut entries = vec![JournalEntry {
                    at: input.now,
                    event: Event::Stop(stop.clone()),
                }];
                if let Decision::Block(dispatch) = &outcome.decision {
                    let (channel, why) = dispatch_channel(state);
                    entries.push(JournalEntry {
                        at: input.now,
                        event: Event::Dispatched {
                            launch: dispatched(dispatch),
                            channel: Some(channel),
                            why,
                        },
                    });
                }
                if let Err(e) = dir.append_applied(state, &entries) {
                    return StopAnswer::failed(e);
                }
                *dirty = true;
            }
            decision = outcome.decision;
            if decision != Decision::Finalize {
                break;
            }
            if let Err(e) = self.host.finalize(dir, state, input.now) {
                let message = format!(
                    "self-repair run {}: finalize failed: {e}. Fix it, then run `self-repair finalize`.",
                    state.run
                );
                stderr.push(message.clone());
                failure = Some(message);
                decision = Decision::Allow { message: None };
                break;
            }
            *dirty = true;
        }
        if let Decision::Block(dispatch) = &decision {
            prepare_launches(dir, state, dispatch, &mut stderr);
        }
        let stdout = self.answer_text(dir, state, decision, failure, input);
        StopAnswer { stdout, stderr }
    }

    /// What the hook prints for the decision: a dispatch, the run's one line, or a finalize
    /// failure.
    fn answer_text(
        &self,
        dir: &RunDir,
        state: &RunState,
        decision: Decision,
        failure: Option<String>,
        input: &StopInput,
    ) -> Option<String> {
        // A dispatch continues the session by its channel: the Stop event's
        // `additionalContext` (shown as "Stop hook says", not as a problem; design note 48),
        // or a block for a session that did not act on it (note 63).
        match decision {
            Decision::Block(dispatch) => Some(
                dispatch_answer(&dispatch.render_reason(), dispatch_channel(state).0).to_string(),
            ),
            // The run just ended, paused or stalled (the engine says so once, at the
            // transition): shown once at a terminal; unattended the session is asked, once, to
            // end its turn with the line (notes 15 and 48).
            Decision::Allow { message: Some(m) } => {
                let m = if state.status == RunStatus::Complete {
                    let m = crate::stop_cost::with_cost_and_duration(dir, state, input.now, &m);
                    self.host.closing_line(dir, state, &m)
                } else {
                    m
                };
                StopAnswer::relay_by(&m, input.audience, current_channel(state)).stdout
            }
            Decision::Allow { message: None } | Decision::Finalize => {
                failure.map(|m| json!({ "systemMessage": m }).to_string())
            }
        }
    }
}

/// Before the agents can exist: `submit` refuses items its run never dispatched, a weak answer
/// a second look replaces is set aside, and each item's input is on disk.
fn prepare_launches(dir: &RunDir, state: &RunState, dispatch: &Dispatch, stderr: &mut Vec<String>) {
    for launch in &dispatch.launch {
        let steps = [
            dir.mark_dispatched(&launch.item),
            dir.set_aside_answer(&launch.item),
        ];
        for e in steps.into_iter().filter_map(Result::err) {
            stderr.push(format!("self-repair hook stop: {e}"));
        }
    }
    let items = dispatch.launch.iter().map(|l| l.item.as_str());
    if let Err(e) = dir.ensure_inputs(state, items) {
        stderr.push(format!("self-repair hook stop: {e}"));
    }
}

/// Each launch of a dispatch as the journal keeps it: the item and the `model` asked for.
fn dispatched(dispatch: &Dispatch) -> Vec<self_repair_engine::AgentLaunch> {
    dispatch
        .launch
        .iter()
        .map(|l| self_repair_engine::AgentLaunch {
            item: l.item.clone(),
            model: Some(l.model.clone()),
            ..self_repair_engine::AgentLaunch::default()
        })
        .collect()
}

#[cfg(test)]
#[path = "stop_frame_tests.rs"]
mod tests;
