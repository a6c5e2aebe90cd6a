//! One `self-repair drive` process in a scenario's project: it starts the real `claude -p`
//! sessions itself, against the scripted server, with the project's isolated environment.

use std::fs::{self, File};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use self_repair_test_support::{kill_group, wait_at_most};

use crate::e2e::e2e_error::E2eError;
use crate::e2e::e2e_project::{E2eProject, InstallMode};

/// A running `self-repair drive`.
#[derive(Debug)]
pub struct DriveRun {
    child: Child,
    started: Instant,
    stdout: PathBuf,
    stderr: PathBuf,
}

/// How `drive` ended.
#[derive(Debug, Clone)]
pub struct DriveOutcome {
    /// Exit code (`None`: killed by the scenario's deadline).
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub wall: Duration,
}

impl DriveOutcome {
    /// One line for failure messages.
    pub fn describe(&self) -> String {
        format!(
            "exit {:?} after {:.1} s; stdout {:?}; stderr {:?}",
            self.code,
            self.wall.as_secs_f64(),
            self.stdout.chars().take(600).collect::<String>(),
            self.stderr.chars().take(900).collect::<String>()
        )
    }
}

impl E2eProject {
    /// Starts `self-repair drive RUN ARGS --claude <claude> [-- --plugin-dir <repo>]` against
    /// `base_url`, with `env` added (credentials, the test-only backoff scale).
    pub fn drive(
        &self,
        base_url: &str,
        run: &str,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> Result<DriveRun, E2eError> {
        let stdout = self.root().join(format!("drive-{run}.out"));
        let stderr = self.root().join(format!("drive-{run}.err"));
        let out_file = File::create(&stdout).map_err(E2eError::io(&stdout))?;
        let err_file = File::create(&stderr).map_err(E2eError::io(&stderr))?;
        let tools = self.tools();
        let mut command = Command::new(&tools.self_repair);
        self.isolated(&mut command);
        command
            .env("ANTHROPIC_BASE_URL", base_url)
            .envs(env.iter().copied())
            .args(["drive", run, "--claude"])
            .arg(&tools.claude)
            .args(args);
        if self.mode() == InstallMode::Plugin {
            command.arg("--").arg("--plugin-dir").arg(&tools.plugin_dir);
        }
        let child = command
            .stdin(Stdio::null())
            .stdout(out_file)
            .stderr(err_file)
            .spawn()
            .map_err(|source| E2eError::Spawn {
                program: tools.self_repair.display().to_string(),
                source,
            })?;
        Ok(DriveRun {
            child,
            started: Instant::now(),
            stdout,
            stderr,
        })
    }
}

/// The process ids whose parent is `parent` (from `/proc/*/stat`).
fn children_of(parent: u32) -> Vec<u32> {
    let Ok(entries) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            // `pid (comm) state ppid ...`: comm may hold spaces, so read after the last ')'.
            stat.rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse::<u32>().ok())
                == Some(parent)
        })
        .collect()
}

impl DriveRun {
    /// The `claude` session it runs now, if any.
    pub fn claude_pid(&self) -> Option<u32> {
        children_of(self.child.id()).into_iter().next()
    }

    /// SIGKILLs the running `claude` session's process group (it leads its own group), as a
    /// crash or an OOM kill would; returns whether there was one.
    pub fn kill_session(&self) -> bool {
        let Some(pid) = self.claude_pid() else {
            return false;
        };
        kill_group(pid)
    }

    /// The time since it started.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// What it wrote to stderr so far (its progress lines).
    pub fn stderr_so_far(&self) -> String {
        fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    /// Whether it still runs.
    pub fn running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Waits for it to exit, killing it (and its session) after `timeout`.
    pub fn wait(mut self, timeout: Duration) -> Result<DriveOutcome, E2eError> {
        let left = timeout.saturating_sub(self.started.elapsed());
        let status = wait_at_most(&mut self.child, left).map_err(E2eError::io(&self.stdout))?;
        if status.is_none() {
            self.kill_session();
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        Ok(DriveOutcome {
            code: status.and_then(|s| s.code()),
            stdout: fs::read_to_string(&self.stdout).unwrap_or_default(),
            stderr: fs::read_to_string(&self.stderr).unwrap_or_default(),
            wall: self.started.elapsed(),
        })
    }
}
