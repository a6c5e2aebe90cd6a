//! `drive`, `errors` and `timeline`: the driver against a stand-in `claude` that replays
//! streams recorded from the real client (crates/drive/tests/fixtures/stream), and the
//! timeline of the e2e scenario `drive-rate-limit-reset` (tests/fixtures/drive).

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::harness::{TestProject, binary, filters, jsonl_findings};
use self_repair_app::ExitStatus;

const STREAMS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/crates/drive/tests/fixtures/stream"
);
const SCENARIO_A: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/drive/rate-limit-reset"
);

/// A stand-in `claude`: prints `$FAKE_STREAM`, sleeps `$FAKE_SLEEP` seconds, exits `$FAKE_EXIT`.
fn fake_claude(project: &TestProject) -> PathBuf {
    let path = project.path().join(".bin/claude");
    project.write(
        ".bin/claude",
        "#!/bin/sh\ncat \"$FAKE_STREAM\"\nsleep \"${FAKE_SLEEP:-0}\"\nexit \"${FAKE_EXIT:-0}\"\n",
    );
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path
}

fn started(run: &str) -> TestProject {
    let project = TestProject::new();
    project.write("findings.jsonl", &jsonl_findings(3));
    project
        .cmd(&["start", "findings.jsonl", "--run-id", run])
        .run()
        .success();
    project
}

fn drive_lines(project: &TestProject, run: &str) -> Vec<Value> {
    project
        .read(&format!(".self-repair/runs/{run}/drive.jsonl"))
        .lines()
        .map(|l| serde_json::from_str(l).expect("drive.jsonl line is JSON"))
        .collect()
}

fn drive(project: &TestProject, run: &str, stream: &str, args: &[&str]) -> crate::harness::Outcome {
    let claude = fake_claude(project);
    let mut all = vec!["drive", run, "--claude", claude.to_str().expect("utf-8")];
    all.extend_from_slice(args);
    project
        .cmd(&all)
        .env("FAKE_STREAM", format!("{STREAMS}/{stream}"))
        .env("SELF_REPAIR_DRIVE_BACKOFF_SCALE", "0")
        .run()
}

#[test]
fn a_refused_credential_stops_at_once_with_exit_20() {
    let project = started("r-auth");
    let out = drive(&project, "r-auth", "auth.jsonl", &[]).code(ExitStatus::AuthRequired);
    assert!(
        out.stdout.contains("refused the credentials"),
        "{}",
        out.stdout
    );
    let lines = drive_lines(&project, "r-auth");
    assert_eq!(lines[0]["reason"], "auth_failed");
    assert_eq!(lines[0]["next"], "stop");
    assert_eq!(lines[1]["event"], "drive_stop");
    assert_eq!(lines[1]["outcome"], "auth_required");
    let errors = project.cmd(&["errors", "r-auth"]).run().success();
    assert!(
        errors.stdout.contains("API 401 authentication"),
        "{}",
        errors.stdout
    );
    filters(&project).bind(|| {
        insta::assert_snapshot!("drive_auth_refused", out.stdout);
        insta::assert_snapshot!("drive_errors_auth", errors.stdout);
    });
}

#[test]
fn three_sessions_without_progress_open_the_circuit_with_exit_21() {
    let project = started("r-stuck");
    let out = drive(&project, "r-stuck", "normal.jsonl", &[]).code(ExitStatus::CircuitOpen);
    assert!(
        out.stdout.contains("3 sessions in a row made no progress"),
        "{}",
        out.stdout
    );
    let sessions: Vec<Value> = drive_lines(&project, "r-stuck")
        .into_iter()
        .filter(|l| l.get("event").is_none())
        .collect();
    assert_eq!(sessions.len(), 3);
    assert!(
        sessions
            .iter()
            .all(|s| s["progressed"] == false && s["reason"] == "ended")
    );
    // Each recorded cost and its tokens come from the stream's result line.
    assert_eq!(sessions[0]["tokens"]["input"], 12_303);
    assert!(out.stderr.contains("session 3 starting"), "{}", out.stderr);
    filters(&project).bind(|| insta::assert_snapshot!("drive_circuit_open", out.stdout));
}

#[test]
fn a_session_whose_commands_were_refused_says_so_in_the_catalog() {
    let project = started("r-denied");
    let normal = std::fs::read_to_string(format!("{STREAMS}/normal.jsonl")).expect("fixture");
    let denied = normal.replace(
        "\"permission_denials\":[]",
        "\"permission_denials\":[{\"tool_name\":\"Bash\",\"tool_use_id\":\"toolu_1\",\"tool_input\":{\"command\":\"self-repair adopt --run r-denied\"}}]",
    );
    assert_ne!(
        denied, normal,
        "the recorded result has a permission_denials field"
    );
    project.write("denied.jsonl", &denied);
    let claude = fake_claude(&project);
    project
        .cmd(&[
            "drive",
            "r-denied",
            "--max-sessions",
            "1",
            "--claude",
            claude.to_str().expect("utf-8"),
        ])
        .env("FAKE_STREAM", project.path().join("denied.jsonl"))
        .run()
        .code(ExitStatus::CircuitOpen);
    let errors = project.cmd(&["errors", "r-denied"]).run().success().stdout;
    assert!(
        errors.contains("ended its turn without progress after 1 permission denials")
            && errors.contains("the client refused: Bash: self-repair adopt --run r-denied"),
        "{errors}"
    );
}

#[test]
fn max_sessions_and_budget_stop_driving() {
    let project = started("r-max");
    let out = drive(&project, "r-max", "normal.jsonl", &["--max-sessions", "1"])
        .code(ExitStatus::CircuitOpen);
    assert!(out.stdout.contains("1 session"), "{}", out.stdout);
    assert!(out.stdout.contains("--max-sessions"), "{}", out.stdout);

    let project = started("r-budget");
    // The recorded result costs $0.049232 a session.
    let out = drive(&project, "r-budget", "normal.jsonl", &["--budget", "0.09"])
        .code(ExitStatus::LimitReached);
    assert!(
        out.stdout.contains("reaching --budget $0.09"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("after 2 sessions"), "{}", out.stdout);
}

#[test]
fn until_in_the_past_starts_no_session_and_bad_input_is_refused() {
    let project = started("r-until");
    let out = drive(&project, "r-until", "normal.jsonl", &["--until", "1000"])
        .code(ExitStatus::LimitReached);
    assert!(
        out.stdout.contains("--until 1970-01-01T00:16:40Z passed"),
        "{}",
        out.stdout
    );
    assert!(
        !project
            .run_dir("r-until")
            .join("drive/session-1.jsonl")
            .exists()
    );

    let out =
        drive(&project, "r-until", "normal.jsonl", &["--until", "soon"]).code(ExitStatus::Usage);
    assert!(out.stderr.contains("UTC instant"), "{}", out.stderr);
    let out = drive(&project, "r-until", "normal.jsonl", &["--budget=0"]).code(ExitStatus::Usage);
    assert!(out.stderr.contains("--budget"), "{}", out.stderr);
    let out = project
        .cmd(&["drive", "r-until", "--claude", "/nonexistent/claude"])
        .run()
        .code(ExitStatus::Usage);
    assert!(out.stderr.contains("--claude PATH"), "{}", out.stderr);
}

#[test]
fn sigterm_stops_the_session_keeps_the_run_and_exits_130() {
    let project = started("r-signal");
    let claude = fake_claude(&project);
    let mut child = Command::new(binary())
        .args(["drive", "r-signal", "--claude"])
        .arg(&claude)
        .current_dir(project.path())
        .env("SELF_REPAIR_NOW", "1800000000")
        .env("HOME", project.path().join(".home"))
        .env("FAKE_STREAM", format!("{STREAMS}/normal.jsonl"))
        .env("FAKE_SLEEP", "60")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn drive");
    let stream = project.run_dir("r-signal").join("drive/session-1.jsonl");
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::fs::metadata(&stream).map_or(0, |m| m.len()) == 0 {
        assert!(Instant::now() < deadline, "the session never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    // One driver per run: a second one is refused while the first holds drive.lock.
    let second = project
        .cmd(&[
            "drive",
            "r-signal",
            "--claude",
            claude.to_str().expect("utf-8"),
        ])
        .env("FAKE_STREAM", format!("{STREAMS}/normal.jsonl"))
        .run()
        .code(ExitStatus::Conflict);
    assert!(
        second
            .stderr
            .contains("another `self-repair drive` is driving this run"),
        "{}",
        second.stderr
    );
    let term = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(term.success());
    let started_wait = Instant::now();
    let status = child.wait().expect("wait");
    assert_eq!(
        status.code(),
        Some(i32::from(ExitStatus::Interrupted.code()))
    );
    assert!(
        started_wait.elapsed() < Duration::from_secs(20),
        "the sleeping session was not stopped"
    );
    let lines = drive_lines(&project, "r-signal");
    assert_eq!(lines[0]["reason"], "interrupted");
    assert_eq!(lines[1]["outcome"], "interrupted");
    let status = project
        .cmd(&["status", "--run", "r-signal", "--json"])
        .run()
        .success();
    assert_eq!(status.json()["status"], "active");
}

#[test]
fn timeline_of_the_rate_limited_drive_scenario() {
    let project = TestProject::new();
    project.write("findings.jsonl", &jsonl_findings(10));
    project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-drive-limit"])
        .run()
        .success();
    // The scenario's run folder as it ended (its state, so the items' phases are known).
    for file in [
        "journal.jsonl",
        "drive.jsonl",
        "state.json",
        "state.initial.json",
        "run.json",
        "findings.json",
    ] {
        let text = std::fs::read_to_string(format!("{SCENARIO_A}/{file}")).expect("fixture");
        project.write(&format!(".self-repair/runs/r-drive-limit/{file}"), &text);
    }
    let text = project
        .cmd(&["timeline", "r-drive-limit"])
        .run()
        .success()
        .stdout;
    let json = project
        .cmd(&["timeline", "r-drive-limit", "--json"])
        .run()
        .success()
        .json();
    let entries = json["entries"].as_array().expect("entries");
    let times: Vec<u64> = entries
        .iter()
        .map(|e| e["at"].as_u64().expect("at"))
        .collect();
    assert!(
        times.windows(2).all(|w| w[0] <= w[1]),
        "not in time order: {times:?}"
    );
    let starts = entries
        .iter()
        .filter(|e| e["kind"] == "session_start")
        .count();
    assert_eq!(starts, 2);
    let mut settings = filters(&project);
    settings.add_filter(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "[TIME]");
    settings.add_filter(
        r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
        "[SESSION]",
    );
    settings.add_filter(r"resets \d+:\d\d[ap]m", "resets [CLOCK]");
    settings.bind(|| insta::assert_snapshot!("drive_timeline_rate_limited", text));
}

/// A run paused at its launch ceiling (something kept sending work out again) waits for the
/// user: `drive` starts no session (it would meet the same pause) and says which pause it is.
#[test]
fn a_run_paused_at_its_launch_ceiling_is_not_driven() {
    let project = started("r-ceiling");
    let path = ".self-repair/runs/r-ceiling/state.json";
    let mut state: Value = serde_json::from_str(&project.read(path)).unwrap();
    state["status"] = "paused".into();
    state["pause"] =
        serde_json::json!({"by": "launches", "launched": 60, "likely": 11, "item": "t-00002"});
    project.write(path, &serde_json::to_string_pretty(&state).unwrap());
    let _ = std::fs::remove_file(project.run_dir("r-ceiling").join("state.head.json"));
    let out = drive(&project, "r-ceiling", "normal.jsonl", &[]).code(ExitStatus::LimitReached);
    assert!(
        out.stdout
            .contains("paused at its launch ceiling (60 agents launched, 11 likely"),
        "{}",
        out.stdout
    );
    assert!(
        !project
            .run_dir("r-ceiling")
            .join("drive/session-1.jsonl")
            .exists()
    );
    let status = project.cmd(&["status"]).run().success().stdout;
    assert!(status.contains("t-00002 keeps coming back"), "{status}");
}
