//! Runs the check or the autofix command: argv (never a shell string), in the project root,
//! stdout and stderr into one log file, with a timeout that kills the whole process group.

use std::fs::File;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::RepairError;
use crate::check_record::TIMEOUT_EXIT;

/// What one run of a command did.
#[derive(Debug, Clone)]
pub struct CommandRun {
    pub exit_code: i32,
    pub timed_out: bool,
    pub duration_ms: u64,
    /// Everything it printed (lossy UTF-8).
    pub output: String,
}

/// Runs `argv` in `root` with stdout and stderr written to `log`, for at most `timeout`.
/// A command that cannot be started is recorded like a shell would: exit 127 (not found) or 126.
pub fn run_logged(
    root: &Path,
    argv: &[String],
    timeout: Duration,
    log: &Path,
) -> Result<CommandRun, RepairError> {
    if let Some(parent) = log.parent() {
        std::fs::create_dir_all(parent).map_err(RepairError::io("create", parent))?;
    }
    let file = File::create(log).map_err(RepairError::io("create log", log))?;
    let err_file = file.try_clone().map_err(RepairError::io("open log", log))?;
    let started = Instant::now();
    let mut command = Command::new(&argv[0]);
    command
        .args(&argv[1..])
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(Stdio::from(file))
        .stderr(Stdio::from(err_file));
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) => {
            let (code, what) = match e.kind() {
                std::io::ErrorKind::NotFound => (127, "command not found"),
                std::io::ErrorKind::PermissionDenied => (126, "permission denied"),
                _ => (126, "cannot start it"),
            };
            let output = format!("self-repair: cannot run `{}`: {what} ({e})\n", argv[0]);
            std::fs::write(log, &output).map_err(RepairError::io("write log", log))?;
            return Ok(CommandRun {
                exit_code: code,
                timed_out: false,
                duration_ms: elapsed_ms(started),
                output,
            });
        }
    };
    let mut pause = Duration::from_millis(5);
    let (exit_code, timed_out) = loop {
        match child.try_wait() {
            Ok(Some(status)) => break (exit_code_of(status), false),
            Ok(None) if started.elapsed() < timeout => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(100));
            }
            Ok(None) => {
                kill_group(&mut child);
                break (TIMEOUT_EXIT, true);
            }
            Err(e) => return Err(RepairError::io("wait for", log)(e)),
        }
    };
    let duration_ms = elapsed_ms(started);
    let bytes = std::fs::read(log).map_err(RepairError::io("read log", log))?;
    let mut output = String::from_utf8_lossy(&bytes).into_owned();
    if timed_out {
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
        exit_code,
        timed_out,
        duration_ms,
        output,
    })
}

fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

fn exit_code_of(status: std::process::ExitStatus) -> i32 {
    if let Some(code) = status.code() {
        return code;
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return 128 + signal;
        }
    }
    1
}

/// Kills the child's whole process group (a `sh -c` wrapper's children too), then reaps it.
fn kill_group(child: &mut std::process::Child) {
    #[cfg(unix)]
    {
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", child.id())])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
    let _ = child.kill();
    let _ = child.wait();
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
