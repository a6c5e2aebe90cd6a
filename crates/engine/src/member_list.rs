//! A rule survey's members as `state.json` writes them: the numbers `N` of their triage items
//! `t-N` in one string, comma-separated, a run of consecutive ones as `first-last`
//! (`"1,38,75-77"`), instead of one quoted id each (100,000 of them at 100,000 findings, parsed
//! and written at every stop: reference/benchmarks.md). A list holding any other id is written
//! as the list of ids, as layout 1 wrote every list; both forms read back the same.

use serde::de::{self, SeqAccess, Visitor};
use serde::{Deserializer, Serialize, Serializer};

use crate::create_run::push_triage_id;

/// More members than any run holds: a string claiming more is damage, not a list to expand.
const MOST: u64 = 10_000_000;

/// The number `N` of `t-N` written as a triage id is written (five digits at least, no other
/// leading zero).
pub(crate) fn number(id: &str) -> Option<u64> {
    id_number(id, "t-")
}

/// The number of an id written as the run writes its numbered ids (`t-00042`, `tb-00007`):
/// `prefix`, then five digits at least with no other leading zero, so no two such ids share a
/// number; `None` for any other spelling.
pub fn id_number(id: &str, prefix: &str) -> Option<u64> {
    let digits = id.strip_prefix(prefix)?.as_bytes();
    let canonical =
        digits.len() == 5 || (digits.len() > 5 && digits.len() < 20 && digits[0] != b'0');
    if !canonical || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(
        digits
            .iter()
            .fold(0u64, |n, &b| n * 10 + u64::from(b - b'0')),
    )
}

/// The decimal digits of `n`, zero-padded to `width` (at most 20), written on the stack into
/// `buf`: every id and member number the state writes.
pub(crate) fn decimal(n: u64, width: usize, buf: &mut [u8; 20]) -> &str {
    buf.fill(b'0');
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
    let start = at.min(buf.len().saturating_sub(width));
    // Only ASCII digits were written.
    std::str::from_utf8(&buf[start..]).unwrap_or_default()
}

/// Appends `n` in decimal.
pub(crate) fn push_number(out: &mut Vec<u8>, n: u64) {
    out.extend_from_slice(decimal(n, 1, &mut [0; 20]).as_bytes());
}

/// The string form of `ids`, or `None` when one is not a triage id.
fn numbers(ids: &[String]) -> Option<String> {
    let numbers = ids
        .iter()
        .map(|id| number(id))
        .collect::<Option<Vec<u64>>>()?;
    let mut out = Vec::with_capacity(ids.len() * 6);
    write_ranges(&mut out, numbers);
    // Only ASCII digits, commas and dashes were written.
    String::from_utf8(out).ok()
}

/// Appends the string form of `numbers`: comma-separated, each run of consecutive numbers as
/// `first-last` (`1-8,11,13-14`). The one writer of the form, for survey members and for the
/// members of a batch in `items.batches` (reference/state-file.md).
pub(crate) fn write_ranges(out: &mut Vec<u8>, numbers: impl IntoIterator<Item = u64>) {
    let mut run: Option<(u64, u64)> = None;
    let mut first = true;
    let mut flush = |out: &mut Vec<u8>, (start, end): (u64, u64)| {
        if !first {
            out.push(b',');
        }
        first = false;
        push_number(out, start);
        if end > start {
            out.push(b'-');
            push_number(out, end);
        }
    };
    for n in numbers {
        run = match run {
            Some((start, end)) if end + 1 == n => Some((start, n)),
            Some(done) => {
                flush(out, done);
                Some((n, n))
            }
            None => Some((n, n)),
        };
    }
    if let Some(done) = run {
        flush(out, done);
    }
}

/// Calls `each(first, last)` for each comma-separated part of a string form (`N` or
/// `first-last`), in one pass over its bytes: a survey of 100,000 members is checked at every
/// load. `Err` on anything else: an empty part, a number of 20 digits or more, `last < first`,
/// zero, or more than [`MOST`] ids in all. The one reader of the form [`write_ranges`] writes.
pub(crate) fn ranges(text: &str, mut each: impl FnMut(u64, u64)) -> Result<(), String> {
    let bad = || format!("a member list reads `{text}`");
    if text.is_empty() {
        return Ok(());
    }
    let (mut total, mut number, mut digits, mut first) = (0u64, 0u64, 0u32, None::<u64>);
    let mut end_part = |number: u64, digits: u32, first: Option<u64>| -> Result<(), String> {
        let start = first.unwrap_or(number);
        if digits == 0 || start == 0 || number < start {
            return Err(bad());
        }
        total += number - start + 1;
        if total > MOST {
            return Err(bad());
        }
        each(start, number);
        Ok(())
    };
    for &b in text.as_bytes() {
        match b {
            b'0'..=b'9' if digits < 19 => {
                number = number * 10 + u64::from(b - b'0');
                digits += 1;
            }
            b'-' if first.is_none() && digits > 0 => {
                first = Some(number);
                (number, digits) = (0, 0);
            }
            b',' => {
                end_part(number, digits, first)?;
                (number, digits, first) = (0, 0, None);
            }
            _ => return Err(bad()),
        }
    }
    end_part(number, digits, first)
}

/// The ids a string form names.
fn read(text: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut id = Vec::with_capacity(24);
    ranges(text, |start, end| {
        for n in start..=end {
            id.clear();
            push_triage_id(&mut id, n as usize);
            // Only `t-` and ASCII digits were written.
            out.push(String::from_utf8(id.clone()).unwrap_or_default());
        }
    })?;
    Ok(out)
}

/// A triage batch's members as `items.batches.members` wrote them (`1-8`), kept as read and
/// expanded into their ids only when something asks for them: a wave stop at 100,000 findings
/// reads 12,500 batches and looks at the members of the few it folds or dispatches. Checked
/// when read ([`BatchMembers::read`]), so expanding cannot fail; a batch whose members change
/// drops the text ([`crate::WorkItem::extra_mut`]).
#[derive(Default)]
pub(crate) struct BatchMembers {
    /// The members column and this batch's span of it; `None`: the list is in `inputs`.
    text: Option<(std::sync::Arc<str>, std::ops::Range<u32>)>,
    ids: std::sync::OnceLock<Vec<compact_str::CompactString>>,
}

impl BatchMembers {
    /// No text: the list is in `inputs`.
    pub(crate) const fn empty() -> BatchMembers {
        BatchMembers {
            text: None,
            ids: std::sync::OnceLock::new(),
        }
    }

    /// The members `column[span]` names, checked: numbers of the `triage` items, no run
    /// longer than there are items.
    pub(crate) fn read(
        column: &std::sync::Arc<str>,
        span: std::ops::Range<usize>,
        triage: usize,
    ) -> Result<BatchMembers, String> {
        let text = column.get(span.clone()).unwrap_or_default();
        let bad = || format!("reads `{text}`");
        if text.is_empty() {
            return Err(bad());
        }
        // As expanding them would find: the first number past the items, or a run longer
        // than there are items (damage: never expanded).
        let (mut long, mut past) = (false, None);
        ranges(text, |start, end| {
            if long || past.is_some() {
                return;
            }
            if end - start >= triage as u64 {
                long = true;
            } else if end > triage as u64 {
                past = Some(start.max(triage as u64 + 1));
            }
        })
        .map_err(|_| bad())?;
        if long {
            return Err(bad());
        }
        if let Some(n) = past {
            return Err(format!("names t-{n}, past the {triage} triage items"));
        }
        let (Ok(start), Ok(end)) = (u32::try_from(span.start), u32::try_from(span.end)) else {
            return Err(bad());
        };
        Ok(BatchMembers {
            text: Some((column.clone(), start..end)),
            ids: std::sync::OnceLock::new(),
        })
    }

    /// The text as read, while the list is unexpanded or unchanged.
    pub(crate) fn text(&self) -> Option<&str> {
        let (column, span) = self.text.as_ref()?;
        column.get(span.start as usize..span.end as usize)
    }

    /// The ids, expanded on first use; `None` when the list lives in `inputs`.
    pub(crate) fn ids(&self) -> Option<&[compact_str::CompactString]> {
        let text = self.text()?;
        Some(self.ids.get_or_init(|| {
            let mut out = Vec::with_capacity(8);
            // Checked when read: cannot fail.
            let _ = ranges(text, |start, end| {
                out.extend((start..=end).map(|n| crate::create_run::triage_item_id(n as usize)));
            });
            out
        }))
    }

    /// The ids, the text dropped: the list is about to change.
    pub(crate) fn take(&mut self) -> Option<Vec<compact_str::CompactString>> {
        self.ids()?;
        self.text = None;
        self.ids.take()
    }
}

/// The numbers a checked string form names, in order, read as they are walked.
pub(crate) struct Numbers<'a> {
    text: &'a [u8],
    /// The run being walked: the next number and the run's last.
    run: Option<(u64, u64)>,
}

impl<'a> Numbers<'a> {
    /// The numbers of `text`, a form [`BatchMembers::read`] checked (anything else reads as
    /// fewer numbers, never a panic).
    pub(crate) fn of(text: &'a str) -> Numbers<'a> {
        Numbers {
            text: text.as_bytes(),
            run: None,
        }
    }

    /// The number at the start of the text, and the text after it.
    fn number(&mut self) -> u64 {
        let (mut n, mut used) = (0u64, 0);
        for &b in self.text {
            let digit = b.wrapping_sub(b'0');
            if digit > 9 {
                break;
            }
            n = n.saturating_mul(10).saturating_add(u64::from(digit));
            used += 1;
        }
        self.text = &self.text[used..];
        n
    }
}

impl Iterator for Numbers<'_> {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        if let Some((next, last)) = self.run {
            if next <= last {
                self.run = Some((next + 1, last));
                return Some(next);
            }
            self.run = None;
        }
        if let Some((b',', rest)) = self.text.split_first() {
            self.text = rest;
        }
        if self.text.is_empty() {
            return None;
        }
        let first = self.number();
        let last = match self.text.split_first() {
            Some((b'-', rest)) => {
                self.text = rest;
                self.number()
            }
            _ => first,
        };
        self.run = Some((first.saturating_add(1), last));
        Some(first)
    }
}

/// The index in `state.items` of each member of `item`: straight from a batch's numbers
/// while they are kept as read (no id is made), else each id looked up (`None`: no item).
pub(crate) fn member_indices<'a>(
    state: &'a crate::RunState,
    item: &'a crate::WorkItem,
) -> impl Iterator<Item = Option<usize>> + 'a {
    indices_of(state, item.members_text().map(Numbers::of), || {
        item.inputs()
    })
}

/// The index in `state.items` of each member of a list: off `numbers` while the list is kept as
/// its file's text (`t-N` is item N-1, `None` past the triage items), else each of the ids
/// `ids()` gives looked up (`None`: no item). `ids` is called only then: it may expand the list.
fn indices_of<'a, S: AsRef<str> + 'a>(
    state: &'a crate::RunState,
    numbers: Option<Numbers<'a>>,
    ids: impl FnOnce() -> &'a [S],
) -> impl Iterator<Item = Option<usize>> + 'a {
    let triage = state.triage_items as usize;
    let by_id = numbers
        .is_none()
        .then(|| ids().iter().map(|m| state.index_of(m.as_ref())));
    numbers
        .into_iter()
        .flatten()
        .map(move |n| {
            usize::try_from(n)
                .ok()?
                .checked_sub(1)
                .filter(|&i| i < triage)
        })
        .chain(by_id.into_iter().flatten())
}

impl Clone for BatchMembers {
    fn clone(&self) -> BatchMembers {
        BatchMembers {
            text: self.text.clone(),
            ids: std::sync::OnceLock::new(),
        }
    }
}

impl std::fmt::Debug for BatchMembers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("BatchMembers").field(&self.text()).finish()
    }
}

/// Checks a string form without expanding it.
fn count(text: &str) -> Result<(), String> {
    if plain_numbers(text.as_bytes()) {
        return Ok(());
    }
    ranges(text, |_, _| {})
}

/// Whether `text` is a form [`ranges`] reads without a run: numbers of 1 to 18 digits, none
/// starting with `0`, comma-separated, at most [`MOST`] of them, checked in two quick passes
/// (every byte, then every number): a run's surveys hold every finding, and their lists are
/// checked at every load. `false` sends the text to [`ranges`], which says what is wrong.
fn plain_numbers(text: &[u8]) -> bool {
    // A pass the compiler can widen: no byte but digits and commas.
    let only_digits_and_commas = text
        .iter()
        .fold(true, |ok, &b| ok & (b.wrapping_sub(b'0') < 10 || b == b','));
    if !only_digits_and_commas {
        return false;
    }
    let mut numbers = 0u64;
    for number in text.split(|&b| b == b',') {
        match number {
            [b'1'..=b'9', rest @ ..] if rest.len() < 18 => numbers += 1,
            _ => return false,
        }
    }
    numbers <= MOST
}

/// A survey's members (triage item ids), read from the file only when first used: a wave
/// stop of a run whose surveys are settled never looks at them, and writes back the text it
/// read (checked when read, so expanding it later cannot fail).
#[derive(Default)]
pub struct MemberList {
    ids: std::sync::OnceLock<Vec<String>>,
    /// The string form as read, until the list is changed.
    text: Option<Box<str>>,
}

impl MemberList {
    /// How many members it lists, counted off the file's text while it is kept as read.
    pub(crate) fn count(&self) -> usize {
        match self.numbers() {
            Some(numbers) => numbers.count(),
            None => self.ids().len(),
        }
    }

    /// The numbers `N` of its members `t-N`, read off the file's text, while it is kept as
    /// read; `None` for a list of ids.
    pub(crate) fn numbers(&self) -> Option<Numbers<'_>> {
        self.text.as_deref().map(Numbers::of)
    }

    /// The index in `state.items` of each member (`None`: no such item), read straight from
    /// the file's numbers while the list is unexpanded: a survey's release walks 100,000
    /// members at 100,000 findings, and expanding them made a `String` of each.
    pub(crate) fn indices<'a>(
        &'a self,
        state: &'a crate::RunState,
    ) -> impl Iterator<Item = Option<usize>> + 'a {
        indices_of(state, self.numbers(), || self.ids())
    }

    /// The ids, expanded from the file's text on first use.
    fn ids(&self) -> &Vec<String> {
        self.ids.get_or_init(|| {
            self.text
                .as_deref()
                .map(|text| read(text).unwrap_or_default())
                .unwrap_or_default()
        })
    }
}

impl From<Vec<String>> for MemberList {
    fn from(ids: Vec<String>) -> MemberList {
        MemberList {
            ids: std::sync::OnceLock::from(ids),
            text: None,
        }
    }
}

impl std::ops::Deref for MemberList {
    type Target = Vec<String>;

    fn deref(&self) -> &Vec<String> {
        self.ids()
    }
}

impl Clone for MemberList {
    fn clone(&self) -> MemberList {
        match &self.text {
            Some(text) => MemberList {
                ids: std::sync::OnceLock::new(),
                text: Some(text.clone()),
            },
            None => MemberList::from(self.ids().clone()),
        }
    }
}

impl PartialEq for MemberList {
    fn eq(&self, other: &MemberList) -> bool {
        self.ids() == other.ids()
    }
}

impl Eq for MemberList {}

impl<const N: usize> PartialEq<[&str; N]> for MemberList {
    fn eq(&self, other: &[&str; N]) -> bool {
        self.ids().as_slice() == other.as_slice()
    }
}

impl PartialEq<Vec<String>> for MemberList {
    fn eq(&self, other: &Vec<String>) -> bool {
        self.ids() == other
    }
}

impl<'a> IntoIterator for &'a MemberList {
    type Item = &'a String;
    type IntoIter = std::slice::Iter<'a, String>;

    fn into_iter(self) -> Self::IntoIter {
        self.ids().iter()
    }
}

impl FromIterator<String> for MemberList {
    fn from_iter<I: IntoIterator<Item = String>>(ids: I) -> MemberList {
        MemberList::from(ids.into_iter().collect::<Vec<String>>())
    }
}

impl std::fmt::Debug for MemberList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.ids().fmt(f)
    }
}

impl Serialize for MemberList {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if let Some(text) = &self.text {
            return crate::item_table::write_column(text, serializer);
        }
        let ids = self.ids();
        match numbers(ids).filter(|_| !ids.is_empty()) {
            Some(text) => crate::item_table::write_column(&text, serializer),
            None => ids.serialize(serializer),
        }
    }
}

impl<'de> serde::Deserialize<'de> for MemberList {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<MemberList, D::Error> {
        struct Ids;
        impl<'de> Visitor<'de> for Ids {
            type Value = MemberList;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a list of item ids, or their numbers in a string (\"1,38,75-77\")")
            }

            fn visit_str<E: de::Error>(self, text: &str) -> Result<MemberList, E> {
                count(text).map_err(E::custom)?;
                Ok(MemberList {
                    ids: std::sync::OnceLock::new(),
                    text: Some(text.into()),
                })
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<MemberList, A::Error> {
                let mut out = Vec::new();
                while let Some(id) = seq.next_element::<String>()? {
                    out.push(id);
                }
                Ok(MemberList::from(out))
            }
        }
        deserializer.deserialize_any(Ids)
    }
}

#[cfg(test)]
mod tests {

    #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
    struct Holder {
        members: super::MemberList,
    }

    fn ids(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    fn round_trip(list: &[&str]) -> String {
        let holder = Holder {
            members: ids(list).into(),
        };
        let text = serde_json::to_string(&holder).unwrap();
        assert_eq!(
            serde_json::from_str::<Holder>(&text).unwrap(),
            holder,
            "{text}"
        );
        text
    }

    #[test]
    fn triage_ids_are_written_as_numbers_and_runs_and_read_back() {
        assert_eq!(
            round_trip(&[
                "t-00001", "t-00038", "t-00075", "t-00076", "t-00077", "t-00002"
            ]),
            r#"{"members":"1,38,75-77,2"}"#
        );
        assert_eq!(
            round_trip(&["t-123456", "t-123457"]),
            r#"{"members":"123456-123457"}"#
        );
        assert_eq!(round_trip(&[]), r#"{"members":[]}"#);
    }

    #[test]
    fn a_list_with_any_other_id_is_written_as_ids() {
        assert_eq!(
            round_trip(&["t-00001", "vf-00002"]),
            r#"{"members":["t-00001","vf-00002"]}"#
        );
        // Not as a triage id is written: kept as given.
        assert_eq!(round_trip(&["t-1"]), r#"{"members":["t-1"]}"#);
        assert_eq!(round_trip(&["t-012345"]), r#"{"members":["t-012345"]}"#);
    }

    #[test]
    fn numbers_walk_a_list_as_ranges_reads_it() {
        for text in ["1-8", "9,11-13,20", "30,29,28", "7", "99998-100002,3"] {
            let mut read = Vec::new();
            super::ranges(text, |start, end| read.extend(start..=end)).unwrap();
            assert_eq!(
                super::Numbers::of(text).collect::<Vec<u64>>(),
                read,
                "{text}"
            );
        }
    }

    #[test]
    fn the_quick_check_accepts_only_what_ranges_accepts() {
        // Every string of up to 5 characters over the form's alphabet and a stray letter,
        // and long numbers at the edge of the quick check's 18 digits.
        let alphabet = ['0', '1', '9', ',', '-', 'x'];
        let mut texts = vec![String::new()];
        for _ in 0..5 {
            let longer: Vec<String> = texts
                .iter()
                .flat_map(|t| alphabet.iter().map(move |c| format!("{t}{c}")))
                .collect();
            texts.extend(longer);
        }
        texts.extend([
            "1".repeat(18),
            "1".repeat(19),
            format!("5,{}", "9".repeat(18)),
        ]);
        for text in &texts {
            assert_eq!(
                super::count(text).is_ok(),
                super::ranges(text, |_, _| {}).is_ok(),
                "{text:?}"
            );
        }
    }

    #[test]
    fn a_damaged_string_is_an_error_not_a_huge_list() {
        for text in ["1,,2", "0", "5-3", "1-99999999999", "x", "1-", "-1"] {
            let json = format!(r#"{{"members":"{text}"}}"#);
            let error = serde_json::from_str::<Holder>(&json)
                .unwrap_err()
                .to_string();
            assert!(error.contains("a member list reads"), "{text}: {error}");
        }
    }
}
