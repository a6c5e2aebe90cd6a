//! The Stop hook for a repair run: bound to one session, never blocks a foreign one, one JSON
//! object or nothing on stdout, and every block spends an attempt or is counted, so it never
//! blocks forever.

use std::time::{Duration, Instant};

use self_repair_stop::{StopAnswer, StopInput, StopPipeline, answer_stop};
use self_repair_store::{Project, RunDir, StoreError};

use crate::repair_run::{Budget, Pause, RepairRun, load_repair_state};
use crate::{FixTier, RepairError, RepairEvent, render_dispatch, render_feedback, report_path};

/// Requests for `self-repair tick` without a check running before the hook lets the session stop.
const TICK_REQUESTS: u32 = 3;

/// A repair run's pipeline through the one Stop frame: its own decision rules
/// (reference/repair.md), the frame's lock, load, binding, save and answer.
pub(crate) struct RepairStop<'a> {
    project: &'a Project,
    /// When the hook started: the check it may run in this stop is bounded from here.
    started: Instant,
}

impl<'a> RepairStop<'a> {
    /// The pipeline for a stop in `project`, the hook having started at `started`.
    #[must_use]
    pub(crate) fn new(project: &'a Project, started: Instant) -> RepairStop<'a> {
        RepairStop { project, started }
    }
}

impl StopPipeline for RepairStop<'_> {
    type Run = RepairRun;

    fn open(&self, dir: &RunDir, input: &StopInput) -> Result<RepairRun, StopAnswer> {
        match RepairRun::load(self.project.root(), dir.clone(), input.now) {
            Ok(run) => Ok(run),
            Err(RepairError::Store(e @ StoreError::CorruptState { .. })) => {
                Err(StopAnswer::needs_doctor(&e))
            }
            Err(e) => Err(StopAnswer::failed(e)),
        }
    }

    /// Another session's stop; a run bound to none is bound by this one.
    fn not_ours(&self, run: &RepairRun, session: &str) -> bool {
        run.state.session.as_ref().is_some_and(|s| s != session)
    }

    fn decide(&self, _dir: &RunDir, run: &mut RepairRun, input: &StopInput) -> StopAnswer {
        match drive(self.project, run, input, self.started) {
            Ok(answer) => answer,
            Err(e) => {
                let _ = run.record(&RepairEvent::InfraFailure {
                    error: e.to_string(),
                });
                StopAnswer::tell(&format!(
                    "self-repair check: stopped on an error of self-repair itself: {e}. Hand-off report: {}",
                    report_path(self.project.root(), &run.dir).display()
                ))
            }
        }
    }

    fn save(&self, _dir: &RunDir, run: &mut RepairRun) -> Result<(), String> {
        if run.dirty {
            run.save().map_err(|e| e.to_string())?;
        }
        Ok(())
    }
}

/// `self-repair hook stop` for a repair run, through the one Stop frame; `started`: when the
/// hook started (the check it may run in this stop is bounded from then).
pub fn repair_stop(
    project: &Project,
    dir: &RunDir,
    input: &StopInput,
    started: Instant,
) -> StopAnswer {
    let pipeline = RepairStop::new(project, started);
    answer_stop(&pipeline, dir, input)
}

fn drive(
    project: &Project,
    run: &mut RepairRun,
    input: &StopInput,
    started: Instant,
) -> Result<StopAnswer, RepairError> {
    if run.state.session.is_none() {
        // One binding rule for every run (reference/state-machine.md, "Binding"): a run started
        // outside Claude Code is bound by `self-repair adopt` in the session that should drive
        // it, never by whichever session stops first; `tick` and `drive` go on from a terminal.
        return Ok(StopAnswer::allow());
    }
    if run.state.status.is_final() {
        if run.state.announced {
            return Ok(StopAnswer::allow());
        }
        run.record(&RepairEvent::Announced)?;
        return Ok(StopAnswer::relay(&run.outcome_line(), input.audience));
    }
    let budget = Budget::Until(started + Duration::from_millis(run.state.spec.hook_budget_ms));
    for _ in 0..(run.state.spec.max_attempts * 4 + 8) {
        match run.advance(budget)? {
            Pause::Ask(n) => {
                run.ask(n)?;
                let reason = match run.state.spec.tier_of(n) {
                    FixTier::Main => render_feedback(&project.store_dir(), &run.state, n)?,
                    FixTier::Agent(_) => render_dispatch(&run.state, n).render_reason(),
                };
                return Ok(StopAnswer::block(&reason));
            }
            Pause::AwaitFix(n) => {
                let item = format!("fix-{n}");
                let by_fixer = matches!(run.state.spec.tier_of(n), FixTier::Agent(_));
                if by_fixer && input.names_running(&item) {
                    // Its completion notification wakes the session; nothing to do until then.
                    return Ok(StopAnswer::allow());
                }
                run.end_fix(n)?;
            }
            Pause::DelegateCheck => {
                if run.state.tick_requests >= TICK_REQUESTS {
                    run.record(&RepairEvent::Stalled)?;
                    return Ok(StopAnswer::relay(
                        &format!(
                            "self-repair check: stalled — asked {TICK_REQUESTS} times for `self-repair tick` and the check did not run, so this stop is allowed. Run `self-repair tick` to continue (run {}).",
                            run.state.run
                        ),
                        input.audience,
                    ));
                }
                run.record(&RepairEvent::TickRequested)?;
                let secs = run.state.spec.timeout_ms.div_ceil(1000) + 30;
                return Ok(StopAnswer::block(&format!(
                    "self-repair check: the check `{}` {}, longer than this hook may run. Run `self-repair tick` with the Bash tool (timeout {secs} s or more; it runs the check and records the result), then end your turn. Do not fix anything in this turn.",
                    run.state.spec.command_line(),
                    why_tick(&run.state)
                )));
            }
            Pause::Waiting { until, new } => {
                if !new {
                    return Ok(StopAnswer::allow());
                }
                return Ok(StopAnswer::tell(&format!(
                    "self-repair check: a transient failure of `{}`; waiting until {} before rerunning it. Stop again after then (or run `self-repair tick`) to continue (run {}).",
                    run.state.spec.command_line(),
                    self_repair_engine::timestamp::rfc3339(until),
                    run.state.run
                )));
            }
            Pause::Stalled => return Ok(StopAnswer::allow()),
            Pause::Finished => {
                run.record(&RepairEvent::Announced)?;
                return Ok(StopAnswer::relay(&run.outcome_line(), input.audience));
            }
        }
    }
    Ok(StopAnswer::allow())
}

/// Why the hook hands the check over to `self-repair tick`, from what was measured.
fn why_tick(state: &crate::RepairState) -> String {
    let secs = |ms: u64| format!("{:.1} s", ms as f64 / 1000.0);
    match (state.hook_overrun_ms, state.expected_check_ms()) {
        (Some(ms), _) => format!("ran {} in this hook and was stopped", secs(ms)),
        (None, Some(ms)) => format!("took up to {} in its recent runs", secs(ms)),
        (None, None) => format!("may take up to {} s", state.spec.timeout_ms.div_ceil(1000)),
    }
}

/// `self-repair hook stop-failure` for a repair run: the turn ended on an API error. Nothing is
/// recorded: the attempt under way ends at the next successful stop, and the recheck decides.
pub fn repair_stop_failure(dir: &RunDir, session: &str) -> StopAnswer {
    match load_repair_state(dir) {
        Ok(state) if state.session.as_deref().is_none_or(|s| s == session) => {
            StopAnswer::note(format!(
                "self-repair hook stop-failure: run {} waits; the next stop rechecks",
                state.run
            ))
        }
        _ => StopAnswer::allow(),
    }
}

/// Binds a repair run to `session` (`self-repair adopt`): a run whose session ended (a crash, a
/// usage limit, `self-repair drive` starting the next session) goes on in this one; a stalled
/// run goes on too. The attempt under way, if any, ends at this session's next stop and is
/// rechecked.
pub fn adopt_repair(
    project: &Project,
    dir: RunDir,
    now: u64,
    session: &str,
) -> Result<String, RepairError> {
    let _lock = dir.lock()?;
    let mut run = RepairRun::load(project.root(), dir, now)?;
    if run.state.status.is_final() {
        return Ok(format!(
            "run {} is already over ({}); nothing to adopt",
            run.state.run,
            run.state.status.as_str()
        ));
    }
    run.record(&RepairEvent::Bound {
        session: session.to_owned(),
    })?;
    if run.state.status == crate::RepairStatus::Stalled {
        run.record(&RepairEvent::Resumed)?;
    }
    run.save()?;
    Ok(format!(
        "repair run {} adopted by session {session}: end your turn; the Stop hook gives the next step",
        run.state.run
    ))
}

/// Cancels a repair run: the hook never drives it again.
pub fn cancel_repair(project: &Project, dir: RunDir, now: u64) -> Result<String, RepairError> {
    let _lock = dir.lock()?;
    let mut run = RepairRun::load(project.root(), dir, now)?;
    if run.state.status.is_final() {
        return Ok(format!(
            "run {} is already over ({})",
            run.state.run,
            run.state.status.as_str()
        ));
    }
    run.record(&RepairEvent::Cancelled)?;
    run.record(&RepairEvent::Announced)?;
    run.save()?;
    Ok(format!(
        "run {} cancelled; hand-off report (logs, diff, errors): {}",
        run.state.run,
        report_path(&run.root, &run.dir).display()
    ))
}
