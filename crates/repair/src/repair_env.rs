//! What a repair command knows of the world; the app fills it from its `CommandEnv`.

use std::path::PathBuf;

/// The environment of one repair command.
#[derive(Debug, Clone)]
pub struct RepairEnv {
    /// Unix seconds.
    pub now: u64,
    /// `CLAUDE_CODE_SESSION_ID`: `check` binds the run to it.
    pub session: Option<String>,
    /// The user's home (to notice a user-scope `self-repair install`).
    pub home: Option<PathBuf>,
}
