//! SIGTERM while `drive` waits out a rate limit: it stops at once as interrupted. A test binary
//! of its own, since the signal reaches the whole test process (reference/mutants.md: the
//! wait's mutants).
#![cfg(test)]

use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use self_repair_drive::{
    DriveError, DriveLimits, DriveOptions, DriveOutcome, RunObservation, RunProbe, StopReason,
    drive, read_drive_log,
};

struct Active;

impl RunProbe for Active {
    fn observe(&mut self, _since: u64) -> Result<RunObservation, DriveError> {
        Ok(RunObservation {
            status: "active".to_owned(),
            waits_for_user: None,
            phase: "triage".to_owned(),
            journal_end: 0,
            submitted: 0,
            stop_failure: None,
            summary: String::new(),
            adopt: "r1".to_owned(),
        })
    }
}

/// Driving run `r1` of the project `dir` with `claude`, at most `max_sessions`.
fn options(
    dir: &std::path::Path,
    claude: std::path::PathBuf,
    max_sessions: Option<u32>,
) -> DriveOptions {
    let run_dir = dir.join("run");
    std::fs::create_dir_all(&run_dir).unwrap();
    DriveOptions {
        run: "r1".to_owned(),
        run_dir,
        project: dir.to_path_buf(),
        claude,
        extra_args: Vec::new(),
        limits: DriveLimits {
            max_sessions,
            ..DriveLimits::default()
        },
        backoff_scale: 0.0,
        what: "run r1".to_owned(),
        resume: String::new(),
        session_env: Vec::new(),
    }
}

/// Sends SIGTERM to this test process after `delay`, from a thread of its own.
fn sigterm_after(delay: Duration) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        std::thread::sleep(delay);
        let pid = std::process::id().to_string();
        std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap();
    })
}

#[test]
fn sigterm_cuts_a_wait_short_and_stops_a_running_session() {
    let dir = tempfile::tempdir().unwrap();
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    // The first session's limit resets at once (a 2 s margin); the second's in 40 s.
    let reset_file = dir.path().join("resets");
    std::fs::write(
        &reset_file,
        format!("{}\n{}\n", now.saturating_sub(100), now + 40),
    )
    .unwrap();
    let claude = dir.path().join("claude");
    std::fs::write(
        &claude,
        format!(
            "#!/bin/sh\nat=$(head -n 1 '{0}')\nsed -i 1d '{0}'\nprintf '{1}\\n' \"$at\"\nexit 1\n",
            reset_file.display(),
            r#"{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","rateLimitType":"five_hour","resetsAt":%s}}"#
        ),
    )
    .unwrap();
    std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755)).unwrap();
    let options = options(dir.path(), claude, Some(3));
    let run_dir = options.run_dir.clone();
    let started = Instant::now();
    // Past the first wait (2 s) and the second session, inside the second wait (42 s).
    let signaller = sigterm_after(Duration::from_millis(3500));
    let report = drive(&options, &mut Active, &mut |_: &str| {}).unwrap();
    signaller.join().unwrap();
    assert_eq!(
        report.outcome,
        DriveOutcome::Stopped(StopReason::Interrupted)
    );
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    let log = read_drive_log(&run_dir.join("drive.jsonl")).unwrap();
    assert_eq!(log.sessions.len(), 2, "{log:?}");
    assert_eq!(log.sessions[0].backoff_secs, 2);
    // The first wait was waited out: the second session started 2 s or more after the first.
    assert!(
        log.sessions[1].started_at >= log.sessions[0].ended_at + 2,
        "{:?}",
        log.sessions
    );
    assert_eq!(log.stops[0].outcome, "interrupted");
    a_session_stopped_by_sigterm_is_not_a_failure_in_the_catalog();
}

/// A session running when SIGTERM arrives is stopped and logged as interrupted, and it is no
/// failure for the error catalog. Called from the one test above, after it: two tests of this
/// binary running at once would take each other's signal.
fn a_session_stopped_by_sigterm_is_not_a_failure_in_the_catalog() {
    let dir = tempfile::tempdir().unwrap();
    let claude = dir.path().join("claude");
    std::fs::write(&claude, "#!/bin/sh\nsleep 30 &\nwait\n").unwrap();
    std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755)).unwrap();
    let options = options(dir.path(), claude, None);
    let run_dir = options.run_dir.clone();
    let signaller = sigterm_after(Duration::from_millis(1500));
    let report = drive(&options, &mut Active, &mut |_: &str| {}).unwrap();
    signaller.join().unwrap();
    assert_eq!(
        report.outcome,
        DriveOutcome::Stopped(StopReason::Interrupted)
    );
    let log = read_drive_log(&run_dir.join("drive.jsonl")).unwrap();
    assert_eq!(log.sessions.len(), 1, "{log:?}");
    assert_eq!(log.sessions[0].end.category(), "interrupted");
    let catalog = self_repair_drive::ErrorCatalog::load(&run_dir.join("errors.jsonl")).unwrap();
    assert!(catalog.entries.is_empty(), "{catalog:?}");
}
