//! One way for tests to run a child: its own process group, stdin fed from a thread (bytes or a
//! stream, so a test can pour gigabytes without holding them), both outputs drained, and a
//! deadline after which the whole group is killed, so a hung child fails its test instead of
//! hanging the suite.

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process_group};
use wait_timeout::ChildExt;

/// The deadline of a fixture's command (`git`, a tool): far above what any takes.
pub const FIXTURE_LIMIT: Duration = Duration::from_mins(2);

/// A command to run with a deadline.
pub struct Bounded {
    command: Command,
    stdin: Option<Box<dyn Read + Send>>,
    limit: Duration,
}

/// How a bounded run ended.
#[derive(Debug)]
pub struct Finished {
    /// The exit code; `None` when a signal ended it (a kill past the deadline, an abort).
    pub code: Option<i32>,
    /// It ran past its deadline and its process group was killed.
    pub timed_out: bool,
    pub elapsed: Duration,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// How many bytes of its stdin the child took before it closed the pipe or ended.
    pub stdin_taken: u64,
}

impl Bounded {
    /// `command` with stdin closed and [`FIXTURE_LIMIT`]; stdout and stderr are captured.
    pub fn new(command: Command) -> Bounded {
        Bounded {
            command,
            stdin: None,
            limit: FIXTURE_LIMIT,
        }
    }

    /// These bytes on stdin.
    #[must_use]
    pub fn stdin(self, bytes: impl Into<Vec<u8>>) -> Bounded {
        self.stdin_from(std::io::Cursor::new(bytes.into()))
    }

    /// Stdin read from `source` as the child takes it.
    #[must_use]
    pub fn stdin_from(mut self, source: impl Read + Send + 'static) -> Bounded {
        self.stdin = Some(Box::new(source));
        self
    }

    /// The deadline.
    #[must_use]
    pub fn limit(mut self, limit: Duration) -> Bounded {
        self.limit = limit;
        self
    }

    /// Runs it to its end or its deadline.
    pub fn run(mut self) -> Finished {
        self.command
            .stdin(if self.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own group, so the deadline reaches what it started too.
            .process_group(0);
        let started = Instant::now();
        let mut child = self.command.spawn().unwrap_or_else(|e| {
            panic!(
                "cannot start {:?}: {e}",
                self.command.get_program().to_string_lossy()
            )
        });
        let taken = Arc::new(AtomicU64::new(0));
        let feeder = match (child.stdin.take(), self.stdin.take()) {
            (Some(pipe), Some(source)) => Some(feed(pipe, source, Arc::clone(&taken))),
            _ => None,
        };
        let stdout = child.stdout.take().map(drain);
        let stderr = child.stderr.take().map(drain);
        let (status, timed_out) = wait(&mut child, self.limit);
        let elapsed = started.elapsed();
        if let Some(feeder) = feeder {
            let _ = feeder.join();
        }
        let joined = |handle: Option<JoinHandle<Vec<u8>>>| {
            handle.and_then(|h| h.join().ok()).unwrap_or_default()
        };
        Finished {
            code: status.code(),
            timed_out,
            elapsed,
            stdout: joined(stdout),
            stderr: joined(stderr),
            stdin_taken: taken.load(Ordering::Relaxed),
        }
    }
}

impl Finished {
    /// Exit 0 before the deadline.
    pub fn succeeded(&self) -> bool {
        self.code == Some(0) && !self.timed_out
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

/// Copies `source` into the child's stdin, counting what it took; a child that stops reading
/// (a broken pipe) ends the copy, not the test.
fn feed(
    mut pipe: std::process::ChildStdin,
    mut source: Box<dyn Read + Send>,
    taken: Arc<AtomicU64>,
) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let mut buffer = vec![0; 64 * 1024];
        loop {
            let Ok(n) = source.read(&mut buffer) else {
                return;
            };
            if n == 0 {
                return;
            }
            let mut at = 0;
            while at < n {
                let Ok(wrote) = pipe.write(&buffer[at..n]) else {
                    return;
                };
                at += wrote;
                taken.fetch_add(wrote as u64, Ordering::Relaxed);
            }
        }
    })
}

fn drain<R: Read + Send + 'static>(mut pipe: R) -> JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        bytes
    })
}

/// Waits for the child; past `limit`, kills its process group and reaps it.
fn wait(child: &mut Child, limit: Duration) -> (ExitStatus, bool) {
    if let Some(status) = wait_at_most(child, limit).expect("wait for the child") {
        return (status, false);
    }
    kill_group(child.id());
    let _ = child.kill();
    (child.wait().expect("reap the killed child"), true)
}

/// Waits for `child` for at most `limit` (no sleep-polling); `None` when it still runs then,
/// for a caller that decides itself what to stop (the e2e runner's sessions and steps).
pub fn wait_at_most(child: &mut Child, limit: Duration) -> std::io::Result<Option<ExitStatus>> {
    child.wait_timeout(limit)
}

/// SIGKILL to the process group `leader` leads (a child started in its own group), without a
/// `kill` process; whether it was sent (the group may be gone already).
pub fn kill_group(leader: u32) -> bool {
    i32::try_from(leader)
        .ok()
        .and_then(Pid::from_raw)
        .is_some_and(|pid| kill_process_group(pid, Signal::KILL).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hung_child_and_its_children_are_killed_at_the_deadline() {
        let mut command = Command::new("sh");
        command.args(["-c", "sleep 30 & echo started; wait"]);
        let done = Bounded::new(command)
            .limit(Duration::from_millis(300))
            .run();
        assert!(done.timed_out);
        assert_eq!(done.stdout_text(), "started\n");
        assert!(done.elapsed < Duration::from_secs(10), "{:?}", done.elapsed);
    }

    /// The e2e runner's way: wait a while, then stop the group itself.
    #[test]
    fn wait_at_most_leaves_a_running_child_to_its_caller_and_kill_group_ends_it() {
        let mut child = Command::new("sleep")
            .arg("30")
            .process_group(0)
            .spawn()
            .unwrap();
        assert!(
            wait_at_most(&mut child, Duration::from_millis(100))
                .unwrap()
                .is_none()
        );
        assert!(kill_group(child.id()));
        let status = wait_at_most(&mut child, Duration::from_secs(10)).unwrap();
        assert!(status.is_some_and(|s| s.code().is_none()), "{status:?}");
    }

    #[test]
    fn a_stream_is_fed_until_the_child_stops_reading() {
        let mut command = Command::new("head");
        command.args(["-c", "1000"]);
        let done = Bounded::new(command)
            .stdin_from(std::io::repeat(b'x'))
            .run();
        assert!(done.succeeded());
        assert_eq!(done.stdout.len(), 1000);
        assert!(done.stdin_taken >= 1000);
    }
}
