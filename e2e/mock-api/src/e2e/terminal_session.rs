//! The real client's interactive terminal UI in a detached tmux session of a fixed size (issue
//! 24 item 3): keys are typed with `send-keys`, the screen is read with `capture-pane -p -J`
//! (wrapped lines joined), and every screen a scenario keeps is written to its folder. Each
//! session has a tmux server of its own (a socket in the scenario folder), so ending it ends
//! only what the scenario started.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use crate::e2e::e2e_error::E2eError;

/// The terminal size every interactive scenario uses (columns, rows).
pub const TERMINAL_SIZE: (u16, u16) = (120, 50);

/// How often a wait reads the screen.
const POLL: Duration = Duration::from_millis(200);

/// The tmux program (`scripts/install-tools.sh` fails when it is missing).
const TMUX: &str = "tmux";

/// One program running in a tmux pane.
#[derive(Debug)]
pub struct TerminalSession {
    socket: PathBuf,
    folder: PathBuf,
    started: Instant,
}

impl TerminalSession {
    /// Starts `program ARGS` in `cwd` in a new detached tmux session of [`TERMINAL_SIZE`]. The
    /// tmux server is started by this call with exactly `command`'s environment (built with
    /// `env_clear`), which the pane's program inherits; `folder` holds the socket and the
    /// screens saved later.
    pub fn start(
        mut command: Command,
        program: &Path,
        args: &[OsString],
        cwd: &Path,
        folder: &Path,
    ) -> Result<TerminalSession, E2eError> {
        let socket = folder.join("tmux.sock");
        let (columns, rows) = TERMINAL_SIZE;
        command
            .arg("-S")
            .arg(&socket)
            .args(["-f", "/dev/null", "new-session", "-d", "-s", "e2e"])
            .args(["-x", &columns.to_string(), "-y", &rows.to_string()])
            .arg("-c")
            .arg(cwd)
            .arg("--")
            .arg(program)
            .args(args)
            .stdin(Stdio::null());
        let session = TerminalSession {
            socket,
            folder: folder.to_owned(),
            started: Instant::now(),
        };
        TerminalSession::checked(command, "new-session")?;
        // Keep the pane when the program exits, so its last screen can still be read.
        session.tmux(&["set-option", "-t", "e2e", "remain-on-exit", "on"])?;
        Ok(session)
    }

    /// The command that runs tmux (the environment comes from the caller).
    pub fn command() -> Command {
        Command::new(TMUX)
    }

    /// Types `text` literally (no key names), as a user would.
    pub fn type_text(&self, text: &str) -> Result<(), E2eError> {
        self.tmux(&["send-keys", "-t", "e2e", "-l", text]).map(drop)
    }

    /// Presses the tmux keys `keys` (`Enter`, `Down`, `Escape`, ...) in order.
    pub fn press(&self, keys: &[&str]) -> Result<(), E2eError> {
        for key in keys {
            self.tmux(&["send-keys", "-t", "e2e", key])?;
            thread::sleep(Duration::from_millis(150));
        }
        Ok(())
    }

    /// Types `text`, then Enter.
    pub fn submit(&self, text: &str) -> Result<(), E2eError> {
        self.type_text(text)?;
        thread::sleep(Duration::from_millis(300));
        self.press(&["Enter"])
    }

    /// The visible screen, wrapped lines joined, trailing spaces trimmed.
    pub fn screen(&self) -> Result<String, E2eError> {
        let out = self.tmux(&["capture-pane", "-p", "-J", "-t", "e2e"])?;
        Ok(String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::trim_end)
            .collect::<Vec<_>>()
            .join("\n"))
    }

    /// Reads the screen every 200 ms, handing each to `step`, until `step` returns `Some` or
    /// `seconds` pass (then a `Timeout` naming `what`, with the last screen saved as
    /// `<what>.timeout.txt`).
    pub fn poll<T>(
        &self,
        what: &str,
        seconds: u64,
        mut step: impl FnMut(&str) -> Result<Option<T>, E2eError>,
    ) -> Result<T, E2eError> {
        let started = Instant::now();
        let mut last = String::new();
        while started.elapsed() < Duration::from_secs(seconds) {
            last = self.screen()?;
            if let Some(done) = step(&last)? {
                return Ok(done);
            }
            thread::sleep(POLL);
        }
        let _ = self.save_text(&format!("{}.timeout", file_stem(what)), &last);
        Err(E2eError::Timeout {
            what: what.to_owned(),
            seconds,
        })
    }

    /// Waits until the screen holds `text`; returns that screen.
    pub fn wait_for_text(&self, text: &str, seconds: u64) -> Result<String, E2eError> {
        self.poll(&format!("`{text}` on screen"), seconds, |screen| {
            Ok(screen.contains(text).then(|| screen.to_owned()))
        })
    }

    /// Writes the current screen to `<folder>/screen-<name>.txt`; returns its text.
    pub fn save(&self, name: &str) -> Result<String, E2eError> {
        let screen = self.screen()?;
        self.save_text(name, &screen)?;
        Ok(screen)
    }

    fn save_text(&self, name: &str, screen: &str) -> Result<PathBuf, E2eError> {
        let path = self.folder.join(format!("screen-{name}.txt"));
        fs::write(&path, format!("{screen}\n")).map_err(E2eError::io(&path))?;
        Ok(path)
    }

    /// Time since the session started.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// Ends the session's tmux server (and so the client in it).
    pub fn end(self) -> Result<(), E2eError> {
        self.tmux(&["kill-server"]).map(drop)
    }

    fn tmux(&self, args: &[&str]) -> Result<Output, E2eError> {
        let mut command = Command::new(TMUX);
        command.arg("-S").arg(&self.socket).args(args);
        TerminalSession::checked(command, args.first().copied().unwrap_or_default())
    }

    fn checked(mut command: Command, what: &str) -> Result<Output, E2eError> {
        let out = command
            .stdin(Stdio::null())
            .output()
            .map_err(|source| E2eError::Spawn {
                program: TMUX.to_owned(),
                source,
            })?;
        if out.status.success() {
            Ok(out)
        } else {
            Err(E2eError::Command {
                command: format!("tmux {what}"),
                code: out.status.code(),
                stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            })
        }
    }
}

impl Drop for TerminalSession {
    /// A scenario that stops early still ends its tmux server.
    fn drop(&mut self) {
        let _ = Command::new(TMUX)
            .arg("-S")
            .arg(&self.socket)
            .arg("kill-server")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

/// `what` as a file name: letters, digits and dashes.
fn file_stem(what: &str) -> String {
    what.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect::<String>()
        .trim_matches('-')
        .to_owned()
}

/// How many times `needle` occurs in `screen`.
pub fn occurrences(screen: &str, needle: &str) -> usize {
    screen.matches(needle).count()
}

#[cfg(test)]
mod tests {
    use super::{file_stem, occurrences};

    #[test]
    fn counts_every_occurrence() {
        assert_eq!(
            occurrences("a run x complete\n● run x complete", "run x complete"),
            2
        );
        assert_eq!(occurrences("nothing", "run x complete"), 0);
    }

    #[test]
    fn file_stem_keeps_letters_digits_and_dashes() {
        assert_eq!(file_stem("`Do you` on screen"), "Do-you--on-screen");
    }
}
