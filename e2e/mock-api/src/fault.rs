//! Faults the server injects instead of a model answer: HTTP error statuses and hung responses.

use serde::{Deserialize, Serialize};

use crate::thread::Thread;

/// Which requests a fault applies to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThreadSelector {
    /// The main session.
    Main,
    /// Any sub-agent.
    SubAgent,
    /// The sub-agent working on this item id.
    Item(String),
    /// Side requests of the client that are neither (titles, summaries, ...).
    Aux,
    /// Every model request.
    Any,
}

impl ThreadSelector {
    /// Whether a request judged to be `thread` is selected.
    pub fn selects(&self, thread: &Thread) -> bool {
        match (self, thread) {
            (ThreadSelector::Any, _)
            | (ThreadSelector::Main, Thread::Main)
            | (ThreadSelector::SubAgent, Thread::SubAgent { .. })
            | (ThreadSelector::Aux, Thread::Aux) => true,
            (ThreadSelector::Item(want), Thread::SubAgent { item: Some(item) }) => want == item,
            _ => false,
        }
    }
}

/// What the server does instead of answering.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum FaultKind {
    /// An error status with the API's error body (429 `rate_limit_error`, 529
    /// `overloaded_error`, 500 `api_error`, ...), with an optional `retry-after` header.
    Status {
        /// HTTP status.
        status: u16,
        /// Seconds for the `retry-after` header.
        #[serde(default)]
        retry_after: Option<u64>,
    },
    /// A usage limit: 429 `rate_limit_error` with the unified rate-limit headers the client
    /// reads (`anthropic-ratelimit-unified-status: rejected`, `-reset`: Unix seconds,
    /// `-representative-claim: five_hour`). The reset is fixed when the fault first answers,
    /// `reset_secs` later; from then on the fault answers every selected request until the
    /// reset passes (or `count` runs out), and none after it.
    UsageLimit {
        /// Seconds from the first rejected request to the reset.
        reset_secs: u64,
    },
    /// Answer 200 with the provider's refusal (`stop_reason: "refusal"`, no content, and
    /// `stop_details` on the `message_delta`) instead of the scripted answer: a safety
    /// classifier declining the request, which the client reports as a refusal, not an error.
    Refusal,
    /// Read the request, send nothing for `millis`, then close the connection.
    Hang {
        /// How long to hold the connection silent.
        millis: u64,
    },
}

impl FaultKind {
    /// The API's error `type` for a status.
    pub fn error_type(status: u16) -> &'static str {
        match status {
            400 => "invalid_request_error",
            401 => "authentication_error",
            403 => "permission_error",
            404 => "not_found_error",
            413 => "request_too_large",
            429 => "rate_limit_error",
            529 => "overloaded_error",
            _ => "api_error",
        }
    }
}

/// A fault: skip the first `skip` selected model requests, then hit the next `count`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fault {
    /// Which requests count.
    pub thread: ThreadSelector,
    /// Selected requests answered normally before the fault starts.
    #[serde(default)]
    pub skip: usize,
    /// Selected requests that get the fault.
    pub count: usize,
    /// What they get.
    pub kind: FaultKind,
}

impl Fault {
    /// `count` answers with `status` on `thread`, from its first request on.
    pub fn status(thread: ThreadSelector, status: u16, count: usize) -> Fault {
        Fault {
            thread,
            skip: 0,
            count,
            kind: FaultKind::Status {
                status,
                retry_after: None,
            },
        }
    }

    /// `count` hung responses of `millis` on `thread`.
    pub fn hang(thread: ThreadSelector, millis: u64, count: usize) -> Fault {
        Fault {
            thread,
            skip: 0,
            count,
            kind: FaultKind::Hang { millis },
        }
    }

    /// A usage limit on `thread` that resets `reset_secs` after its first rejection.
    pub fn usage_limit(thread: ThreadSelector, reset_secs: u64) -> Fault {
        Fault {
            thread,
            skip: 0,
            count: usize::MAX,
            kind: FaultKind::UsageLimit { reset_secs },
        }
    }

    /// `count` refusals by the provider on `thread` (the API's `stop_reason: "refusal"`).
    pub fn refusal(thread: ThreadSelector, count: usize) -> Fault {
        Fault {
            thread,
            skip: 0,
            count,
            kind: FaultKind::Refusal,
        }
    }

    /// Starts the fault after `skip` normal answers.
    #[must_use]
    pub fn after(mut self, skip: usize) -> Fault {
        self.skip = skip;
        self
    }
}
