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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JournalEntry {
    /// Unix seconds.
    pub at: u64,
    #[serde(flatten)]
    pub event: Event,
}
