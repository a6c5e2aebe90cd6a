//! `self-repair show fix-N` for a repair run: the fixer's task for attempt N.

use self_repair_store::{Project, RunDir};
use serde::Serialize;

use crate::feedback::FIXER_AGENT;
use crate::repair_run::load_repair_state;
use crate::{FixTier, RepairError, render_fixer_task};

/// What `show --json` prints for a fix item.
#[derive(Debug, Clone, Serialize)]
pub struct FixShown {
    pub item: String,
    pub kind: &'static str,
    pub agent: String,
    pub model: String,
    pub status: String,
    pub prompt: String,
}

/// Renders the task of `fix-N` in the repair run `dir`.
pub fn show_fix(project: &Project, dir: &RunDir, item: &str) -> Result<FixShown, RepairError> {
    let state = load_repair_state(dir)?;
    let not_found = || {
        RepairError::NotFound(format!(
            "no item `{item}` in repair run {}; its items are fix-1 to fix-{} (see `self-repair status`)",
            state.run, state.spec.max_attempts
        ))
    };
    let n: u32 = item
        .strip_prefix("fix-")
        .and_then(|n| n.parse().ok())
        .filter(|n| (1..=state.spec.max_attempts).contains(n))
        .ok_or_else(not_found)?;
    let status = match state.attempt(n) {
        Some(a) if a.check.is_some() => "done",
        Some(_) => "dispatched",
        None => "pending",
    };
    let tier = state.spec.tier_of(n);
    Ok(FixShown {
        item: item.to_owned(),
        kind: "fix",
        agent: match tier {
            FixTier::Main => "main".to_owned(),
            FixTier::Agent(_) => format!("{}{FIXER_AGENT}", state.spec.agent_prefix),
        },
        model: tier.to_string(),
        status: status.to_owned(),
        prompt: render_fixer_task(&project.store_dir(), &state, n)?,
    })
}
