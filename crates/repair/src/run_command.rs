//! Runs the check or the autofix command: argv (never a shell string), in the project root,
//! stdout and stderr into one log file, with a timeout that kills the whole process group.

use std::path::Path;
use std::time::Duration;

use self_repair_process::{Captured, ProcessRequest, SpawnError, run_process};

use crate::RepairError;
use crate::check_record::TIMEOUT_EXIT;

/// What one run of a command did.
#[derive(Debug, Clone)]
pub(crate) struct CommandRun {
    pub exit_code: i32,
    pub timed_out: bool,
    pub duration_ms: u64,
    /// Everything it printed (lossy UTF-8).
    pub output: String,
}

/// Runs `argv` in `root` with stdout and stderr written to `log`, for at most `timeout`.
/// A command that cannot be started is recorded like a shell would: exit 127 (not found) or 126.
pub(crate) fn run_logged(
    root: &Path,
    argv: &[String],
    timeout: Duration,
    log: &Path,
) -> Result<CommandRun, RepairError> {
    if let Some(parent) = log.parent() {
        std::fs::create_dir_all(parent).map_err(RepairError::io("create", parent))?;
    }
    let outcome = match run_process(&ProcessRequest {
        argv,
        cwd: root,
        stdin: None,
        timeout: Some(timeout),
        output: Captured::InLog(log),
    }) {
        Ok(outcome) => outcome,
        Err(SpawnError::Log { source, .. }) => {
            return Err(RepairError::io("write log", log)(source));
        }
        Err(e) => {
            let output = format!("self-repair: {e}\n");
            std::fs::write(log, &output).map_err(RepairError::io("write log", log))?;
            return Ok(CommandRun {
                exit_code: e.shell_exit_code(),
                timed_out: false,
                duration_ms: 0,
                output,
            });
        }
    };
    let mut output = outcome.stdout_text();
    if outcome.timed_out {
        let note = format!(
            "\nself-repair: timed out after {} s; the command was killed\n",
            timeout.as_secs_f64()
        );
        output.push_str(&note);
        let _ = std::fs::OpenOptions::new()
            .append(true)
            .open(log)
            .and_then(|mut f| std::io::Write::write_all(&mut f, note.as_bytes()));
    }
    Ok(CommandRun {
        exit_code: if outcome.timed_out {
            TIMEOUT_EXIT
        } else {
            outcome.exit_code
        },
        timed_out: outcome.timed_out,
        duration_ms: u64::try_from(outcome.duration.as_millis()).unwrap_or(u64::MAX),
        output,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn captures_both_streams_exit_code_and_missing_commands() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("attempts/1.log");
        let run = run_logged(
            dir.path(),
            &argv(&["sh", "-c", "echo out; echo err >&2; exit 3"]),
            Duration::from_secs(10),
            &log,
        )
        .unwrap();
        assert_eq!(run.exit_code, 3);
        assert!(!run.timed_out);
        assert!(run.output.contains("out") && run.output.contains("err"));
        assert_eq!(std::fs::read_to_string(&log).unwrap(), run.output);
        let missing = run_logged(
            dir.path(),
            &argv(&["self-repair-no-such-command"]),
            Duration::from_secs(10),
            &log,
        )
        .unwrap();
        assert_eq!(missing.exit_code, 127);
        assert!(missing.output.contains("command not found"));
    }

    #[test]
    fn a_command_past_its_timeout_is_killed_and_recorded_as_124() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("t.log");
        let run = run_logged(
            dir.path(),
            &argv(&["sh", "-c", "sleep 30"]),
            Duration::from_millis(50),
            &log,
        )
        .unwrap();
        assert!(run.timed_out);
        assert_eq!(run.exit_code, TIMEOUT_EXIT);
        assert!(run.output.contains("timed out"));
    }
}
