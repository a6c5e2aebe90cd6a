//! What a Stop hook's input says, reduced to what either pipeline decides on.

use std::path::PathBuf;

use self_repair_engine::Audience;

/// One stop of a session, as the frame and both pipelines read it.
#[derive(Debug, Clone, Default)]
pub struct StopInput {
    /// The session that stopped.
    pub session: String,
    /// Descriptions of the background tasks the client lists as running; `None` when it sent
    /// no `background_tasks` (older clients: leases decide then).
    pub running: Option<Vec<String>>,
    /// The main session's transcript: the `Agent` calls it really made, and what it cost.
    pub transcript: Option<PathBuf>,
    /// The first stop of a turn (`stop_hook_active: false`): someone asked the session to go on.
    pub new_turn: bool,
    /// The text of the session's last message.
    pub last_message: Option<String>,
    /// Whether a user watches the terminal (`CLAUDE_CODE_SESSION_ATTENDED`).
    pub audience: Audience,
    /// Unix seconds.
    pub now: u64,
}

impl StopInput {
    /// Item ids named in the running tasks' descriptions (`triage t-00042` names `t-00042`).
    #[must_use]
    pub fn running_items(&self) -> Option<Vec<String>> {
        let running = self.running.as_ref()?;
        Some(
            running
                .iter()
                .flat_map(|d| d.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')))
                .filter(|token| {
                    self_repair_store::is_safe_item_id(token)
                        && self_repair_engine::ItemKind::of_id(token).is_some()
                })
                .map(str::to_owned)
                .collect(),
        )
    }

    /// Whether a running task's description names `item` (`fix-3`).
    #[must_use]
    pub fn names_running(&self, item: &str) -> bool {
        self.running.as_deref().unwrap_or(&[]).iter().any(|d| {
            d.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                .any(|token| token == item)
        })
    }
}
