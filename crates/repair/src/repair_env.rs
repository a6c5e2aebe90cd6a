//! What a repair command knows of the world; the app fills it from its `CommandEnv`.

use self_repair_install::InstallRoot;

/// The environment of one repair command.
#[derive(Debug, Clone)]
pub struct RepairEnv {
    /// Unix seconds.
    pub now: u64,
    /// `CLAUDE_CODE_SESSION_ID`: `check` binds the run to it.
    pub session: Option<String>,
    /// Where a user-scope `self-repair install` would be (`~/.claude` or `CLAUDE_CONFIG_DIR`),
    /// to notice one.
    pub user_install: Option<InstallRoot>,
}
