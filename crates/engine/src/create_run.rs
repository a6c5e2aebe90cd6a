//! A new run's initial state, from findings already fingerprinted, deduplicated and routed.

use crate::{
    Config, Intake, ItemKind, Phase, RunState, RunStatus, STATE_SCHEMA_VERSION, Tier, WorkItem,
    advance::advance,
};

/// A finding that goes to a triage agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoutedFinding {
    /// Index into the run's `findings.json`.
    pub finding: u32,
    pub route: String,
    pub tier: Tier,
}

/// Width of the number in triage ids (`t-00042`); larger runs simply get longer ids.
const TRIAGE_ID_WIDTH: usize = 5;

/// The id of the `n`-th (1-based) triage item.
pub fn triage_id(n: usize) -> String {
    format!("t-{n:0TRIAGE_ID_WIDTH$}")
}

/// Builds the initial state and advances past empty phases, so a run whose findings were all
/// decided without an agent goes straight to finalize.
pub fn create_run(
    run: String,
    created_at: u64,
    config: Config,
    intake: Intake,
    session: Option<String>,
    routed: &[RoutedFinding],
) -> RunState {
    let items = routed
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let mut item = WorkItem::new(triage_id(i + 1), ItemKind::Triage, r.tier);
            item.finding = Some(r.finding);
            item.route = Some(r.route.clone());
            item
        })
        .collect::<Vec<_>>();
    let mut state = RunState {
        schema_version: STATE_SCHEMA_VERSION,
        run,
        created_at,
        status: RunStatus::Active,
        pause: None,
        phase: Phase::Triage,
        session,
        config,
        intake,
        progress: 0,
        last_block_progress: None,
        stale_blocks: 0,
        blocks: 0,
        stalled_at: None,
        streak: crate::FailureStreak::default(),
        announced: false,
        triage_items: items.len() as u32,
        proposals: Vec::new(),
        groups: Vec::new(),
        tasks: Vec::new(),
        journal_offset: 0,
        items,
    };
    advance(&mut state);
    state
}
