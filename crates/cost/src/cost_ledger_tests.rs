//! The ledger the Stop hook keeps: the fixture to the cent through it, a transcript that grows
//! between two stops (only the new lines are read), torn last lines, unknown models, another
//! run's agents, finished agents never read again, and a save/load round trip.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::{Attribution, CostLedger, CostSummary, MAIN_SESSION, PriceTable, read_records};

const SESSION: &str = "projects/-home-dev-acme/0b7c2f4e-3d1a-4c8e-9f10-2a6b5c7d8e9f";

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/claude-code/transcript")
}

fn part_of(item: &str) -> Option<String> {
    item.starts_with("t-").then(|| "triage".to_owned())
}

fn never(_: &str) -> bool {
    false
}

fn always(_: &str) -> bool {
    true
}

fn who(finished: &dyn Fn(&str) -> bool) -> Attribution<'_> {
    Attribution {
        run: "r-7",
        part_of: &part_of,
        finished,
    }
}

fn row(message: &str, model: &str, input: u64, output: u64) -> String {
    format!(
        "{{\"type\":\"assistant\",\"requestId\":\"q-{message}\",\"message\":{{\"id\":\"{message}\",\"model\":\"{model}\",\"stop_reason\":\"end_turn\",\"usage\":{{\"input_tokens\":{input},\"output_tokens\":{output},\"cache_read_input_tokens\":0,\"cache_creation_input_tokens\":0}}}}}}\n"
    )
}

fn first(text: &str) -> String {
    format!("{{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":\"{text}\"}}}}\n")
}

/// A session folder: `s1.jsonl` and `s1/subagents/`.
struct Session {
    dir: tempfile::TempDir,
}

impl Session {
    fn new(main: &str) -> Session {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("s1/subagents")).unwrap();
        std::fs::create_dir_all(dir.path().join("run")).unwrap();
        std::fs::write(dir.path().join("s1.jsonl"), main).unwrap();
        Session { dir }
    }
    fn main(&self) -> PathBuf {
        self.dir.path().join("s1.jsonl")
    }
    fn run(&self) -> PathBuf {
        self.dir.path().join("run")
    }
    fn agent(&self, id: &str) -> PathBuf {
        self.dir
            .path()
            .join(format!("s1/subagents/agent-{id}.jsonl"))
    }
    fn subagents(&self) -> PathBuf {
        self.dir.path().join("s1/subagents")
    }
    /// Sets `path`'s mtime `seconds` into the past (a file or a folder).
    fn age(path: &Path, seconds: u64) {
        let then = std::time::SystemTime::now() - std::time::Duration::from_secs(seconds);
        std::fs::File::open(path)
            .unwrap()
            .set_modified(then)
            .unwrap();
    }
    fn append(path: &Path, text: &str) {
        use std::io::Write;
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(path)
            .unwrap();
        file.write_all(text.as_bytes()).unwrap();
    }
}

#[test]
fn the_fixture_through_the_ledger_costs_what_expected_cost_json_says_to_the_cent() {
    let expected: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture().join("expected-cost.json")).unwrap(),
    )
    .unwrap();
    let session =
        Session::new(&std::fs::read_to_string(fixture().join(format!("{SESSION}.jsonl"))).unwrap());
    // The fixture's sub-agent, dispatched by self-repair: its first message names the item.
    let agent = std::fs::read_to_string(
        fixture().join(format!("{SESSION}/subagents/agent-a4d2c8f1e0b3a297.jsonl")),
    )
    .unwrap()
    .replace(
        "Review parser changes",
        "self-repair item t-00001 --run r-7",
    );
    std::fs::write(session.agent("a4d2c8f1e0b3a297"), agent).unwrap();
    let mut ledger = CostLedger::new(PriceTable::default());
    let accounted = ledger.account(&session.run(), &session.main(), &who(&never));
    let all = expected["totals"]["main_plus_subagents"]["cost_usd"]
        .as_f64()
        .unwrap();
    let main = expected["totals"]["main_transcript_only"]["cost_usd"]
        .as_f64()
        .unwrap();
    assert!(
        (ledger.total.usd - all).abs() < 1e-9,
        "{}",
        ledger.total.usd
    );
    assert!((ledger.parts[MAIN_SESSION].usd - main).abs() < 1e-9);
    assert!((ledger.parts["triage"].usd - (all - main)).abs() < 1e-9);
    assert_eq!(ledger.parts["triage"].agents, 1);
    ledger.save(&session.run(), &accounted).unwrap();
    // What status and the report fold from cost.jsonl is what the hook's totals say.
    let summary = CostSummary::fold("v", &read_records(&session.run()));
    assert!((summary.total.usd - all).abs() < 1e-9);
    assert!((summary.items["t-00001"].usd - (all - main)).abs() < 1e-9);
    assert_eq!(summary.total.agents, 1);
    let loaded = CostLedger::load(&session.run()).unwrap();
    assert_eq!(loaded.open, ledger.open);
    assert_eq!(loaded.main, ledger.main);
    assert!((loaded.total.usd - all).abs() < 1e-9);
}

#[test]
fn a_transcript_that_grows_between_two_stops_adds_only_its_new_lines() {
    let session = Session::new(&row("m1", "claude-opus-5-5", 1_000_000, 0));
    let agent = session.agent("a1");
    std::fs::write(
        &agent,
        first("self-repair item t-00001 --run r-7") + &row("a1", "claude-haiku-5-5", 1_000_000, 0),
    )
    .unwrap();
    let mut ledger = CostLedger::new(PriceTable::default());
    let one = ledger.account(&session.run(), &session.main(), &who(&never));
    assert_eq!(one.records.len(), 2);
    assert!((ledger.total.usd - 4.1).abs() < 1e-9);
    // Nothing grew: nothing is read, nothing to save.
    let idle = ledger.account(&session.run(), &session.main(), &who(&never));
    assert!(idle.records.is_empty() && !idle.changed, "{idle:?}");
    // Both grow, the agent with a torn last line: only the complete new rows count.
    Session::append(&session.main(), &row("m2", "claude-opus-5-5", 0, 100_000));
    Session::append(
        &agent,
        &(row("a2", "claude-haiku-5-5", 0, 1_000_000) + "{\"type\":\"assis"),
    );
    let two = ledger.account(&session.run(), &session.main(), &who(&never));
    let models: Vec<(&str, u64, u64)> = two
        .records
        .iter()
        .map(|r| {
            (
                r.model.as_str(),
                r.usage.input_tokens,
                r.usage.output_tokens,
            )
        })
        .collect();
    assert_eq!(
        models,
        [
            ("claude-opus-5-5", 0, 100_000),
            ("claude-haiku-5-5", 0, 1_000_000)
        ],
        "only the new lines, the torn one left for later"
    );
    assert!(
        (ledger.total.usd - (4.1 + 2.0 + 0.5)).abs() < 1e-9,
        "{}",
        ledger.total.usd
    );
    assert_eq!(ledger.parts["triage"].agents, 1, "one agent, read twice");
}

#[test]
fn an_unknown_model_is_counted_not_priced_and_another_runs_agent_is_not_counted() {
    let session = Session::new(&(row("m1", "claude-fable-5-2", 10, 5) + "not json\n"));
    std::fs::write(
        session.agent("other"),
        first("self-repair item t-00001 --run r-other") + &row("o1", "claude-haiku-5-5", 9, 9),
    )
    .unwrap();
    std::fs::write(
        session.agent("explore"),
        first("look around the parser") + &row("e1", "claude-haiku-5-5", 9, 9),
    )
    .unwrap();
    let mut ledger = CostLedger::new(PriceTable::default());
    let accounted = ledger.account(&session.run(), &session.main(), &who(&never));
    assert!(ledger.total.usd.abs() < 1e-12);
    assert_eq!(ledger.total.unpriced_tokens, 15);
    assert_eq!(accounted.records.len(), 1);
    assert_eq!(accounted.records[0].usd, None);
    assert!(
        ledger.open.is_empty(),
        "not this run's agents: closed, {:?}",
        ledger.open
    );
    let mut closed = accounted.closed.clone();
    closed.sort();
    assert_eq!(closed, ["agent-explore.jsonl", "agent-other.jsonl"]);
}

#[test]
fn a_finished_agents_transcript_is_read_a_last_time_and_never_again() {
    let session = Session::new("");
    let agent = session.agent("a1");
    std::fs::write(
        &agent,
        first("self-repair item t-00001 --run r-7") + &row("a1", "claude-haiku-5-5", 1_000_000, 0),
    )
    .unwrap();
    let mut ledger = CostLedger::new(PriceTable::default());
    // The stop that reads the finished agent's new bytes keeps it open: the client may still
    // be writing its last response behind the stop.
    let accounted = ledger.account(&session.run(), &session.main(), &who(&always));
    assert!(accounted.closed.is_empty(), "{:?}", accounted.closed);
    ledger.save(&session.run(), &accounted).unwrap();
    // Unchanged but written a moment ago: the client may still flush its last response.
    let mut ledger = CostLedger::load(&session.run()).unwrap();
    let accounted = ledger.account(&session.run(), &session.main(), &who(&always));
    assert!(accounted.closed.is_empty(), "{:?}", accounted.closed);
    // The first stop that finds it unchanged and left alone for a while closes it.
    Session::age(&agent, 3);
    let accounted = ledger.account(&session.run(), &session.main(), &who(&always));
    assert_eq!(accounted.closed, ["agent-a1.jsonl"]);
    assert!((ledger.total.usd - 0.1).abs() < 1e-9);
    ledger.save(&session.run(), &accounted).unwrap();
    // A later write (it would be a bug of the client) and a new listing of the folder: the
    // closed transcript stays closed, so a stop never stats the run's finished agents.
    Session::append(&agent, &row("a2", "claude-haiku-5-5", 1_000_000, 0));
    std::fs::write(
        session.agent("a2"),
        first("self-repair item t-00002 --run r-7") + &row("b1", "claude-haiku-5-5", 1_000_000, 0),
    )
    .unwrap();
    let mut ledger = CostLedger::load(&session.run()).unwrap();
    ledger.listed_mtime_ns = None;
    let next = ledger.account(&session.run(), &session.main(), &who(&never));
    let items: Vec<_> = next.records.iter().map(|r| r.item.as_deref()).collect();
    assert_eq!(items, [Some("t-00002")]);
    assert!((ledger.total.usd - 0.2).abs() < 1e-9);
    assert_eq!(ledger.closed, 1);
}

#[test]
fn a_folder_changed_a_moment_ago_is_listed_again_so_an_agent_created_in_its_mtime_tick_is_found() {
    let session = Session::new("");
    std::fs::write(
        session.agent("a1"),
        first("self-repair item t-00001 --run r-7") + &row("a1", "claude-haiku-5-5", 1_000_000, 0),
    )
    .unwrap();
    let folder = session.subagents();
    let listed_at = std::fs::metadata(&folder).unwrap().modified().unwrap();
    let mut ledger = CostLedger::new(PriceTable::default());
    ledger.account(&session.run(), &session.main(), &who(&never));
    assert_eq!(ledger.listed_mtime_ns, None, "a fresh mtime is not trusted");
    // A second agent appears in the same mtime tick: the folder's mtime does not move.
    std::fs::write(
        session.agent("a2"),
        first("self-repair item t-00002 --run r-7") + &row("b1", "claude-haiku-5-5", 1_000_000, 0),
    )
    .unwrap();
    std::fs::File::open(&folder)
        .unwrap()
        .set_modified(listed_at)
        .unwrap();
    ledger.account(&session.run(), &session.main(), &who(&never));
    assert!(
        (ledger.total.usd - 0.2).abs() < 1e-9,
        "{}",
        ledger.total.usd
    );
    // Once the folder has been left alone, its mtime is trusted and it is not listed again.
    Session::age(&folder, 3);
    ledger.account(&session.run(), &session.main(), &who(&never));
    assert!(ledger.listed_mtime_ns.is_some());
}

/// Only `agent-<id>.jsonl` files of the sub-agent folder are agent transcripts (the client's
/// own names); anything else there is never opened.
#[test]
fn only_agent_jsonl_files_are_read_as_agent_transcripts() {
    let session = Session::new(&row("m1", "claude-opus-5-5", 10, 0));
    for name in [
        "agent-a1.jsonl",
        "agent-a2.json",
        "other-a3.jsonl",
        "agent-a4.jsonl.tmp",
        "agent-a5",
    ] {
        std::fs::write(
            session.subagents().join(name),
            first("self-repair item t-00001 --run r-7") + &row(name, "claude-haiku-5-5", 10, 0),
        )
        .unwrap();
    }
    // An agent that wrote nothing yet stays open: it may still name an item of this run.
    std::fs::write(session.subagents().join("agent-a6.jsonl"), "").unwrap();
    let mut ledger = CostLedger::new(PriceTable::default());
    ledger.account(&session.run(), &session.main(), &who(&never));
    let open: Vec<&str> = ledger.open.keys().map(String::as_str).collect();
    assert_eq!(open, ["agent-a1.jsonl", "agent-a6.jsonl"]);
    assert_eq!(ledger.parts["triage"].agents, 1);
    assert_eq!(ledger.total.agents, 1);
}

/// `changed` says whether a pass has anything to save: the first pass, a transcript that grew,
/// a new agent; a pass over a quiet, unchanged session has nothing.
#[test]
fn a_pass_is_changed_only_when_it_read_opened_or_closed_something() {
    let session = Session::new(&row("m1", "claude-opus-5-5", 10, 0));
    Session::age(&session.subagents(), 10);
    let mut ledger = CostLedger::new(PriceTable::default());
    assert!(
        ledger
            .account(&session.run(), &session.main(), &who(&never))
            .changed
    );
    let idle = ledger.account(&session.run(), &session.main(), &who(&never));
    assert!(!idle.changed, "{idle:?}");
    // A torn line only: the offset does not move.
    Session::append(&session.main(), "{\"type\":\"assis");
    let torn = ledger.account(&session.run(), &session.main(), &who(&never));
    assert!(!torn.changed && torn.records.is_empty(), "{torn:?}");
    Session::append(&session.main(), "tant\"}\n");
    assert!(
        ledger
            .account(&session.run(), &session.main(), &who(&never))
            .changed
    );
    // A new agent: the folder is listed again, the transcript opened, then read.
    let agent = session.agent("a1");
    std::fs::write(&agent, first("self-repair item t-00001 --run r-7")).unwrap();
    Session::age(&session.subagents(), 5);
    let opened = ledger.account(&session.run(), &session.main(), &who(&never));
    assert!(opened.changed && ledger.open.contains_key("agent-a1.jsonl"));
    assert!(
        !ledger
            .account(&session.run(), &session.main(), &who(&never))
            .changed
    );
    Session::append(&agent, &row("a1", "claude-haiku-5-5", 10, 0));
    assert!(
        ledger
            .account(&session.run(), &session.main(), &who(&never))
            .changed
    );
}

/// A folder listed while it may still change is listed again; once it is quiet, the pass that
/// records its time has something to save, and the next one has not.
#[test]
fn a_pass_that_first_trusts_the_agent_folder_has_something_to_save() {
    let session = Session::new(&row("m1", "claude-opus-5-5", 10, 0));
    let mut ledger = CostLedger::new(PriceTable::default());
    ledger.account(&session.run(), &session.main(), &who(&never));
    assert_eq!(
        ledger.listed_mtime_ns, None,
        "listed a moment after it changed"
    );
    Session::age(&session.subagents(), 10);
    let trusted = ledger.account(&session.run(), &session.main(), &who(&never));
    assert!(trusted.changed && trusted.records.is_empty(), "{trusted:?}");
    assert!(ledger.listed_mtime_ns.is_some());
    assert!(
        !ledger
            .account(&session.run(), &session.main(), &who(&never))
            .changed
    );
}

/// A saved cursor keeps the last two responses of its transcript, however many were read.
#[test]
fn a_saved_cursor_keeps_its_last_two_responses() {
    let rows: String = (1..=4)
        .map(|i| row(&format!("m{i}"), "claude-opus-5-5", 10, 0))
        .collect();
    let session = Session::new(&rows);
    let mut ledger = CostLedger::new(PriceTable::default());
    let accounted = ledger.account(&session.run(), &session.main(), &who(&never));
    assert_eq!(accounted.records.len(), 1, "one record a model");
    assert!(ledger.main.as_ref().unwrap().cursor.recent.len() > 2);
    ledger.save(&session.run(), &accounted).unwrap();
    let loaded = CostLedger::load(&session.run()).unwrap();
    let recent: Vec<&str> = loaded
        .main
        .as_ref()
        .unwrap()
        .cursor
        .recent
        .iter()
        .map(|(message, _, _)| message.as_str())
        .collect();
    assert_eq!(recent, ["m3", "m4"]);
}

/// What one agent of a part costs: this run's finished agents of it, else all its agents so
/// far, else the earlier runs'; the main session is no agent, and a part with none is skipped.
#[test]
fn per_agent_cost_prefers_finished_agents_then_this_runs_then_earlier_runs() {
    use crate::PartCost;
    let part = |agents: u32, usd: f64| PartCost {
        agents,
        usd,
        ..PartCost::default()
    };
    let mut ledger = CostLedger::new(PriceTable::default());
    ledger.prior_per_agent = [("plan".to_owned(), 2.0), ("triage".to_owned(), 9.0)].into();
    ledger.parts = [
        (MAIN_SESSION.to_owned(), part(1, 5.0)),
        ("triage".to_owned(), part(2, 3.0)),
        ("review".to_owned(), part(4, 3.0)),
        ("verify".to_owned(), part(0, 1.0)),
    ]
    .into();
    ledger.finished = [
        ("triage".to_owned(), part(4, 2.0)),
        ("plan".to_owned(), part(0, 7.0)),
    ]
    .into();
    let average = ledger.per_agent_usd();
    let got: Vec<(&str, f64)> = average.iter().map(|(p, usd)| (p.as_str(), *usd)).collect();
    assert_eq!(got, [("plan", 2.0), ("review", 0.75), ("triage", 0.5)]);
}

/// `reads_after_end` is written only once the run has ended (it is 0 before).
#[test]
fn reads_after_end_is_saved_only_when_counted() {
    let mut ledger = CostLedger::new(PriceTable::default());
    let fresh = serde_json::to_value(&ledger).unwrap();
    assert!(fresh.get("reads_after_end").is_none(), "{fresh}");
    ledger.reads_after_end = 2;
    assert_eq!(serde_json::to_value(&ledger).unwrap()["reads_after_end"], 2);
}
