//! The Stop hook for a repair run: bound to one session, never blocks a foreign one, one JSON
//! object or nothing on stdout, and every block spends an attempt or is counted, so it never
//! blocks forever.

use std::time::{Duration, Instant};

use self_repair_engine::{Audience, continue_with, say_line};
use self_repair_store::{Project, RunDir, StoreError};
use serde_json::json;

use crate::repair_run::{Budget, Pause, RepairRun, load_repair_state};
use crate::{FixTier, RepairError, RepairEvent, render_dispatch, render_feedback, report_path};

/// Requests for `self-repair tick` without a check running before the hook lets the session stop.
const TICK_REQUESTS: u32 = 3;

/// What the hook prints: at most one JSON object on stdout; lines for stderr.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StopAnswer {
    pub stdout: Option<String>,
    pub stderr: Vec<String>,
}

impl StopAnswer {
    fn allow() -> StopAnswer {
        StopAnswer::default()
    }

    fn tell(message: &str) -> StopAnswer {
        StopAnswer {
            stdout: Some(json!({ "systemMessage": message }).to_string()),
            stderr: Vec::new(),
        }
    }

    /// Says once how the run ended (or stalled): at a terminal the user reads it once and the
    /// stop is allowed; unattended the session is asked to end its turn with the line, so
    /// `claude -p` shows it too (the engine's `say_line`, as a triage run says its line).
    fn relay(line: &str, audience: Audience) -> StopAnswer {
        StopAnswer {
            stdout: Some(say_line(line, audience).to_string()),
            stderr: Vec::new(),
        }
    }

    /// Keeps the session going with an instruction: the Stop event's `additionalContext`,
    /// which the client shows as "Stop hook says", not as a problem (design note 48).
    fn block(reason: &str) -> StopAnswer {
        StopAnswer {
            stdout: Some(continue_with(reason).to_string()),
            stderr: Vec::new(),
        }
    }

    fn note(line: String) -> StopAnswer {
        StopAnswer {
            stdout: None,
            stderr: vec![line],
        }
    }
}

/// What the hook input says, reduced to what the repair hook needs.
#[derive(Debug, Clone, Default)]
pub struct StopInput {
    pub session: String,
    /// Descriptions of the background tasks still running; `None` when the client sent none.
    pub running: Option<Vec<String>>,
    /// Whether a user watches the terminal (`CLAUDE_CODE_SESSION_ATTENDED`).
    pub audience: Audience,
}

fn names_item(descriptions: &[String], item: &str) -> bool {
    descriptions.iter().any(|d| {
        d.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .any(|token| token == item)
    })
}

/// `self-repair hook stop` for a repair run.
pub fn repair_stop(project: &Project, dir: RunDir, now: u64, input: &StopInput) -> StopAnswer {
    let started = Instant::now();
    let lock = match dir.lock() {
        Ok(lock) => lock,
        Err(e) => {
            return StopAnswer::note(format!("self-repair hook stop: {e}; allowing the stop"));
        }
    };
    // Row 2 before anything is written: a foreign session's stop changes nothing.
    match load_repair_state(&dir) {
        Ok(state) if state.session.as_ref().is_some_and(|s| *s != input.session) => {
            return StopAnswer::allow();
        }
        Ok(_) => {}
        Err(e @ RepairError::Store(StoreError::CorruptState { .. })) => {
            return StopAnswer {
                stderr: vec![format!("self-repair hook stop: {e}")],
                ..StopAnswer::tell(&format!("self-repair: {e}"))
            };
        }
        Err(e) => {
            return StopAnswer::note(format!("self-repair hook stop: {e}; allowing the stop"));
        }
    }
    let mut run = match RepairRun::load(project.root(), dir, now) {
        Ok(run) => run,
        Err(e) => {
            return StopAnswer::note(format!("self-repair hook stop: {e}; allowing the stop"));
        }
    };
    let mut answer = match drive(project, &mut run, input, started) {
        Ok(answer) => answer,
        Err(e) => {
            let _ = run.record(&RepairEvent::InfraFailure {
                error: e.to_string(),
            });
            StopAnswer::tell(&format!(
                "self-repair check: stopped on an error of self-repair itself: {e}. Hand-off report: {}",
                report_path(project.root(), &run.dir).display()
            ))
        }
    };
    if run.dirty
        && let Err(e) = run.save()
    {
        answer.stderr.push(format!("self-repair hook stop: {e}"));
    }
    drop(lock);
    answer
}

fn drive(
    project: &Project,
    run: &mut RepairRun,
    input: &StopInput,
    started: Instant,
) -> Result<StopAnswer, RepairError> {
    if run.state.session.is_none() {
        run.record(&RepairEvent::Bound {
            session: input.session.clone(),
        })?;
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
                let running = input.running.as_deref().unwrap_or(&[]);
                if by_fixer && names_item(running, &item) {
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
