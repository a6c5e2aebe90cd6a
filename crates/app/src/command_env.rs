//! What a command knows of the world: the folder it runs in, the time, the Claude Code session.
//! The binary fills it from the process; tests fill it by hand, so outputs are reproducible.

use std::path::{Path, PathBuf};

use self_repair_store::{Project, StoreError};

/// The environment of one command.
#[derive(Debug, Clone)]
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
    /// An explicit project root (`--project`).
    pub project: Option<PathBuf>,
}

impl CommandEnv {
    /// Where to look for the project: `--project`, else `CLAUDE_PROJECT_DIR`, else the cwd.
    pub fn start_dir(&self) -> &Path {
        self.project
            .as_deref()
            .or(self.project_dir.as_deref())
            .unwrap_or(&self.cwd)
    }

    /// The project with a `.self-repair/` at or above the start folder.
    pub fn find_project(&self) -> Result<Project, StoreError> {
        if let Some(root) = &self.project {
            return Ok(Project::at(root.clone()));
        }
        Project::find(self.start_dir())
            .ok_or_else(|| StoreError::NoProject(self.start_dir().to_path_buf()))
    }
}
