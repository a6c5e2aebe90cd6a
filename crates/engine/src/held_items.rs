//! A set of items (those a live batch, survey or second look holds back) kept as one flag per
//! triage item, found by its index (`t-N` is item N-1), plus a hashed set for the few other ids
//! (second looks a batch holds). A hashed set of 100,000 triage ids rebuilt at every stop was
//! most of a wave stop's time at 100,000 findings (reference/benchmarks.md).

use std::collections::HashSet;

use crate::RunState;

/// Item ids, a triage id held as a flag at its index.
#[derive(Debug, Default)]
pub(crate) struct HeldItems<'a> {
    triage: Vec<bool>,
    other: HashSet<&'a str>,
    len: usize,
}

impl<'a> HeldItems<'a> {
    /// An empty set for the items of `state`.
    pub(crate) fn new(state: &RunState) -> HeldItems<'a> {
        HeldItems {
            triage: vec![false; state.triage_items as usize],
            other: HashSet::new(),
            len: 0,
        }
    }

    /// Adds `id`.
    pub(crate) fn insert(&mut self, state: &RunState, id: &'a str) {
        let added = match triage_index(state, id) {
            Some(index) => !std::mem::replace(&mut self.triage[index], true),
            None => self.other.insert(id),
        };
        self.len += usize::from(added);
    }

    /// Adds every id of `ids`.
    pub(crate) fn extend(&mut self, state: &RunState, ids: impl IntoIterator<Item = &'a str>) {
        for id in ids {
            self.insert(state, id);
        }
    }

    /// Whether the item at `index` of `state.items`, whose id is `id`, is in the set.
    pub(crate) fn holds(&self, index: usize, id: &str) -> bool {
        match self.triage.get(index) {
            Some(&held) => held,
            None => !self.other.is_empty() && self.other.contains(id),
        }
    }

    /// Whether the set is empty.
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The index of the triage item `id`, without a scan: `None` for any other id.
fn triage_index(state: &RunState, id: &str) -> Option<usize> {
    if id.starts_with("t-") {
        state.index_of(id)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run of `n` findings, one triage item each.
    fn run_of(n: u32) -> RunState {
        crate::test_support::per_finding_run(
            "r",
            n,
            "ruff F401",
            |_| "generic",
            |_| false,
            crate::Config::default(),
        )
    }

    #[test]
    fn triage_ids_and_other_ids_are_held_alike() {
        let state = run_of(3);
        let mut held = HeldItems::new(&state);
        assert!(held.is_empty());
        held.extend(&state, ["t-00002", "vf-00001", "t-00002"]);
        assert!(!held.is_empty());
        assert!(held.holds(1, "t-00002"));
        assert!(!held.holds(0, "t-00001") && !held.holds(2, "t-00003"));
        assert!(
            held.holds(3, "vf-00001"),
            "an id past the triage items: by the set"
        );
        assert!(!held.holds(4, "vf-00002"));
        assert_eq!(held.len, 2, "an id added twice counts once");
    }

    #[test]
    fn an_id_that_is_no_item_of_the_run_is_held_by_the_set() {
        let state = run_of(2);
        let mut held = HeldItems::new(&state);
        held.insert(&state, "t-00009");
        assert!(!held.holds(0, "t-00001") && !held.holds(1, "t-00002"));
        assert!(held.holds(5, "t-00009"));
    }
}
