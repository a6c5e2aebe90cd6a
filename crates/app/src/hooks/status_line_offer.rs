//! What `hook session-start` offers once per run: the one command that puts the run's progress
//! in Claude Code's status line, when a run is in progress and no settings file sets a
//! `statusLine` (a plugin cannot set it; `install --status-line` does).

use std::path::Path;

use self_repair_engine::RunStatus;

use crate::command_env::CommandEnv;
use crate::hooks::answer::active_run;
use crate::hooks::input::HookInput;
use crate::run::handle::RunHandle;

/// The file in the run folder that says the offer was made.
const OFFERED: &str = "status-line-offered";

/// The offer.
pub const STATUS_LINE_OFFER: &str = "self-repair: to see the run's progress under the prompt, \
run `self-repair install --status-line` (`self-repair uninstall --status-line` undoes it).";

/// The offer, the first time a session starts (not after a compaction) while the project's run
/// is in progress and neither the user's nor the project's settings set a `statusLine`.
pub fn status_line_offer(env: &CommandEnv, stdin: &[u8]) -> Option<&'static str> {
    let input = HookInput::parse(stdin).ok()?;
    if input.source.as_deref() == Some("compact") {
        return None;
    }
    let (project, dir) = active_run(env, &input)?;
    let marker = dir.path().join(OFFERED);
    if marker.exists() {
        return None;
    }
    let RunHandle::Triage(dir) = RunHandle::open(dir) else {
        return None;
    };
    let state = dir.load_state().ok()?;
    if matches!(state.status, RunStatus::Complete | RunStatus::Cancelled) {
        return None;
    }
    let root = project.root();
    let mut settings = vec![
        root.join(".claude/settings.json"),
        root.join(".claude/settings.local.json"),
    ];
    // The user's: `~/.claude/settings.json`, or `$CLAUDE_CONFIG_DIR/settings.json` when set.
    settings.extend(
        env.user_install_root()
            .map(|user| user.resolve(".claude/settings.json")),
    );
    if settings.iter().any(|path| sets_status_line(path)) {
        return None;
    }
    // Said once per run: a failed write only means it may be said again.
    let _ = std::fs::write(marker, b"");
    Some(STATUS_LINE_OFFER)
}

/// Whether the settings file at `path` has a `statusLine` (an unreadable file counts as
/// having one: nothing is offered on a guess).
fn sets_status_line(path: &Path) -> bool {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice::<serde_json::Value>(&bytes)
            .map_or(true, |value| value.get("statusLine").is_some()),
        Err(e) => e.kind() != std::io::ErrorKind::NotFound,
    }
}
