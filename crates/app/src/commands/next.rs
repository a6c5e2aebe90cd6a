//! `self-repair next`: the instruction the Stop hook would give now, without changing anything.

use clap::Args;
use self_repair_engine::{Decision, RunStatus, StopEvent, decide_stop};
use self_repair_store::RunDir;
use serde::Serialize;

use crate::app_error::AppError;
use crate::command_env::CommandEnv;
use crate::commands::RunArg;
use crate::output::Output;
use crate::run::load::load_folded;

/// `self-repair next`.
#[derive(Debug, Args)]
pub struct NextArgs {
    #[command(flatten)]
    pub run: RunArg,
    /// Print the preview as JSON.
    #[arg(long)]
    pub json: bool,
}

/// What the Stop hook would do at the next stop (`next --json`).
#[derive(Debug, Serialize)]
pub struct NextPreview {
    pub schema_version: u32,
    pub run: String,
    pub phase: String,
    /// `block` (agents to launch), `finalize`, or `allow`.
    pub decision: &'static str,
    /// The agents the block would launch (0 otherwise).
    pub agents: usize,
    /// The text `next` prints.
    pub text: String,
}

/// Runs `next`.
pub fn run(env: &CommandEnv, args: &NextArgs) -> Result<Output, AppError> {
    let (_, dir) = args.run.open_triage(env, "`next`")?;
    let preview = next_preview(&dir, env.now)?;
    Output::json_or(args.json, &preview, |p| p.text.clone())
}

/// The first line of `next`'s dispatch preview: a model reading it must not launch from it.
pub const NEXT_PREVIEW: &str = "PREVIEW ONLY, changes nothing: this is what the Stop hook would \
     dispatch at the next stop. Do not launch these agents yourself; end your turn and let the \
     hook dispatch them.";

/// `self-repair next`: the dispatch the hook would give now, without changing anything.
pub fn next(dir: &RunDir, now: u64) -> Result<String, AppError> {
    next_preview(dir, now).map(|preview| preview.text)
}

/// The dispatch the hook would give now, and what kind of answer it is.
pub fn next_preview(dir: &RunDir, now: u64) -> Result<NextPreview, AppError> {
    let mut state = load_folded(dir, false)?;
    let session = state
        .session
        .clone()
        .unwrap_or_else(|| "(the next session to stop)".to_owned());
    let stop = StopEvent {
        session: Some(session),
        running: None,
        launched: Vec::new(),
        unnotified: Vec::new(),
        notified: 0,
        provider_refused: Vec::new(),
        last_message: None,
        new_turn: false,
        // What the hook would see: the spend so far, for a run with a budget.
        spend: crate::run::cost::ledger_spend(dir).filter(|_| state.config.budget_usd.is_some()),
        ..StopEvent::default()
    };
    let outcome = decide_stop(&mut state, &stop, now);
    let (decision, agents) = match &outcome.decision {
        Decision::Block(dispatch) => ("block", dispatch.launch.len()),
        Decision::Finalize => ("finalize", 0),
        Decision::Allow { .. } => ("allow", 0),
    };
    let text = preview_text(&state, outcome.decision);
    Ok(NextPreview {
        schema_version: 1,
        run: state.run.clone(),
        phase: state.phase.as_str().to_owned(),
        decision,
        agents,
        text,
    })
}

/// The text `next` prints for `decision`.
fn preview_text(state: &self_repair_engine::RunState, decision: Decision) -> String {
    match decision {
        Decision::Block(dispatch) => format!(
            "{NEXT_PREVIEW}\nphase {}: {} agent(s)\n{}",
            state.phase.as_str(),
            dispatch.launch.len(),
            dispatch.render_reason()
        ),
        Decision::Finalize => {
            "the next stop finalizes the run: tasks and reports are written".to_owned()
        }
        Decision::Allow { message: Some(m) } => format!("the next stop is allowed: {m}"),
        Decision::Allow { message: None } => match state.status {
            RunStatus::Active if state.in_flight() > 0 => format!(
                "nothing new to dispatch: {} agent(s) still running; their notifications wake the session",
                state.in_flight()
            ),
            _ if crate::run::confirm::waits_for_go(state) => {
                "the run is waiting for your go on its estimate: nothing is dispatched until \
                 `self-repair resume --confirm` (`self-repair status` shows the estimate)"
                    .to_owned()
            }
            _ => format!(
                "the next stop is allowed silently (run {})",
                state.shown_status()
            ),
        },
    }
}
