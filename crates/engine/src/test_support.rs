//! What the engine's tests share: a stop of the bound session and a journaled submission.

use serde_json::Value;

use crate::{Event, JournalEntry, RunState, StopEvent, apply};

/// The tests' clock.
pub(crate) const NOW: u64 = 1_795_339_805;

/// A stop of `session` with `running` as its `background_tasks` (`None`: the client sent none).
pub(crate) fn stop_event(session: &str, running: Option<&[&str]>) -> StopEvent {
    StopEvent {
        session: Some(session.into()),
        running: running.map(|r| r.iter().map(|s| (*s).to_owned()).collect()),
        launched: Vec::new(),
        unnotified: Vec::new(),
        notified: 0,
        last_message: None,
        new_turn: false,
        spend: None,
    }
}

/// Journals `result` for `item` and folds it; panics when it changed nothing.
pub(crate) fn submit(state: &mut RunState, item: &str, result: Value) {
    let entry = JournalEntry {
        at: NOW,
        event: Event::Submitted {
            item: item.into(),
            result,
        },
    };
    assert!(
        apply(state, &entry).changed,
        "submission of {item} was not applied"
    );
}
