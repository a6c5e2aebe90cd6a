//! The whole state of one run: what `state.json` holds.

use serde::{Deserialize, Serialize};

use crate::{Config, ItemKind, ItemStatus, Phase, WorkItem};

/// Version of the `state.json` layout; bumped on any incompatible change.
pub const STATE_SCHEMA_VERSION: u32 = 2;

/// Whether the hook may drive the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Active,
    Paused,
    Stalled,
    Cancelled,
    Complete,
}

impl RunStatus {
    /// The spelling used in files and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Active => "active",
            RunStatus::Paused => "paused",
            RunStatus::Stalled => "stalled",
            RunStatus::Cancelled => "cancelled",
            RunStatus::Complete => "complete",
        }
    }
}

/// Why a run is paused; decides how it resumes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum PauseReason {
    /// `self-repair pause`: only `self-repair resume` lifts it.
    User,
    /// The client reported a failed turn (rate limit, overload, auth); the next successful stop
    /// lifts it.
    ApiError { error: String },
    /// Identical failures in a row opened the circuit for one kind of item.
    Circuit {
        kind: ItemKind,
        signature: String,
        count: u32,
    },
    /// The next dispatch would pass `budget_usd` or `max_agents`: `resume --budget` (or a
    /// higher cap and `resume`) lifts it.
    Budget {
        spent_micros: u64,
        budget_micros: u64,
    },
    /// Created waiting: `start`'s likely cost is above `confirm_above_usd` and no budget was
    /// set. Nothing is dispatched until the user's go (`self-repair resume --confirm`, with
    /// `--budget USD` for a cap); `told` once the Stop hook has asked the session to show it.
    Confirm {
        likely_micros: u64,
        likely_agents: u32,
        above_micros: u64,
        #[serde(default)]
        told: bool,
    },
    /// The client refused `launches` of the run's agent launches before they ran (`denial`: the
    /// client's `toolDenialKind` of the first): the user's decision. A new prompt (a turn the
    /// run's own agents did not start) or `self-repair resume` lifts it.
    Refused { launches: u32, denial: String },
    /// The run's launches passed twice the estimate's likely agents (issue 32): something keeps
    /// sending work out again. `item` is the one sent most; `self-repair resume` lifts it and
    /// allows the likely figure again ([`RunState::launch_headroom`]).
    Launches {
        launched: u64,
        likely: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        item: Option<String>,
    },
}

/// Consecutive identical failures of distinct items, tracked to open the circuit. One item
/// failing again (its next tier) does not lengthen the streak: that is its own escalation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct FailureStreak {
    pub kind: Option<ItemKind>,
    pub signature: String,
    /// The distinct items that failed this way in a row; their number is the streak.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub items: Vec<String>,
}

/// One root cause shared by findings (formed by aggregation).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Group {
    /// `g1`, `g2`, ... in order of first member.
    pub id: String,
    pub label: String,
    pub root_cause: String,
    /// Triage item ids.
    pub members: Vec<String>,
    /// False when the group is smaller than `min_group_size`: reported, not planned.
    pub planned: bool,
    /// How it is planned; set when the plan phase starts (`full` in states written before).
    #[serde(default)]
    pub depth: crate::PlanDepth,
}

/// A group proposed by one aggregator, merged by label when the phase ends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProposedGroup {
    pub label: String,
    pub root_cause: String,
    pub members: Vec<String>,
}

/// A backlog task that finalize wrote, or found already written by an earlier run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskRecord {
    pub group: String,
    /// Backlog id, e.g. `task-12`.
    pub task_id: String,
    /// Path relative to the project root.
    pub file: String,
    pub title: String,
    /// True when a task with this group fingerprint already existed and nothing was written.
    #[serde(default)]
    pub existing: bool,
    /// The task's `priority` (`high`, `medium`, `low`), as its task writer set it or the
    /// existing task's file says; absent when it has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<String>,
}

/// Counts of findings decided before any agent ran, by stage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Intake {
    /// Findings read from the inputs.
    pub findings: u32,
    /// Distinct fingerprints (identical findings merged).
    pub unique: u32,
    /// Decided by `known.json`.
    #[serde(default)]
    pub known: u32,
    /// Decided by `rules.json`.
    #[serde(default)]
    pub rules: u32,
    /// Routed to triage agents.
    pub routed: u32,
}

/// The run's state; `state.json` is this, pretty-printed with one item per line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunState {
    pub schema_version: u32,
    pub run: String,
    /// Unix seconds.
    pub created_at: u64,
    pub status: RunStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pause: Option<PauseReason>,
    pub phase: Phase,
    /// The Claude Code session the run is bound to; `None` until the first stop or `adopt`.
    #[serde(default)]
    pub session: Option<String>,
    /// The session that was told the standing protocol ([`crate::PROTOCOL`]) in a block: a
    /// session other than this one hears it with its next dispatch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol_told: Option<String>,
    pub config: Config,
    pub intake: Intake,
    /// What part of its input the run takes (`start --changed-since`, `--new-only`,
    /// `--partition`); absent when all of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<crate::RunScope>,
    /// `start --until triage`: the run ends after triage (finalize at once: verdicts, the
    /// registry's proposals, the cost ledger), its real findings neither grouped nor planned;
    /// absent for a run that goes to the end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<Phase>,
    /// Counts every state transition that is progress: a submission accepted, a phase
    /// advanced, tasks written. The no-progress guard compares it between blocks.
    pub progress: u64,
    #[serde(default)]
    pub last_block_progress: Option<u64>,
    /// Blocks in a row issued without progress since the previous block.
    #[serde(default)]
    pub stale_blocks: u32,
    /// Every block the hook issued.
    #[serde(default)]
    pub blocks: u64,
    /// Launches the user allowed past the launch ceiling, by `resume` after a pause there
    /// ([`crate::LaunchCeiling`]).
    #[serde(default, skip_serializing_if = "crate::item::is_zero_u64")]
    pub launch_headroom: u64,
    /// Progress value when the run stalled; progress beyond it lifts the stall.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stalled_at: Option<u64>,
    #[serde(default)]
    pub streak: FailureStreak,
    /// Items whose agent the model provider refused (`stop_reason: "refusal"`), each ended
    /// quarantined "refused by the model provider": counted apart from failed attempts, never
    /// part of [`RunState::streak`].
    #[serde(default, skip_serializing_if = "crate::item::is_zero")]
    pub provider_refusals: u32,
    /// True once the completion summary was shown to the user.
    #[serde(default)]
    pub announced: bool,
    /// The channel each session's dispatches go by, and what it did with them
    /// ([`crate::SessionChannel`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub channels: Vec<crate::SessionChannel>,
    /// Number of triage items; they come first in `items`, `t-N` at index N-1.
    pub triage_items: u32,
    #[serde(default)]
    pub proposals: Vec<ProposedGroup>,
    #[serde(default)]
    pub groups: Vec<Group>,
    #[serde(default)]
    pub tasks: Vec<TaskRecord>,
    /// The rules surveyed before triage (design note 26), in item order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub surveys: Vec<crate::SurveyRecord>,
    /// Findings (indices into `findings.json`, ascending) the analyzer itself can fix safely:
    /// a group made only of them is planned by code (`PlanDepth::AnalyzerFix`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub safe_fixes: Vec<u32>,
    /// Findings (indices into `findings.json`, ascending) the analyzer rates at its top level
    /// (`error`): a security group's plan depth weighs them (`PlanDepth::of`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub severe: Vec<u32>,
    /// Bytes of `journal.jsonl` already folded into this state.
    pub journal_offset: u64,
    /// Triage items are stored as columns in the file (reference/state-file.md).
    #[serde(with = "crate::item_table")]
    pub items: Vec<WorkItem>,
    /// A run `merge` made: the partitions it combined, by share; absent for any other run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged_from: Vec<crate::MergedShare>,
    /// What the fold learned about the live batches while this process ran; never written,
    /// never compared ([`crate::triage_batch::BatchWitnesses`]).
    #[serde(skip)]
    pub(crate) witnesses: crate::triage_batch::BatchWitnesses,
}

impl RunState {
    /// The status a person is shown: `waiting` for a run that waits for the user's go on its
    /// estimate (`paused`, by `confirm`, in `state.json`: nothing has run, nothing is paused),
    /// else the status itself.
    #[must_use]
    pub fn shown_status(&self) -> &'static str {
        self.shown().as_str()
    }

    /// The run's state in the one vocabulary every surface uses ([`crate::ShownStatus`]).
    #[must_use]
    pub fn shown(&self) -> crate::ShownStatus {
        crate::ShownStatus::of(self.status, self.pause.as_ref())
    }
}

/// Items of one phase by status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
pub struct PhaseCounts {
    pub pending: u32,
    pub running: u32,
    pub done: u32,
    pub failed: u32,
    pub quarantined: u32,
}

impl PhaseCounts {
    /// All items of the phase.
    pub fn total(&self) -> u32 {
        self.pending + self.running + self.done + self.failed + self.quarantined
    }
}

/// Item ids of one phase by status (`status --items`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct PhaseIds {
    /// Dispatched, or held by an item that is.
    pub running: Vec<String>,
    pub failed: Vec<String>,
    pub quarantined: Vec<String>,
    pub pending: Vec<String>,
    pub done: Vec<String>,
}

/// An item's status as `status` shows it: pending but held by an item in flight is running.
fn shown_status(
    index: usize,
    item: &WorkItem,
    in_flight: &crate::held_items::HeldItems,
) -> ItemStatus {
    match item.status {
        ItemStatus::Pending if in_flight.holds(index, &item.id) => ItemStatus::Dispatched,
        status => status,
    }
}

impl RunState {
    /// A run at its start: active, in triage, nothing dispatched, blocked or told yet, no
    /// group or task; `items` are its work items, the triage ones first (`triage_items` counts
    /// them). `start` and `merge` add what else they know (scope, surveys, safe fixes, shares).
    pub fn new(
        run: String,
        created_at: u64,
        session: Option<String>,
        config: Config,
        intake: Intake,
        items: Vec<WorkItem>,
    ) -> RunState {
        RunState {
            schema_version: STATE_SCHEMA_VERSION,
            run,
            created_at,
            status: RunStatus::Active,
            pause: None,
            phase: Phase::Triage,
            session,
            protocol_told: None,
            config,
            intake,
            scope: None,
            until: None,
            progress: 0,
            last_block_progress: None,
            stale_blocks: 0,
            blocks: 0,
            stalled_at: None,
            launch_headroom: 0,
            streak: crate::FailureStreak::default(),
            provider_refusals: 0,
            announced: false,
            channels: Vec::new(),
            triage_items: 0,
            proposals: Vec::new(),
            groups: Vec::new(),
            tasks: Vec::new(),
            surveys: Vec::new(),
            safe_fixes: Vec::new(),
            severe: Vec::new(),
            journal_offset: 0,
            items,
            merged_from: Vec::new(),
            witnesses: crate::triage_batch::BatchWitnesses::default(),
        }
    }

    /// The item with this id, found without a scan for triage ids.
    pub fn item(&self, id: &str) -> Option<&WorkItem> {
        self.index_of(id).map(|i| &self.items[i])
    }

    /// Mutable access to the item with this id.
    pub fn item_mut(&mut self, id: &str) -> Option<&mut WorkItem> {
        self.index_of(id).map(|i| &mut self.items[i])
    }

    pub(crate) fn index_of(&self, id: &str) -> Option<usize> {
        let triage = self.triage_items as usize;
        if let Some(digits) = id.strip_prefix("t-") {
            // A byte loop, not `str::parse`: a wave stop looks up some 100,000 members at
            // 100,000 findings. More than 10 digits is past any u32 count.
            if digits.is_empty() || digits.len() > 10 {
                return None;
            }
            let mut n = 0usize;
            for b in digits.bytes() {
                if !b.is_ascii_digit() {
                    return None;
                }
                n = n * 10 + usize::from(b - b'0');
            }
            let index = n.checked_sub(1)?;
            return (index < triage && self.items[index].id.as_bytes() == id.as_bytes())
                .then_some(index);
        }
        // A batch `tb-N` created with the run sits at N-1 past the surveys: tried first, then
        // every item (a batch made later, by a split or a survey's release, sits further on).
        if let Some(n) = id
            .strip_prefix("tb-")
            .and_then(|n| n.parse::<usize>().ok())
            .and_then(|n| n.checked_sub(1))
        {
            let guess = triage.saturating_add(self.surveys.len()).saturating_add(n);
            if self.items.get(guess).is_some_and(|item| item.id == id) {
                return Some(guess);
            }
        }
        self.items
            .iter()
            .skip(triage)
            .position(|item| item.id == id)
            .map(|p| p + triage)
    }

    /// Item counts of one phase.
    /// Triage counts findings (its `t-` items), not batches: a finding whose batch is in
    /// flight counts as running.
    pub fn counts(&self, phase: Phase) -> PhaseCounts {
        let mut counts = PhaseCounts::default();
        let in_flight = self.held_in_flight(phase);
        for (index, item) in self.items.iter().enumerate().filter(|(_, i)| {
            i.kind.phase() == phase
                && !matches!(
                    i.kind,
                    ItemKind::TriageBatch | ItemKind::RuleSurvey | ItemKind::Verify
                )
        }) {
            match shown_status(index, item, &in_flight) {
                ItemStatus::Pending => counts.pending += 1,
                ItemStatus::Dispatched => counts.running += 1,
                ItemStatus::Done => counts.done += 1,
                ItemStatus::Failed => counts.failed += 1,
                ItemStatus::Quarantined => counts.quarantined += 1,
            }
        }
        counts
    }

    /// The ids of one phase's items by status, as `status --items` lists them: the agents'
    /// own items (batches `tb-`, surveys `rs-`, second opinions `vf-`) too, and a finding
    /// whose batch, survey or second opinion is in flight as running, as [`RunState::counts`]
    /// counts it.
    pub fn ids_by_status(&self, phase: Phase) -> PhaseIds {
        let mut ids = PhaseIds::default();
        let in_flight = self.held_in_flight(phase);
        for (index, item) in self
            .items
            .iter()
            .enumerate()
            .filter(|(_, i)| i.kind.phase() == phase)
        {
            let list = match shown_status(index, item, &in_flight) {
                ItemStatus::Pending => &mut ids.pending,
                ItemStatus::Dispatched => &mut ids.running,
                ItemStatus::Done => &mut ids.done,
                ItemStatus::Failed => &mut ids.failed,
                ItemStatus::Quarantined => &mut ids.quarantined,
            };
            list.push(item.id.to_string());
        }
        ids
    }

    /// Triage findings held by a batch, survey or second opinion in flight.
    fn held_in_flight(&self, phase: Phase) -> crate::held_items::HeldItems {
        let mut held = crate::held_items::HeldItems::new(self);
        if phase == Phase::Triage {
            for (_, batch) in crate::triage_batch::live_batches(self, true) {
                held.extend_members(batch);
            }
            held.extend(crate::rule_survey::survey_members(self, true));
            held.extend(crate::verification::verified_members(self, true));
        }
        held
    }

    /// Items in flight (dispatched and not yet answered).
    pub fn in_flight(&self) -> usize {
        self.items
            .iter()
            .filter(|i| i.status == ItemStatus::Dispatched)
            .count()
    }
}
