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

/// The id of the `n`-th (1-based) triage item: `t-00042`. Written by hand because loading a
/// 100,000-item state builds every id, and `format!` was most of that cost.
pub fn triage_id(n: usize) -> String {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = n;
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    let len = digits.len() - at;
    let pad = TRIAGE_ID_WIDTH.saturating_sub(len);
    let mut id = Vec::with_capacity(2 + pad + len);
    id.extend_from_slice(b"t-");
    id.resize(2 + pad, b'0');
    id.extend_from_slice(&digits[at..]);
    // Only ASCII digits and `t-` were written.
    String::from_utf8(id).unwrap_or_default()
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
            item.route = Some(r.route.as_str().into());
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

#[cfg(test)]
mod tests {
    use super::triage_id;

    #[test]
    fn triage_ids_are_zero_padded_to_five_digits_and_grow_beyond() {
        assert_eq!(triage_id(1), "t-00001");
        assert_eq!(triage_id(42), "t-00042");
        assert_eq!(triage_id(99_999), "t-99999");
        assert_eq!(triage_id(123_456), "t-123456");
        assert_eq!(triage_id(0), "t-00000");
    }
}
