//! How `state.json` stores the items: triage items (there may be 100,000) as columns, one
//! character per item, plus details only for the few items that have any; the other items as
//! one object each. In memory every item is a plain [`WorkItem`]; only the file changes, so the
//! hook parses a 100,000-item run in milliseconds (reference/state-file.md).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::batch_table::BatchColumns;
use crate::create_run::TriageIds;
use crate::item::{is_false, is_zero, is_zero_u8, is_zero_u64};
use crate::{ItemExtra, ItemKind, ItemStatus, Tier, Verdict, WorkItem};

/// The triage items, column by column: character `i` of each string is item `t-(i+1)`. A
/// column read from the file borrows its text (at 100,000 findings, 700 KB not copied).
#[derive(Debug, Default, Serialize, Deserialize)]
struct TriageColumns<'a> {
    count: usize,
    /// `p` pending, `s` dispatched (sent), `d` done, `f` failed, `q` quarantined.
    #[serde(borrow, serialize_with = "write_column")]
    status: Cow<'a, str>,
    /// `h` haiku, `s` sonnet, `o` opus.
    #[serde(borrow, serialize_with = "write_column")]
    tier: Cow<'a, str>,
    /// `-` none, `r` real, `f` false positive, `i` intended, `d` duplicate, `u` unsure.
    #[serde(borrow, serialize_with = "write_column")]
    verdict: Cow<'a, str>,
    /// Failed attempts, one base-36 digit.
    #[serde(borrow, serialize_with = "write_column")]
    attempts: Cow<'a, str>,
    /// Times dispatched, one base-36 digit (capped at 35).
    #[serde(borrow, serialize_with = "write_column")]
    dispatches: Cow<'a, str>,
    /// Diagnosis route: a base-36 index into `routes`, `-` for none.
    #[serde(borrow, serialize_with = "write_column")]
    route: Cow<'a, str>,
    routes: Vec<String>,
    /// Finding index runs: `[first item, its finding, run length]`; within a run both advance.
    findings: Vec<[usize; 3]>,
    /// Distinct root causes, and each item's index into them: one base-36 character per item
    /// (`-`: none) while there are at most 36 causes, else `cause_index` (-1: none).
    causes: Vec<String>,
    #[serde(
        borrow,
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "write_column_or_none"
    )]
    cause: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    cause_index: Option<Vec<i64>>,
    /// The tier each item's latest launch really ran at (`h`, `s`, `o`; `-` unknown); absent
    /// while no item has one.
    #[serde(
        borrow,
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "write_column_or_none"
    )]
    ran: Option<Cow<'a, str>>,
    /// Everything else, only for items that have any, by item index.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    detail: BTreeMap<usize, TriageDetail>,
}

/// The fields of a triage item that are usually empty.
#[derive(Debug, Default, Serialize, Deserialize)]
struct TriageDetail {
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    batch: u64,
    #[serde(default, skip_serializing_if = "is_false")]
    seen_running: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    lease: Option<u64>,
    #[serde(default, skip_serializing_if = "is_zero")]
    reroutes: u32,
    #[serde(default, skip_serializing_if = "is_zero_u8")]
    resends: u8,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    last_rejection: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    errors: Vec<String>,
    /// Dispatches beyond the column's cap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    dispatches: Option<u32>,
    /// The finding a `duplicate` answer names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    duplicate_of: Option<String>,
    /// Under the security two-look rule off the security route ([`WorkItem::two_looks`]).
    #[serde(default, skip_serializing_if = "is_false")]
    security: bool,
}

/// The file form of the items, as read.
#[derive(Debug, Default, Deserialize)]
struct ItemTable<'a> {
    #[serde(borrow)]
    triage: TriageColumns<'a>,
    /// The triage batches as columns (absent in a state of layout 1, and when there are none).
    #[serde(default)]
    batches: Option<BatchColumns>,
    /// Every other item, in order, one object each.
    work: Vec<WorkItem>,
}

/// The file form of the items, as written: the other items are borrowed, not copied.
#[derive(Serialize)]
struct ItemTableOut<'a> {
    triage: TriageColumns<'static>,
    #[serde(skip_serializing_if = "Option::is_none")]
    batches: Option<BatchColumns>,
    work: Vec<&'a WorkItem>,
}

// Each table lists every value in declaration order, so `table[value as usize]` is its entry
// (a test checks it).
pub(crate) const STATUS: [(ItemStatus, u8); 5] = [
    (ItemStatus::Pending, b'p'),
    (ItemStatus::Dispatched, b's'),
    (ItemStatus::Done, b'd'),
    (ItemStatus::Failed, b'f'),
    (ItemStatus::Quarantined, b'q'),
];
pub(crate) const TIER: [(Tier, u8); 3] = [
    (Tier::Haiku, b'h'),
    (Tier::Sonnet, b's'),
    (Tier::Opus, b'o'),
];
const VERDICT: [(Verdict, u8); 5] = [
    (Verdict::Real, b'r'),
    (Verdict::FalsePositive, b'f'),
    (Verdict::Intended, b'i'),
    (Verdict::Duplicate, b'd'),
    (Verdict::Unsure, b'u'),
];

/// What each byte stands for in a column of `table`.
pub(crate) fn reader<T: Copy>(table: &[(T, u8)]) -> [Option<T>; 256] {
    let mut read = [None; 256];
    for &(value, letter) in table {
        read[usize::from(letter)] = Some(value);
    }
    read
}

/// Base-36 digits, as a column of counts or indices shows them.
pub(crate) fn digit(n: u32) -> u8 {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    DIGITS[n.min(35) as usize]
}

pub(crate) fn digit_reader() -> [Option<u32>; 256] {
    let mut read = [None; 256];
    for n in 0..36 {
        read[usize::from(digit(n))] = Some(n);
    }
    read
}

/// Writes a column (letters, digits, `-`, `,`, spaces: nothing JSON escapes) as the string it
/// is, without `serde_json`'s escaping pass, which looked up every byte (about 8 instructions a
/// byte; a state of 100,000 findings writes 1.5 MB of columns at every stop). The text is
/// checked as a JSON string once, faster; anything that is not one plainly (a backslash, a
/// quote, a control character) is written the usual way, so the bytes are the same.
pub(crate) fn write_column<S: Serializer>(text: &str, serializer: S) -> Result<S::Ok, S::Error> {
    if !text.contains('\\')
        && let Ok(raw) = serde_json::value::RawValue::from_string(format!("\"{text}\""))
    {
        return raw.serialize(serializer);
    }
    serializer.serialize_str(text)
}

/// [`write_column`] for a column that may be absent (`skip_serializing_if` leaves out `None`).
#[expect(clippy::ref_option, reason = "serde passes a reference to the field")]
pub(crate) fn write_column_or_none<S: Serializer, T: AsRef<str>>(
    text: &Option<T>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match text {
        Some(text) => write_column(text.as_ref(), serializer),
        None => serializer.serialize_none(),
    }
}

/// A column of ASCII letters as the string the file holds.
pub(crate) fn column(bytes: Vec<u8>) -> String {
    // Every byte pushed is an ASCII letter or digit.
    String::from_utf8(bytes).unwrap_or_default()
}

/// [`column`], as a triage column holds it.
fn owned_column(bytes: Vec<u8>) -> Cow<'static, str> {
    Cow::Owned(column(bytes))
}

fn encode(items: &[WorkItem]) -> ItemTableOut<'_> {
    let count = items
        .iter()
        .take_while(|i| i.kind == ItemKind::Triage)
        .count();
    let (triage, work) = items.split_at(count);
    let mut t = TriageColumns {
        count,
        ..TriageColumns::default()
    };
    let [
        mut status,
        mut tier,
        mut verdict,
        mut attempts,
        mut dispatches,
        mut route,
    ] = std::array::from_fn(|_| Vec::with_capacity(count));
    // Consecutive items mostly share a route: the last one found is tried first, by pointer.
    let mut last_route: Option<(&Arc<str>, u8)> = None;
    let mut cause_index: std::collections::HashMap<&str, i64> = std::collections::HashMap::new();
    let mut last_cause: Option<(&Arc<str>, i64)> = None;
    let mut run: Option<[usize; 3]> = None;
    // Each item's cause as its letter, while there are at most 36 causes (else each index is
    // taken again below): a list of numbers for every item was 800 KB at 100,000 findings.
    let mut cause_letters: Vec<u8> = Vec::with_capacity(count);
    for (i, item) in triage.iter().enumerate() {
        status.push(STATUS[item.status as usize].1);
        tier.push(TIER[item.tier as usize].1);
        verdict.push(item.verdict.map_or(b'-', |v| VERDICT[v as usize].1));
        attempts.push(digit(item.attempts));
        dispatches.push(digit(item.dispatches));
        route.push(match &item.route {
            None => b'-',
            Some(r) => match last_route {
                Some((last, letter)) if Arc::ptr_eq(last, r) => letter,
                _ => {
                    let at = t.routes.iter().position(|x| **x == **r).unwrap_or_else(|| {
                        t.routes.push(r.to_string());
                        t.routes.len() - 1
                    });
                    let letter = digit(at as u32);
                    last_route = Some((r, letter));
                    letter
                }
            },
        });
        let finding = item.finding.map_or(usize::MAX, |f| f as usize);
        run = match run {
            Some([start, first, len]) if first.wrapping_add(len) == finding => {
                Some([start, first, len + 1])
            }
            previous => {
                if let Some(done) = previous {
                    t.findings.push(done);
                }
                Some([i, finding, 1])
            }
        };
        let cause = match &item.root_cause {
            None => -1,
            // The items a batch decided share its causes' texts: the last one found is tried
            // first, by pointer, before the text is hashed.
            Some(c) => match last_cause {
                Some((last, at)) if Arc::ptr_eq(last, c) => at,
                _ => {
                    let next = i64::try_from(t.causes.len()).unwrap_or(i64::MAX);
                    let at = *cause_index.entry(c).or_insert(next);
                    if at == next {
                        t.causes.push(c.to_string());
                    }
                    last_cause = Some((c, at));
                    at
                }
            },
        };
        cause_letters.push(u32::try_from(cause).map_or(b'-', digit));
        let plain = item.batch == 0
            && !item.seen_running
            && item.lease.is_none()
            && item.reroutes == 0
            && item.resends == 0
            && item.last_rejection().is_none()
            && item.errors().is_empty()
            && item.duplicate_of().is_none()
            && !item.security_sticky()
            && item.dispatches <= 35;
        if !plain {
            t.detail.insert(
                i,
                TriageDetail {
                    batch: item.batch,
                    seen_running: item.seen_running,
                    lease: item.lease,
                    reroutes: item.reroutes,
                    resends: item.resends,
                    last_rejection: item.last_rejection().map(str::to_owned),
                    errors: item.errors().to_vec(),
                    dispatches: (item.dispatches > 35).then_some(item.dispatches),
                    duplicate_of: item.duplicate_of().map(str::to_owned),
                    security: item.security_sticky(),
                },
            );
        }
    }
    if let Some(done) = run {
        t.findings.push(done);
    }
    if triage.iter().any(|i| i.ran.is_some()) {
        t.ran = Some(owned_column(
            triage
                .iter()
                .map(|i| i.ran.map_or(b'-', |r| TIER[r as usize].1))
                .collect(),
        ));
    }
    (t.status, t.tier) = (owned_column(status), owned_column(tier));
    (t.verdict, t.attempts) = (owned_column(verdict), owned_column(attempts));
    (t.dispatches, t.route) = (owned_column(dispatches), owned_column(route));
    if t.causes.len() <= 36 {
        t.cause = Some(owned_column(cause_letters));
    } else {
        t.cause_index = Some(
            triage
                .iter()
                .map(|item| match &item.root_cause {
                    None => -1,
                    Some(c) => cause_index.get(&**c).copied().unwrap_or(-1),
                })
                .collect(),
        );
    }
    let (batches, work) = crate::batch_table::encode(triage, work);
    ItemTableOut {
        triage: t,
        batches,
        work,
    }
}

fn decode(table: ItemTable) -> Result<Vec<WorkItem>, String> {
    let t = table.triage;
    let n = t.count;
    for (name, column) in [
        ("status", &t.status),
        ("tier", &t.tier),
        ("verdict", &t.verdict),
        ("attempts", &t.attempts),
        ("dispatches", &t.dispatches),
        ("route", &t.route),
    ] {
        if column.len() != n {
            return Err(format!(
                "items.triage.{name} has {} characters for {n} items",
                column.len()
            ));
        }
    }
    let bad =
        |column: &str, i: usize| format!("items.triage.{column}: bad character at item {}", i + 1);
    let base36 = digit_reader();
    // Each item's index into `causes`, `None` for no cause: a letter each, or a number each.
    let (cause_letters, cause_numbers): (&[u8], &[i64]) = match (&t.cause, &t.cause_index) {
        (Some(letters), None) if letters.len() == n => (letters.as_bytes(), &[]),
        (None, Some(indices)) if indices.len() == n => (&[], indices),
        _ => {
            return Err(format!(
                "items.triage.cause: expected one entry for each of {n} items"
            ));
        }
    };
    let cause_of = |i: usize| -> Result<Option<usize>, String> {
        match cause_letters.get(i) {
            Some(b'-') => Ok(None),
            Some(&c) => base36[usize::from(c)]
                .map(|c| Some(c as usize))
                .ok_or_else(|| bad("cause", i)),
            None => Ok(cause_numbers.get(i).and_then(|&c| usize::try_from(c).ok())),
        }
    };
    let (status, tier, verdict, attempts, dispatches, route) = (
        t.status.as_bytes(),
        t.tier.as_bytes(),
        t.verdict.as_bytes(),
        t.attempts.as_bytes(),
        t.dispatches.as_bytes(),
        t.route.as_bytes(),
    );
    let (read_status, read_tier, read_verdict) = (reader(&STATUS), reader(&TIER), reader(&VERDICT));
    // Shared: every item of a route or a cause points at the same text.
    let routes: Vec<Arc<str>> = t.routes.iter().map(|r| Arc::from(r.as_str())).collect();
    let causes: Vec<Arc<str>> = t.causes.iter().map(|c| Arc::from(c.as_str())).collect();
    let ids = TriageIds::new(n);
    // Room for the batches too, so adding them never moves the items (at 100,000 findings a
    // move copied 12.8 MB into fresh pages). Their column's length, not the count the file
    // claims: the columns are checked against it later.
    let batches = table.batches.as_ref().map_or(0, |b| b.status.len());
    let mut items = Vec::with_capacity(n + table.work.len() + batches);
    for i in 0..n {
        let mut item = WorkItem::new(
            ids.get(i + 1),
            ItemKind::Triage,
            read_tier[usize::from(tier[i])].ok_or_else(|| bad("tier", i))?,
        );
        item.status = read_status[usize::from(status[i])].ok_or_else(|| bad("status", i))?;
        item.verdict = match verdict[i] {
            b'-' => None,
            c => Some(read_verdict[usize::from(c)].ok_or_else(|| bad("verdict", i))?),
        };
        item.attempts = base36[usize::from(attempts[i])].ok_or_else(|| bad("attempts", i))?;
        item.dispatches = base36[usize::from(dispatches[i])].ok_or_else(|| bad("dispatches", i))?;
        item.route = match route[i] {
            b'-' => None,
            c => Some(
                base36[usize::from(c)]
                    .and_then(|r| routes.get(r as usize))
                    .ok_or_else(|| bad("route", i))?
                    .clone(),
            ),
        };
        item.root_cause = match cause_of(i)? {
            None => None,
            Some(c) => Some(causes.get(c).ok_or_else(|| bad("cause", i))?.clone()),
        };
        items.push(item);
    }
    if let Some(ran) = &t.ran {
        if ran.len() != n {
            return Err(format!(
                "items.triage.ran has {} characters for {n} items",
                ran.len()
            ));
        }
        for (i, c) in ran.bytes().enumerate() {
            items[i].ran = match c {
                b'-' => None,
                c => Some(read_tier[usize::from(c)].ok_or_else(|| bad("ran", i))?),
            };
        }
    }
    for [start, first, len] in t.findings {
        // A run is bounded by the items the file holds, not by the number it claims.
        let run = start
            .checked_add(len)
            .and_then(|end| items.get_mut(start..end))
            .filter(|_| first == usize::MAX || u32::try_from(first.saturating_add(len)).is_ok())
            .ok_or_else(|| {
                format!("items.triage.findings: the run [{start}, {first}, {len}] goes past the {n} items")
            })?;
        for (k, item) in run.iter_mut().enumerate() {
            item.finding = (first != usize::MAX).then(|| (first + k) as u32);
        }
    }
    for (i, d) in t.detail {
        let Some(item) = items.get_mut(i) else {
            continue;
        };
        item.batch = d.batch;
        item.seen_running = d.seen_running;
        item.lease = d.lease;
        item.reroutes = d.reroutes;
        item.resends = d.resends;
        item.set_extra(ItemExtra {
            last_rejection: d.last_rejection,
            errors: d.errors,
            duplicate_of: d.duplicate_of,
            security: d.security,
            ..ItemExtra::default()
        });
        if let Some(n) = d.dispatches {
            item.dispatches = n;
        }
    }
    crate::batch_table::decode(table.batches, table.work, &mut items)?;
    Ok(items)
}

/// The file form of `items`, for the batch columns' tests.
#[cfg(test)]
pub(crate) fn tests_encode(items: &[WorkItem]) -> serde_json::Value {
    serde_json::to_value(encode(items)).unwrap_or_default()
}

/// `items` back from their file form, for the batch columns' tests.
#[cfg(test)]
pub(crate) fn tests_decode(value: serde_json::Value) -> Result<Vec<WorkItem>, String> {
    decode(ItemTable::deserialize(value).map_err(|e| e.to_string())?)
}

/// `#[serde(with = ...)]` for `RunState::items`.
pub(crate) fn serialize<S: Serializer>(
    items: &[WorkItem],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    encode(items).serialize(serializer)
}

/// `#[serde(with = ...)]` for `RunState::items`.
pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<WorkItem>, D::Error> {
    let table = ItemTable::deserialize(deserializer)?;
    decode(table).map_err(serde::de::Error::custom)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `write_column`'s bytes, through `serde_json`'s writer as a state save writes them.
    fn column_bytes(text: &str) -> String {
        struct Column<'a>(&'a str);
        impl Serialize for Column<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                write_column(self.0, serializer)
            }
        }
        serde_json::to_string(&Column(text)).expect("a column writes")
    }

    #[test]
    fn a_column_is_written_with_the_bytes_serde_json_writes_for_any_text() {
        // Every ASCII character alone and inside a column's usual text (the ones serde_json
        // escapes among them: quote, backslash, control characters), and a few beyond ASCII.
        let mut texts: Vec<String> = (0u8..=0x7f)
            .flat_map(|b| {
                let c = char::from(b);
                [c.to_string(), format!("t-1,{c}-8 {c}")]
            })
            .collect();
        texts.extend(
            [
                "",
                "é",
                "\u{2028}\u{2029}",
                "日本 1-8",
                "\u{7f}\u{80}",
                "a\\\"b",
            ]
            .map(String::from),
        );
        for text in &texts {
            assert_eq!(
                column_bytes(text),
                serde_json::to_string(text).expect("a string writes"),
                "{text:?}"
            );
        }
    }

    fn sample() -> Vec<WorkItem> {
        let mut items = Vec::new();
        for i in 0..40usize {
            let mut item = WorkItem::new(crate::triage_id(i + 1), ItemKind::Triage, Tier::Haiku);
            item.finding = Some(if i < 20 { i as u32 } else { i as u32 + 3 });
            item.route = Some(["generic", "dead-code", "security"][i % 3].into());
            match i % 7 {
                0 => {
                    item.status = ItemStatus::Done;
                    item.verdict = Some(Verdict::Real);
                    item.root_cause = Some(format!("cause {}", i % 2).into());
                    item.dispatches = 1;
                    item.batch = 3;
                }
                1 => {
                    item.status = ItemStatus::Dispatched;
                    item.lease = Some(1_795_339_805);
                    item.seen_running = true;
                    item.dispatches = 40;
                    item.batch = 9;
                }
                2 => {
                    item.status = ItemStatus::Quarantined;
                    item.tier = Tier::Opus;
                    item.attempts = 3;
                    item.set_extra(ItemExtra {
                        errors: vec!["attempt 1 (haiku): ended".to_owned()],
                        last_rejection: Some("field `verdict`".to_owned()),
                        ..ItemExtra::default()
                    });
                }
                3 => {
                    item.status = ItemStatus::Pending;
                    item.tier = Tier::Sonnet;
                    item.reroutes = 1;
                    item.resends = 3;
                    item.route = None;
                }
                _ => {}
            }
            items.push(item);
        }
        let mut agg = WorkItem::new("agg-1", ItemKind::Aggregate, Tier::Sonnet);
        agg.extra_mut().inputs = vec!["t-00001".into()];
        items.push(agg);
        items
    }

    #[test]
    fn every_field_of_every_item_round_trips() {
        let items = sample();
        let json = serde_json::to_string(&encode(&items)).unwrap();
        let back = decode(serde_json::from_str(&json).unwrap()).unwrap();
        assert_eq!(back, items);
    }

    #[test]
    fn more_causes_than_one_character_can_index_round_trip_too() {
        let mut items = sample();
        for (n, item) in items.iter_mut().enumerate().take(40) {
            item.root_cause = Some(format!("cause number {n}").into());
        }
        let table = encode(&items);
        assert!(table.triage.cause.is_none() && table.triage.cause_index.is_some());
        let json = serde_json::to_string(&table).unwrap();
        assert_eq!(decode(serde_json::from_str(&json).unwrap()).unwrap(), items);
    }

    /// The file form of `items`, to damage by hand.
    fn read_back(items: &[WorkItem]) -> ItemTable<'static> {
        ItemTable::deserialize(serde_json::to_value(encode(items)).unwrap()).unwrap()
    }

    #[test]
    fn a_column_of_the_wrong_length_is_an_error_not_a_panic() {
        let items = sample();
        let mut table = read_back(&items);
        table.triage.status.to_mut().pop();
        assert!(decode(table).unwrap_err().contains("items.triage.status"));
        let mut table = read_back(&items);
        table.triage.tier.to_mut().replace_range(0..1, "x");
        assert!(decode(table).unwrap_err().contains("tier"));
        for column in ["verdict", "attempts", "route", "cause"] {
            let mut table = read_back(&items);
            let text = match column {
                "verdict" => &mut table.triage.verdict,
                "attempts" => &mut table.triage.attempts,
                "route" => &mut table.triage.route,
                _ => table.triage.cause.as_mut().unwrap(),
            };
            text.to_mut().replace_range(0..1, "!");
            let error = decode(table).unwrap_err();
            assert!(
                error.contains(column) && error.contains("item 1"),
                "{error}"
            );
        }
    }

    #[test]
    fn each_letter_table_lists_its_values_in_declaration_order() {
        for (n, (status, _)) in STATUS.iter().enumerate() {
            assert_eq!(*status as usize, n);
        }
        for (n, (tier, _)) in TIER.iter().enumerate() {
            assert_eq!(*tier as usize, n);
        }
        for (n, (verdict, _)) in VERDICT.iter().enumerate() {
            assert_eq!(*verdict as usize, n);
        }
        assert_eq!(STATUS.len(), 5);
        assert_eq!(VERDICT.len(), Verdict::ALL.len());
    }
}
