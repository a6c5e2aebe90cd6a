//! A new run's initial state, from findings already fingerprinted, deduplicated and routed.

use crate::{Config, Intake, ItemKind, RunState, Tier, WorkItem, advance::advance};

/// A finding that goes to a triage agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoutedFinding {
    /// Index into the run's `findings.json`.
    pub finding: u32,
    pub route: String,
    pub tier: Tier,
    /// The analyzer and its rule (`ruff F401`): batches keep a rule's findings together.
    pub rule: String,
    /// Project-relative path: a batch fills up with findings of the same and nearby files.
    pub path: String,
    /// The analyzer has a safe fix for it (`Finding::has_safe_fix`).
    pub safe_fix: bool,
    /// Its analyzer tags it security (its default route is `security`): it stays under the
    /// two-look rule whatever route it was given ([`crate::WorkItem::two_looks`]).
    pub security: bool,
    /// The analyzer rates it at its top level (`error`: Bandit's HIGH severity); a security
    /// group's plan depth weighs it (`PlanDepth::of`).
    pub severe: bool,
}

/// The id of the `n`-th (1-based) triage item: `t-00042`. Written by hand because loading a
/// 100,000-item state builds every id, and `format!` was most of that cost.
pub fn triage_id(n: usize) -> String {
    triage_item_id(n).into()
}

/// [`triage_id`] as stored in a [`crate::WorkItem`]: inline, without a heap allocation. The
/// number has five digits (`t-00042`); larger runs simply get longer ids.
pub(crate) fn triage_item_id(n: usize) -> compact_str::CompactString {
    // Written on the stack: a batch's members are expanded at every stop that reads them.
    let mut id = compact_str::CompactString::const_new("t-");
    id.push_str(crate::member_list::decimal(n as u64, 5, &mut [0; 20]));
    id
}

/// The ids of the triage items of a run being loaded, one per item. The five-digit ones are
/// written into one buffer by counting, checked as UTF-8 once and sliced: a fraction of the cost
/// of formatting and checking each id on its own.
pub(crate) struct TriageIds {
    /// `t-00001t-00002…`, seven bytes an id.
    short: String,
}

impl TriageIds {
    const WIDTH: usize = 7;
    const SHORT: usize = 99_999;

    pub(crate) fn new(count: usize) -> TriageIds {
        let short = count.min(Self::SHORT);
        let mut text = Vec::with_capacity(short * Self::WIDTH);
        let mut id = *b"t-00000";
        for _ in 0..short {
            for digit in id.iter_mut().rev() {
                if *digit == b'9' {
                    *digit = b'0';
                } else {
                    *digit += 1;
                    break;
                }
            }
            text.extend_from_slice(&id);
        }
        // Only `t-` and ASCII digits were written.
        TriageIds {
            short: String::from_utf8(text).unwrap_or_default(),
        }
    }

    /// The id of the `n`-th (1-based) triage item.
    pub(crate) fn get(&self, n: usize) -> compact_str::CompactString {
        let at = n.checked_sub(1).map(|i| i * Self::WIDTH);
        match at.and_then(|at| self.short.get(at..at + Self::WIDTH)) {
            Some(id) => compact_str::CompactString::new(id),
            None => triage_item_id(n),
        }
    }
}

/// Appends `t-` and `n` with at least five digits.
pub(crate) fn push_triage_id(text: &mut Vec<u8>, n: usize) {
    text.extend_from_slice(b"t-");
    text.extend_from_slice(crate::member_list::decimal(n as u64, 5, &mut [0; 20]).as_bytes());
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
    let ids = TriageIds::new(routed.len());
    let items = routed
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let mut item = WorkItem::new(ids.get(i + 1), ItemKind::Triage, r.tier);
            item.finding = Some(r.finding);
            item.route = Some(r.route.as_str().into());
            if r.security && r.route != crate::verification::SECURITY {
                item.extra_mut().security = true;
            }
            item
        })
        .collect::<Vec<_>>();
    let triage_items = items.len() as u32;
    let mut state = RunState::new(run, created_at, session, config, intake, items);
    state.triage_items = triage_items;
    state.safe_fixes = routed
        .iter()
        .filter(|r| r.safe_fix)
        .map(|r| r.finding)
        .collect();
    state.severe = routed
        .iter()
        .filter(|r| r.severe)
        .map(|r| r.finding)
        .collect();
    let surveyed = crate::rule_survey::form_surveys(&mut state, routed);
    crate::triage_batch::form_batches(&mut state, routed, &surveyed);
    advance(&mut state);
    state
}

#[cfg(test)]
mod tests {
    use super::{TriageIds, triage_id};

    #[test]
    fn triage_ids_are_zero_padded_to_five_digits_and_grow_beyond() {
        assert_eq!(triage_id(1), "t-00001");
        assert_eq!(triage_id(42), "t-00042");
        assert_eq!(triage_id(99_999), "t-99999");
        assert_eq!(triage_id(123_456), "t-123456");
        assert_eq!(triage_id(0), "t-00000");
    }

    #[test]
    fn the_id_list_of_a_loaded_run_gives_the_same_ids() {
        let ids = TriageIds::new(100_002);
        for n in [
            0, 1, 9, 10, 99, 100, 4_242, 9_999, 10_000, 99_999, 100_000, 100_002, 100_003,
        ] {
            assert_eq!(ids.get(n), triage_id(n), "item {n}");
        }
        assert_eq!(TriageIds::new(0).get(1), "t-00001");
    }
}
