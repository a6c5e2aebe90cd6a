//! One `claude -p ... --output-format json` process: started in its own process group so a
//! scenario can kill it (and its tools) mid-run, waited for with a deadline.

use std::fs;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus};
use std::time::{Duration, Instant};

use self_repair_test_support::{kill_group, wait_at_most};
use serde_json::Value;

use crate::e2e::e2e_error::E2eError;
use crate::e2e::hook_log::{HookRun, parse_hook_log};

/// Per-run options beyond the project's environment.
#[derive(Debug, Clone, Default)]
pub struct ClaudeOptions {
    /// `--resume <session>`: continue that session.
    pub resume: Option<String>,
    /// Extra environment variables.
    pub env: Vec<(String, String)>,
}

/// A running `claude` process.
#[derive(Debug)]
pub struct ClaudeRun {
    pub(crate) child: Child,
    pub(crate) started: Instant,
    pub(crate) stdout: PathBuf,
    pub(crate) stderr: PathBuf,
    pub(crate) debug: PathBuf,
}

/// How a `claude` process ended.
#[derive(Debug, Clone)]
pub struct ClaudeOutcome {
    /// Exit code (`None` when killed by a signal).
    pub code: Option<i32>,
    /// Start to exit.
    pub wall: Duration,
    /// The `--output-format json` result (`Null` when stdout was not JSON, e.g. killed).
    pub json: Value,
    /// Its stderr.
    pub stderr: String,
    /// The `--debug-file`.
    pub debug: PathBuf,
    /// Whether the scenario's deadline killed it.
    pub timed_out: bool,
    /// Whether the scenario killed it on purpose.
    pub killed: bool,
}

impl ClaudeRun {
    /// Waits until it exits, killing it after `timeout`.
    pub fn wait(mut self, timeout: Duration) -> Result<ClaudeOutcome, E2eError> {
        let left = timeout.saturating_sub(self.started.elapsed());
        let ended = wait_at_most(&mut self.child, left).map_err(|source| E2eError::Spawn {
            program: "claude".to_owned(),
            source,
        })?;
        if let Some(status) = ended {
            return Ok(self.outcome(status, false, false));
        }
        let status = self.kill_group()?;
        Ok(self.outcome(status, true, false))
    }

    /// Whether it is still running.
    pub fn running(&mut self) -> Result<bool, E2eError> {
        Ok(self.try_status()?.is_none())
    }

    /// Seconds since it started.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// Kills it and every process it started (SIGKILL to its process group).
    pub fn kill(mut self) -> Result<ClaudeOutcome, E2eError> {
        let status = self.kill_group()?;
        Ok(self.outcome(status, false, true))
    }

    fn try_status(&mut self) -> Result<Option<ExitStatus>, E2eError> {
        self.child.try_wait().map_err(|source| E2eError::Spawn {
            program: "claude".to_owned(),
            source,
        })
    }

    fn kill_group(&mut self) -> Result<ExitStatus, E2eError> {
        // The child leads its own group (process_group(0)), so its group is exactly the
        // processes this run started.
        kill_group(self.child.id());
        let _ = self.child.kill();
        self.child.wait().map_err(|source| E2eError::Spawn {
            program: "claude".to_owned(),
            source,
        })
    }

    fn outcome(&self, status: ExitStatus, timed_out: bool, killed: bool) -> ClaudeOutcome {
        let stdout = fs::read_to_string(&self.stdout).unwrap_or_default();
        ClaudeOutcome {
            code: status.code(),
            wall: self.started.elapsed(),
            json: serde_json::from_str(stdout.trim()).unwrap_or(Value::Null),
            stderr: fs::read_to_string(&self.stderr).unwrap_or_default(),
            debug: self.debug.clone(),
            timed_out,
            killed,
        }
    }
}

/// Puts a command in its own process group.
pub(crate) fn own_group(command: &mut Command) -> &mut Command {
    command.process_group(0)
}

impl ClaudeOutcome {
    /// `session_id` of the JSON result.
    pub fn session_id(&self) -> Option<String> {
        self.json
            .get("session_id")
            .and_then(Value::as_str)
            .map(str::to_owned)
    }

    /// Whether it exited 0 with a non-error result.
    pub fn succeeded(&self) -> bool {
        self.code == Some(0)
            && !self.timed_out
            && self.json.get("is_error").and_then(Value::as_bool) == Some(false)
    }

    /// One line saying how it ended, for failure messages.
    pub fn describe(&self) -> String {
        let result: String = self
            .json
            .get("result")
            .map(ToString::to_string)
            .unwrap_or_default()
            .chars()
            .take(200)
            .collect();
        let stderr: String = self.stderr.chars().take(300).collect();
        format!(
            "exit {:?}{} after {:.1} s, result {result}, stderr {stderr:?}, debug log {}",
            self.code,
            if self.timed_out {
                " (timed out, killed)"
            } else {
                ""
            },
            self.wall.as_secs_f64(),
            self.debug.display()
        )
    }

    /// The hook runs of its debug log.
    pub fn hooks(&self) -> Vec<HookRun> {
        parse_hook_log(&fs::read_to_string(&self.debug).unwrap_or_default())
    }

    /// `subagent_stats.spawned`.
    pub fn spawned(&self) -> Option<u64> {
        self.json
            .pointer("/subagent_stats/spawned")
            .and_then(Value::as_u64)
    }
}
