//! How `state.json` stores the items: triage items (there may be 100,000) as columns, one
//! character per item, plus details only for the few items that have any; the other items as
//! one object each. In memory every item is a plain [`WorkItem`]; only the file changes, so the
//! hook parses a 100,000-item run in milliseconds (reference/state-file.md).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::create_run::TriageIds;
use crate::item::{is_false, is_zero, is_zero_u64};
use crate::{ItemKind, ItemStatus, Tier, Verdict, WorkItem};

/// The triage items, column by column: character `i` of each string is item `t-(i+1)`.
#[derive(Debug, Default, Serialize, Deserialize)]
struct TriageColumns {
    count: usize,
    /// `p` pending, `s` dispatched (sent), `d` done, `f` failed, `q` quarantined.
    status: String,
    /// `h` haiku, `s` sonnet, `o` opus.
    tier: String,
    /// `-` none, `r` real, `f` false positive, `i` intended, `d` duplicate, `u` unsure.
    verdict: String,
    /// Failed attempts, one base-36 digit.
    attempts: String,
    /// Times dispatched, one base-36 digit (capped at 35).
    dispatches: String,
    /// Diagnosis route: a base-36 index into `routes`, `-` for none.
    route: String,
    routes: Vec<String>,
    /// Finding index runs: `[first item, its finding, run length]`; within a run both advance.
    findings: Vec<[usize; 3]>,
    /// Distinct root causes, and each item's index into them: one base-36 character per item
    /// (`-`: none) while there are at most 36 causes, else `cause_index` (-1: none).
    causes: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    cause: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    cause_index: Option<Vec<i64>>,
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    last_rejection: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    errors: Vec<String>,
    /// Dispatches beyond the column's cap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    dispatches: Option<u32>,
}

/// The file form of the items.
#[derive(Debug, Default, Serialize, Deserialize)]
struct ItemTable {
    triage: TriageColumns,
    /// Every other item, in order, one object each.
    work: Vec<WorkItem>,
}

const STATUS: [(ItemStatus, char); 5] = [
    (ItemStatus::Pending, 'p'),
    (ItemStatus::Dispatched, 's'),
    (ItemStatus::Done, 'd'),
    (ItemStatus::Failed, 'f'),
    (ItemStatus::Quarantined, 'q'),
];
const TIER: [(Tier, char); 3] = [(Tier::Haiku, 'h'), (Tier::Sonnet, 's'), (Tier::Opus, 'o')];
const VERDICT: [(Verdict, char); 5] = [
    (Verdict::Real, 'r'),
    (Verdict::FalsePositive, 'f'),
    (Verdict::Intended, 'i'),
    (Verdict::Duplicate, 'd'),
    (Verdict::Unsure, 'u'),
];

fn letter<T: PartialEq + Copy>(table: &[(T, char)], value: T) -> char {
    table
        .iter()
        .find(|(v, _)| *v == value)
        .map_or('-', |(_, c)| *c)
}

fn from_letter<T: Copy>(table: &[(T, char)], c: u8) -> Option<T> {
    table.iter().find(|(_, l)| *l as u8 == c).map(|(v, _)| *v)
}

fn digit(n: u32) -> char {
    char::from_digit(n.min(35), 36).unwrap_or('z')
}

fn encode(items: &[WorkItem]) -> ItemTable {
    let count = items
        .iter()
        .take_while(|i| i.kind == ItemKind::Triage)
        .count();
    let (triage, work) = items.split_at(count);
    let mut t = TriageColumns {
        count,
        ..TriageColumns::default()
    };
    let mut cause_index: std::collections::HashMap<&str, i64> = std::collections::HashMap::new();
    let mut run: Option<[usize; 3]> = None;
    let mut causes_of: Vec<i64> = Vec::with_capacity(count);
    for (i, item) in triage.iter().enumerate() {
        t.status.push(letter(&STATUS, item.status));
        t.tier.push(letter(&TIER, item.tier));
        t.verdict
            .push(item.verdict.map_or('-', |v| letter(&VERDICT, v)));
        t.attempts.push(digit(item.attempts));
        t.dispatches.push(digit(item.dispatches));
        t.route.push(match &item.route {
            None => '-',
            Some(r) => {
                let at = t.routes.iter().position(|x| **x == **r).unwrap_or_else(|| {
                    t.routes.push(r.to_string());
                    t.routes.len() - 1
                });
                digit(at as u32)
            }
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
        causes_of.push(match &item.root_cause {
            None => -1,
            Some(c) => {
                let next = i64::try_from(t.causes.len()).unwrap_or(i64::MAX);
                let at = *cause_index.entry(c).or_insert(next);
                if at == next {
                    t.causes.push(c.to_string());
                }
                at
            }
        });
        let detail = TriageDetail {
            batch: item.batch,
            seen_running: item.seen_running,
            lease: item.lease,
            reroutes: item.reroutes,
            last_rejection: item.last_rejection.clone(),
            errors: item.errors.clone(),
            dispatches: (item.dispatches > 35).then_some(item.dispatches),
        };
        let empty = detail.batch == 0
            && !detail.seen_running
            && detail.lease.is_none()
            && detail.reroutes == 0
            && detail.last_rejection.is_none()
            && detail.errors.is_empty()
            && detail.dispatches.is_none();
        if !empty {
            t.detail.insert(i, detail);
        }
    }
    if let Some(done) = run {
        t.findings.push(done);
    }
    if t.causes.len() <= 36 {
        t.cause = Some(
            causes_of
                .iter()
                .map(|&c| u32::try_from(c).map_or('-', digit))
                .collect(),
        );
    } else {
        t.cause_index = Some(causes_of);
    }
    ItemTable {
        triage: t,
        work: work.to_vec(),
    }
}

fn decode(table: ItemTable) -> Result<Vec<WorkItem>, String> {
    let mut t = table.triage;
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
    let cause_of: Vec<i64> = match (t.cause.take(), t.cause_index.take()) {
        (Some(letters), None) if letters.len() == n => letters
            .bytes()
            .map(|c| (c as char).to_digit(36).map_or(-1, i64::from))
            .collect(),
        (None, Some(indices)) if indices.len() == n => indices,
        _ => {
            return Err(format!(
                "items.triage.cause: expected one entry for each of {n} items"
            ));
        }
    };
    let mut findings = vec![None; n];
    for [start, first, len] in &t.findings {
        for k in 0..*len {
            if let Some(slot) = findings.get_mut(start + k) {
                *slot = (*first != usize::MAX).then(|| (first + k) as u32);
            }
        }
    }
    let (status, tier, verdict, attempts, dispatches, route) = (
        t.status.as_bytes(),
        t.tier.as_bytes(),
        t.verdict.as_bytes(),
        t.attempts.as_bytes(),
        t.dispatches.as_bytes(),
        t.route.as_bytes(),
    );
    let base36 = |c: u8| (c as char).to_digit(36);
    // Shared: every item of a route or a cause points at the same text.
    let routes: Vec<Arc<str>> = t.routes.iter().map(|r| Arc::from(r.as_str())).collect();
    let causes: Vec<Arc<str>> = t.causes.iter().map(|c| Arc::from(c.as_str())).collect();
    let ids = TriageIds::new(n);
    let mut items = Vec::with_capacity(n + table.work.len());
    for i in 0..n {
        let bad = |column: &str| format!("items.triage.{column}: bad character at item {}", i + 1);
        let mut item = WorkItem::new(
            ids.get(i + 1),
            ItemKind::Triage,
            from_letter(&TIER, tier[i]).ok_or_else(|| bad("tier"))?,
        );
        item.status = from_letter(&STATUS, status[i]).ok_or_else(|| bad("status"))?;
        item.verdict = match verdict[i] {
            b'-' => None,
            c => Some(from_letter(&VERDICT, c).ok_or_else(|| bad("verdict"))?),
        };
        item.attempts = base36(attempts[i]).ok_or_else(|| bad("attempts"))?;
        item.dispatches = base36(dispatches[i]).ok_or_else(|| bad("dispatches"))?;
        item.route = match route[i] {
            b'-' => None,
            c => Some(
                base36(c)
                    .and_then(|r| routes.get(r as usize))
                    .ok_or_else(|| bad("route"))?
                    .clone(),
            ),
        };
        item.finding = findings[i];
        item.root_cause = match cause_of[i] {
            -1 => None,
            c => Some(
                usize::try_from(c)
                    .ok()
                    .and_then(|c| causes.get(c))
                    .ok_or_else(|| bad("cause"))?
                    .clone(),
            ),
        };
        if let Some(d) = t.detail.remove(&i) {
            item.batch = d.batch;
            item.seen_running = d.seen_running;
            item.lease = d.lease;
            item.reroutes = d.reroutes;
            item.last_rejection = d.last_rejection;
            item.errors = d.errors;
            if let Some(n) = d.dispatches {
                item.dispatches = n;
            }
        }
        items.push(item);
    }
    items.extend(table.work);
    Ok(items)
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
                    item.errors = vec!["attempt 1 (haiku): ended".to_owned()];
                    item.last_rejection = Some("field `verdict`".to_owned());
                }
                3 => {
                    item.status = ItemStatus::Pending;
                    item.tier = Tier::Sonnet;
                    item.reroutes = 1;
                    item.route = None;
                }
                _ => {}
            }
            items.push(item);
        }
        let mut agg = WorkItem::new("agg-1", ItemKind::Aggregate, Tier::Sonnet);
        agg.inputs = vec!["t-00001".into()];
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

    #[test]
    fn a_column_of_the_wrong_length_is_an_error_not_a_panic() {
        let items = sample();
        let mut table = encode(&items);
        table.triage.status.pop();
        assert!(decode(table).unwrap_err().contains("items.triage.status"));
        let mut table = encode(&items);
        table.triage.tier.replace_range(0..1, "x");
        assert!(decode(table).unwrap_err().contains("tier"));
    }
}
