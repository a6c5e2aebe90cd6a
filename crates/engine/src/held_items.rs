//! A set of items (those a live batch, survey or second look holds back) kept as one flag per
//! triage item, found by its index (`t-N` is item N-1), plus a hashed set for the few other ids
//! (second looks a batch holds). A hashed set of 100,000 triage ids rebuilt at every stop was
//! most of a wave stop's time at 100,000 findings (reference/benchmarks.md).

use std::collections::HashSet;

use compact_str::CompactString;

use crate::{RunState, WorkItem};

/// Item ids, a triage id held as a flag at its index. It borrows nothing of the state: a stop
/// reads the set of [`HeldItems::waiting`] before and after it dispatches.
#[derive(Debug, Default, Clone)]
pub(crate) struct HeldItems {
    triage: Vec<bool>,
    other: HashSet<CompactString>,
    /// The members of each batch [`HeldItems::waiting`] walked, by its index past the triage
    /// items (0: not walked).
    batch_sizes: Vec<u32>,
}

impl HeldItems {
    /// An empty set for the items of `state`.
    pub(crate) fn new(state: &RunState) -> HeldItems {
        HeldItems {
            triage: vec![false; state.triage_items as usize],
            other: HashSet::new(),
            batch_sizes: Vec::new(),
        }
    }

    /// The findings that wait for a live batch (they go out with it) or for a survey (its
    /// policy may still decide them): every member of a batch not ended, of an open survey,
    /// and those of a survey being checked that are not its spot checks. Dispatching an item
    /// changes none of it: no batch ends, no survey moves on.
    pub(crate) fn waiting(state: &RunState) -> HeldItems {
        let mut held = HeldItems::new(state);
        let first = state.triage_items as usize;
        held.batch_sizes = vec![0; state.items.len().saturating_sub(first)];
        for (index, batch) in crate::triage_batch::live_batches(state, false) {
            let members = held.extend_members(batch);
            held.batch_sizes[index - first] = u32::try_from(members).unwrap_or(u32::MAX);
        }
        for (survey, open) in crate::rule_survey::holding_surveys(state, false) {
            held.extend_survey(survey, !open);
        }
        held
    }

    /// Adds the members of `survey`, but its spot checks when `but_checks`; returns how many
    /// it added (a member listed twice, twice). Read off the survey's numbers while they are
    /// kept as read, no id made: a survey of 10,000 findings would make 10,000 strings.
    pub(crate) fn extend_survey(&mut self, survey: &crate::SurveyRecord, but_checks: bool) -> u32 {
        let mut added = 0u32;
        if let Some(numbers) = survey.members.numbers() {
            // A spot check is a member's id: its number, or no member's if not canonical. A
            // survey has a few: searched in order, not hashed.
            let mut checks: Vec<u64> = if but_checks {
                survey
                    .spot_checks
                    .iter()
                    .filter_map(|id| crate::member_list::number(id))
                    .collect()
            } else {
                Vec::new()
            };
            checks.sort_unstable();
            for number in numbers {
                if checks.is_empty() || checks.binary_search(&number).is_err() {
                    self.insert_number(number);
                    added += 1;
                }
            }
            return added;
        }
        let checks: std::collections::HashSet<&str> = if but_checks {
            survey.spot_checks.iter().map(String::as_str).collect()
        } else {
            std::collections::HashSet::new()
        };
        for member in survey
            .members
            .iter()
            .filter(|m| !checks.contains(m.as_str()))
        {
            self.insert(member);
            added += 1;
        }
        added
    }

    /// Adds the members of `batch`: read off its column's runs (`1-8`) while they are kept as
    /// read (`t-N` is item N-1: no id is made), else its ids. Returns how many it has.
    pub(crate) fn extend_members(&mut self, batch: &WorkItem) -> usize {
        let Some(text) = batch.members_text() else {
            self.extend(batch.inputs().iter().map(CompactString::as_str));
            return batch.inputs().len();
        };
        let mut members = 0;
        // Checked when read: cannot fail (and would hold what expanding it finds if it did).
        let _ = crate::member_list::ranges(text, |first, last| {
            (first..=last).for_each(|number| self.insert_number(number));
            members += last - first + 1;
        });
        usize::try_from(members).unwrap_or(usize::MAX)
    }

    /// How many members the batch at `index` of `state.items` has, if [`HeldItems::waiting`]
    /// walked it (a live batch): counted once a stop.
    pub(crate) fn batch_size(&self, index: usize) -> Option<u32> {
        let at = index.checked_sub(self.triage.len())?;
        self.batch_sizes.get(at).copied().filter(|&n| n > 0)
    }

    /// Adds the triage id `t-N` numbered `number`.
    fn insert_number(&mut self, number: u64) {
        let number = usize::try_from(number).unwrap_or(usize::MAX);
        match number
            .checked_sub(1)
            .filter(|&index| index < self.triage.len())
        {
            Some(index) => self.triage[index] = true,
            // Never past the items (checked when read), but held as its id would be.
            None => self.insert_other(&crate::triage_id(number)),
        }
    }

    /// Adds `id`.
    #[inline]
    pub(crate) fn insert(&mut self, id: &str) {
        match triage_index(self.triage.len(), id) {
            Some(index) => self.triage[index] = true,
            None => self.insert_other(id),
        }
    }

    /// Adds `id`, no triage id: out of [`HeldItems::insert`]'s line, which runs for every id
    /// of a list (a survey's members, a batch's changed since it was read).
    #[inline(never)]
    fn insert_other(&mut self, id: &str) {
        self.other.insert(id.into());
    }

    /// Adds every id of `ids`.
    pub(crate) fn extend<'a>(&mut self, ids: impl IntoIterator<Item = &'a str>) {
        // `for_each`, not a `for` loop: a chain of filters and `flat_map`s folds without
        // checking at each id which stage it is in.
        ids.into_iter().for_each(|id| self.insert(id));
    }

    /// Whether the item at `index` of `state.items`, whose id is `id`, is in the set.
    #[expect(
        clippy::inline_always,
        reason = "left to itself the compiler calls it once per item of a scan: 2 M \
                  instructions of a wave stop at 100,000 findings (reference/benchmarks.md)"
    )]
    #[inline(always)]
    pub(crate) fn holds(&self, index: usize, id: &(impl AsRef<str> + ?Sized)) -> bool {
        match self.triage.get(index) {
            Some(&held) => held,
            // The id read only here: a scan asks about every triage item.
            None => !self.other.is_empty() && self.other.contains(id.as_ref()),
        }
    }
}

/// The index of the triage item `id` of a run of `triage_items`, read off the id: `None` for
/// any other id. `t-N`, written as the run writes triage ids ([`crate::member_list::number`]),
/// is item N-1; an id spelled otherwise names no triage item. No `RunState::index_of` lookup.
#[inline]
fn triage_index(triage_items: usize, id: &str) -> Option<usize> {
    let n = usize::try_from(crate::member_list::number(id)?).ok()?;
    n.checked_sub(1).filter(|&index| index < triage_items)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ItemKind;

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
    fn a_survey_read_as_numbers_holds_and_counts_what_its_ids_do() {
        let state = run_of(40);
        let ids: Vec<String> = [1, 2, 3, 7, 9, 10, 11, 12, 38]
            .iter()
            .map(|&n| crate::triage_id(n))
            .collect();
        let as_ids = crate::SurveyRecord {
            id: "rs-00001".into(),
            rule: "ruff D205".into(),
            members: ids.clone().into(),
            sample: Vec::new(),
            spot_checks: vec!["t-00003".into(), "t-00011".into(), "t-1".into()],
            stage: crate::SurveyStage::Checking,
            answer: None,
            dropped: None,
        };
        // The same survey as the file writes it: its members a string of numbers.
        let text = serde_json::to_string(&as_ids).unwrap();
        assert!(text.contains(r#""members":"1-3,7,9-12,38""#), "{text}");
        let as_numbers: crate::SurveyRecord = serde_json::from_str(&text).unwrap();
        assert!(as_numbers.members.numbers().is_some());
        for but_checks in [false, true] {
            let (mut by_ids, mut by_numbers) = (HeldItems::new(&state), HeldItems::new(&state));
            let added = by_ids.extend_survey(&as_ids, but_checks);
            assert_eq!(by_numbers.extend_survey(&as_numbers, but_checks), added);
            assert_eq!(added, if but_checks { 7 } else { 9 });
            for (index, item) in state.items.iter().enumerate() {
                assert_eq!(
                    by_numbers.holds(index, &item.id),
                    by_ids.holds(index, &item.id),
                    "{} (but_checks: {but_checks})",
                    item.id
                );
            }
        }
        assert_eq!(as_numbers.members.count(), 9);
    }

    #[test]
    fn triage_ids_and_other_ids_are_held_alike() {
        let state = run_of(3);
        let mut held = HeldItems::new(&state);
        assert!((0..5).all(|index| !held.holds(index, "t-00002")));
        held.extend(["t-00002", "vf-00001", "t-00002"]);
        assert!(held.holds(1, "t-00002"));
        assert!(!held.holds(0, "t-00001") && !held.holds(2, "t-00003"));
        assert!(
            held.holds(3, "vf-00001"),
            "an id past the triage items: by the set"
        );
        assert!(!held.holds(4, "vf-00002"));
    }

    #[test]
    fn a_triage_index_read_off_the_id_is_the_one_index_of_finds() {
        let state = run_of(12);
        for (index, item) in state.items.iter().enumerate() {
            let read = triage_index(12, &item.id);
            assert_eq!(read, state.index_of(&item.id), "{}", item.id);
            assert_eq!(read.is_some(), index < 12, "{}", item.id);
        }
        // Spelled otherwise, past the run, or no triage id: no triage item, as `index_of` says.
        for id in [
            "t-1", "t-0001", "t-000001", "t-00000", "t-0000a", "t-", "t", "", "t-00013", "t-99999",
            "tb-00001", "x-00001", "t-00001 ", "t--0001", "t-0000:", "t-0000/",
        ] {
            assert_eq!(triage_index(12, id), None, "{id}");
            assert!(state.index_of(id).is_none_or(|i| i >= 12), "{id}");
        }
        // Past five digits: no leading zero.
        assert_eq!(triage_index(200_000, "t-100000"), Some(99_999));
        assert_eq!(triage_index(200_000, "t-0100000"), None);
        assert_eq!(
            triage_index(usize::MAX, "t-4294967295"),
            Some(4_294_967_294)
        );
        assert_eq!(triage_index(usize::MAX, "t-10000:"), None);
    }

    #[test]
    fn a_member_number_past_the_triage_items_is_held_as_its_id_would_be() {
        // Never in a list read from the file (checked when read), but never a panic either.
        let state = run_of(3);
        let mut held = HeldItems::new(&state);
        held.insert_number(4);
        held.insert_number(0);
        assert!((0..3).all(|index| !held.holds(index, "t-00004")));
        assert!(held.holds(3, "t-00004") && held.holds(4, "t-00000"));
        assert!(!held.holds(3, "t-00003"));
    }

    #[test]
    fn batch_members_read_from_the_file_are_held_and_counted_as_their_ids() {
        // Two rules over three files: batches of runs (`1-8`) and of lists (`9,11,13`).
        let findings: Vec<(&str, &str, &str)> = (0..30)
            .map(|i| {
                let rule = if i % 3 == 0 { "ruff E711" } else { "ruff F401" };
                ("generic", rule, ["a.py", "b.py", "c.py"][i % 3])
            })
            .collect();
        let config = crate::Config {
            survey_min: 0,
            ..crate::Config::default()
        };
        let mut state = crate::test_support::run_of_findings("r", &findings, config);
        let first = state.triage_items as usize;
        state.items[first].status = crate::ItemStatus::Done;
        state.items[first + 1].status = crate::ItemStatus::Dispatched;
        let read: RunState = serde_json::from_str(&serde_json::to_string(&state).unwrap()).unwrap();
        let mut expanded = read.clone();
        for item in &mut expanded.items {
            item.extra_mut();
        }
        let waiting = HeldItems::waiting(&read);
        let batches = read
            .items
            .iter()
            .zip(&expanded.items)
            .enumerate()
            .skip(first);
        let mut as_read = 0;
        for (index, (batch, ids)) in batches.filter(|(_, (b, _))| b.kind == ItemKind::TriageBatch) {
            as_read += usize::from(batch.members_text().is_some());
            assert_eq!(ids.members_text(), None);
            let count = crate::triage_batch::member_count(batch);
            assert_eq!(count, ids.inputs().len(), "{}", batch.id);
            assert!(!crate::holds_second_looks(batch));
            // Counted by the walk for the live ones, the ended one not walked.
            let walked = (index != first).then_some(count as u32);
            assert_eq!(waiting.batch_size(index), walked, "{}", batch.id);
        }
        assert!(
            as_read >= 3,
            "batches read with their members as text: {as_read}"
        );
        for in_flight in [false, true] {
            let (mut held, mut by_ids) = (HeldItems::new(&read), HeldItems::new(&read));
            for (_, batch) in crate::triage_batch::live_batches(&read, in_flight) {
                held.extend_members(batch);
            }
            by_ids.extend(crate::triage_batch::batch_members(&expanded, in_flight));
            for (index, item) in read.items.iter().enumerate() {
                assert_eq!(
                    held.holds(index, &item.id),
                    by_ids.holds(index, &item.id),
                    "{} (in flight only: {in_flight})",
                    item.id
                );
            }
        }
    }

    #[test]
    fn an_id_that_is_no_item_of_the_run_is_held_by_the_set() {
        let state = run_of(2);
        let mut held = HeldItems::new(&state);
        held.insert("t-00009");
        assert!(!held.holds(0, "t-00001") && !held.holds(1, "t-00002"));
        assert!(held.holds(5, "t-00009"));
    }
}
