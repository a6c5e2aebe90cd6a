//! A run's files as the scenarios read them: `state.json`, `journal.jsonl`.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::e2e::e2e_error::E2eError;

/// `.self-repair/runs/<id>/`.
#[derive(Debug, Clone)]
pub struct RunFiles {
    dir: PathBuf,
}

impl RunFiles {
    /// The run folder `dir`.
    pub fn new(dir: PathBuf) -> RunFiles {
        RunFiles { dir }
    }

    /// The run folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// `state.json`, parsed.
    pub fn state(&self) -> Result<Value, E2eError> {
        let path = self.dir.join("state.json");
        let text = fs::read_to_string(&path).map_err(E2eError::io(&path))?;
        serde_json::from_str(&text).map_err(|e| E2eError::Unexpected {
            path,
            message: format!("not JSON: {e}"),
        })
    }

    /// `report.json`; `Null` when it is missing or does not parse (the checks then name it).
    pub fn report(&self) -> Value {
        fs::read_to_string(self.dir.join("report.json"))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or(Value::Null)
    }

    /// The journal's events (torn lines skipped); empty when there is no journal yet.
    pub fn journal(&self) -> Vec<Value> {
        fs::read_to_string(self.dir.join("journal.jsonl"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    /// Events named `event` per item.
    pub fn events_per_item(&self, event: &str) -> BTreeMap<String, usize> {
        let mut counts = BTreeMap::new();
        for entry in self.journal() {
            if entry.get("event").and_then(Value::as_str) == Some(event)
                && let Some(item) = entry.get("item").and_then(Value::as_str)
            {
                *counts.entry(item.to_owned()).or_default() += 1;
            }
        }
        counts
    }

    /// `submitted` events per item.
    pub fn submitted(&self) -> BTreeMap<String, usize> {
        self.events_per_item("submitted")
    }

    /// Whether the journal has an event named `event`.
    pub fn has_event(&self, event: &str) -> bool {
        self.journal()
            .iter()
            .any(|e| e.get("event").and_then(Value::as_str) == Some(event))
    }
}

/// The run's items as (id, status, kind), read through the engine's own state type (triage
/// items are stored as columns in `state.json`).
pub(crate) fn items_of(state: &Value) -> Vec<(String, String, String)> {
    serde_json::from_value::<self_repair_engine::RunState>(state.clone())
        .map(|s| {
            s.items
                .iter()
                .map(|i| {
                    (
                        i.id.to_string(),
                        i.status.as_str().to_owned(),
                        i.kind.as_str().to_owned(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The items no agent of their own decided, so they have no `submitted` event and were never
/// launched: the triage items a batch's one result or a rule survey's policy decided, and the
/// revise steps code settled because no review asked for a change (design note 35).
pub(crate) fn decided_without_a_launch(state: &Value) -> std::collections::BTreeSet<String> {
    serde_json::from_value::<self_repair_engine::RunState>(state.clone())
        .map(|s| {
            let mut decided: std::collections::BTreeSet<String> = self_repair_engine::batch_of(&s)
                .into_keys()
                .map(str::to_owned)
                .collect();
            decided.extend(
                self_repair_engine::survey_of(&s)
                    .into_keys()
                    .map(str::to_owned),
            );
            decided.extend(
                s.items
                    .iter()
                    .filter(|i| {
                        i.kind == self_repair_engine::ItemKind::Revise
                            && i.dispatches == 0
                            && i.status == self_repair_engine::ItemStatus::Done
                    })
                    .map(|i| i.id.to_string()),
            );
            decided
        })
        .unwrap_or_default()
}

/// `state[name]` as a string ("" when missing).
pub(crate) fn field<'a>(state: &'a Value, pointer: &str) -> &'a str {
    state
        .pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or_default()
}
