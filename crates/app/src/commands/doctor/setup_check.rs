//! One line of `self-repair doctor`'s setup section (what was checked, whether it holds, what to
//! do when it does not), the facts every check reads, and the bounded probe of another program.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use self_repair_process::{Captured, ProcessRequest, run_process};
use serde::Serialize;

/// How long one probe of another program (`claude --version`, `self-repair --version`, git)
/// may run before it is stopped and counted as failed.
pub(crate) const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckOutcome {
    /// `✓`: as it should be.
    Ok,
    /// `✗`: broken; `fix` says what to do.
    Fail,
    /// `-`: not checked (nothing to check, or the program to ask is not installed).
    Skipped,
}

/// One check of the setup.
#[derive(Debug, Clone, Serialize)]
pub struct SetupCheck {
    /// What was checked: `binary`, `install`, `settings`, `hooks`, `installed_files`,
    /// `plugin_version`, `client`, `trust`, `git`, `backlog`, `detectors` or `detector`.
    pub check: &'static str,
    pub outcome: CheckOutcome,
    /// What was found, one line.
    pub found: String,
    /// What to do, on a failed check.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

impl SetupCheck {
    /// A check that holds.
    pub(crate) fn ok(check: &'static str, found: impl Into<String>) -> SetupCheck {
        SetupCheck {
            check,
            outcome: CheckOutcome::Ok,
            found: found.into(),
            fix: None,
        }
    }

    /// A check that fails, and what to do.
    pub(crate) fn fail(
        check: &'static str,
        found: impl Into<String>,
        fix: impl Into<String>,
    ) -> SetupCheck {
        SetupCheck {
            check,
            outcome: CheckOutcome::Fail,
            found: found.into(),
            fix: Some(fix.into()),
        }
    }

    /// A check not made, and why.
    pub(crate) fn skipped(check: &'static str, found: impl Into<String>) -> SetupCheck {
        SetupCheck {
            check,
            outcome: CheckOutcome::Skipped,
            found: found.into(),
            fix: None,
        }
    }

    /// `✓ found`, `✗ found` with `fix: ...` under it, or `- found`.
    pub(crate) fn render(&self) -> String {
        let mark = match self.outcome {
            CheckOutcome::Ok => "✓",
            CheckOutcome::Fail => "✗",
            CheckOutcome::Skipped => "-",
        };
        match &self.fix {
            Some(fix) => format!("{mark} {}\n    fix: {fix}", self.found),
            None => format!("{mark} {}", self.found),
        }
    }
}

/// What the setup checks read: the project, `PATH`, and where the client keeps its files.
#[derive(Debug, Clone)]
pub(crate) struct SetupScene<'a> {
    /// The project's root (the folder a run would be made in).
    pub(crate) root: PathBuf,
    /// `PATH`, as the hooks and the agents inherit it from the client.
    pub(crate) path_var: Option<&'a OsStr>,
    /// `HOME`: the launcher's fallback folders are under it.
    pub(crate) home: Option<&'a Path>,
    /// The client's folder: `CLAUDE_CONFIG_DIR`, else `~/.claude` (settings, plugins).
    pub(crate) client_dir: Option<PathBuf>,
    /// The client's config: `.claude.json` in `CLAUDE_CONFIG_DIR`, else `~/.claude.json`
    /// (trusted projects).
    pub(crate) client_config: Option<PathBuf>,
    /// Where a user-scope `self-repair install` goes (and keeps its record).
    pub(crate) user_install: Option<self_repair_install::InstallRoot>,
}

impl SetupScene<'_> {
    /// The first executable `name` in a folder of `PATH`, as `command -v` finds it.
    pub(crate) fn find_on_path(&self, name: &str) -> Option<PathBuf> {
        std::env::split_paths(self.path_var?)
            .filter(|dir| !dir.as_os_str().is_empty())
            .map(|dir| dir.join(name))
            .find(|candidate| is_executable(candidate))
    }
}

/// A file this user may run.
pub(crate) fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        path.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

/// `program --version`'s first line, within [`PROBE_TIMEOUT`]; why not, when it does not answer.
pub(crate) fn version_of(program: &Path, cwd: &Path) -> Result<String, String> {
    let argv = [program.display().to_string(), "--version".to_owned()];
    let outcome = run_process(&ProcessRequest {
        argv: &argv,
        cwd,
        stdin: None,
        timeout: Some(PROBE_TIMEOUT),
        output: Captured::Separately,
    })
    .map_err(|e| e.to_string())?;
    if outcome.timed_out {
        return Err(format!("no answer within {} s", PROBE_TIMEOUT.as_secs()));
    }
    if !outcome.succeeded() {
        return Err(format!("exit {}", outcome.exit_code));
    }
    Ok(outcome
        .stdout_text()
        .lines()
        .next()
        .unwrap_or_default()
        .trim()
        .to_owned())
}

/// A JSON file, when it exists and parses.
pub(crate) fn read_json(path: &Path) -> Option<serde_json::Value> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}
