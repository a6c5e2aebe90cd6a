//! Runs the project's test command for the composite check.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

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
    let started = Instant::now();
    let Some((program, args)) = command.split_first() else {
        return TestRun {
            command: Vec::new(),
            exit_code: 127,
            tail: "no test command".to_owned(),
            duration_ms: 0,
        };
    };
    let output = Command::new(program)
        .args(args)
        .current_dir(root)
        .stdin(Stdio::null())
        .output();
    let (exit_code, text) = match output {
        Ok(out) => {
            let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
            text.push_str(&String::from_utf8_lossy(&out.stderr));
            (out.status.code().unwrap_or(-1), text)
        }
        Err(e) => (127, format!("cannot run `{program}`: {e}")),
    };
    let lines: Vec<&str> = text.lines().collect();
    let tail = lines[lines.len().saturating_sub(TAIL_LINES)..].join("\n");
    TestRun {
        command: command.to_vec(),
        exit_code,
        tail,
        duration_ms: started.elapsed().as_millis() as u64,
    }
}
