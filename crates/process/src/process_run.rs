//! Runs one child process to its end or its deadline (`run_process`).

use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process_group};
use wait_timeout::ChildExt;

/// What to run.
#[derive(Debug, Clone, Copy)]
pub struct ProcessRequest<'a> {
    /// Program and arguments; the first word is looked up on `PATH`.
    pub argv: &'a [String],
    /// The working folder.
    pub cwd: &'a Path,
    /// Written to the child's stdin, which is then closed; `None`: stdin is closed from the
    /// start.
    pub stdin: Option<&'a [u8]>,
    /// Killed, with its whole process group, once this has passed; `None` waits for its end.
    pub timeout: Option<Duration>,
    /// Where stdout and stderr go: into memory, or both into one log file.
    pub output: Captured<'a>,
}

/// Where a run's output goes.
#[derive(Debug, Clone, Copy)]
pub enum Captured<'a> {
    /// Kept apart in memory (`ProcessOutcome::stdout` and `stderr`).
    Separately,
    /// Both streams into this file, in the order they were written; `stdout` holds the file's
    /// text afterwards and `stderr` is empty.
    InLog(&'a Path),
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessOutcome {
    /// The exit code; `128 + N` for a process killed by signal N (as a shell reports it).
    pub exit_code: i32,
    /// It ran past its timeout and its process group was killed (`exit_code` is then the
    /// kill's 137).
    pub timed_out: bool,
    pub duration: Duration,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

impl ProcessOutcome {
    /// Exit 0, before any timeout.
    pub fn succeeded(&self) -> bool {
        self.exit_code == 0 && !self.timed_out
    }

    /// Stdout as text (lossy UTF-8).
    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// Stderr as text (lossy UTF-8).
    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
}

/// Why a program did not start (or its log could not be written).
#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    #[error("cannot run `{program}`: command not found")]
    NotFound { program: String },
    #[error("cannot run `{program}`: permission denied")]
    PermissionDenied { program: String },
    #[error("cannot run `{program}`: cannot start it ({source})")]
    Other {
        program: String,
        source: std::io::Error,
    },
    #[error("no program to run (empty argv)")]
    EmptyArgv,
    #[error("cannot {action} {path}: {source}")]
    Log {
        action: &'static str,
        path: String,
        source: std::io::Error,
    },
}

impl SpawnError {
    /// The code a shell gives a command it cannot start: 127 not found, 126 otherwise.
    pub fn shell_exit_code(&self) -> i32 {
        match self {
            SpawnError::NotFound { .. } | SpawnError::EmptyArgv => 127,
            _ => 126,
        }
    }
}

/// Runs `request` to its end or its deadline.
pub fn run_process(request: &ProcessRequest<'_>) -> Result<ProcessOutcome, SpawnError> {
    let Some((program, args)) = request.argv.split_first() else {
        return Err(SpawnError::EmptyArgv);
    };
    let log_error = |action: &'static str, path: &Path| {
        let path = path.display().to_string();
        move |source| SpawnError::Log {
            action,
            path,
            source,
        }
    };
    let mut command = Command::new(program);
    command
        .args(args)
        .current_dir(request.cwd)
        .stdin(if request.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        // Its own process group, so a timeout reaches every process it started.
        .process_group(0);
    match request.output {
        Captured::Separately => {
            command.stdout(Stdio::piped()).stderr(Stdio::piped());
        }
        Captured::InLog(log) => {
            let file = File::create(log).map_err(log_error("create", log))?;
            let err_file = file.try_clone().map_err(log_error("open", log))?;
            command.stdout(file).stderr(err_file);
        }
    }
    let started = Instant::now();
    let mut child = command.spawn().map_err(|source| {
        let program = program.clone();
        match source.kind() {
            std::io::ErrorKind::NotFound => SpawnError::NotFound { program },
            std::io::ErrorKind::PermissionDenied => SpawnError::PermissionDenied { program },
            _ => SpawnError::Other { program, source },
        }
    })?;
    if let (Some(pipe), Some(bytes)) = (child.stdin.take(), request.stdin) {
        feed(pipe, bytes.to_vec());
    }
    // Pipes are drained while the child runs, so a chatty child never blocks on a full pipe.
    let stdout = child.stdout.take().map(drain);
    let stderr = child.stderr.take().map(drain);
    let (status, timed_out) =
        wait(&mut child, request.timeout).map_err(|source| SpawnError::Other {
            program: program.clone(),
            source,
        })?;
    let duration = started.elapsed();
    let joined = |handle: Option<JoinHandle<Vec<u8>>>| {
        handle.and_then(|h| h.join().ok()).unwrap_or_default()
    };
    let (stdout, stderr) = match request.output {
        Captured::Separately => (joined(stdout), joined(stderr)),
        Captured::InLog(log) => (
            std::fs::read(log).map_err(log_error("read", log))?,
            Vec::new(),
        ),
    };
    Ok(ProcessOutcome {
        exit_code: exit_code_of(status),
        timed_out,
        duration,
        stdout,
        stderr,
    })
}

/// Waits for the child; past the timeout, kills its process group and reaps it.
fn wait(child: &mut Child, timeout: Option<Duration>) -> std::io::Result<(ExitStatus, bool)> {
    let Some(timeout) = timeout else {
        return Ok((child.wait()?, false));
    };
    if let Some(status) = child.wait_timeout(timeout)? {
        return Ok((status, false));
    }
    // The group may be gone already; a failed send changes nothing.
    let _ = kill_process_group(Pid::from_child(child), Signal::KILL);
    let _ = child.kill();
    Ok((child.wait()?, true))
}

/// Writes `bytes` to the child's stdin from a thread of its own, so a child that reads nothing
/// cannot block us before its deadline; the thread ends when the pipe closes (the child's end or
/// its kill). A child that exits without reading is not a failure.
fn feed(mut pipe: ChildStdin, bytes: Vec<u8>) {
    std::thread::spawn(move || {
        let _ = pipe.write_all(&bytes);
    });
}

fn drain<R: Read + Send + 'static>(mut pipe: R) -> JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        bytes
    })
}

fn exit_code_of(status: ExitStatus) -> i32 {
    match (status.code(), status.signal()) {
        (Some(code), _) => code,
        (None, Some(signal)) => 128 + signal,
        (None, None) => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    fn run(words: &[&str], timeout: Option<Duration>, output: Captured<'_>) -> ProcessOutcome {
        let dir = std::env::temp_dir();
        run_process(&ProcessRequest {
            argv: &argv(words),
            cwd: &dir,
            stdin: None,
            timeout,
            output,
        })
        .unwrap()
    }

    #[test]
    fn streams_are_captured_apart_with_the_exit_code() {
        let out = run(
            &["sh", "-c", "echo out; echo err >&2; exit 3"],
            None,
            Captured::Separately,
        );
        assert_eq!((out.exit_code, out.timed_out), (3, false));
        assert_eq!(out.stdout_text(), "out\n");
        assert_eq!(out.stderr_text(), "err\n");
        assert!(!out.succeeded());
    }

    #[test]
    fn a_log_gets_both_streams_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("run.log");
        let out = run(
            &["sh", "-c", "echo one; echo two >&2; echo three"],
            Some(Duration::from_secs(30)),
            Captured::InLog(&log),
        );
        assert!(out.succeeded());
        assert_eq!(out.stdout_text(), "one\ntwo\nthree\n");
        assert_eq!(std::fs::read_to_string(&log).unwrap(), "one\ntwo\nthree\n");
    }

    #[test]
    fn a_missing_program_is_a_spawn_error_with_the_shell_code() {
        let dir = std::env::temp_dir();
        let err = run_process(&ProcessRequest {
            argv: &argv(&["self-repair-no-such-program"]),
            cwd: &dir,
            stdin: None,
            timeout: None,
            output: Captured::Separately,
        })
        .unwrap_err();
        assert!(matches!(err, SpawnError::NotFound { .. }), "{err}");
        assert_eq!(err.shell_exit_code(), 127);
    }

    #[test]
    fn a_signal_death_reads_as_128_plus_the_signal() {
        let out = run(&["sh", "-c", "kill -TERM $$"], None, Captured::Separately);
        assert_eq!(out.exit_code, 128 + 15);
    }

    /// The detector runner killed only its direct child on a timeout: a `sh -c` detector's own
    /// children lived on (and held its pipes open, so the run hung until they ended).
    #[test]
    fn a_timeout_kills_the_whole_process_group_with_its_children() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("grandchild-alive");
        let script = format!(
            "(sleep 2; touch '{}') & echo started; wait",
            marker.display()
        );
        let out = run(
            &["sh", "-c", &script],
            Some(Duration::from_millis(200)),
            Captured::Separately,
        );
        assert!(out.timed_out);
        assert_eq!(out.stdout_text(), "started\n");
        std::thread::sleep(Duration::from_millis(2500));
        assert!(!marker.exists(), "the grandchild outlived the timeout");
    }

    #[test]
    fn stdin_reaches_the_child_and_a_child_that_reads_none_is_still_bounded() {
        let dir = std::env::temp_dir();
        let out = run_process(&ProcessRequest {
            argv: &argv(&["sh", "-c", "tr a-z A-Z"]),
            cwd: &dir,
            stdin: Some(b"row\n"),
            timeout: Some(Duration::from_secs(30)),
            output: Captured::Separately,
        })
        .unwrap();
        assert_eq!(out.stdout_text(), "ROW\n");
        // 1 MiB to a child that never reads: more than a pipe holds, and still its deadline.
        let big = vec![b'x'; 1 << 20];
        let out = run_process(&ProcessRequest {
            argv: &argv(&["sleep", "30"]),
            cwd: &dir,
            stdin: Some(&big),
            timeout: Some(Duration::from_millis(200)),
            output: Captured::Separately,
        })
        .unwrap();
        assert!(out.timed_out);
        assert!(out.duration < Duration::from_secs(10), "{:?}", out.duration);
    }
}
