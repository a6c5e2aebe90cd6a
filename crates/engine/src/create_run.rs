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
    triage_item_id(n).into()
}

/// [`triage_id`] as stored in a [`crate::WorkItem`]: inline, without a heap allocation.
pub(crate) fn triage_item_id(n: usize) -> compact_str::CompactString {
    // `t-` + at least TRIAGE_ID_WIDTH digits, written backwards into a stack buffer.
    let mut buf = [b'0'; 24];
    let mut at = buf.len();
    let mut rest = n;
    loop {
        at -= 1;
        buf[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    at = at.min(buf.len() - TRIAGE_ID_WIDTH) - 2;
    buf[at] = b't';
    buf[at + 1] = b'-';
    // Only `t-` and ASCII digits were written.
    compact_str::CompactString::from_utf8(&buf[at..]).unwrap_or_default()
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
            let mut item = WorkItem::new(triage_item_id(i + 1), ItemKind::Triage, r.tier);
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
