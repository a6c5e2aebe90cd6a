//! Where an install goes: one project, or the user's home.

use serde::{Deserialize, Serialize};

/// Install target. Paths are relative to the project root (`Project`) or the home directory
/// (`User`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// `<project>/.claude/settings.json`, `<project>/.claude/agents`, `<project>/.claude/skills`.
    Project,
    /// `~/.claude/settings.json`, `~/.claude/agents`, `~/.claude/skills` (in `CLAUDE_CONFIG_DIR`
    /// instead when it is set: [`crate::InstallRoot`]).
    User,
}

impl Scope {
    /// The settings file, relative to the root or home.
    pub fn settings_rel_path(self) -> &'static str {
        ".claude/settings.json"
    }

    /// The install manifest, relative to the root or home.
    pub fn manifest_rel_path(self) -> &'static str {
        match self {
            Scope::Project => ".self-repair/install.json",
            Scope::User => ".claude/self-repair-install.json",
        }
    }
}
