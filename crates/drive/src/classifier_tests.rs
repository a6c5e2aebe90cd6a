//! The classifier on streams recorded from the real Claude Code 2.1.330 talking to the
//! scripted Messages API (e2e/mock-api): `tests/fixtures/stream/*.jsonl`.

use crate::session_end::{ProcessExit, SessionEnd, classify};
use crate::stream_facts::StreamFacts;

const RATE_LIMIT_RESET: &str = include_str!("../tests/fixtures/stream/rate-limit-reset.jsonl");
const RATE_LIMIT_NO_RESET: &str =
    include_str!("../tests/fixtures/stream/rate-limit-no-reset.jsonl");
const OVERLOADED: &str = include_str!("../tests/fixtures/stream/overloaded.jsonl");
const AUTH: &str = include_str!("../tests/fixtures/stream/auth.jsonl");
const NORMAL: &str = include_str!("../tests/fixtures/stream/normal.jsonl");
const REFUSAL: &str = include_str!("../tests/fixtures/stream/refusal.jsonl");
const REFUSAL_RECOVERED: &str = include_str!("../tests/fixtures/stream/refusal-recovered.jsonl");

const EXIT_1: ProcessExit = ProcessExit {
    code: Some(1),
    signal: None,
};
const EXIT_0: ProcessExit = ProcessExit {
    code: Some(0),
    signal: None,
};

fn classified(stream: &str, exit: ProcessExit) -> SessionEnd {
    classify(&StreamFacts::from_stream(stream), exit, None, false)
}

#[test]
fn a_429_with_a_reset_time_waits_for_that_reset() {
    // Subscriber credentials: the client emits `rate_limit_event` and does not retry.
    let facts = StreamFacts::from_stream(RATE_LIMIT_RESET);
    assert_eq!(facts.api_retries, 0);
    assert_eq!(
        classified(RATE_LIMIT_RESET, EXIT_1),
        SessionEnd::RateLimited {
            resets_at: Some(1_795_436_304),
            limit_type: Some("five_hour".to_owned()),
        }
    );
}

#[test]
fn a_429_without_a_reset_time_is_a_rate_limit_with_no_reset() {
    let facts = StreamFacts::from_stream(RATE_LIMIT_NO_RESET);
    assert_eq!(facts.api_retries, 1);
    assert_eq!(facts.last_retry_status, Some(429));
    assert_eq!(
        classified(RATE_LIMIT_NO_RESET, EXIT_1),
        SessionEnd::RateLimited {
            resets_at: None,
            limit_type: None,
        }
    );
}

#[test]
fn a_529_is_overloaded() {
    assert_eq!(
        classified(OVERLOADED, EXIT_1),
        SessionEnd::Overloaded { status: Some(529) }
    );
}

#[test]
fn a_401_is_an_auth_failure_seen_at_the_first_retry() {
    let facts = StreamFacts::from_stream(AUTH);
    assert!(facts.auth_refused(), "the first api_retry already says 401");
    // Only the lines up to the first retry: what the driver has when it stops the session.
    let lines: Vec<&str> = AUTH
        .lines()
        .take_while(|l| !l.contains("\"api_retry\""))
        .chain(AUTH.lines().filter(|l| l.contains("\"api_retry\"")).take(1))
        .collect();
    let first_retry = lines.join("\n");
    let early = StreamFacts::from_stream(&first_retry);
    assert!(early.result.is_none());
    assert_eq!(
        classify(
            &early,
            ProcessExit {
                code: None,
                signal: Some(15)
            },
            None,
            false
        ),
        SessionEnd::AuthFailed { status: Some(401) }
    );
    assert_eq!(
        classified(AUTH, EXIT_1),
        SessionEnd::AuthFailed { status: Some(401) }
    );
}

#[test]
fn a_normal_end_reads_cost_and_tokens() {
    let facts = StreamFacts::from_stream(NORMAL);
    assert_eq!(classified(NORMAL, EXIT_0), SessionEnd::Ended);
    let result = facts.result.expect("a result line");
    assert!(!result.is_error);
    assert_eq!(result.terminal_reason.as_deref(), Some("completed"));
    assert!((result.total_cost_usd - 0.049_232).abs() < 1e-9);
    assert_eq!(result.tokens.input, 12_303);
    assert_eq!(result.tokens.output, 1);
    assert!(facts.session_id.is_some());
}

#[test]
fn a_process_killed_without_a_result_is_a_crash_unless_the_run_recorded_why() {
    let init = NORMAL.lines().next().unwrap_or_default();
    let killed = ProcessExit {
        code: None,
        signal: Some(9),
    };
    assert_eq!(
        classified(init, killed),
        SessionEnd::Crashed {
            code: None,
            signal: Some(9)
        }
    );
    // The run's StopFailure record names the cause the stream never got to.
    assert_eq!(
        classify(
            &StreamFacts::from_stream(init),
            killed,
            Some("overloaded"),
            false
        ),
        SessionEnd::Overloaded { status: None }
    );
    assert_eq!(
        classify(&StreamFacts::from_stream(init), killed, None, true),
        SessionEnd::Interrupted
    );
}

#[test]
fn a_context_overflow_starts_a_new_session() {
    // The terminal reasons of 2.1.330's result type for a context that no longer fits.
    for reason in ["prompt_too_long", "blocking_limit"] {
        let line = format!(
            r#"{{"type":"result","subtype":"success","is_error":true,"api_error_status":400,"terminal_reason":"{reason}","result":"Prompt is too long","total_cost_usd":0.5}}"#
        );
        assert_eq!(
            classified(&line, EXIT_1),
            SessionEnd::ContextExhausted,
            "{reason}"
        );
    }
    let capped = r#"{"type":"result","subtype":"error_max_turns","is_error":true,"terminal_reason":"max_turns","total_cost_usd":0.5}"#;
    assert_eq!(classified(capped, EXIT_1), SessionEnd::Ended);
}

#[test]
fn lines_that_are_not_json_are_counted_not_fatal() {
    let stream = format!("not json\n[1,2]\n{NORMAL}");
    let facts = StreamFacts::from_stream(&stream);
    assert_eq!(facts.unreadable_lines, 2);
    assert_eq!(classify(&facts, EXIT_0, None, false), SessionEnd::Ended);
}

#[test]
fn a_main_session_the_provider_refused_is_a_refusal_not_an_api_error() {
    let facts = StreamFacts::from_stream(REFUSAL);
    assert!(facts.main_refused);
    assert_eq!(facts.refusal_fallbacks, 1);
    let result = facts.result.as_ref().expect("a result line");
    // The client reports it as an error result with no API status: read as any error, it was
    // `ApiError { status: None }`.
    assert!(result.is_error);
    assert_eq!(result.api_error_status, None);
    assert_eq!(result.stop_reason.as_deref(), Some("refusal"));
    assert_eq!(classified(REFUSAL, EXIT_1), SessionEnd::Refused);
    assert_eq!(SessionEnd::Refused.category(), "refused");
    assert!(SessionEnd::Refused.is_error(), "recorded in errors.jsonl");
}

#[test]
fn a_refusal_the_client_recovered_from_is_a_normal_end() {
    let facts = StreamFacts::from_stream(REFUSAL_RECOVERED);
    assert!(!facts.main_refused);
    assert_eq!(classified(REFUSAL_RECOVERED, EXIT_0), SessionEnd::Ended);
}

#[test]
fn a_sub_agents_refusal_in_the_stream_is_not_the_main_sessions() {
    let init = NORMAL.lines().next().unwrap_or_default();
    let result = NORMAL.lines().last().unwrap_or_default();
    let agent = r#"{"type":"assistant","message":{"model":"<synthetic>","role":"assistant","stop_reason":"refusal","content":[{"type":"text","text":"API Error: Opus 4.8's safeguards flagged this message."}]},"parent_tool_use_id":"toolu_mock_0003_0","session_id":"s"}"#;
    let stream = format!("{init}\n{agent}\n{result}\n");
    assert!(!StreamFacts::from_stream(&stream).main_refused);
    assert_eq!(classified(&stream, EXIT_0), SessionEnd::Ended);
}
