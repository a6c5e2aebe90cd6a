//! Why a session ended, classified from its stream, its exit and the run's own `StopFailure`
//! record. Pure: the facts in, one reason out.

use serde::{Deserialize, Serialize};

use crate::stream_facts::StreamFacts;

/// How the `claude` process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ProcessExit {
    /// Exit code; `None` when a signal ended it.
    pub code: Option<i32>,
    /// The signal that ended it.
    pub signal: Option<i32>,
}

/// The classified reason a session ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum SessionEnd {
    /// A usage or rate limit: wait until `resets_at`, else back off from 60 s.
    RateLimited {
        resets_at: Option<u64>,
        limit_type: Option<String>,
    },
    /// The API was overloaded or failed (529, 5xx): back off from 10 s.
    Overloaded { status: Option<u16> },
    /// The API refused the credentials or the permission (401, 403): a human must act.
    AuthFailed { status: Option<u16> },
    /// The conversation no longer fits the context window: a new session starts afresh.
    ContextExhausted,
    /// Another API error (400, 404, ...): a new session.
    ApiError { status: Option<u16> },
    /// The model provider refused the main session's request (`stop_reason: "refusal"`, the
    /// client's Usage Policy message): not an API error. A new session starts without the
    /// refused turn; refused again at once, driving stops (the same text would be refused).
    Refused,
    /// The process died without a result (a crash, a kill, a signal): a new session.
    Crashed {
        code: Option<i32>,
        signal: Option<i32>,
    },
    /// The session ended its turn normally and the run is not over.
    Ended,
    /// The driver was interrupted (SIGINT/SIGTERM) and stopped the session.
    Interrupted,
}

impl SessionEnd {
    /// The category name used in `drive.jsonl` and `errors.jsonl`.
    pub fn category(&self) -> &'static str {
        match self {
            SessionEnd::RateLimited { .. } => "rate_limited",
            SessionEnd::Overloaded { .. } => "overloaded",
            SessionEnd::AuthFailed { .. } => "auth_failed",
            SessionEnd::ContextExhausted => "context_exhausted",
            SessionEnd::ApiError { .. } => "api_error",
            SessionEnd::Refused => "refused",
            SessionEnd::Crashed { .. } => "crashed",
            SessionEnd::Ended => "ended",
            SessionEnd::Interrupted => "interrupted",
        }
    }

    /// Whether the session failed (an entry for the error catalog).
    pub fn is_error(&self) -> bool {
        !matches!(self, SessionEnd::Ended)
    }

    /// A short stable description for the error catalog: the same failure gets the same one.
    pub fn signature(&self) -> String {
        let status = |s: &Option<u16>| s.map_or("unknown status".to_owned(), |s| s.to_string());
        match self {
            SessionEnd::RateLimited { limit_type, .. } => format!(
                "429 rate limit ({})",
                limit_type.as_deref().unwrap_or("no limit type")
            ),
            SessionEnd::Overloaded { status: s } => format!("API {} overloaded", status(s)),
            SessionEnd::AuthFailed { status: s } => format!("API {} authentication", status(s)),
            SessionEnd::ContextExhausted => "context window exhausted".to_owned(),
            SessionEnd::ApiError { status: s } => format!("API error {}", status(s)),
            SessionEnd::Refused => "refused by the model provider (stop_reason refusal)".to_owned(),
            SessionEnd::Crashed { code, signal } => match (signal, code) {
                (Some(sig), _) => format!("claude killed by signal {sig}"),
                (None, Some(code)) => format!("claude exited {code} without a result"),
                (None, None) => "claude ended without a result".to_owned(),
            },
            SessionEnd::Ended => "ended its turn".to_owned(),
            SessionEnd::Interrupted => "interrupted by the user".to_owned(),
        }
    }
}

/// What the client said when the context no longer fits: the terminal reasons
/// `prompt_too_long` and `blocking_limit` of 2.1.330, or its words for it.
fn says_context_exhausted(facts: &StreamFacts) -> bool {
    let Some(result) = &facts.result else {
        return false;
    };
    matches!(
        result.terminal_reason.as_deref(),
        Some("prompt_too_long" | "blocking_limit")
    ) || result.api_error_status == Some(413)
        || result.text.contains("Prompt is too long")
}

/// Classifies a status the API answered with.
fn by_status(status: u16, facts: &StreamFacts) -> SessionEnd {
    match status {
        429 => SessionEnd::RateLimited {
            resets_at: facts.rate_limit.as_ref().and_then(|r| r.resets_at),
            limit_type: facts.rate_limit.as_ref().and_then(|r| r.limit_type.clone()),
        },
        401 | 403 => SessionEnd::AuthFailed {
            status: Some(status),
        },
        413 => SessionEnd::ContextExhausted,
        500..=599 => SessionEnd::Overloaded {
            status: Some(status),
        },
        _ => SessionEnd::ApiError {
            status: Some(status),
        },
    }
}

/// Classifies by the client's error names (`api_retry.error`, an assistant message's `error`,
/// the `StopFailure` hook's `error`), used when no status says it.
fn by_error_name(name: &str, facts: &StreamFacts) -> Option<SessionEnd> {
    match name {
        "rate_limit" => Some(by_status(429, facts)),
        "overloaded" | "server_error" | "api_error_5xx" => {
            Some(SessionEnd::Overloaded { status: None })
        }
        "authentication_failed"
        | "authentication_error"
        | "permission_error"
        | "billing_error"
        | "oauth_org_not_allowed" => Some(SessionEnd::AuthFailed { status: None }),
        "max_output_tokens" | "prompt_too_long" | "context_exhausted" => {
            Some(SessionEnd::ContextExhausted)
        }
        _ => None,
    }
}

/// Why the session ended. `stop_failure` is the `error` of the run's own `StopFailure`
/// journal record written during the session, if any; `interrupted`: the driver stopped it.
pub fn classify(
    facts: &StreamFacts,
    exit: ProcessExit,
    stop_failure: Option<&str>,
    interrupted: bool,
) -> SessionEnd {
    if interrupted {
        return SessionEnd::Interrupted;
    }
    if facts.auth_refused() {
        return SessionEnd::AuthFailed {
            status: facts.last_retry_status,
        };
    }
    if let Some(rate) = &facts.rate_limit {
        // A rejection the client did not get past (it does not retry a usage limit).
        let ended_by_it = facts
            .result
            .as_ref()
            .is_none_or(|r| r.is_error && r.api_error_status.is_none_or(|s| s == 429));
        if ended_by_it {
            return SessionEnd::RateLimited {
                resets_at: rate.resets_at,
                limit_type: rate.limit_type.clone(),
            };
        }
    }
    // Before the result's `is_error`: the client reports a refusal as an error result (with no
    // API status), and it is no API error.
    if facts.main_refused {
        return SessionEnd::Refused;
    }
    if let Some(result) = &facts.result {
        if says_context_exhausted(facts) {
            return SessionEnd::ContextExhausted;
        }
        // A turn cap (`--max-turns` after `--`) ends a session that may have done its share.
        if result.terminal_reason.as_deref() == Some("max_turns") {
            return SessionEnd::Ended;
        }
        if result.is_error {
            if let Some(status) = result.api_error_status {
                return by_status(status, facts);
            }
            let named = facts
                .assistant_error
                .as_deref()
                .or(stop_failure)
                .and_then(|name| by_error_name(name, facts));
            return named.unwrap_or(SessionEnd::ApiError { status: None });
        }
        return SessionEnd::Ended;
    }
    // No result: the process died. The run's StopFailure record, or the client's last retry,
    // may still say why.
    if let Some(named) = stop_failure.and_then(|name| by_error_name(name, facts)) {
        return named;
    }
    SessionEnd::Crashed {
        code: exit.code,
        signal: exit.signal,
    }
}
