//! Work items: one unit of LLM work each, with its status, tier, attempts and lease.

use std::sync::Arc;

use compact_str::CompactString;
use serde::{Deserialize, Serialize};

use crate::{Phase, Tier};

/// What a work item asks an agent to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemKind {
    Triage,
    Aggregate,
    RuleReview,
    Plan,
    Synthesize,
    Review,
    WriteTask,
}

impl ItemKind {
    /// Every kind, in pipeline order.
    pub const ALL: [ItemKind; 7] = [
        ItemKind::Triage,
        ItemKind::Aggregate,
        ItemKind::RuleReview,
        ItemKind::Plan,
        ItemKind::Synthesize,
        ItemKind::Review,
        ItemKind::WriteTask,
    ];

    /// The spelling used in files and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            ItemKind::Triage => "triage",
            ItemKind::Aggregate => "aggregate",
            ItemKind::RuleReview => "rule_review",
            ItemKind::Plan => "plan",
            ItemKind::Synthesize => "synthesize",
            ItemKind::Review => "review",
            ItemKind::WriteTask => "write_task",
        }
    }

    /// The sub-agent definition (without plugin namespace) that works on this kind.
    pub fn agent(self) -> &'static str {
        match self {
            ItemKind::Triage => "triage-investigator",
            ItemKind::Aggregate => "triage-aggregator",
            ItemKind::RuleReview => "rule-reviewer",
            ItemKind::Plan => "fix-planner",
            ItemKind::Synthesize => "plan-synthesizer",
            ItemKind::Review => "plan-reviewer",
            ItemKind::WriteTask => "task-writer",
        }
    }

    /// The verb that starts a dispatch `description` (the item id follows it).
    pub fn verb(self) -> &'static str {
        match self {
            ItemKind::Triage => "triage",
            ItemKind::Aggregate => "aggregate",
            ItemKind::RuleReview => "review rules",
            ItemKind::Plan => "plan",
            ItemKind::Synthesize => "synthesize",
            ItemKind::Review => "review",
            ItemKind::WriteTask => "write task",
        }
    }

    /// The phase whose items are of this kind.
    pub fn phase(self) -> Phase {
        match self {
            ItemKind::Triage => Phase::Triage,
            ItemKind::Aggregate => Phase::Aggregate,
            ItemKind::RuleReview => Phase::RuleReview,
            ItemKind::Plan | ItemKind::Synthesize | ItemKind::Review | ItemKind::WriteTask => {
                Phase::Plan
            }
        }
    }

    /// True when agents submit markdown rather than JSON for this kind.
    pub fn takes_markdown(self) -> bool {
        matches!(self, ItemKind::Plan | ItemKind::Review)
    }

    /// The kind an item id belongs to, read from its prefix (`t-`, `agg-`, `rr-`, `plan-`,
    /// `syn-`, `rev-`, `tw-`), so `submit` never needs the whole run to classify an id.
    pub fn of_id(id: &str) -> Option<ItemKind> {
        let (prefix, rest) = id.split_once('-')?;
        if rest.is_empty() {
            return None;
        }
        match prefix {
            "t" => Some(ItemKind::Triage),
            "agg" => Some(ItemKind::Aggregate),
            "rr" => Some(ItemKind::RuleReview),
            "plan" => Some(ItemKind::Plan),
            "syn" => Some(ItemKind::Synthesize),
            "rev" => Some(ItemKind::Review),
            "tw" => Some(ItemKind::WriteTask),
            _ => None,
        }
    }
}

/// Where an item is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemStatus {
    Pending,
    Dispatched,
    Done,
    Failed,
    Quarantined,
}

impl ItemStatus {
    /// Terminal statuses end an item's life; a phase is over when all its items are terminal.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            ItemStatus::Done | ItemStatus::Failed | ItemStatus::Quarantined
        )
    }

    /// The spelling used in files and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            ItemStatus::Pending => "pending",
            ItemStatus::Dispatched => "dispatched",
            ItemStatus::Done => "done",
            ItemStatus::Failed => "failed",
            ItemStatus::Quarantined => "quarantined",
        }
    }
}

/// What triage concluded about a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Real,
    FalsePositive,
    Intended,
    Duplicate,
    Unsure,
}

impl Verdict {
    /// Every verdict, for schemas and messages.
    pub const ALL: [Verdict; 5] = [
        Verdict::Real,
        Verdict::FalsePositive,
        Verdict::Intended,
        Verdict::Duplicate,
        Verdict::Unsure,
    ];

    /// The spelling used in files and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Real => "real",
            Verdict::FalsePositive => "false_positive",
            Verdict::Intended => "intended",
            Verdict::Duplicate => "duplicate",
            Verdict::Unsure => "unsure",
        }
    }

    /// Parses the spelling of [`Verdict::as_str`].
    pub fn parse(text: &str) -> Option<Verdict> {
        Verdict::ALL.into_iter().find(|v| v.as_str() == text)
    }
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde passes a reference"
)]
pub(crate) fn is_zero(n: &u32) -> bool {
    *n == 0
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde passes a reference"
)]
pub(crate) fn is_zero_u64(n: &u64) -> bool {
    *n == 0
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde passes a reference"
)]
pub(crate) fn is_false(b: &bool) -> bool {
    !*b
}

/// One unit of LLM work. Kept compact: `state.json` holds one per line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkItem {
    /// Short ids (`t-00042`, `plan-g2-3`) live inline: no allocation per item when a
    /// 100,000-item state is loaded.
    pub id: CompactString,
    pub kind: ItemKind,
    pub status: ItemStatus,
    pub tier: Tier,
    /// Failed attempts so far (each one escalated the tier).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub attempts: u32,
    /// Times dispatched; a dispatch never seen running nor answered is not counted as an attempt
    /// the first time (the main session may simply not have launched it).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub dispatches: u32,
    /// The block that last dispatched it (`RunState::blocks` at that time): items launched in
    /// one message share it.
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub batch: u64,
    /// True once the item's agent was seen in `background_tasks` since its last dispatch.
    #[serde(default, skip_serializing_if = "is_false")]
    pub seen_running: bool,
    /// Unix seconds of the last dispatch: the lease, used when the client sends no
    /// `background_tasks`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease: Option<u64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub depends_on: Vec<String>,
    /// Item ids this item works on (an aggregator's slice, a synthesizer's plans).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inputs: Vec<String>,
    /// Index into the run's findings (triage items).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finding: Option<u32>,
    /// Group number (plan-phase items), 1-based as in `g3`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<u32>,
    /// Diagnosis route (triage items): picks template, and with it the starting tier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub route: Option<Arc<str>>,
    /// Triage verdict once done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
    /// Triage root-cause label once done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root_cause: Option<Arc<str>>,
    /// Times the item was re-routed at an investigator's request.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reroutes: u32,
    /// The latest rejected submission since the last dispatch: the failure signature if the
    /// agent then ends without a valid result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_rejection: Option<String>,
    /// Errors of failed attempts and rejected submissions, newest last (capped).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
}

impl WorkItem {
    /// A fresh pending item.
    pub fn new(id: impl Into<CompactString>, kind: ItemKind, tier: Tier) -> WorkItem {
        WorkItem {
            id: id.into(),
            kind,
            status: ItemStatus::Pending,
            tier,
            attempts: 0,
            dispatches: 0,
            batch: 0,
            seen_running: false,
            lease: None,
            depends_on: Vec::new(),
            inputs: Vec::new(),
            finding: None,
            group: None,
            route: None,
            verdict: None,
            root_cause: None,
            reroutes: 0,
            last_rejection: None,
            errors: Vec::new(),
        }
    }

    /// The `description` of its dispatch entry; it always contains the id.
    pub fn description(&self) -> String {
        format!("{} {}", self.kind.verb(), self.id)
    }

    /// Keeps the newest errors only, so a flapping item cannot bloat the state.
    pub(crate) fn record_error(&mut self, error: String) {
        const KEEP: usize = 5;
        self.errors.push(error);
        if self.errors.len() > KEEP {
            let extra = self.errors.len() - KEEP;
            self.errors.drain(..extra);
        }
    }
}
