//! Why a session ended and how the error catalog names it: cases the crate's mutation run found
//! untested (reference/mutants.md).

use self_repair_drive::{ProcessExit, SessionEnd, StreamFacts, classify};
use serde_json::json;

const EXITED: ProcessExit = ProcessExit {
    code: Some(1),
    signal: None,
};

#[test]
fn each_way_the_client_says_the_context_is_full_is_context_exhausted() {
    let results = [
        json!({"type": "result", "is_error": true, "terminal_reason": "prompt_too_long"}),
        json!({"type": "result", "is_error": true, "terminal_reason": "blocking_limit"}),
        json!({"type": "result", "is_error": true, "api_error_status": 413}),
        json!({"type": "result", "is_error": true, "result": "Prompt is too long: 210000 tokens"}),
    ];
    for result in results {
        let facts = StreamFacts::from_stream(&result.to_string());
        assert_eq!(
            classify(&facts, EXITED, None, false),
            SessionEnd::ContextExhausted,
            "{result}"
        );
    }
    let other = StreamFacts::from_stream(
        &json!({"type": "result", "is_error": true, "api_error_status": 400, "result": "bad"})
            .to_string(),
    );
    assert_eq!(
        classify(&other, EXITED, None, false),
        SessionEnd::ApiError { status: Some(400) }
    );
}

#[test]
fn every_session_end_has_its_own_category_and_signature() {
    let cases = [
        (
            SessionEnd::RateLimited {
                resets_at: None,
                limit_type: Some("five_hour".to_owned()),
            },
            "rate_limited",
            "429 rate limit (five_hour)",
        ),
        (
            SessionEnd::RateLimited {
                resets_at: Some(1),
                limit_type: None,
            },
            "rate_limited",
            "429 rate limit (no limit type)",
        ),
        (
            SessionEnd::Overloaded { status: Some(529) },
            "overloaded",
            "API 529 overloaded",
        ),
        (
            SessionEnd::Overloaded { status: None },
            "overloaded",
            "API unknown status overloaded",
        ),
        (
            SessionEnd::AuthFailed { status: Some(401) },
            "auth_failed",
            "API 401 authentication",
        ),
        (
            SessionEnd::ContextExhausted,
            "context_exhausted",
            "context window exhausted",
        ),
        (
            SessionEnd::ApiError { status: Some(404) },
            "api_error",
            "API error 404",
        ),
        (
            SessionEnd::Refused,
            "refused",
            "refused by the model provider (stop_reason refusal)",
        ),
        (
            SessionEnd::Crashed {
                code: Some(1),
                signal: Some(9),
            },
            "crashed",
            "claude killed by signal 9",
        ),
        (
            SessionEnd::Crashed {
                code: Some(3),
                signal: None,
            },
            "crashed",
            "claude exited 3 without a result",
        ),
        (
            SessionEnd::Crashed {
                code: None,
                signal: None,
            },
            "crashed",
            "claude ended without a result",
        ),
        (SessionEnd::Ended, "ended", "ended its turn"),
        (
            SessionEnd::Interrupted,
            "interrupted",
            "interrupted by the user",
        ),
    ];
    for (end, category, signature) in cases {
        assert_eq!(end.category(), category, "{end:?}");
        assert_eq!(end.signature(), signature, "{end:?}");
        assert_eq!(end.is_error(), end != SessionEnd::Ended, "{end:?}");
    }
}

#[test]
fn an_api_status_or_the_client_s_error_name_says_what_failed() {
    let result = |status: Option<u16>| {
        let mut line = json!({"type": "result", "is_error": true, "result": "failed"});
        if let Some(status) = status {
            line["api_error_status"] = json!(status);
        }
        line.to_string()
    };
    let by_status = [
        (401, SessionEnd::AuthFailed { status: Some(401) }),
        (403, SessionEnd::AuthFailed { status: Some(403) }),
        (
            429,
            SessionEnd::RateLimited {
                resets_at: None,
                limit_type: None,
            },
        ),
        (503, SessionEnd::Overloaded { status: Some(503) }),
        (404, SessionEnd::ApiError { status: Some(404) }),
    ];
    for (status, end) in by_status {
        let facts = StreamFacts::from_stream(&result(Some(status)));
        assert_eq!(classify(&facts, EXITED, None, false), end, "{status}");
    }
    let by_name = [
        (
            "rate_limit",
            SessionEnd::RateLimited {
                resets_at: None,
                limit_type: None,
            },
        ),
        ("server_error", SessionEnd::Overloaded { status: None }),
        (
            "authentication_failed",
            SessionEnd::AuthFailed { status: None },
        ),
        ("billing_error", SessionEnd::AuthFailed { status: None }),
        (
            "oauth_org_not_allowed",
            SessionEnd::AuthFailed { status: None },
        ),
        ("max_output_tokens", SessionEnd::ContextExhausted),
        ("context_exhausted", SessionEnd::ContextExhausted),
        ("something_new", SessionEnd::ApiError { status: None }),
    ];
    for (name, end) in by_name {
        // Named by an assistant message of the stream...
        let assistant = json!({"type": "assistant", "error": name,
                               "message": {"model": "m", "content": []}})
        .to_string();
        let facts = StreamFacts::from_stream(&format!("{assistant}\n{}", result(None)));
        assert_eq!(classify(&facts, EXITED, None, false), end, "{name}");
        // ... or by the run's StopFailure record.
        let facts = StreamFacts::from_stream(&result(None));
        assert_eq!(classify(&facts, EXITED, Some(name), false), end, "{name}");
    }
    // No result at all: the StopFailure record still names it, else it is a crash.
    let facts = StreamFacts::default();
    assert_eq!(
        classify(&facts, EXITED, Some("max_output_tokens"), false),
        SessionEnd::ContextExhausted
    );
    assert_eq!(
        classify(&facts, EXITED, Some("something_new"), false),
        SessionEnd::Crashed {
            code: Some(1),
            signal: None
        }
    );
}

#[test]
fn a_rejected_rate_limit_ends_the_session_only_when_the_client_did_not_get_past_it() {
    let rejected = json!({"type": "rate_limit_event", "rate_limit_info": {
        "status": "rejected", "resetsAt": 1_900_000_000u64, "rateLimitType": "seven_day"}})
    .to_string();
    let limited = SessionEnd::RateLimited {
        resets_at: Some(1_900_000_000),
        limit_type: Some("seven_day".to_owned()),
    };
    let cases = [
        (None, limited.clone()),
        (
            Some(json!({"type": "result", "is_error": true, "result": "limit"})),
            limited.clone(),
        ),
        (
            Some(json!({"type": "result", "is_error": true, "api_error_status": 429})),
            limited,
        ),
        (
            Some(json!({"type": "result", "is_error": true, "api_error_status": 500})),
            SessionEnd::Overloaded { status: Some(500) },
        ),
        (
            Some(json!({"type": "result", "is_error": false, "result": "done"})),
            SessionEnd::Ended,
        ),
    ];
    for (result, end) in cases {
        let stream = match &result {
            Some(line) => format!("{rejected}\n{line}"),
            None => rejected.clone(),
        };
        let facts = StreamFacts::from_stream(&stream);
        assert_eq!(classify(&facts, EXITED, None, false), end, "{result:?}");
    }
}

#[test]
fn a_main_response_the_provider_refused_is_a_refusal_until_a_later_one_ends_otherwise() {
    let assistant = |stop_reason: &str, parent: Option<&str>| {
        json!({"type": "assistant", "parent_tool_use_id": parent,
               "message": {"model": "claude-x", "stop_reason": stop_reason, "content": []}})
        .to_string()
    };
    let synthetic = |content: &str| {
        json!({"type": "assistant", "message": {"model": "<synthetic>",
               "content": [{"type": "text", "text": content}]}})
        .to_string()
    };
    let result = json!({"type": "result", "is_error": false, "result": "over"}).to_string();
    let cases = [
        (vec![assistant("refusal", None)], true),
        (
            vec![assistant("refusal", None), assistant("end_turn", None)],
            false,
        ),
        // A sub-agent's refusal is not the main session's.
        (vec![assistant("refusal", Some("toolu_1"))], false),
        (
            vec![synthetic(
                "API Error: this request appears to violate our Usage Policy",
            )],
            true,
        ),
        (vec![synthetic("Some other client message")], false),
    ];
    for (lines, refused) in cases {
        let stream = format!("{}\n{result}", lines.join("\n"));
        let facts = StreamFacts::from_stream(&stream);
        assert_eq!(facts.main_refused, refused, "{lines:?}");
        let expected = if refused {
            SessionEnd::Refused
        } else {
            SessionEnd::Ended
        };
        assert_eq!(classify(&facts, EXITED, None, false), expected, "{lines:?}");
    }
}

#[test]
fn the_result_line_alone_can_say_refused_and_a_bad_cost_counts_as_zero() {
    let cases = [
        (
            json!({"type": "result", "is_error": false, "stop_reason": "refusal",
                   "total_cost_usd": 0.5}),
            true,
            0.5,
        ),
        (
            json!({"type": "result", "is_error": true, "total_cost_usd": -1.0,
                   "result": "API Error: this request appears to violate our Usage Policy"}),
            true,
            0.0,
        ),
        // The words in a result that is no error: the model quoting them.
        (
            json!({"type": "result", "is_error": false, "total_cost_usd": 0.25,
                   "result": "the text says: violate our Usage Policy"}),
            false,
            0.25,
        ),
    ];
    for (line, refused, cost) in cases {
        let facts = StreamFacts::from_stream(&line.to_string());
        assert_eq!(facts.main_refused, refused, "{line}");
        let result = facts.result.as_ref().unwrap();
        assert!((result.total_cost_usd - cost).abs() < 1e-9, "{line}");
    }
}

#[test]
fn the_api_refusing_the_credentials_is_seen_by_status_or_by_name() {
    let retry = |status: Option<u16>, error: Option<&str>| {
        let mut line = json!({"type": "system", "subtype": "api_retry"});
        if let Some(status) = status {
            line["error_status"] = json!(status);
        }
        if let Some(error) = error {
            line["error"] = json!(error);
        }
        StreamFacts::from_stream(&line.to_string())
    };
    assert!(retry(Some(401), None).auth_refused());
    assert!(retry(Some(403), Some("permission_error")).auth_refused());
    assert!(retry(None, Some("authentication_failed")).auth_refused());
    assert!(!retry(Some(529), Some("overloaded")).auth_refused());
    assert!(!retry(None, None).auth_refused());
}
