//! How `state.json` stores the triage batches (`tb-…`; 12,500 of them at 100,000 findings):
//! as columns, one character per batch, with each batch's members as the numbers of its
//! triage items (`1-8` for `t-00001` … `t-00008`), instead of one object a batch with eight
//! id strings. A wave stop parsed and wrote every batch of the run; columns cost a fraction of
//! that (reference/state-file.md, reference/benchmarks.md). In memory every batch is still a
//! plain [`WorkItem`]. A batch the columns cannot hold exactly (members that are not triage
//! items, fields batches never set) stays an object in `items.work`, in its place (`order`).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::item::{is_false, is_zero, is_zero_u8};
use crate::item_table::{
    STATUS, TIER, column, digit, digit_reader, reader, write_column, write_column_or_none,
};
use crate::member_list::{BatchMembers, write_ranges};
use crate::{ItemExtra, ItemKind, WorkItem};

/// The batches, column by column: character `i` of each string is the `i`-th batch.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct BatchColumns {
    pub(crate) count: usize,
    /// One character per item after the triage items, in item order: `b` the next batch of
    /// these columns, `w` the next object of `items.work`.
    #[serde(serialize_with = "write_column")]
    pub(crate) order: String,
    /// Id number runs: `[first batch, its number, run length]` (`tb-00007` is number 7);
    /// within a run both advance.
    pub(crate) id: Vec<[u64; 3]>,
    /// As the triage columns: `p` pending, `s` dispatched, `d` done, `f` failed,
    /// `q` quarantined.
    #[serde(serialize_with = "write_column")]
    pub(crate) status: String,
    /// `h` haiku, `s` sonnet, `o` opus.
    #[serde(serialize_with = "write_column")]
    pub(crate) tier: String,
    /// Failed attempts, one base-36 digit.
    #[serde(serialize_with = "write_column")]
    pub(crate) attempts: String,
    /// Times dispatched, one base-36 digit.
    #[serde(serialize_with = "write_column")]
    pub(crate) dispatches: String,
    /// The block that last dispatched each batch: runs `[first batch, block, run length]`.
    pub(crate) block: Vec<[u64; 3]>,
    /// Diagnosis route: a base-36 index into `routes`, `-` for none.
    #[serde(serialize_with = "write_column")]
    pub(crate) route: String,
    pub(crate) routes: Vec<String>,
    /// The rule a batch formed by rule stands for: runs `[first batch, rule, run length]`,
    /// the rule as its 1-based place in `rules`, 0 for none.
    pub(crate) rule: Vec<[u64; 3]>,
    pub(crate) rules: Vec<String>,
    /// Each batch's members, batches separated by a space: the numbers `N` of their triage
    /// items `t-N`, comma-separated, a run of consecutive ones as `first-last`.
    #[serde(serialize_with = "write_column")]
    pub(crate) members: String,
    /// The tier each batch's latest launch ran at (`h`, `s`, `o`; `-` unknown); absent while
    /// no batch has one.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "write_column_or_none"
    )]
    pub(crate) ran: Option<String>,
    /// Everything else, only for batches that have any, by batch index.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) detail: BTreeMap<usize, BatchDetail>,
}

/// The fields of a batch that are usually empty.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct BatchDetail {
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
}

/// The number of a batch id written as [`batch_id`] writes them (`tb-00007`): five digits at
/// least, no other leading zero.
fn batch_number(id: &str) -> Option<u64> {
    crate::member_list::id_number(id, "tb-")
}

/// `tb-` and `n` with at least five digits, written on the stack (12,500 of them a load at
/// 100,000 findings).
fn batch_id(n: u64) -> compact_str::CompactString {
    let mut id = compact_str::CompactString::const_new("tb-");
    id.push_str(crate::member_list::decimal(n, 5, &mut [0; 20]));
    id
}

/// The number `N` of a member `t-N` that is triage item N-1 of `triage`, exactly.
fn member_number(triage: &[WorkItem], member: &str) -> Option<usize> {
    let n = usize::try_from(crate::member_list::number(member)?).ok()?;
    let item = triage.get(n.checked_sub(1)?)?;
    (item.id.as_bytes() == member.as_bytes()).then_some(n)
}

/// Whether the columns hold `item`'s fields exactly (its members are checked apart); the
/// others are written as objects.
fn fits(item: &WorkItem) -> bool {
    item.kind == ItemKind::TriageBatch
        && batch_number(&item.id).is_some()
        && item.attempts <= 35
        && item.dispatches <= 35
        && item.finding.is_none()
        && item.group.is_none()
        && item.verdict.is_none()
        && item.root_cause.is_none()
        && item.depends_on().is_empty()
        && item.duplicate_of().is_none()
        && !item.security_sticky()
        && item.has_inputs()
}

/// Fills `numbers` with the member numbers of `item`; false when one is not a triage item.
fn member_numbers(triage: &[WorkItem], item: &WorkItem, numbers: &mut Vec<usize>) -> bool {
    numbers.clear();
    for member in item.inputs() {
        match member_number(triage, member) {
            Some(n) => numbers.push(n),
            None => return false,
        }
    }
    true
}

/// Appends a value to a list of runs `[first index, value, length]` in which the value
/// advances by `step` from one index to the next.
fn push_run(runs: &mut Vec<[u64; 3]>, index: u64, value: u64, step: u64) {
    if let Some(last) = runs.last_mut()
        && last[0] + last[2] == index
        && step
            .checked_mul(last[2])
            .and_then(|d| last[1].checked_add(d))
            == Some(value)
    {
        last[2] += 1;
        return;
    }
    runs.push([index, value, 1]);
}

/// Splits the items after the triage ones into the batches the columns hold and the other
/// objects; `None` for the columns when no batch fits.
pub(crate) fn encode<'a>(
    triage: &[WorkItem],
    work: &'a [WorkItem],
) -> (Option<BatchColumns>, Vec<&'a WorkItem>) {
    let mut b = BatchColumns::default();
    let mut objects = Vec::new();
    let mut order = Vec::with_capacity(work.len());
    let [
        mut status,
        mut tier,
        mut attempts,
        mut dispatches,
        mut route,
        mut ran,
    ] = std::array::from_fn(|_| Vec::new());
    let mut members = Vec::new();
    let mut numbers = Vec::new();
    // Consecutive batches mostly share a route and a rule: the last ones are tried first.
    let mut last_route: Option<(&Arc<str>, u8)> = None;
    let mut last_rule: Option<(&str, u64)> = None;
    for item in work {
        // Members kept as read are written back as read (checked against the triage items
        // when read); the others are checked here.
        let text = item.members_text();
        if !fits(item) || (text.is_none() && !member_numbers(triage, item, &mut numbers)) {
            order.push(b'w');
            objects.push(item);
            continue;
        }
        order.push(b'b');
        let i = b.count;
        b.count += 1;
        let number = batch_number(&item.id).unwrap_or_default();
        push_run(&mut b.id, i as u64, number, 1);
        status.push(STATUS[item.status as usize].1);
        tier.push(TIER[item.tier as usize].1);
        attempts.push(digit(item.attempts));
        dispatches.push(digit(item.dispatches));
        ran.push(item.ran.map_or(b'-', |r| TIER[r as usize].1));
        push_run(&mut b.block, i as u64, item.batch, 0);
        route.push(match &item.route {
            None => b'-',
            Some(r) => match last_route {
                Some((last, letter)) if Arc::ptr_eq(last, r) => letter,
                _ => {
                    let at = b.routes.iter().position(|x| **x == **r).unwrap_or_else(|| {
                        b.routes.push(r.to_string());
                        b.routes.len() - 1
                    });
                    let letter = digit(at as u32);
                    last_route = Some((r, letter));
                    letter
                }
            },
        });
        let rule = match item.rule() {
            None => 0,
            Some(r) => match last_rule {
                Some((last, at)) if last == r => at,
                _ => {
                    let at = 1 + b.rules.iter().position(|x| x == r).unwrap_or_else(|| {
                        b.rules.push(r.to_owned());
                        b.rules.len() - 1
                    }) as u64;
                    last_rule = Some((r, at));
                    at
                }
            },
        };
        push_run(&mut b.rule, i as u64, rule, 0);
        if i > 0 {
            members.push(b' ');
        }
        match text {
            Some(text) => members.extend_from_slice(text.as_bytes()),
            None => write_ranges(&mut members, numbers.iter().map(|&n| n as u64)),
        }
        let plain = !item.seen_running
            && item.lease.is_none()
            && item.reroutes == 0
            && item.resends == 0
            && item.last_rejection().is_none()
            && item.errors().is_empty();
        if !plain {
            b.detail.insert(
                i,
                BatchDetail {
                    seen_running: item.seen_running,
                    lease: item.lease,
                    reroutes: item.reroutes,
                    resends: item.resends,
                    last_rejection: item.last_rejection().map(str::to_owned),
                    errors: item.errors().to_vec(),
                },
            );
        }
    }
    if b.count == 0 {
        return (None, objects);
    }
    if ran.iter().any(|&c| c != b'-') {
        b.ran = Some(column(ran));
    }
    (b.order, b.status, b.tier) = (column(order), column(status), column(tier));
    (b.attempts, b.dispatches, b.route) = (column(attempts), column(dispatches), column(route));
    b.members = column(members);
    // Routes beyond base 36 cannot be written in one character: keep such a run's batches
    // as objects (never seen: a run has a handful of routes).
    if b.routes.len() > 36 {
        return (None, work.iter().collect());
    }
    (Some(b), objects)
}

/// The value runs `[first batch, value, length]` give each batch, the value advancing by
/// `step`; checked to cover every batch once, in order.
fn run_values(name: &str, runs: &[[u64; 3]], count: usize, step: u64) -> Result<Vec<u64>, String> {
    let mut out = Vec::with_capacity(count);
    for &[start, value, len] in runs {
        let fits = usize::try_from(len)
            .ok()
            .filter(|len| start == out.len() as u64 && out.len() + len <= count);
        let Some(len) = fits else {
            return Err(format!(
                "items.batches.{name}: the run [{start}, {value}, {len}] does not follow the one \
                 before it within the {count} batches"
            ));
        };
        for k in 0..len as u64 {
            out.push(
                step.checked_mul(k)
                    .and_then(|d| value.checked_add(d))
                    .ok_or_else(|| format!("items.batches.{name}: {value} is too large"))?,
            );
        }
    }
    if out.len() != count {
        return Err(format!(
            "items.batches.{name}: runs cover {} of the {count} batches",
            out.len()
        ));
    }
    Ok(out)
}

/// The batches of `b` as items, put among the objects of `work` as `order` (checked) says,
/// appended to `items`, which holds the triage items already read.
fn decode_batches(
    b: BatchColumns,
    order: &str,
    work: Vec<WorkItem>,
    items: &mut Vec<WorkItem>,
) -> Result<(), String> {
    let n = b.count;
    let triage_count = items.len();
    for (name, column) in [
        ("status", &b.status),
        ("tier", &b.tier),
        ("attempts", &b.attempts),
        ("dispatches", &b.dispatches),
        ("route", &b.route),
    ] {
        if column.len() != n {
            return Err(format!(
                "items.batches.{name} has {} characters for {n} batches",
                column.len()
            ));
        }
    }
    if let Some(ran) = b.ran.as_ref().filter(|r| r.len() != n) {
        return Err(format!(
            "items.batches.ran has {} characters for {n} batches",
            ran.len()
        ));
    }
    let ids = run_values("id", &b.id, n, 1)?;
    let blocks = run_values("block", &b.block, n, 0)?;
    let rules = run_values("rule", &b.rule, n, 0)?;
    let members: Arc<str> = Arc::from(b.members.as_str());
    let mut member_lists = Vec::with_capacity(n);
    let mut at = 0;
    for list in members.as_bytes().split(|&c| c == b' ') {
        member_lists.push(at..at + list.len());
        at += list.len() + 1;
    }
    if member_lists.len() != n {
        return Err(format!(
            "items.batches.members lists {} batches for {n}",
            member_lists.len()
        ));
    }
    let bad = |column: &str, i: usize| {
        format!("items.batches.{column}: bad character at batch {}", i + 1)
    };
    let (read_status, read_tier, base36) = (reader(&STATUS), reader(&TIER), digit_reader());
    let routes: Vec<Arc<str>> = b.routes.iter().map(|r| Arc::from(r.as_str())).collect();
    let (status, tier, attempts, dispatches, route) = (
        b.status.as_bytes(),
        b.tier.as_bytes(),
        b.attempts.as_bytes(),
        b.dispatches.as_bytes(),
        b.route.as_bytes(),
    );
    let ran = b.ran.as_deref().map(str::as_bytes);
    let mut detail = b.detail;
    let mut work = work.into_iter();
    let mut i = 0;
    for x in order.bytes() {
        if x != b'b' {
            items.extend(work.next());
            continue;
        }
        let mut item = WorkItem::new(
            batch_id(ids[i]),
            ItemKind::TriageBatch,
            read_tier[usize::from(tier[i])].ok_or_else(|| bad("tier", i))?,
        );
        item.status = read_status[usize::from(status[i])].ok_or_else(|| bad("status", i))?;
        item.attempts = base36[usize::from(attempts[i])].ok_or_else(|| bad("attempts", i))?;
        item.dispatches = base36[usize::from(dispatches[i])].ok_or_else(|| bad("dispatches", i))?;
        item.batch = blocks[i];
        item.ran = match ran.map_or(b'-', |r| r[i]) {
            b'-' => None,
            c => Some(read_tier[usize::from(c)].ok_or_else(|| bad("ran", i))?),
        };
        item.route = match route[i] {
            b'-' => None,
            c => Some(
                base36[usize::from(c)]
                    .and_then(|r| routes.get(r as usize))
                    .ok_or_else(|| bad("route", i))?
                    .clone(),
            ),
        };
        let rule = match rules[i] {
            0 => None,
            r => Some(
                usize::try_from(r - 1)
                    .ok()
                    .and_then(|r| b.rules.get(r))
                    .ok_or_else(|| format!("items.batches.rule: no rule {r} (batch {})", i + 1))?
                    .clone(),
            ),
        };
        let span = member_lists[i].clone();
        let mut extra = ItemExtra {
            members: BatchMembers::read(&members, span, triage_count)
                .map_err(|e| format!("items.batches.members: batch {} {e}", i + 1))?,
            rule,
            ..ItemExtra::default()
        };
        if let Some(d) = detail.remove(&i) {
            item.seen_running = d.seen_running;
            item.lease = d.lease;
            item.reroutes = d.reroutes;
            item.resends = d.resends;
            extra.last_rejection = d.last_rejection;
            extra.errors = d.errors;
        }
        item.set_extra(extra);
        items.push(item);
        i += 1;
    }
    Ok(())
}

/// Appends the items after the triage ones to `items`, which holds the triage items, in order:
/// the batches of `batches` put back among the objects of `work` as `order` says. Straight into
/// `items`: a list of its own, copied in after, touched 1.6 MB of fresh pages at 100,000
/// findings (reference/benchmarks.md).
pub(crate) fn decode(
    batches: Option<BatchColumns>,
    work: Vec<WorkItem>,
    items: &mut Vec<WorkItem>,
) -> Result<(), String> {
    let Some(mut b) = batches else {
        items.extend(work);
        return Ok(());
    };
    let order = std::mem::take(&mut b.order);
    let (in_columns, objects) = order.bytes().fold((0usize, 0usize), |(c, o), x| match x {
        b'b' => (c + 1, o),
        _ => (c, o + 1),
    });
    if in_columns != b.count
        || objects != work.len()
        || order.bytes().any(|x| x != b'b' && x != b'w')
    {
        return Err(format!(
            "items.batches.order: {in_columns} batches and {objects} objects for {} batches and {} objects",
            b.count,
            work.len()
        ));
    }
    decode_batches(b, &order, work, items)
}

#[cfg(test)]
#[path = "batch_table_tests.rs"]
mod tests;
