//! Prices the steps of loading and saving a run's `state.json` in process, and what leaner
//! encodings would cost, so the hook's hot spot can be weighed before changing the store.
//!
//! `cargo run --release -p self-repair-bench-support --example state_codec -- STATE.json [RUNS]`
//!
//! `scripts/bench.sh --keep` leaves runs of 10,000 and 100,000 items under its data folder
//! (`hook10000/.self-repair/runs/r10000/state.json`, `hook100000/...`).

use std::error::Error;

use self_repair_bench_support::Timing;
use self_repair_engine::{ItemKind, ItemStatus, RunState, Tier};
use serde::Deserialize;
use serde::de::IgnoredAny;

/// The state without its items: what a hook needs to answer most stops.
#[derive(Deserialize)]
struct Header {
    #[serde(rename = "schema_version")]
    _schema_version: u32,
    #[serde(rename = "session")]
    _session: Option<String>,
    #[serde(rename = "items")]
    _items: IgnoredAny,
}

/// One item as a positional array instead of an object with named keys.
type ItemRow = (
    String,
    ItemKind,
    ItemStatus,
    Tier,
    Option<u32>,
    Option<String>,
);

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().ok_or(
        "usage: state_codec STATE.json [RUNS] (a run's .self-repair/runs/<id>/state.json)",
    )?;
    let runs: usize = args.next().map_or(Ok(15), |a| a.parse())?;
    let bytes = std::fs::read(&path)?;
    let state: RunState = serde_json::from_slice(&bytes)?;
    println!(
        "{path}: {} items, {:.1} MB",
        state.items.len(),
        bytes.len() as f64 / 1e6
    );

    let lines = [
        Timing::measure(runs, || std::fs::read(&path).map_or(0, |b| b.len()))
            .render("read the file"),
        Timing::measure(runs, || {
            serde_json::from_slice::<RunState>(&bytes).map(|s| s.items.len())
        })
        .render("from_slice::<RunState> (what load_state does)"),
        Timing::measure(runs, || {
            std::str::from_utf8(&bytes)
                .ok()
                .and_then(|text| serde_json::from_str::<RunState>(text).ok())
                .map(|s| s.items.len())
        })
        .render("from_utf8 + from_str::<RunState>"),
        Timing::measure(runs, || {
            serde_json::from_slice::<RunState>(&bytes).map(std::mem::forget)
        })
        .render("from_slice::<RunState>, never dropped"),
        Timing::measure(runs, || {
            serde_json::from_slice::<IgnoredAny>(&bytes).is_ok()
        })
        .render("from_slice::<IgnoredAny> (tokenize only)"),
        Timing::measure(runs, || serde_json::from_slice::<Header>(&bytes).is_ok())
            .render("header only, items skipped"),
        Timing::measure(runs, || state.clone()).render("clone RunState (allocation proxy)"),
        Timing::measure(runs, || serde_json::to_vec(&state).map(|v| v.len()))
            .render("to_vec (compact JSON)"),
    ];
    for line in lines {
        println!("{line}");
    }

    let rows: Vec<ItemRow> = state
        .items
        .iter()
        .map(|i| {
            (
                i.id.to_string(),
                i.kind,
                i.status,
                i.tier,
                i.finding,
                i.route.as_deref().map(str::to_owned),
            )
        })
        .collect();
    let rows_json = serde_json::to_vec(&rows)?;
    let statuses: String = state
        .items
        .iter()
        .map(|i| match i.status {
            ItemStatus::Pending => 'p',
            ItemStatus::Dispatched => 'd',
            ItemStatus::Done => 'D',
            ItemStatus::Failed => 'f',
            ItemStatus::Quarantined => 'q',
        })
        .collect();
    let statuses_json = serde_json::to_vec(&statuses)?;
    println!(
        "leaner encodings: items as arrays {:.1} MB, one status letter per item {:.2} MB",
        rows_json.len() as f64 / 1e6,
        statuses_json.len() as f64 / 1e6
    );
    let lean = [
        Timing::measure(runs, || {
            serde_json::from_slice::<Vec<ItemRow>>(&rows_json).map(|r| r.len())
        })
        .render("items as arrays: parse"),
        Timing::measure(runs, || serde_json::to_vec(&rows).map(|v| v.len()))
            .render("items as arrays: encode"),
        Timing::measure(runs, || {
            serde_json::from_slice::<String>(&statuses_json).map(|s| s.len())
        })
        .render("status letters: parse"),
    ];
    for line in lean {
        println!("{line}");
    }
    let kinds = state
        .items
        .iter()
        .filter(|i| i.kind == ItemKind::Triage)
        .count();
    println!("({kinds} of {} items are triage items)", state.items.len());
    Ok(())
}
