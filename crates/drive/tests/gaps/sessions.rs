//! `drive` end to end over a stand-in `claude` (a shell script printing a recorded stream) and
//! a scripted run: cases the crate's mutation run found untested (reference/mutants.md). What
//! each session's process did reaches `drive.jsonl`, the stop line is written, and a session the
//! API refuses the credentials in is stopped at once.

use std::collections::VecDeque;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use self_repair_drive::{
    DriveLimits, DriveOptions, DriveOutcome, StopReason, drive, is_executable, read_drive_log,
};
use serde_json::json;

use crate::support::{Script, observation};

/// A stand-in `claude`: prints `stream`, then runs `then` (a shell line).
fn fake_claude(dir: &Path, stream: &[String], then: &str) -> PathBuf {
    let stream_file = dir.join("stream.jsonl");
    let text: String = stream.iter().flat_map(|l| [l.as_str(), "\n"]).collect();
    std::fs::write(&stream_file, text).unwrap();
    let script = dir.join("claude");
    std::fs::write(
        &script,
        format!("#!/bin/sh\ncat '{}'\n{then}\n", stream_file.display()),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

fn options(dir: &Path, claude: PathBuf) -> DriveOptions {
    let run_dir = dir.join("run");
    std::fs::create_dir_all(&run_dir).unwrap();
    DriveOptions {
        run: "r1".to_owned(),
        run_dir,
        project: dir.to_path_buf(),
        claude,
        extra_args: Vec::new(),
        limits: DriveLimits {
            max_sessions: Some(3),
            ..DriveLimits::default()
        },
        backoff_scale: 0.0,
        what: "run r1".to_owned(),
        resume: "self-repair resume --run r1".to_owned(),
        session_env: Vec::new(),
    }
}

fn result_line(cost: f64) -> String {
    json!({"type": "result", "subtype": "success", "is_error": false, "session_id": "s-1",
           "result": "done", "stop_reason": "end_turn", "total_cost_usd": cost,
           "modelUsage": {"m": {"inputTokens": 11, "outputTokens": 22,
                                "cacheReadInputTokens": 33, "cacheCreationInputTokens": 44}}})
    .to_string()
}

#[test]
fn a_session_that_ends_the_run_is_logged_with_its_exit_tokens_and_the_stop_line() {
    let dir = tempfile::tempdir().unwrap();
    let claude = fake_claude(dir.path(), &[result_line(0.25)], "exit 3");
    let options = options(dir.path(), claude);
    let mut probe = Script(VecDeque::from([
        observation("active", "triage", 0),
        observation("complete", "done", 2),
    ]));
    let mut lines = Vec::new();
    let report = drive(&options, &mut probe, &mut |l: &str| {
        lines.push(l.to_owned());
    })
    .unwrap();
    assert_eq!(
        report.outcome,
        DriveOutcome::Finished {
            status: "complete".to_owned()
        }
    );
    let log = read_drive_log(&options.run_dir.join("drive.jsonl")).unwrap();
    assert_eq!(log.sessions.len(), 1, "{log:?}");
    let session = &log.sessions[0];
    assert_eq!((session.exit_code, session.signal), (Some(3), None));
    assert_eq!(session.claude_session.as_deref(), Some("s-1"));
    assert!((session.cost_usd - 0.25).abs() < 1e-9);
    assert_eq!(
        json!(session.tokens),
        json!({"input": 11, "output": 22, "cache_read": 33, "cache_creation": 44})
    );
    assert_eq!(log.stops.len(), 1);
    assert_eq!(log.stops[0].outcome, "complete");
    assert_eq!(log.stops[0].sessions, 1);
}

/// Regression: a crashed session's line names `signal` twice (the record's and the flattened
/// `crashed` reason's), and `read_drive_log` dropped it as unreadable: the timeline and the
/// next `drive`'s session numbers (its stream log overwritten) missed every crash.
#[test]
fn a_crashed_session_s_line_with_signal_twice_is_read_back_from_the_drive_log() {
    let cases = [("kill -USR1 $$", None, Some(10)), ("exit 5", Some(5), None)];
    for (then, code, signal) in cases {
        let dir = tempfile::tempdir().unwrap();
        let claude = fake_claude(dir.path(), &[], then);
        let options = options(dir.path(), claude);
        let mut probe = Script(VecDeque::from([
            observation("active", "triage", 0),
            observation("complete", "done", 1),
        ]));
        drive(&options, &mut probe, &mut |_: &str| {}).unwrap();
        let log = read_drive_log(&options.run_dir.join("drive.jsonl")).unwrap();
        assert_eq!(log.sessions.len(), 1, "{then}: {log:?}");
        let session = &log.sessions[0];
        assert_eq!(
            (session.exit_code, session.signal),
            (code, signal),
            "{then}"
        );
        assert_eq!(session.end.category(), "crashed", "{then}");
    }
}

#[test]
fn a_session_whose_credentials_are_refused_is_stopped_at_once_with_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let retry = json!({"type": "system", "subtype": "api_retry", "error_status": 401,
                       "error": "authentication_failed", "session_id": "s-2"})
    .to_string();
    // The client would retry for minutes: a SIGTERM ends it with 42, anything else later.
    let claude = fake_claude(
        dir.path(),
        &[retry],
        "trap 'exit 42' TERM\nsleep 50 &\nwait\nexit 7",
    );
    let options = options(dir.path(), claude);
    let mut probe = Script(VecDeque::from([observation("active", "triage", 0)]));
    let report = drive(&options, &mut probe, &mut |_: &str| {}).unwrap();
    assert_eq!(
        report.outcome,
        DriveOutcome::Stopped(StopReason::AuthRequired)
    );
    let log = read_drive_log(&options.run_dir.join("drive.jsonl")).unwrap();
    assert_eq!(log.sessions.len(), 1);
    assert_eq!(log.sessions[0].exit_code, Some(42), "{:?}", log.sessions[0]);
}

#[test]
fn a_session_that_exits_at_once_is_not_stopped() {
    let dir = tempfile::tempdir().unwrap();
    // Ends its turn without progress, after a second: a stop signal would end it with 42.
    let claude = fake_claude(
        dir.path(),
        &[result_line(0.0)],
        "trap 'exit 42' TERM\nsleep 1 &\nwait\nexit 0",
    );
    let options = options(dir.path(), claude);
    let mut probe = Script(VecDeque::from([
        observation("active", "triage", 0),
        observation("complete", "done", 1),
    ]));
    drive(&options, &mut probe, &mut |_: &str| {}).unwrap();
    let log = read_drive_log(&options.run_dir.join("drive.jsonl")).unwrap();
    assert_eq!(log.sessions[0].exit_code, Some(0), "{:?}", log.sessions[0]);
}

#[test]
fn only_an_executable_file_is_executable() {
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str, mode: u32| {
        let path = dir.path().join(name);
        std::fs::write(&path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        path
    };
    let cases = [
        (file("rwx", 0o700), true),
        (file("group-x", 0o610), true),
        (file("other-x", 0o601), true),
        (file("rw", 0o644), false),
        (file("setuid-only", 0o4644), false),
        (dir.path().to_path_buf(), false),
        (dir.path().join("missing"), false),
    ];
    for (path, executable) in cases {
        assert_eq!(is_executable(&path), executable, "{}", path.display());
    }
}

#[test]
fn sessions_and_their_cost_add_up_across_a_drive() {
    let dir = tempfile::tempdir().unwrap();
    let claude = fake_claude(dir.path(), &[result_line(0.25)], "exit 0");
    let options = options(dir.path(), claude);
    // The first session submits one item, the second finishes the run.
    let mut probe = Script(VecDeque::from([
        observation("active", "triage", 0),
        observation("active", "triage", 1),
        observation("complete", "done", 1),
    ]));
    let report = drive(&options, &mut probe, &mut |_: &str| {}).unwrap();
    assert_eq!(report.sessions, 2);
    assert!(
        (report.spent_usd - 0.5).abs() < 1e-9,
        "{}",
        report.spent_usd
    );
    let log = read_drive_log(&options.run_dir.join("drive.jsonl")).unwrap();
    let numbers: Vec<u32> = log.sessions.iter().map(|s| s.session).collect();
    assert_eq!(numbers, [1, 2]);
    assert!(log.sessions[0].progressed, "an item submitted is progress");
    assert_eq!(log.stops[0].sessions, 2);
    assert!((log.stops[0].spent_usd - 0.5).abs() < 1e-9);
}

#[test]
fn a_missing_drive_log_is_empty_and_an_unreadable_one_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let log = read_drive_log(&dir.path().join("drive.jsonl")).unwrap();
    assert!(log.sessions.is_empty() && log.stops.is_empty());
    // A folder where the log should be: not a missing log.
    assert!(read_drive_log(dir.path()).is_err());
}

#[test]
fn lines_a_session_s_tools_write_after_it_exits_are_still_read_for_a_while() {
    let dir = tempfile::tempdir().unwrap();
    // The client exits at once; a tool it started (deaf to the SIGTERM the group gets) writes
    // the result a second later.
    let result = result_line(0.75).replace('\'', "");
    let claude = fake_claude(
        dir.path(),
        &[],
        &format!("(trap '' TERM; sleep 1; echo '{result}') &\nexit 0"),
    );
    let options = options(dir.path(), claude);
    let mut probe = Script(VecDeque::from([
        observation("active", "triage", 0),
        observation("complete", "done", 1),
    ]));
    drive(&options, &mut probe, &mut |_: &str| {}).unwrap();
    let log = read_drive_log(&options.run_dir.join("drive.jsonl")).unwrap();
    assert!(
        (log.sessions[0].cost_usd - 0.75).abs() < 1e-9,
        "{:?}",
        log.sessions[0]
    );
}
