//! What the driver does after each session: relaunch now, wait, or stop. Pure: the session's
//! summary and the time in, the next step out (no clock, no sleeping here).

use serde::Serialize;

use crate::session_end::SessionEnd;

/// Sessions in a row without progress that open the circuit.
pub(crate) const NO_PROGRESS_LIMIT: u32 = 3;
/// A session shorter than this ended "within seconds"; two in a row back off.
pub(crate) const QUICK_SESSION_SECS: u64 = 20;
/// The cap of every exponential backoff: 30 minutes.
pub(crate) const BACKOFF_CAP_SECS: u64 = 30 * 60;
/// The first backoff after a rate limit that gave no reset time.
pub(crate) const RATE_LIMIT_FIRST_SECS: u64 = 60;
/// The first backoff after an overloaded or failing API.
pub(crate) const OVERLOAD_FIRST_SECS: u64 = 10;
/// The first backoff after two quick sessions in a row.
pub(crate) const HOT_LOOP_FIRST_SECS: u64 = 10;
/// Sessions in a row the model provider refused that stop driving: the first starts afresh
/// (the refused turn is not in the new session); a second in a row means the run's own text is
/// refused, and more sessions would only be billed for it.
pub(crate) const REFUSAL_LIMIT: u32 = 2;
/// Added to a reset time: the limit is lifted at the reset, not a moment before.
pub(crate) const RESET_MARGIN_SECS: u64 = 2;

/// The limits the user set.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DriveLimits {
    /// `--max-sessions`.
    pub max_sessions: Option<u32>,
    /// `--budget` in USD, against the sessions' summed `total_cost_usd`.
    pub budget_usd: Option<f64>,
    /// `--until`: no session starts after this (Unix seconds).
    pub until: Option<u64>,
}

/// One finished session, as the policy needs it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SessionSummary {
    pub end: SessionEnd,
    /// Wall time of the session in seconds.
    pub seconds: u64,
    /// An item was submitted or the phase advanced.
    pub progressed: bool,
    /// The result's `total_cost_usd`.
    pub cost_usd: f64,
}

/// Why driving stopped before the run ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "stop", rename_all = "snake_case")]
pub enum StopReason {
    /// The API refused the credentials: a human must act.
    AuthRequired,
    /// `--max-sessions` sessions ran.
    MaxSessions { sessions: u32 },
    /// Sessions in a row made no progress.
    NoProgress { sessions: u32 },
    /// Sessions in a row were refused by the model provider.
    Refused { sessions: u32 },
    /// The summed cost reached `--budget`.
    Budget { spent_usd: f64, budget_usd: f64 },
    /// `--until` passed (or the next wait would pass it).
    Until { until: u64 },
    /// SIGINT or SIGTERM.
    Interrupted,
}

/// The step after a session.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum NextStep {
    /// Start the next session after `wait_secs`.
    Relaunch { wait_secs: u64 },
    /// Stop driving.
    Stop(StopReason),
}

/// The driver's counters across sessions.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct DrivePolicy {
    limits: DriveLimits,
    /// Multiplies every backoff (never the wait until a reset the API named): test-only.
    scale: f64,
    sessions: u32,
    spent_usd: f64,
    no_progress: u32,
    quick: u32,
    rate_streak: u32,
    overload_streak: u32,
    hot_streak: u32,
    refusal_streak: u32,
}

/// `first` doubled `streak - 1` times, capped at [`BACKOFF_CAP_SECS`].
fn doubling(first: u64, streak: u32) -> u64 {
    let shift = streak.saturating_sub(1).min(20);
    first.saturating_mul(1 << shift).min(BACKOFF_CAP_SECS)
}

impl DrivePolicy {
    /// A policy with `limits`; `scale` multiplies backoffs (1.0 outside tests).
    pub(crate) fn new(limits: DriveLimits, scale: f64) -> DrivePolicy {
        DrivePolicy {
            limits,
            scale: if scale.is_finite() && scale >= 0.0 {
                scale
            } else {
                1.0
            },
            sessions: 0,
            spent_usd: 0.0,
            no_progress: 0,
            quick: 0,
            rate_streak: 0,
            overload_streak: 0,
            hot_streak: 0,
            refusal_streak: 0,
        }
    }

    /// Sessions run so far.
    pub(crate) fn sessions(&self) -> u32 {
        self.sessions
    }

    /// Summed `total_cost_usd` so far.
    pub(crate) fn spent_usd(&self) -> f64 {
        self.spent_usd
    }

    /// Whether a session may start at `now`.
    pub(crate) fn may_start(&self, now: u64) -> Result<(), StopReason> {
        if let Some(until) = self.limits.until
            && now >= until
        {
            return Err(StopReason::Until { until });
        }
        if let Some(max) = self.limits.max_sessions
            && self.sessions >= max
        {
            return Err(StopReason::MaxSessions {
                sessions: self.sessions,
            });
        }
        if let Some(budget) = self.limits.budget_usd
            && self.spent_usd >= budget
        {
            return Err(StopReason::Budget {
                spent_usd: self.spent_usd,
                budget_usd: budget,
            });
        }
        Ok(())
    }

    fn scaled(&self, secs: u64) -> u64 {
        (secs as f64 * self.scale).round() as u64
    }

    /// Records a finished session (ended at `now`) and says what comes next.
    pub(crate) fn after(&mut self, session: &SessionSummary, now: u64) -> NextStep {
        self.sessions += 1;
        self.spent_usd += session.cost_usd;
        let quick = session.seconds < QUICK_SESSION_SECS;
        self.quick = if quick { self.quick + 1 } else { 0 };
        if session.end == SessionEnd::Refused {
            self.refusal_streak += 1;
            if self.refusal_streak >= REFUSAL_LIMIT {
                return NextStep::Stop(StopReason::Refused {
                    sessions: self.refusal_streak,
                });
            }
        } else {
            self.refusal_streak = 0;
        }
        let (waiting_limit, counts_as_stuck) = match &session.end {
            SessionEnd::Interrupted => return NextStep::Stop(StopReason::Interrupted),
            SessionEnd::AuthFailed { .. } => return NextStep::Stop(StopReason::AuthRequired),
            SessionEnd::RateLimited { resets_at, .. } => {
                self.rate_streak += 1;
                self.overload_streak = 0;
                let wait = match resets_at {
                    Some(at) => at.saturating_sub(now) + RESET_MARGIN_SECS,
                    None => self.scaled(doubling(RATE_LIMIT_FIRST_SECS, self.rate_streak)),
                };
                (wait, false)
            }
            SessionEnd::Overloaded { .. } => {
                self.overload_streak += 1;
                self.rate_streak = 0;
                (
                    self.scaled(doubling(OVERLOAD_FIRST_SECS, self.overload_streak)),
                    false,
                )
            }
            SessionEnd::ContextExhausted
            | SessionEnd::ApiError { .. }
            | SessionEnd::Refused
            | SessionEnd::Crashed { .. }
            | SessionEnd::Ended => {
                self.rate_streak = 0;
                self.overload_streak = 0;
                (0, true)
            }
        };
        // Waiting out a limit is not being stuck; anything else without progress counts.
        if session.progressed {
            self.no_progress = 0;
        } else if counts_as_stuck {
            self.no_progress += 1;
        }
        let hot = if self.quick >= 2 {
            self.hot_streak += 1;
            self.scaled(doubling(HOT_LOOP_FIRST_SECS, self.hot_streak))
        } else {
            self.hot_streak = 0;
            0
        };
        let wait = waiting_limit.max(hot);
        if self.no_progress >= NO_PROGRESS_LIMIT {
            return NextStep::Stop(StopReason::NoProgress {
                sessions: self.no_progress,
            });
        }
        if let Err(stop) = self.may_start(now) {
            return NextStep::Stop(stop);
        }
        if let Some(until) = self.limits.until
            && now + wait >= until
        {
            return NextStep::Stop(StopReason::Until { until });
        }
        NextStep::Relaunch { wait_secs: wait }
    }
}
