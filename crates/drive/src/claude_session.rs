//! One headless `claude -p --output-format stream-json --verbose` session: started in its own
//! process group, its stdout kept as the session's stream log and folded live, stopped with
//! SIGTERM (then SIGKILL) when the driver is interrupted or the API refuses the credentials.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process_group};

use crate::drive_error::DriveError;
use crate::session_end::ProcessExit;
use crate::stream_facts::StreamFacts;

/// How long a stopped session gets between SIGTERM and SIGKILL.
const STOP_GRACE: Duration = Duration::from_secs(10);

/// What to start.
#[derive(Debug, Clone)]
pub(crate) struct SessionLaunch {
    /// The `claude` executable.
    pub claude: PathBuf,
    /// The prompt (`-p`).
    pub prompt: String,
    /// The user's own arguments, after `--`.
    pub extra_args: Vec<String>,
    /// The project folder.
    pub cwd: PathBuf,
    /// Where the session's stdout (the stream) is kept.
    pub stream_log: PathBuf,
    /// Where its stderr is kept.
    pub stderr_log: PathBuf,
    /// Variables added to the session's environment (`SELF_REPAIR_RUN`).
    pub env: Vec<(String, String)>,
}

/// How a session went.
#[derive(Debug, Clone)]
pub(crate) struct SessionRun {
    pub facts: StreamFacts,
    pub exit: ProcessExit,
    /// The driver stopped it because SIGINT/SIGTERM arrived.
    pub interrupted: bool,
    pub wall: Duration,
}

fn process_exit(status: ExitStatus) -> ProcessExit {
    ProcessExit {
        code: status.code(),
        signal: status.signal(),
    }
}

/// Sends `signal` to the session's process group (the client and every tool it started).
fn signal_group(child: &Child, signal: Signal) {
    // The group may be gone already; a failed send changes nothing.
    let _ = kill_process_group(Pid::from_child(child), signal);
}

/// Runs one session to its end. `interrupt` is set by the driver's SIGINT/SIGTERM handler.
pub(crate) fn run_session(
    launch: &SessionLaunch,
    interrupt: &AtomicBool,
) -> Result<SessionRun, DriveError> {
    let stderr =
        File::create(&launch.stderr_log).map_err(DriveError::io("create", &launch.stderr_log))?;
    let mut stream_log =
        File::create(&launch.stream_log).map_err(DriveError::io("create", &launch.stream_log))?;
    let started = Instant::now();
    let mut child = Command::new(&launch.claude)
        .arg("-p")
        .arg(&launch.prompt)
        .args(["--output-format", "stream-json", "--verbose"])
        .args(&launch.extra_args)
        .current_dir(&launch.cwd)
        .envs(launch.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(stderr)
        // Its own group: a terminal's Ctrl-C reaches the driver, which stops the group cleanly.
        .process_group(0)
        .spawn()
        .map_err(|source| DriveError::Spawn {
            program: launch.claude.display().to_string(),
            source,
        })?;
    let (lines, received) = mpsc::channel::<String>();
    let reader = child.stdout.take().map(|stdout| {
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if lines.send(line).is_err() {
                    break;
                }
            }
        })
    });
    let mut facts = StreamFacts::default();
    let mut keep = |line: &str, facts: &mut StreamFacts| {
        // The stream log is for humans; a failed write must not stop the session.
        let _ = writeln!(stream_log, "{line}");
        facts.observe(line);
    };
    let mut stopping: Option<Instant> = None;
    let mut interrupted = false;
    let status = loop {
        while let Ok(line) = received.try_recv() {
            keep(&line, &mut facts);
        }
        if stopping.is_none() && interrupt.load(Ordering::SeqCst) {
            interrupted = true;
            stopping = Some(Instant::now());
            signal_group(&child, Signal::TERM);
        }
        if stopping.is_none() && facts.auth_refused() {
            // The client retries a refused credential for minutes; nothing will change it.
            stopping = Some(Instant::now());
            signal_group(&child, Signal::TERM);
        }
        if let Some(since) = stopping
            && since.elapsed() > STOP_GRACE
        {
            signal_group(&child, Signal::KILL);
            let _ = child.kill();
        }
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => thread::sleep(Duration::from_millis(50)),
            Err(e) => return Err(DriveError::io("wait for", &launch.claude)(e)),
        }
    };
    // The client's tools may hold the pipe open after it exits: the group goes with it, and
    // the rest of the stream is read for a few seconds at most (the reader is left behind).
    signal_group(&child, Signal::TERM);
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match received.recv_timeout(left) {
            Ok(line) => keep(&line, &mut facts),
            Err(_) => break,
        }
    }
    drop(reader);
    Ok(SessionRun {
        facts,
        exit: process_exit(status),
        interrupted,
        wall: started.elapsed(),
    })
}

/// Whether `path` names an executable file.
pub fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}
