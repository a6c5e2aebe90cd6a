//! Events: everything that changes a run. The journal is the list of them, in order.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::TaskRecord;

/// A stop of the main session, as the hook saw it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct StopEvent {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// Ids of this run's items found in `background_tasks`; `None` when the client sent no
    /// `background_tasks` field (leases decide then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub running: Option<Vec<String>>,
    /// `Agent` calls the main session made since the previous stop, read from its transcript:
    /// which item each launched and at which model, so a dropped `model` is seen.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub launched: Vec<AgentLaunch>,
    /// Items of this run whose background agent's `<task-notification>` the transcript does
    /// not show yet: not delivered, or delivered and not written yet (the client writes the
    /// transcript behind the session).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unnotified: Vec<String>,
    /// This run's notifications the transcript showed since the previous stop.
    #[serde(default, skip_serializing_if = "crate::item::is_zero")]
    pub notified: u32,
    /// Items of this run whose agent the model provider refused: the last response of its
    /// transcript (`subagents/agent-<id>.jsonl`) ended with `stop_reason: "refusal"`, or the
    /// client wrote its Usage Policy refusal there. Not the agent's failure: the item ends
    /// quarantined with no attempt charged, no escalation and no part in the failure circuit.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub provider_refused: Vec<String>,
    /// The session's last message (`last_assistant_message`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_message: Option<String>,
    /// The first stop of a turn the user (or a notification) started (`stop_hook_active:
    /// false`): someone asked the session to go on, so a stalled run is resumed.
    #[serde(default, skip_serializing_if = "crate::item::is_false")]
    pub new_turn: bool,
    /// What the run has spent so far (the hook's cost ledger): the budget's input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spend: Option<crate::Spend>,
    /// The stop read the transcript on from the previous stop's read, so `launched` is all the
    /// session launched since: a dispatch none of whose items it names was not launched at all.
    /// False when the transcript is unknown, unreadable, or seen for the first time.
    #[serde(default, skip_serializing_if = "crate::item::is_false")]
    pub launches_read: bool,
    /// The client version the transcript's rows newly showed (`version`): a client older than
    /// 2.1.163 rejects Stop `additionalContext` ([`crate::SessionChannel`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<String>,
}

/// One `Agent` tool call of the main session, as its transcript recorded it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct AgentLaunch {
    /// The item id its `description` names.
    pub item: String,
    /// Its `model` field; `None` when the call dropped it (the agent definition's default runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Set when the client refused the launch before the agent ran: the `toolDenialKind` of its
    /// tool result (`user-rejected`: the user answered "No" at the permission prompt;
    /// `permission-rule`: a permission rule or `PreToolUse` hook denied it; `automode-*`,
    /// `interrupted`, `cancelled`). The user's decision, not the agent's failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
    /// The call named no `subagent_type`: the client ran a fork of the main session (its whole
    /// context, every tool), not the item's agent. Never taken as the item's agent.
    #[serde(default, skip_serializing_if = "crate::item::is_false")]
    pub fork: bool,
    /// The client ran it in the background (`async_launched`), whatever the entry asked.
    #[serde(default, skip_serializing_if = "crate::item::is_false")]
    pub background: bool,
}

/// Something that happened to a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// A validated submission (canonical JSON; markdown as a JSON string).
    Submitted {
        item: String,
        result: Value,
    },
    /// A submission that failed validation; kept so identical failures can be recognised.
    Rejected {
        item: String,
        error: String,
    },
    Stop(StopEvent),
    /// The item's task was rendered (`self-repair show`/`item`) while it was dispatched: its
    /// agent ran. The evidence that charges an attempt when it then ends without a result.
    Shown {
        item: String,
    },
    /// The client reported a failed turn (`StopFailure`: rate limit, overload, auth).
    StopFailure {
        error: String,
    },
    Adopt {
        session: String,
    },
    Pause,
    Resume,
    /// `resume --confirm`: the user's go for a run waiting on its estimate.
    Confirm,
    /// `resume --budget USD`: the run may spend this much in all (then it resumes).
    Budget {
        usd: f64,
    },
    Cancel,
    /// Finalize wrote (or found) these tasks and the reports.
    Finalized {
        tasks: Vec<TaskRecord>,
    },
    /// `merge` made the run from these partitions' runs (by share); the state it created
    /// already holds their verdicts.
    Merged {
        runs: Vec<String>,
    },
    /// What a stop's answer asked the main session to launch (each item and its `model`),
    /// journaled beside the stop for the record: `eval`'s protocol figures compare it with the
    /// launches the transcripts show. Replaying it changes nothing.
    Dispatched {
        launch: Vec<AgentLaunch>,
        /// The channel it went by (`context`, `block`); absent in journals before it was kept.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        channel: Option<crate::Channel>,
        /// Why, on the session's first dispatch by this channel (it was chosen or changed).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        why: Option<String>,
    },
}

/// One line of `journal.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JournalEntry {
    /// Unix seconds.
    pub at: u64,
    #[serde(flatten)]
    pub event: Event,
}

/// The derived reading of a journal line: the one every line but a plain `submitted` takes.
#[derive(Deserialize)]
struct JournalEntryFile {
    at: u64,
    #[serde(flatten)]
    event: Event,
}

/// A journal line is read once into its fields, and a `submitted` line (twenty a wave stop
/// folds, each a batch's whole result) is built from them directly. The derived reading
/// (`at` beside a flattened, internally tagged event) copied every line twice into serde's
/// buffers before building its result: a third of the fold of a wave stop
/// (reference/benchmarks.md, "A stop's steps, smaller"). Any other line, and a `submitted`
/// line whose fields are not exactly `item` and `result`, takes the derived reading from the
/// same fields, so every line reads as before (`journal_line_tests`).
impl<'de> Deserialize<'de> for JournalEntry {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<JournalEntry, D::Error> {
        deserializer.deserialize_map(LineVisitor)
    }
}

struct LineVisitor;

impl<'de> serde::de::Visitor<'de> for LineVisitor {
    type Value = JournalEntry;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a journal line: an object with `at` and `event`")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<JournalEntry, A::Error> {
        use serde::de::Error;
        let mut at: Option<u64> = None;
        let mut fields = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if key == "at" {
                if at.is_some() {
                    return Err(A::Error::duplicate_field("at"));
                }
                at = Some(map.next_value()?);
                continue;
            }
            let value: Value = map.next_value()?;
            if fields.contains_key(&key) {
                return Err(A::Error::custom(format_args!("duplicate field `{key}`")));
            }
            fields.insert(key, value);
        }
        let at = at.ok_or_else(|| A::Error::missing_field("at"))?;
        let plain_submission = fields.len() == 3
            && fields.get("event").and_then(Value::as_str) == Some("submitted")
            && fields.get("item").is_some_and(Value::is_string)
            && fields.contains_key("result");
        if plain_submission {
            let Some(Value::String(item)) = fields.remove("item") else {
                return Err(A::Error::missing_field("item"));
            };
            let result = fields.remove("result").unwrap_or_default();
            return Ok(JournalEntry {
                at,
                event: Event::Submitted { item, result },
            });
        }
        fields.insert("at".to_owned(), Value::from(at));
        let line: JournalEntryFile =
            serde_json::from_value(Value::Object(fields)).map_err(A::Error::custom)?;
        Ok(JournalEntry {
            at: line.at,
            event: line.event,
        })
    }
}

#[cfg(test)]
#[path = "journal_line_tests.rs"]
mod journal_line_tests;
