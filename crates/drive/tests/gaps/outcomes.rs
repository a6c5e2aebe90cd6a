//! How `drive` ends and what it says: every stop reason's outcome in `drive.jsonl` and its
//! message, the prompt each session gets, the error catalog a failed session goes to. Cases the
//! crate's mutation run found untested (reference/mutants.md), over a stand-in `claude`.

use std::os::unix::fs::PermissionsExt;

use self_repair_drive::{
    DriveLimits, DriveLog, DriveOptions, DriveReport, ErrorCatalog, RunObservation, drive,
    read_drive_log, session_prompt,
};
use serde_json::json;

use crate::support::{Script, observation};

struct Drive {
    report: DriveReport,
    log: DriveLog,
    lines: Vec<String>,
    catalog: ErrorCatalog,
    dir: tempfile::TempDir,
}

/// Drives run `r1` with a stand-in `claude` printing `stream` then running `then`, against
/// the run observations `probe`, under `limits`.
fn run(stream: &[String], then: &str, probe: &[RunObservation], limits: DriveLimits) -> Drive {
    let dir = tempfile::tempdir().unwrap();
    let stream_file = dir.path().join("stream.jsonl");
    let text: String = stream.iter().flat_map(|l| [l.as_str(), "\n"]).collect();
    std::fs::write(&stream_file, text).unwrap();
    let claude = dir.path().join("claude");
    // Keeps the prompt (`-p PROMPT`) it was given.
    std::fs::write(
        &claude,
        format!(
            "#!/bin/sh\nprintf '%s' \"$2\" > '{}'\necho 'the client said why' >&2\ncat '{}'\n{then}\n",
            dir.path().join("prompt.txt").display(),
            stream_file.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755)).unwrap();
    let run_dir = dir.path().join("run");
    std::fs::create_dir_all(&run_dir).unwrap();
    let options = DriveOptions {
        run: "r1".to_owned(),
        run_dir: run_dir.clone(),
        project: dir.path().to_path_buf(),
        claude,
        extra_args: Vec::new(),
        limits,
        backoff_scale: 0.0,
        what: "run r1".to_owned(),
        resume: "self-repair resume --run r1".to_owned(),
        session_env: Vec::new(),
    };
    let mut probe = Script(probe.iter().cloned().collect());
    let mut lines = Vec::new();
    let report = drive(&options, &mut probe, &mut |l: &str| {
        lines.push(l.to_owned());
    })
    .unwrap();
    let log = read_drive_log(&run_dir.join("drive.jsonl")).unwrap();
    let catalog = ErrorCatalog::load(&run_dir.join("errors.jsonl")).unwrap();
    Drive {
        report,
        log,
        lines,
        catalog,
        dir,
    }
}

fn result(cost: f64, text: &str) -> String {
    json!({"type": "result", "subtype": "success", "is_error": false, "result": text,
           "stop_reason": "end_turn", "total_cost_usd": cost})
    .to_string()
}

fn limits(max_sessions: u32) -> DriveLimits {
    DriveLimits {
        max_sessions: Some(max_sessions),
        ..DriveLimits::default()
    }
}

#[test]
fn each_session_is_asked_to_adopt_the_run_and_its_times_are_real() {
    let d = run(
        &[result(0.1, "ok")],
        "exit 0",
        &[
            observation("active", "triage", 0),
            observation("complete", "done", 1),
        ],
        limits(3),
    );
    let prompt = std::fs::read_to_string(d.dir.path().join("prompt.txt")).unwrap();
    assert_eq!(prompt, session_prompt("r1"));
    assert!(prompt.contains("self-repair adopt --run r1"), "{prompt}");
    let session = &d.log.sessions[0];
    assert!(session.started_at > 1_700_000_000, "{session:?}");
    assert!(session.ended_at >= session.started_at);
    assert!(d.log.stops[0].at > 1_700_000_000);
    assert_eq!(
        d.report.message,
        "drive: run r1 is complete after 1 session ($0.1000).\nthe run is complete"
    );
    assert_eq!(session.next, "done");
    assert!(session.progressed);
    // A session that ended its turn with progress is no failure.
    assert!(d.catalog.entries.is_empty(), "{:?}", d.catalog);
    assert_eq!(session.detail, "");
    assert_eq!(
        (session.phase_before.as_str(), session.phase_after.as_str()),
        ("triage", "done")
    );
    assert_eq!(
        d.lines,
        [
            "drive: session 1 starting (run r1, phase triage)",
            "drive: session 1 ended: ended its turn; 1 submitted, phase triage -> done, run complete, $0.1000"
        ]
    );
}

#[test]
fn sessions_without_progress_open_the_circuit_and_go_to_the_catalog() {
    let d = run(
        &[result(0.0, "nothing to do")],
        "exit 0",
        &[observation("active", "triage", 0)],
        limits(10),
    );
    assert_eq!(d.log.stops[0].outcome, "no_progress");
    assert_eq!(d.log.sessions.len(), 3);
    let nexts: Vec<&str> = d.log.sessions.iter().map(|s| s.next.as_str()).collect();
    assert_eq!(nexts, ["relaunch", "relaunch", "stop"]);
    assert!(d.log.sessions.iter().all(|s| !s.progressed));
    assert_eq!(d.log.sessions[0].detail, "nothing to do");
    assert!(
        d.report
            .message
            .starts_with("drive: stopped driving run r1 (phase triage, active) after 3 sessions ($0.0000): the circuit is open: 3 sessions in a row made no progress"),
        "{}",
        d.report.message
    );
    // No progress after the circuit's own words: the last sessions are not listed twice.
    assert_eq!(d.report.message.matches("Last sessions").count(), 1);
    assert!(d.report.message.contains(
        "Last sessions: session 1: ended its turn without progress; session 2: ended its turn without progress; session 3: ended its turn without progress."
    ));
    assert_eq!(d.catalog.entries.len(), 1, "{:?}", d.catalog);
    let entry = &d.catalog.entries[0];
    assert_eq!(entry.signature, "ended its turn without progress");
    assert_eq!(entry.category, "no_progress");
    assert_eq!(entry.sessions, [1, 2, 3]);
}

#[test]
fn permission_denials_are_the_detail_of_a_session_without_progress() {
    let denied = json!({"type": "result", "subtype": "success", "is_error": false,
        "result": "blocked", "total_cost_usd": 0.0,
        "permission_denials": [
            {"tool_name": "Bash", "tool_input": {"command": "self-repair adopt --run r1"}},
            {"tool_name": "Write", "tool_input": {"file_path": "x"}}]})
    .to_string();
    let d = run(
        &[denied],
        "exit 0",
        &[observation("active", "triage", 0)],
        limits(1),
    );
    let session = &d.log.sessions[0];
    assert_eq!(
        session.detail,
        "the client refused: Bash: self-repair adopt --run r1; Write"
    );
    assert_eq!(
        d.catalog.entries[0].signature,
        "ended its turn without progress after 2 permission denials"
    );
    assert_eq!(d.log.stops[0].outcome, "max_sessions");
    assert!(
        d.report
            .message
            .contains("1 sessions ran (--max-sessions). Raise --max-sessions or run it again."),
        "{}",
        d.report.message
    );
}

#[test]
fn a_crash_without_words_takes_the_last_line_of_stderr_as_its_detail() {
    let d = run(
        &[],
        "exit 9",
        &[
            observation("active", "triage", 0),
            observation("active", "triage", 0),
        ],
        limits(1),
    );
    let session = &d.log.sessions[0];
    assert_eq!(session.end.category(), "crashed");
    assert_eq!(session.detail, "the client said why");
    assert_eq!(
        d.catalog.entries[0].signature,
        "claude exited 9 without a result"
    );
    assert_eq!(d.catalog.entries[0].last_detail, "the client said why");
    assert!(
        d.report
            .message
            .contains("Last sessions: session 1: claude exited 9 without a result."),
        "{}",
        d.report.message
    );
}

#[test]
fn a_retrying_client_s_last_retry_is_the_detail() {
    let retry = json!({"type": "system", "subtype": "api_retry", "error_status": 529,
                       "error": "overloaded"})
    .to_string();
    let d = run(
        &[retry],
        "exit 1",
        &[observation("active", "triage", 0)],
        limits(1),
    );
    assert_eq!(
        d.log.sessions[0].detail,
        "the client was retrying after 529 overloaded"
    );
    assert_eq!(d.log.sessions[0].api_retries, 1);
}

#[test]
fn a_paused_run_starts_nothing_and_says_how_to_resume() {
    let mut paused = observation("paused", "triage", 0);
    paused.waits_for_user = Some("paused by you".to_owned());
    let d = run(&[], "exit 0", &[paused], limits(3));
    assert!(d.log.sessions.is_empty());
    assert_eq!(d.log.stops[0].outcome, "paused_by_user");
    assert_eq!(
        d.report.message,
        "drive: run r1 is paused by you; nothing was started. Run `self-repair resume --run r1`, then `self-repair drive r1` goes on from where the run is."
    );
}

#[test]
fn every_limit_stops_with_its_own_outcome_and_words() {
    let budget = DriveLimits {
        budget_usd: Some(0.5),
        ..DriveLimits::default()
    };
    let until = DriveLimits {
        until: Some(1_000),
        ..DriveLimits::default()
    };
    let active = [
        observation("active", "triage", 0),
        observation("active", "triage", 1),
    ];
    let cases = [
        (
            budget,
            "budget",
            "the sessions cost $0.5000, reaching --budget $0.50.",
        ),
        (until, "until", "--until 1970-01-01T00:16:40Z passed"),
    ];
    for (limits, outcome, words) in cases {
        let d = run(&[result(0.25, "ok")], "exit 0", &active, limits);
        assert_eq!(d.log.stops[0].outcome, outcome);
        assert!(d.report.message.contains(words), "{}", d.report.message);
        assert!(
            d.report
                .message
                .contains("`self-repair drive r1` goes on from where the run is."),
            "{}",
            d.report.message
        );
    }
}

#[test]
fn a_refused_main_session_twice_stops_as_refused() {
    let refused = json!({"type": "result", "subtype": "success", "is_error": false,
        "result": "no", "stop_reason": "refusal", "total_cost_usd": 0.0})
    .to_string();
    let d = run(
        &[refused],
        "exit 0",
        &[observation("active", "triage", 0)],
        limits(5),
    );
    assert_eq!(d.log.stops[0].outcome, "refused");
    assert_eq!(d.log.sessions.len(), 2);
    assert!(
        d.report
            .message
            .contains("refused the main session 2 times in a row"),
        "{}",
        d.report.message
    );
}

#[test]
fn a_rate_limited_session_waits_before_the_next_and_says_so() {
    let limited = json!({"type": "rate_limit_event", "rate_limit_info": {"status": "rejected",
        "resetsAt": 1, "rateLimitType": "five_hour"}})
    .to_string();
    let d = run(
        &[limited],
        "exit 1",
        &[observation("active", "triage", 0)],
        limits(2),
    );
    assert_eq!(d.log.sessions[0].end.category(), "rate_limited");
    // The reset is long past: the margin alone is waited.
    assert_eq!(d.log.sessions[0].backoff_secs, 2);
    assert!(
        d.lines
            .iter()
            .any(|l| l == "drive: waiting 2 s before session 2"),
        "{:?}",
        d.lines
    );
}

#[test]
fn a_session_progressed_when_it_submitted_or_advanced_the_phase_or_finished_the_run() {
    // Each second observation is the run after session 1 (then session 2 finishes it).
    let cases = [
        (observation("active", "triage", 1), true),
        (observation("active", "fix", 0), true),
        (observation("cancelled", "triage", 0), true),
        (observation("active", "triage", 0), false),
    ];
    for (after, progressed) in cases {
        let d = run(
            &[result(0.0, "ok")],
            "exit 0",
            &[
                observation("active", "triage", 0),
                after.clone(),
                observation("complete", "done", 1),
            ],
            limits(3),
        );
        assert_eq!(d.log.sessions[0].progressed, progressed, "{after:?}");
        // No wait between sessions: no line says one.
        assert!(
            !d.lines.iter().any(|l| l.starts_with("drive: waiting")),
            "{:?}",
            d.lines
        );
    }
}
