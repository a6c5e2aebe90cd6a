//! What a stop records of a run's cost: the main transcript read where it grew, the reads
//! after a run ended (two, then the ledger is closed), which agents count as finished, and the
//! closing line's cost and duration.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use self_repair_cost::{Accounted, CostLedger, PriceTable};
use self_repair_engine::{
    Config, Intake, RoutedFinding, RunHead, RunStatus, Spend, Tier, create_run,
};
use self_repair_store::RunDir;

use super::*;

const RUN: &str = "r-c";

/// A run folder, and where its session's transcript goes.
struct Fixture {
    _root: tempfile::TempDir,
    dir: RunDir,
    transcript: PathBuf,
}

fn fixture() -> Fixture {
    let root = tempfile::tempdir().unwrap();
    let run = root.path().join("run");
    std::fs::create_dir_all(&run).unwrap();
    let transcript = root.path().join("session.jsonl");
    std::fs::write(&transcript, "").unwrap();
    Fixture {
        dir: RunDir::at(run),
        transcript,
        _root: root,
    }
}

fn head(status: RunStatus, announced: bool, dispatched: &[&str]) -> RunHead {
    RunHead {
        run: RUN.into(),
        status,
        pause: None,
        session: Some("s".into()),
        progress: 0,
        stalled_at: None,
        announced,
        budget: false,
        journal_offset: 0,
        dispatched: dispatched.iter().map(|d| (*d).to_owned()).collect(),
    }
}

/// One finished response of `model` with `output` tokens (and 10 in).
fn response(id: &str, model: &str, output: u64) -> String {
    format!(
        "{{\"type\":\"assistant\",\"requestId\":\"q{id}\",\"message\":{{\"id\":\"m{id}\",\"model\":\"{model}\",\"stop_reason\":\"end_turn\",\"usage\":{{\"input_tokens\":10,\"output_tokens\":{output},\"cache_read_input_tokens\":0,\"cache_creation_input_tokens\":0}}}}}}\n"
    )
}

fn append(path: &Path, text: &str) {
    let mut all = std::fs::read_to_string(path).unwrap_or_default();
    all.push_str(text);
    std::fs::write(path, all).unwrap();
}

/// A million output tokens of claude-opus-5: $20, and 10 input tokens: $0.00004.
const MILLION_OUT_MICROS: u64 = 20_000_040;

fn stop(f: &Fixture, head: &RunHead, running: Option<&[String]>) -> Spend {
    let (spend, failure) = account_stop(&f.dir, head, Some(&f.transcript), running, false);
    assert_eq!(failure, None);
    spend.expect("a stop always says what the run spent")
}

fn ledger(f: &Fixture) -> CostLedger {
    CostLedger::load(f.dir.path()).expect("the stop saved the ledger")
}

#[test]
fn a_stop_reads_what_the_transcript_grew_by_and_saves_the_ledger() {
    let f = fixture();
    let active = head(RunStatus::Active, false, &[]);
    assert_eq!(
        account_stop(&f.dir, &active, None, None, false),
        (Some(Spend::default()), None),
        "no transcript: nothing read, nothing saved"
    );
    assert!(CostLedger::load(f.dir.path()).is_none());
    append(&f.transcript, &response("1", "claude-opus-5", 1_000_000));
    assert_eq!(stop(&f, &active, None).spent_micros, MILLION_OUT_MICROS);
    assert_eq!(to_micros(ledger(&f).total.usd), MILLION_OUT_MICROS);
    append(&f.transcript, &response("2", "claude-opus-5", 1_000_000));
    assert_eq!(stop(&f, &active, None).spent_micros, 2 * MILLION_OUT_MICROS);
    // Without a transcript the ledger's spend is still the run's.
    let (spend, _) = account_stop(&f.dir, &active, None, None, false);
    assert_eq!(spend.unwrap().spent_micros, 2 * MILLION_OUT_MICROS);
}

#[test]
fn an_ended_run_is_read_through_two_more_stops_then_closed() {
    let f = fixture();
    let over = head(RunStatus::Complete, true, &[]);
    append(&f.transcript, &response("1", "claude-opus-5", 1_000_000));
    assert_eq!(stop(&f, &over, None).spent_micros, MILLION_OUT_MICROS);
    assert_eq!(ledger(&f).reads_after_end, 1);
    // Nothing new: the count of reads is saved all the same.
    assert_eq!(stop(&f, &over, None).spent_micros, MILLION_OUT_MICROS);
    assert_eq!(ledger(&f).reads_after_end, 2);
    // The third stop closes it: what the session does after is not the run's.
    append(&f.transcript, &response("2", "claude-opus-5", 1_000_000));
    assert_eq!(stop(&f, &over, None).spent_micros, MILLION_OUT_MICROS);
    assert_eq!(ledger(&f).reads_after_end, 3);
    assert_eq!(stop(&f, &over, None).spent_micros, MILLION_OUT_MICROS);
    assert_eq!(ledger(&f).reads_after_end, 3, "closed once");
    // A turn the run's own notification started is read again, from where it stopped.
    let (spend, failure) = account_stop(&f.dir, &over, Some(&f.transcript), None, true);
    assert_eq!(failure, None);
    assert_eq!(spend.unwrap().spent_micros, 2 * MILLION_OUT_MICROS);
    assert_eq!(ledger(&f).reads_after_end, 1);
}

#[test]
fn a_run_that_has_not_ended_is_read_whatever_its_count_of_reads_after_an_end() {
    let f = fixture();
    let mut saved = CostLedger::new(PriceTable::default());
    saved.reads_after_end = self_repair_cost::READS_AFTER_END;
    saved.save(f.dir.path(), &Accounted::default()).unwrap();
    append(&f.transcript, &response("1", "claude-opus-5", 1_000_000));
    let active = head(RunStatus::Active, false, &[]);
    assert_eq!(stop(&f, &active, None).spent_micros, MILLION_OUT_MICROS);
}

/// An agent of item `t-00001` of this run whose transcript was last written a minute ago.
fn agent_transcript(f: &Fixture) -> PathBuf {
    let agents = f.transcript.with_extension("").join("subagents");
    std::fs::create_dir_all(&agents).unwrap();
    let path = agents.join("agent-a1.jsonl");
    let first = format!(
        "{{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":\"self-repair item t-00001 --run {RUN}\"}}}}\n"
    );
    std::fs::write(&path, first + &response("a", "claude-opus-5", 1_000_000)).unwrap();
    let file = std::fs::File::options().write(true).open(&path).unwrap();
    file.set_modified(SystemTime::now() - Duration::from_mins(1))
        .unwrap();
    path
}

#[test]
fn an_agent_is_finished_when_neither_dispatched_nor_listed_as_running() {
    // (the items dispatched, the tasks the client lists as running, finished)
    type Case<'a> = (&'a [&'a str], Option<&'a [String]>, bool);
    let t1 = ["t-00001".to_owned()];
    let t2 = ["t-00002".to_owned()];
    let cases: [Case; 5] = [
        (&[], None, true),
        (&["t-00009"], None, true),
        (&["t-00001"], None, false),
        (&[], Some(&t2), true),
        (&[], Some(&t1), false),
    ];
    for (dispatched, running, finished) in cases {
        let f = fixture();
        agent_transcript(&f);
        let head = head(RunStatus::Active, false, dispatched);
        let first = stop(&f, &head, running);
        assert_eq!(first.spent_micros, MILLION_OUT_MICROS, "{dispatched:?}");
        assert_eq!(
            first.per_agent_micros.get("triage"),
            Some(&MILLION_OUT_MICROS),
            "the agent's part is its item's kind"
        );
        // The second stop finds it unchanged and quiet: closed if it finished.
        stop(&f, &head, running);
        let open = ledger(&f).open.contains_key("agent-a1.jsonl");
        assert_eq!(!open, finished, "{dispatched:?} {running:?}");
    }
}

#[test]
fn an_items_part_is_its_kind() {
    assert_eq!(part_of("t-00001").as_deref(), Some("triage"));
    assert_eq!(part_of("tw-g1").as_deref(), Some("write_task"));
    assert_eq!(part_of("nothing"), None);
}

#[test]
fn the_closing_line_says_the_cost_and_time_once_the_transcripts_were_read() {
    let f = fixture();
    let state = create_run(
        RUN.into(),
        1_000,
        Config::default(),
        Intake::default(),
        Some("s".into()),
        &[RoutedFinding {
            finding: 0,
            route: "generic".into(),
            tier: Tier::Haiku,
            rule: "ruff F401".into(),
            path: "a.py".into(),
            safe_fix: false,
            security: false,
            severe: false,
        }],
    );
    let line = "self-repair run r-c: complete.";
    let later = 1_000 + 2 * 3600 + 5 * 60 + 59;
    assert_eq!(with_cost_and_duration(&f.dir, &state, later, line), line);
    append(&f.transcript, &response("1", "claude-opus-5", 1_000_000));
    stop(&f, &head(RunStatus::Active, false, &[]), None);
    assert_eq!(
        with_cost_and_duration(&f.dir, &state, later, line),
        "self-repair run r-c: complete. Cost $20.0000 (0 agents; `self-repair status` shows it per phase), 2h05m since start."
    );
}
