//! The frame driving a triage run's stop on a real run folder: what it answers, journals,
//! marks and saves, the stops that write nothing, a stop that loads the whole state, and the
//! end of a run (finalize, the closing line, a finalize that fails).

use std::cell::Cell;

use self_repair_engine::{
    AgentLaunch, Config, Dispatch, Event, Intake, ItemStatus, JournalEntry, LaunchMode,
    RoutedFinding, RunState, RunStatus, Tier, apply, create_run,
};
use self_repair_store::{RunDir, StoreError};
use serde_json::Value;

use super::*;
use crate::{SessionAgents, StopAnswer, StopInput};

const NOW: u64 = 1_795_339_805;

/// `app`'s part, faked: a finalize that records `Finalized` (or fails), a closing line with a
/// next step.
#[derive(Default)]
struct Host {
    finalized: Cell<u32>,
    fail: bool,
}

impl TriageHost for Host {
    fn finalize(&self, dir: &RunDir, state: &mut RunState, now: u64) -> Result<(), String> {
        self.finalized.set(self.finalized.get() + 1);
        if self.fail {
            return Err("disk full".into());
        }
        let entry = JournalEntry {
            at: now,
            event: Event::Finalized { tasks: Vec::new() },
        };
        dir.record(state, &[entry]).map_err(|e| e.to_string())?;
        Ok(())
    }

    fn closing_line(&self, _dir: &RunDir, _state: &RunState, line: &str) -> String {
        format!("{line} Next: read the report.")
    }
}

/// A triage run of `findings` findings bound to session `s1`, in waves of 8 background
/// agents, one finding each, with `events` applied before it is written.
fn run(findings: u32, events: &[Event]) -> (tempfile::TempDir, RunDir) {
    let root = tempfile::tempdir().unwrap();
    let dir = RunDir::at(root.path().join("r-frame"));
    std::fs::create_dir_all(dir.items_dir()).unwrap();
    let routed: Vec<RoutedFinding> = (0..findings)
        .map(|i| RoutedFinding {
            finding: i,
            route: "generic".into(),
            tier: Tier::Haiku,
            rule: "ruff F401".into(),
            path: format!("src/m{i}.py"),
            safe_fix: false,
            security: false,
            severe: false,
        })
        .collect();
    let intake = Intake {
        findings,
        unique: findings,
        routed: findings,
        ..Intake::default()
    };
    let config = Config {
        launch_mode: LaunchMode::Background,
        triage_batch: 1,
        fan_out: 8,
        survey_min: 0,
        ..Config::default()
    };
    let mut state = create_run(
        "r-frame".into(),
        NOW,
        config,
        intake,
        Some("s1".into()),
        &routed,
    );
    for event in events {
        apply(
            &mut state,
            &JournalEntry {
                at: NOW,
                event: event.clone(),
            },
        );
    }
    dir.create(&state).unwrap();
    (root, dir)
}

fn stop_of(session: &str) -> StopInput {
    StopInput {
        session: session.into(),
        running: Some(Vec::new()),
        now: NOW,
        ..StopInput::default()
    }
}

fn answer(host: &Host, dir: &RunDir, session: &str) -> StopAnswer {
    answer_stop(&TriageStop { host }, dir, &stop_of(session))
}

fn stdout(answer: &StopAnswer) -> Value {
    serde_json::from_str(answer.stdout.as_deref().expect("a JSON answer")).unwrap()
}

fn journal(dir: &RunDir) -> Vec<Event> {
    let tail = dir.journal().read_from(0).unwrap();
    tail.entries.into_iter().map(|e| e.event).collect()
}

/// A line the fold has not applied yet: the head on disk no longer describes the run.
fn journal_pause(dir: &RunDir) {
    let entry = JournalEntry {
        at: NOW,
        event: Event::Pause,
    };
    dir.journal().append(&[entry]).unwrap();
}

#[test]
fn the_bound_sessions_stop_dispatches_journals_marks_and_saves() {
    let (_root, dir) = run(2, &[]);
    let host = Host::default();
    let answer = answer(&host, &dir, "s1");
    assert!(answer.stderr.is_empty(), "{:?}", answer.stderr);
    let value = stdout(&answer);
    let reason = value
        .pointer("/hookSpecificOutput/additionalContext")
        .and_then(Value::as_str)
        .expect("a dispatch by the default channel");
    let dispatch = Dispatch::parse_reason(reason).unwrap();
    assert_eq!(dispatch.launch.len(), 2);
    let events = journal(&dir);
    let [Event::Stop(stop), Event::Dispatched { launch, .. }] = events.as_slice() else {
        panic!("a stop and its dispatch: {events:?}");
    };
    assert_eq!(stop.session.as_deref(), Some("s1"));
    let expected: Vec<AgentLaunch> = ["t-00001", "t-00002"]
        .iter()
        .zip(&dispatch.launch)
        .map(|(item, l)| AgentLaunch {
            item: (*item).into(),
            model: Some(l.model.clone()),
            ..AgentLaunch::default()
        })
        .collect();
    assert_eq!(launch, &expected);
    for item in ["t-00001", "t-00002"] {
        assert!(
            dir.item_file(item, "dispatched").unwrap().exists(),
            "{item} marked: submit takes its result"
        );
    }
    let state = dir.load_state().unwrap();
    assert!(
        state
            .items
            .iter()
            .all(|i| i.status == ItemStatus::Dispatched)
    );
    assert_eq!(state.journal_offset, dir.journal().byte_len().unwrap());
    assert_eq!(host.finalized.get(), 0, "a dispatch finalizes nothing");
}

#[test]
fn a_stop_of_another_session_writes_nothing_even_with_news_in_the_journal() {
    let (_root, dir) = run(2, &[]);
    journal_pause(&dir);
    let state_before = std::fs::read(dir.state_path()).unwrap();
    let head_before = std::fs::read(dir.head_path()).unwrap();
    let host = Host::default();
    assert_eq!(answer(&host, &dir, "s2"), StopAnswer::allow());
    assert_eq!(std::fs::read(dir.state_path()).unwrap(), state_before);
    assert_eq!(std::fs::read(dir.head_path()).unwrap(), head_before);
    assert_eq!(journal(&dir), [Event::Pause]);
}

#[test]
fn a_stop_that_loads_the_whole_state_folds_the_journal_and_saves_it() {
    let (_root, dir) = run(2, &[]);
    journal_pause(&dir);
    let host = Host::default();
    assert_eq!(answer(&host, &dir, "s1"), StopAnswer::allow());
    let state = dir.load_state().unwrap();
    assert_eq!(state.status, RunStatus::Paused);
    assert_eq!(state.journal_offset, dir.journal().byte_len().unwrap());
    assert!(dir.load_head().is_some(), "the head describes it again");
}

#[test]
fn a_quiet_stop_of_a_run_loaded_whole_writes_its_head_and_folds_what_is_new() {
    let (_root, dir) = run(2, &[Event::Cancel]);
    std::fs::remove_file(dir.head_path()).unwrap();
    let state_before = std::fs::read(dir.state_path()).unwrap();
    let host = Host::default();
    assert_eq!(answer(&host, &dir, "s1"), StopAnswer::allow());
    assert_eq!(std::fs::read(dir.state_path()).unwrap(), state_before);
    let head = dir.load_head().expect("the head, for the next quiet stops");
    assert_eq!(head.status, RunStatus::Cancelled);
    // A line the head does not cover: the state is loaded whole and the line folded into it.
    journal_pause(&dir);
    assert_eq!(answer(&host, &dir, "s1"), StopAnswer::allow());
    let state = dir.load_state().unwrap();
    assert_eq!(state.journal_offset, dir.journal().byte_len().unwrap());
}

#[test]
fn a_run_every_phase_of_which_is_done_is_finalized_and_says_its_closing_line() {
    let (_root, dir) = run(0, &[]);
    let host = Host::default();
    let answer = answer(&host, &dir, "s1");
    assert_eq!(host.finalized.get(), 1);
    assert!(answer.stderr.is_empty(), "{:?}", answer.stderr);
    let line = stdout(&answer)["systemMessage"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(line.contains("complete"), "{line}");
    assert!(line.ends_with(" Next: read the report."), "{line}");
    let state = dir.load_state().unwrap();
    assert_eq!(state.status, RunStatus::Complete);
    assert!(state.announced);
}

#[test]
fn a_finalize_that_fails_is_said_on_stderr_and_to_the_user() {
    let (_root, dir) = run(0, &[]);
    let host = Host {
        fail: true,
        ..Host::default()
    };
    let answer = answer(&host, &dir, "s1");
    let message = "self-repair run r-frame: finalize failed: disk full. Fix it, then run `self-repair finalize`.";
    assert_eq!(answer.stderr, [message]);
    assert_eq!(
        stdout(&answer),
        serde_json::json!({ "systemMessage": message })
    );
    assert_eq!(dir.load_state().unwrap().status, RunStatus::Active);
}

#[test]
fn a_damaged_state_names_doctor_and_any_other_load_error_allows() {
    let corrupt = StoreError::CorruptState {
        path: "state.json".into(),
        reason: "not JSON".into(),
        kept: "state.json.corrupt".into(),
    };
    let Err(answer) = load_or_answer::<u32>(Err(corrupt)) else {
        panic!("no state");
    };
    assert!(
        stdout(&answer)["systemMessage"]
            .as_str()
            .unwrap()
            .contains("doctor")
    );
    let Err(answer) = load_or_answer::<u32>(Err(StoreError::RunExists("r".into()))) else {
        panic!("no state");
    };
    assert_eq!(answer.stdout, None);
    assert_eq!(answer.stderr.len(), 1);
    assert_eq!(load_or_answer(Ok(7)).ok(), Some(7));
}

#[test]
fn a_turn_is_the_runs_when_a_notification_was_read_or_is_awaited() {
    for (new_turn, notified, unnotified, expected) in [
        (true, 0, &[][..], false),
        (true, 1, &[], true),
        (true, 2, &[], true),
        (true, 0, &["t-00001"], true),
        (false, 1, &["t-00001"], false),
    ] {
        let agents = SessionAgents {
            notified,
            unnotified: unnotified.iter().map(|s| (*s).to_owned()).collect(),
            ..SessionAgents::default()
        };
        assert_eq!(
            run_turn(new_turn, &agents),
            expected,
            "{new_turn} {notified} {unnotified:?}"
        );
    }
}
