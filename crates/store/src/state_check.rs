//! What a `state.json` that parses must also satisfy before any command may use it: every count
//! and index agrees with what the file holds. A state that lies is as corrupt as one that does
//! not parse (the engine indexes by these numbers and loops over them).

use self_repair_engine::{ItemKind, RunState};

/// The first way `state` contradicts itself, if any.
pub(crate) fn check_state(state: &RunState) -> Result<(), String> {
    state
        .config
        .validate()
        .map_err(|e| format!("its frozen {e}"))?;
    let triage = state.triage_items as usize;
    let leading = state
        .items
        .iter()
        .take_while(|i| i.kind == ItemKind::Triage)
        .count();
    if triage != leading {
        return Err(format!(
            "`triage_items` is {triage} but the file holds {leading} triage items"
        ));
    }
    if let Some(item) = state.items[triage..]
        .iter()
        .find(|i| i.kind == ItemKind::Triage)
    {
        return Err(format!(
            "triage item {} comes after other kinds of items",
            item.id
        ));
    }
    for (name, value) in [
        ("created_at", Some(state.created_at)),
        ("progress", Some(state.progress)),
        ("blocks", Some(state.blocks)),
        ("last_block_progress", state.last_block_progress),
        ("stalled_at", state.stalled_at),
        ("journal_offset", Some(state.journal_offset)),
        ("stale_blocks", Some(u64::from(state.stale_blocks))),
    ] {
        check_number(name, value)?;
    }
    let findings = state.intake.unique;
    // One quick pass over every item; the slow one, which names the item, only when it fails.
    let out_of_range = state.items.iter().any(|item| {
        item.batch > MAX_NUMBER
            || item.lease.is_some_and(|lease| lease > MAX_NUMBER)
            || item.attempts.max(item.dispatches).max(item.reroutes) > MAX_COUNT
    });
    for item in state.items.iter().filter(|_| out_of_range) {
        check_number("an item's batch", Some(item.batch))
            .map_err(|e| format!("{}: {e}", item.id))?;
        check_number("an item's lease", item.lease).map_err(|e| format!("{}: {e}", item.id))?;
        for (name, count) in [
            ("attempts", item.attempts),
            ("dispatches", item.dispatches),
            ("reroutes", item.reroutes),
        ] {
            if count > MAX_COUNT {
                return Err(format!("{} has {count} {name}", item.id));
            }
        }
    }
    for item in &state.items[..triage] {
        if let Some(finding) = item.finding.filter(|&f| f >= findings) {
            return Err(format!(
                "{} points at finding {finding}, past the {findings} unique findings",
                item.id
            ));
        }
    }
    let groups = state.groups.len();
    for item in &state.items[triage..] {
        if let Some(group) = item.group.filter(|&g| g == 0 || g as usize > groups) {
            return Err(format!(
                "{} belongs to group g{group}, but there are {groups} groups",
                item.id
            ));
        }
    }
    // A batch's id as the run writes them (`tb-00042`) is checked by its number, sorted: a
    // state of 100,000 findings holds 12,500 batches, and hashing each id was a tenth of a
    // stop. Any other id is hashed.
    let mut batches = Vec::with_capacity(state.items.len() - triage);
    let mut ids = std::collections::HashSet::new();
    for item in &state.items[triage..] {
        if item.kind == ItemKind::TriageBatch
            && let Some(n) = batch_number(&item.id)
        {
            batches.push(n);
            continue;
        }
        if ItemKind::of_id(&item.id) != Some(item.kind) {
            return Err(format!(
                "item {} is not a {} item",
                item.id,
                item.kind.as_str()
            ));
        }
        if !ids.insert(item.id.as_str()) {
            return Err(format!("item {} is listed twice", item.id));
        }
    }
    batches.sort_unstable();
    if let Some(&[n, _]) = batches.windows(2).find(|pair| pair[0] == pair[1]) {
        return Err(format!("item tb-{n:05} is listed twice"));
    }
    Ok(())
}

/// The number of a batch id written as the run writes them (`tb-00042`); `None` for any other
/// id, so no two ids share a number.
fn batch_number(id: &str) -> Option<u64> {
    self_repair_engine::id_number(id, "tb-")
}

/// Counters, times and offsets stay below JSON's exact-integer limit (2^53), far above any real
/// value: code that adds to them (a lease's end, the next block) then never overflows.
const MAX_NUMBER: u64 = (1 << 53) - 1;
/// Per-item counts (attempts, dispatches, re-routes): real ones are a handful.
const MAX_COUNT: u32 = 1_000_000;

fn check_number(name: &str, value: Option<u64>) -> Result<(), String> {
    match value {
        Some(n) if n > MAX_NUMBER => Err(format!("`{name}` is {n}, past any real value")),
        _ => Ok(()),
    }
}
