//! What a command knows of the world: the folder it runs in, the time, the Claude Code session,
//! and the few facts of its process (its own path, `PATH`, its argv). The binary fills it once
//! from the process ([`CommandEnv::from_process`]); tests fill it by hand, so outputs are
//! reproducible and every command can be called in-process.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use self_repair_install::InstallRoot;
use self_repair_store::{Project, StoreError};

/// The variable that pins the clock (Unix seconds) for reproducible tests and demos.
pub(crate) const NOW_VAR: &str = "SELF_REPAIR_NOW";

/// The variable that pins a process to one run instead of the project's active one: `drive`
/// sets it for every session it starts, so a partition's hooks and commands work on their own
/// run while the other partitions' sessions run beside them (design note 56).
pub(crate) const RUN_VAR: &str = "SELF_REPAIR_RUN";

/// What the hook's process knows about the installation, read by the binary from its
/// environment (tests fill it by hand).
#[derive(Debug, Clone, Default)]
pub struct Installation {
    /// This binary's version (`self-repair --version`).
    pub binary_version: String,
    /// The commit this binary was built from (`--version`'s `(abc1234 2026-11-29)`), when it
    /// was built in its own git clone.
    pub binary_commit: Option<String>,
    /// `CLAUDE_PLUGIN_ROOT`: set when the hook runs from the plugin, unset for `install`'s hooks.
    pub plugin_root: Option<PathBuf>,
    /// `AI_AGENT` (`claude-code_2-1-330_harness`), the client's own name and version.
    pub agent_variable: Option<String>,
    /// `CLAUDE_CODE_SESSION_ATTENDED`: whether a user watches the session's terminal.
    pub audience: self_repair_engine::Audience,
    /// `SELF_REPAIR_LAUNCHER_FALLBACK`: the plugin's launcher found this binary only in a
    /// fallback folder (`~/.local/bin`, `~/.cargo/bin`), not on the client's `PATH`.
    pub launcher_fallback: Option<PathBuf>,
}

/// Test-only: multiplies every backoff `drive` chooses (never a wait until a reset the API
/// named), so tests do not sleep for minutes. reference/cli.md.
pub(crate) const BACKOFF_SCALE_VAR: &str = "SELF_REPAIR_DRIVE_BACKOFF_SCALE";

/// The environment of one command.
#[derive(Debug, Clone, Default)]
pub struct CommandEnv {
    /// The working directory.
    pub cwd: PathBuf,
    /// Unix seconds.
    pub now: u64,
    /// `CLAUDE_CODE_SESSION_ID`, set by Claude Code for the commands a session runs.
    pub session: Option<String>,
    /// `CLAUDE_PROJECT_DIR`, set by Claude Code for hooks.
    pub project_dir: Option<PathBuf>,
    /// The user's home, for user-scope installs.
    pub home: Option<PathBuf>,
    /// `CLAUDE_CONFIG_DIR`: where Claude Code reads the user's settings when set (else
    /// `~/.claude`).
    pub claude_config_dir: Option<PathBuf>,
    /// An explicit project root (`--root`).
    pub project: Option<PathBuf>,
    /// This binary's own path (`install` registers it; `fix` runs it as its check).
    pub exe: Option<PathBuf>,
    /// `PATH`, where `drive` finds `claude` and `install` looks for itself.
    pub path_var: Option<OsString>,
    /// The command line after the program name (`check` repeats it with `--replace`).
    pub argv: Vec<String>,
    /// The system's folder for temporary files (the demo's default home).
    pub temp_dir: PathBuf,
    /// `SELF_REPAIR_DRIVE_BACKOFF_SCALE`: `drive`'s waits scaled down for tests.
    pub backoff_scale: Option<String>,
    /// `SELF_REPAIR_RUN`: the run that stands for the active one in this process.
    pub pinned_run: Option<String>,
    /// What the client tells the hooks about the plugin and itself.
    pub installation: Installation,
    /// `NAME=value` of the first coding-agent variable set (`CLAUDECODE`, ...): `audit`
    /// records no answer from inside an agent's shell.
    pub agent_marker: Option<String>,
    /// `USER`: who answers an audit, by default.
    pub user: Option<String>,
}

impl CommandEnv {
    /// Where a user-scope install goes and where Claude Code reads the user's settings: the
    /// home, `.claude/` in `CLAUDE_CONFIG_DIR` when that is set (relative to the working
    /// directory when relative). `None` without `HOME`.
    pub fn user_install_root(&self) -> Option<InstallRoot> {
        let home = self.home.as_deref()?;
        let config_dir = self
            .claude_config_dir
            .as_ref()
            .map(|dir| self.cwd.join(dir));
        Some(InstallRoot::user(home, config_dir.as_deref()))
    }

    /// A command run in `cwd` at `now`, with nothing else known (tests).
    pub fn new(cwd: impl Into<PathBuf>, now: u64) -> CommandEnv {
        CommandEnv {
            cwd: cwd.into(),
            now,
            ..CommandEnv::default()
        }
    }

    /// Everything a command reads from its process, read once; `project` is `--root`.
    pub fn from_process(project: Option<PathBuf>) -> CommandEnv {
        let variable = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
        let text = |name: &str| variable(name).and_then(|value| value.into_string().ok());
        CommandEnv {
            cwd: std::env::current_dir().unwrap_or_default(),
            now: text(NOW_VAR)
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(system_now),
            session: text("CLAUDE_CODE_SESSION_ID"),
            project_dir: variable("CLAUDE_PROJECT_DIR").map(Into::into),
            home: variable("HOME").map(Into::into),
            claude_config_dir: variable("CLAUDE_CONFIG_DIR").map(Into::into),
            project,
            exe: std::env::current_exe().ok(),
            path_var: variable("PATH"),
            argv: std::env::args().skip(1).collect(),
            temp_dir: std::env::temp_dir(),
            backoff_scale: text(BACKOFF_SCALE_VAR),
            pinned_run: text(RUN_VAR),
            installation: Installation {
                binary_version: env!("CARGO_PKG_VERSION").to_owned(),
                plugin_root: variable("CLAUDE_PLUGIN_ROOT").map(Into::into),
                agent_variable: text("AI_AGENT"),
                audience: self_repair_engine::Audience::from_variable(
                    text("CLAUDE_CODE_SESSION_ATTENDED").as_deref(),
                ),
                launcher_fallback: variable("SELF_REPAIR_LAUNCHER_FALLBACK").map(Into::into),
                // The binary's `main` sets it: the build's commit is known there.
                binary_commit: None,
            },
            agent_marker: self_repair_audit::agent_marker(|name| text(name)),
            user: text("USER").or_else(|| text("USERNAME")),
        }
    }

    /// Where to look for the project: `--root`, else `CLAUDE_PROJECT_DIR`, else the cwd.
    pub fn start_dir(&self) -> &Path {
        self.project
            .as_deref()
            .or(self.project_dir.as_deref())
            .unwrap_or(&self.cwd)
    }

    /// The project with a `.self-repair/` at or above the start folder (its active run the
    /// pinned one, when `SELF_REPAIR_RUN` is set).
    pub fn find_project(&self) -> Result<Project, StoreError> {
        let project = match &self.project {
            Some(root) if !root.is_dir() => return Err(StoreError::NoSuchFolder(root.clone())),
            Some(root) => Project::at(root.clone()),
            None => Project::find(self.start_dir())
                .ok_or_else(|| StoreError::NoProject(self.start_dir().to_path_buf()))?,
        };
        Ok(self.pin(project))
    }

    /// The project at or above the start folder, or the folder a new one would be made in.
    pub fn project_or_new(&self) -> Project {
        self.pin(match &self.project {
            Some(root) => Project::at(root.clone()),
            None => Project::find_or_choose(self.start_dir()),
        })
    }

    /// `project`, its active run the one `SELF_REPAIR_RUN` pins (when set).
    pub(crate) fn pin(&self, project: Project) -> Project {
        project.pinned_to(self.pinned_run.clone())
    }
}

fn system_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
