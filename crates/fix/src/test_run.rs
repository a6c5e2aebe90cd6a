//! Runs the project's test command for the composite check.

use std::path::Path;

use self_repair_process::{Captured, ProcessRequest, run_process};

/// Lines of the test output kept for the check's report.
const TAIL_LINES: usize = 40;

/// One run of the test command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestRun {
    pub command: Vec<String>,
    /// 127 when the command could not start.
    pub exit_code: i32,
    /// The last lines of stdout and stderr together.
    pub tail: String,
    pub duration_ms: u64,
}

impl TestRun {
    /// Exit 0 is a pass, whatever the output says.
    pub fn passed(&self) -> bool {
        self.exit_code == 0
    }
}

/// Runs `command` (an argv, no shell) in `root` with stdin closed. The repair engine's timeout
/// bounds the whole composite check, so none is set here.
pub fn run_test_command(root: &Path, command: &[String]) -> TestRun {
    let outcome = run_process(&ProcessRequest {
        argv: command,
        cwd: root,
        stdin: None,
        timeout: None,
        output: Captured::Separately,
    });
    let (exit_code, text, duration_ms) = match outcome {
        Ok(out) => {
            let mut text = out.stdout_text();
            text.push_str(&out.stderr_text());
            let ms = u64::try_from(out.duration.as_millis()).unwrap_or(u64::MAX);
            (out.exit_code, text, ms)
        }
        Err(e) => (e.shell_exit_code(), e.to_string(), 0),
    };
    let lines: Vec<&str> = text.lines().collect();
    let tail = lines[lines.len().saturating_sub(TAIL_LINES)..].join("\n");
    TestRun {
        command: command.to_vec(),
        exit_code,
        tail,
        duration_ms,
    }
}
