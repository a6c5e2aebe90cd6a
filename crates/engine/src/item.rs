//! Work items: one unit of LLM work each, with its status, tier, attempts and lease.

use std::borrow::Cow;
use std::sync::Arc;

use compact_str::CompactString;
use serde::{Deserialize, Serialize};

use crate::{Phase, Tier};

/// What a work item asks an agent to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemKind {
    Triage,
    /// One rule's findings read together (`rs-00001`): an agent answers a policy for the rule
    /// (fix it everywhere, suppress it, or triage each finding); its members wait for it.
    RuleSurvey,
    /// Several triage items investigated by one agent (`tb-00003`): the dispatch unit of
    /// batched triage; its members keep their own verdicts.
    TriageBatch,
    /// A second opinion on one triage item's verdict (`vf-00042` for `t-00042`): a
    /// low-confidence dismissal, an `unsure`, or any dismissal on the security route, triaged
    /// again by another agent before it stands (reference/state-machine.md, "Verification").
    Verify,
    Aggregate,
    /// One cheap agent over the groups' labels only (`ml-1`), after the aggregators and the
    /// merge by label in code: it names labels that mean the same root cause, and code joins
    /// their groups.
    MergeLabels,
    RuleReview,
    Plan,
    Synthesize,
    Review,
    /// The group's plan revised after its reviews (`rv-g2`): every must-fix point applied, or
    /// the plan reworked when a reviewer said `rework`. Settled by code when the reviews ask
    /// for nothing.
    Revise,
    WriteTask,
}

impl ItemKind {
    /// Every kind, in pipeline order.
    pub const ALL: [ItemKind; 12] = [
        ItemKind::Triage,
        ItemKind::RuleSurvey,
        ItemKind::TriageBatch,
        ItemKind::Verify,
        ItemKind::Aggregate,
        ItemKind::MergeLabels,
        ItemKind::RuleReview,
        ItemKind::Plan,
        ItemKind::Synthesize,
        ItemKind::Review,
        ItemKind::Revise,
        ItemKind::WriteTask,
    ];

    /// The spelling used in files and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            ItemKind::Triage => "triage",
            ItemKind::RuleSurvey => "rule_survey",
            ItemKind::TriageBatch => "triage_batch",
            ItemKind::Verify => "verify",
            ItemKind::Aggregate => "aggregate",
            ItemKind::MergeLabels => "merge_labels",
            ItemKind::RuleReview => "rule_review",
            ItemKind::Plan => "plan",
            ItemKind::Synthesize => "synthesize",
            ItemKind::Review => "review",
            ItemKind::Revise => "revise",
            ItemKind::WriteTask => "write_task",
        }
    }

    /// The sub-agent definition (without plugin namespace) that works on this kind.
    pub fn agent(self) -> &'static str {
        match self {
            ItemKind::Triage | ItemKind::TriageBatch | ItemKind::Verify => "triage-investigator",
            ItemKind::RuleSurvey => "rule-surveyor",
            ItemKind::Aggregate | ItemKind::MergeLabels => "triage-aggregator",
            ItemKind::RuleReview => "rule-reviewer",
            ItemKind::Plan => "fix-planner",
            ItemKind::Synthesize => "plan-synthesizer",
            ItemKind::Review => "plan-reviewer",
            ItemKind::Revise => "plan-reviser",
            ItemKind::WriteTask => "task-writer",
        }
    }

    /// The verb that starts a dispatch `description` (the item id follows it).
    pub fn verb(self) -> &'static str {
        match self {
            ItemKind::Triage | ItemKind::TriageBatch => "triage",
            ItemKind::RuleSurvey => "survey rule",
            ItemKind::Verify => "verify",
            ItemKind::Aggregate => "aggregate",
            ItemKind::MergeLabels => "merge labels",
            ItemKind::RuleReview => "review rules",
            ItemKind::Plan => "plan",
            ItemKind::Synthesize => "synthesize",
            ItemKind::Review => "review",
            ItemKind::Revise => "revise plan",
            ItemKind::WriteTask => "write task",
        }
    }

    /// The tier of the agent definition's `model:` (agents/*.md): what the client runs when a
    /// launch drops the dispatch's `model`.
    pub fn default_tier(self) -> Tier {
        match self {
            ItemKind::Triage | ItemKind::TriageBatch | ItemKind::Verify | ItemKind::WriteTask => {
                Tier::Haiku
            }
            ItemKind::Synthesize | ItemKind::Revise => Tier::Opus,
            ItemKind::RuleSurvey
            | ItemKind::Aggregate
            | ItemKind::MergeLabels
            | ItemKind::RuleReview
            | ItemKind::Plan
            | ItemKind::Review => Tier::Sonnet,
        }
    }

    /// The phase whose items are of this kind.
    pub fn phase(self) -> Phase {
        match self {
            ItemKind::Triage | ItemKind::TriageBatch | ItemKind::RuleSurvey | ItemKind::Verify => {
                Phase::Triage
            }
            ItemKind::Aggregate | ItemKind::MergeLabels => Phase::Aggregate,
            ItemKind::RuleReview => Phase::RuleReview,
            ItemKind::Plan
            | ItemKind::Synthesize
            | ItemKind::Review
            | ItemKind::Revise
            | ItemKind::WriteTask => Phase::Plan,
        }
    }

    /// True when agents submit markdown rather than JSON for this kind.
    pub fn takes_markdown(self) -> bool {
        matches!(self, ItemKind::Plan | ItemKind::Review)
    }

    /// What an id of this kind starts with, before its `-` (`tb` for `tb-00003`).
    pub fn id_prefix(self) -> &'static str {
        match self {
            ItemKind::Triage => "t",
            ItemKind::TriageBatch => "tb",
            ItemKind::RuleSurvey => "rs",
            ItemKind::Verify => "vf",
            ItemKind::Aggregate => "agg",
            ItemKind::MergeLabels => "ml",
            ItemKind::RuleReview => "rr",
            ItemKind::Plan => "plan",
            ItemKind::Synthesize => "syn",
            ItemKind::Review => "rev",
            ItemKind::Revise => "rv",
            ItemKind::WriteTask => "tw",
        }
    }

    /// The kind an item id belongs to, read from its prefix ([`ItemKind::id_prefix`]), so
    /// `submit` never needs the whole run to classify an id.
    pub fn of_id(id: &str) -> Option<ItemKind> {
        let (prefix, rest) = id.split_once('-')?;
        if rest.is_empty() {
            return None;
        }
        ItemKind::ALL
            .into_iter()
            .find(|kind| kind.id_prefix() == prefix)
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
pub(crate) fn is_zero_u8(n: &u8) -> bool {
    *n == 0
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde passes a reference"
)]
pub(crate) fn is_false(b: &bool) -> bool {
    !*b
}

/// Returns to `pending` after a launch without an attempt charged that one item may take
/// ([`WorkItem::resends`]); the one after them is charged. With at most three charged attempts
/// (haiku, sonnet, opus) and one re-route, an item is launched at most
/// [`MAX_LAUNCHES_PER_ITEM`] times (reference/state-machine.md, "Bounds").
pub const MAX_RESENDS: u8 = 3;

/// The most times one item is launched: three launches that end in an answer or a charged
/// attempt (one per tier: an answer ends the item, the third charged attempt quarantines it),
/// one that ends in a re-route, and [`MAX_RESENDS`] that end in an uncharged return. Held by
/// the property tests of `launch_bound_tests.rs`.
pub const MAX_LAUNCHES_PER_ITEM: u32 = 3 + 1 + MAX_RESENDS as u32;

/// One unit of LLM work. Kept small in memory (128 bytes): a hook stop loads every item of the
/// run, and at 10,000 items the page faults of a larger vector cost more than its parsing. The
/// fields most items never set live in [`ItemExtra`], behind one pointer; `state.json` shows all
/// fields side by side.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(from = "WorkItemFile")]
pub struct WorkItem {
    /// Short ids (`t-00042`, `plan-g2-3`) live inline: no allocation per item when a
    /// 100,000-item state is loaded.
    pub id: CompactString,
    pub kind: ItemKind,
    pub status: ItemStatus,
    pub tier: Tier,
    /// Failed attempts so far (each one escalated the tier).
    pub attempts: u32,
    /// Times dispatched to an agent that (as far as anything shows) was launched: a dispatch
    /// whose agent never showed its task, never appeared running and never submitted is taken
    /// back (the main session did not launch it) and counts neither here nor as an attempt.
    pub dispatches: u32,
    /// The block that last dispatched it (`RunState::blocks` at that time): items launched in
    /// one message share it.
    pub batch: u64,
    /// True once the item's agent was seen in `background_tasks`, or rendered its task
    /// (`self-repair show`), since its last dispatch: evidence that it ran.
    pub seen_running: bool,
    /// Unix seconds of the last dispatch: the lease, used when the client sends no
    /// `background_tasks`.
    pub lease: Option<u64>,
    /// Index into the run's findings (triage items).
    pub finding: Option<u32>,
    /// Group number (plan-phase items), 1-based as in `g3`.
    pub group: Option<u32>,
    /// Diagnosis route (triage items): picks template, and with it the starting tier.
    pub route: Option<Arc<str>>,
    /// Triage verdict once done. A verifier (`vf-`) holds the first answer it checks: what its
    /// triage item goes back to when the second look is set aside.
    pub verdict: Option<Verdict>,
    /// Triage root-cause label once done (a verifier: the first answer's).
    pub root_cause: Option<Arc<str>>,
    /// Times the item was re-routed at an investigator's request.
    pub reroutes: u32,
    /// Times the item went back to `pending` after a launch without an attempt charged (a
    /// second look set aside, a launch below its tier, a launch refused, a session that ended
    /// while its agent ran): at most [`MAX_RESENDS`]; the next such return is charged as a
    /// failed attempt (a verifier ends unconfirmed, a refused launch is quarantined), so no
    /// path launches an item without bound. A dispatch never launched is no launch: the
    /// no-progress guard bounds those.
    pub resends: u8,
    /// The tier its latest launch really ran at, as the main session's transcript shows the
    /// `Agent` call (its `model`, or the agent definition's default when the call dropped it);
    /// `None` when nothing showed it. Reset by each dispatch and by a change of tier (see
    /// [`WorkItem::move_to_tier`]): below `tier`, it says that launch dropped `model`.
    pub ran: Option<Tier>,
    /// `None` while every field of it is empty, as for most items.
    extra: Option<Box<ItemExtra>>,
}

/// The fields of a [`WorkItem`] that most items never set.
#[derive(Debug, Clone, Default)]
pub struct ItemExtra {
    pub depends_on: Vec<String>,
    /// Item ids this item works on (an aggregator's slice, a synthesizer's plans, a batch's
    /// members). Short ids live inline: a state of 12,500 batches holds 100,000 of them, and
    /// one allocation each was most of the batches' load (reference/benchmarks.md).
    pub inputs: Vec<CompactString>,
    /// The latest rejected submission since the last dispatch: the failure signature if the
    /// agent then ends without a valid result.
    pub last_rejection: Option<String>,
    /// Errors of failed attempts and rejected submissions, newest last (capped).
    pub errors: Vec<String>,
    /// The rule (`tool rule_id`) every finding of a triage batch formed by rule shares, and of
    /// a second look on a dismissal such a batch answered: second looks of one rule are
    /// checked together once its first looks are all in (reference/state-machine.md).
    pub rule: Option<String>,
    /// A triage item answered `duplicate`: the finding it names (issue 40). Kept once the
    /// chain is resolved, so `status`, the report and SARIF name the target.
    pub duplicate_of: Option<String>,
    /// A finding under the security two-look rule whose route is no longer `security` (a
    /// re-route, or rules.json routing a finding its analyzer tags security): once security,
    /// always under the rule (issue 40, reference/routes.md).
    pub security: bool,
    /// A batch's members as its column wrote them, until something changes them: then they
    /// are in `inputs` ([`WorkItem::extra_mut`]).
    pub(crate) members: crate::member_list::BatchMembers,
}

impl PartialEq for ItemExtra {
    fn eq(&self, other: &ItemExtra) -> bool {
        self.depends_on == other.depends_on
            && self.inputs() == other.inputs()
            && self.last_rejection == other.last_rejection
            && self.errors == other.errors
            && self.rule == other.rule
            && self.duplicate_of == other.duplicate_of
            && self.security == other.security
    }
}

impl Eq for ItemExtra {}

impl ItemExtra {
    /// The item ids it works on, wherever they are kept.
    fn inputs(&self) -> &[CompactString] {
        self.members.ids().unwrap_or(&self.inputs)
    }

    fn is_empty(&self) -> bool {
        self.depends_on.is_empty()
            && self.inputs.is_empty()
            && self.members.text().is_none()
            && self.rule.is_none()
            && self.duplicate_of.is_none()
            && !self.security
            && self.last_rejection.is_none()
            && self.errors.is_empty()
    }
}

/// A [`WorkItem`] as `state.json` and `--json` outputs show it: every field at one level.
/// Written from a borrowed item ([`WorkItemFile::of`]): a state of 12,500 batches once cloned
/// every member id of every batch to write them (reference/benchmarks.md).
#[derive(Serialize, Deserialize)]
struct WorkItemFile<'a> {
    id: CompactString,
    kind: ItemKind,
    status: ItemStatus,
    tier: Tier,
    #[serde(default, skip_serializing_if = "is_zero")]
    attempts: u32,
    #[serde(default, skip_serializing_if = "is_zero")]
    dispatches: u32,
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    batch: u64,
    #[serde(default, skip_serializing_if = "is_false")]
    seen_running: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    lease: Option<u64>,
    #[serde(default, skip_serializing_if = "no_ids")]
    depends_on: Cow<'a, [String]>,
    #[serde(default, skip_serializing_if = "<[CompactString]>::is_empty")]
    inputs: Cow<'a, [CompactString]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    finding: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    group: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    route: Option<Arc<str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    verdict: Option<Verdict>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    root_cause: Option<Arc<str>>,
    #[serde(default, skip_serializing_if = "is_zero")]
    reroutes: u32,
    #[serde(default, skip_serializing_if = "is_zero_u8")]
    resends: u8,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ran: Option<Tier>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    last_rejection: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "no_ids")]
    errors: Cow<'a, [String]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rule: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    duplicate_of: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "is_false")]
    security: bool,
}

/// `skip_serializing_if` for the lists of [`WorkItemFile`].
fn no_ids(list: &[String]) -> bool {
    list.is_empty()
}

impl Serialize for WorkItem {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        WorkItemFile::of(self).serialize(serializer)
    }
}

impl From<WorkItemFile<'_>> for WorkItem {
    fn from(f: WorkItemFile<'_>) -> WorkItem {
        let mut item = WorkItem {
            id: f.id,
            kind: f.kind,
            status: f.status,
            tier: f.tier,
            attempts: f.attempts,
            dispatches: f.dispatches,
            batch: f.batch,
            seen_running: f.seen_running,
            lease: f.lease,
            finding: f.finding,
            group: f.group,
            route: f.route,
            verdict: f.verdict,
            root_cause: f.root_cause,
            reroutes: f.reroutes,
            resends: f.resends,
            ran: f.ran,
            extra: None,
        };
        item.set_extra(ItemExtra {
            depends_on: f.depends_on.into_owned(),
            inputs: f.inputs.into_owned(),
            last_rejection: f.last_rejection.map(Cow::into_owned),
            errors: f.errors.into_owned(),
            rule: f.rule.map(Cow::into_owned),
            duplicate_of: f.duplicate_of.map(Cow::into_owned),
            security: f.security,
            ..ItemExtra::default()
        });
        item
    }
}

impl<'a> WorkItemFile<'a> {
    /// The file form of `item`, borrowing its lists and texts.
    fn of(item: &'a WorkItem) -> WorkItemFile<'a> {
        static NONE: ItemExtra = ItemExtra {
            depends_on: Vec::new(),
            inputs: Vec::new(),
            last_rejection: None,
            errors: Vec::new(),
            rule: None,
            duplicate_of: None,
            security: false,
            members: crate::member_list::BatchMembers::empty(),
        };
        let extra = item.extra.as_deref().unwrap_or(&NONE);
        let text = |t: &'a Option<String>| t.as_deref().map(Cow::Borrowed);
        WorkItemFile {
            id: item.id.clone(),
            kind: item.kind,
            status: item.status,
            tier: item.tier,
            attempts: item.attempts,
            dispatches: item.dispatches,
            batch: item.batch,
            seen_running: item.seen_running,
            lease: item.lease,
            depends_on: Cow::Borrowed(&extra.depends_on),
            inputs: Cow::Borrowed(extra.inputs()),
            finding: item.finding,
            group: item.group,
            route: item.route.clone(),
            verdict: item.verdict,
            root_cause: item.root_cause.clone(),
            reroutes: item.reroutes,
            resends: item.resends,
            ran: item.ran,
            last_rejection: text(&extra.last_rejection),
            errors: Cow::Borrowed(&extra.errors),
            rule: text(&extra.rule),
            duplicate_of: text(&extra.duplicate_of),
            security: extra.security,
        }
    }
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
            finding: None,
            group: None,
            route: None,
            verdict: None,
            root_cause: None,
            reroutes: 0,
            resends: 0,
            ran: None,
            extra: None,
        }
    }

    /// The items this one waits for.
    pub fn depends_on(&self) -> &[String] {
        self.extra.as_ref().map_or(&[], |e| &e.depends_on)
    }

    /// Item ids this item works on (an aggregator's slice, a synthesizer's plans).
    pub fn inputs(&self) -> &[CompactString] {
        self.extra.as_ref().map_or(&[], |e| e.inputs())
    }

    /// A batch's members as `items.batches.members` wrote them (`1-8`), while they are kept
    /// so: written back as read, without expanding them.
    pub(crate) fn members_text(&self) -> Option<&str> {
        self.extra.as_ref()?.members.text()
    }

    /// Whether it works on any item, without expanding a batch's members.
    pub(crate) fn has_inputs(&self) -> bool {
        self.extra
            .as_ref()
            .is_some_and(|e| !e.inputs.is_empty() || e.members.text().is_some())
    }

    /// The latest rejected submission since the last dispatch.
    pub fn last_rejection(&self) -> Option<&str> {
        self.extra.as_ref()?.last_rejection.as_deref()
    }

    /// The rule a batch formed by rule, or a second look of its, stands for.
    pub fn rule(&self) -> Option<&str> {
        self.extra.as_ref()?.rule.as_deref()
    }

    /// The finding a triage item's `duplicate` answer names.
    pub fn duplicate_of(&self) -> Option<&str> {
        self.extra.as_ref()?.duplicate_of.as_deref()
    }

    /// Whether the finding is under the security two-look rule (issue 40): on the security
    /// route, or once on it (a re-route away, or tagged security by its analyzer), whatever
    /// route it is on now. Its dismissals stand only on two independent looks.
    pub fn two_looks(&self) -> bool {
        self.route.as_deref() == Some(crate::verification::SECURITY) || self.security_sticky()
    }

    /// Re-routes the item to `route`. A finding under the two-look rule stays under it: a
    /// re-route never takes it off (issue 40).
    pub(crate) fn set_route(&mut self, route: &str) {
        if self.two_looks() && route != crate::verification::SECURITY {
            self.extra_mut().security = true;
        }
        self.route = Some(route.into());
    }

    /// Records the finding a `duplicate` answer names (`None`: the answer is not one).
    pub(crate) fn set_duplicate_of(&mut self, target: Option<&str>) {
        if target.is_none() && self.duplicate_of().is_none() {
            return;
        }
        let mut extra = self.extra.take().map(|e| *e).unwrap_or_default();
        extra.duplicate_of = target.map(str::to_owned);
        self.set_extra(extra);
    }

    /// Whether the item keeps the security two-look rule off the security route.
    pub fn security_sticky(&self) -> bool {
        self.extra.as_ref().is_some_and(|e| e.security)
    }

    /// Errors of failed attempts and rejected submissions, newest last.
    pub fn errors(&self) -> &[String] {
        self.extra.as_ref().map_or(&[], |e| &e.errors)
    }

    /// The rarely set fields, to change them.
    pub fn extra_mut(&mut self) -> &mut ItemExtra {
        let extra = self.extra.get_or_insert_with(Box::default);
        // A batch's members kept as read move into `inputs`, where a change can reach them.
        if let Some(ids) = extra.members.take() {
            extra.inputs = ids;
        }
        extra
    }

    /// Replaces the rarely set fields; empty ones take no memory.
    pub fn set_extra(&mut self, extra: ItemExtra) {
        self.extra = (!extra.is_empty()).then(|| Box::new(extra));
    }

    /// Forgets the latest rejected submission (a new dispatch or a valid result).
    pub fn clear_rejection(&mut self) {
        if let Some(extra) = &mut self.extra {
            extra.last_rejection = None;
            if extra.is_empty() {
                self.extra = None;
            }
        }
    }

    /// Moves the item to `tier` (an escalation, a re-route). The tier its last launch ran at
    /// is forgotten when the tier changes: that launch was dispatched at the old tier, and
    /// comparing it with the new one would claim it dropped `model` (issue 24).
    pub(crate) fn move_to_tier(&mut self, tier: Tier) {
        if tier != self.tier {
            self.tier = tier;
            self.ran = None;
        }
    }

    /// Counts one return to `pending` without an attempt charged. Returns false when the item
    /// already had [`MAX_RESENDS`] of them: the caller charges this one instead.
    pub(crate) fn take_resend(&mut self) -> bool {
        if self.resends >= MAX_RESENDS {
            return false;
        }
        self.resends += 1;
        true
    }

    /// Whether the item ended quarantined because the model provider refused its agent (or its
    /// batch's): its errors name [`crate::REFUSED_BY_PROVIDER`].
    pub fn refused_by_provider(&self) -> bool {
        self.status == ItemStatus::Quarantined
            && self
                .errors()
                .iter()
                .any(|e| e.contains(crate::REFUSED_BY_PROVIDER))
    }

    /// The `description` of its dispatch entry; it always contains the id.
    pub fn description(&self) -> String {
        format!("{} {}", self.kind.verb(), self.id)
    }

    /// Keeps the newest errors only, so a flapping item cannot bloat the state.
    pub(crate) fn record_error(&mut self, error: String) {
        const KEEP: usize = 5;
        let errors = &mut self.extra_mut().errors;
        errors.push(error);
        if errors.len() > KEEP {
            let extra = errors.len() - KEEP;
            errors.drain(..extra);
        }
    }
}

#[cfg(test)]
mod size_tests {
    use super::WorkItem;

    #[test]
    fn a_work_item_stays_small() {
        // A hook stop loads every item: at 10,000 items each 100 bytes more are 250 page faults.
        assert!(
            std::mem::size_of::<WorkItem>() <= 128,
            "{}",
            std::mem::size_of::<WorkItem>()
        );
    }
}

#[cfg(test)]
mod file_form_tests {
    use super::{ItemExtra, ItemKind, Tier, Verdict, WorkItem};

    /// An item with every field set: what `state.json` and `--json` outputs show of it.
    fn full_item() -> WorkItem {
        let mut item = WorkItem::new("tb-00042", ItemKind::TriageBatch, Tier::Sonnet);
        item.attempts = 1;
        item.dispatches = 2;
        item.batch = 7;
        item.seen_running = true;
        item.lease = Some(1_763_800_000);
        item.finding = Some(3);
        item.group = Some(2);
        item.route = Some("generic".into());
        item.verdict = Some(Verdict::Real);
        item.root_cause = Some("unused import".into());
        item.reroutes = 1;
        item.resends = 2;
        item.ran = Some(Tier::Haiku);
        item.set_extra(ItemExtra {
            depends_on: vec!["plan-g2-1".to_owned()],
            inputs: vec!["t-00001".into(), "t-00002".into()],
            last_rejection: Some("field `verdict`".to_owned()),
            errors: vec!["attempt 1 (haiku): ended".to_owned()],
            rule: Some("ruff F401".to_owned()),
            duplicate_of: Some("t-00009".to_owned()),
            security: true,
            ..ItemExtra::default()
        });
        item
    }

    #[test]
    fn an_item_written_from_a_borrow_reads_back_field_for_field_in_the_same_order() {
        let item = full_item();
        let text = serde_json::to_string(&item).unwrap();
        assert_eq!(
            text,
            r#"{"id":"tb-00042","kind":"triage_batch","status":"pending","tier":"sonnet","attempts":1,"dispatches":2,"batch":7,"seen_running":true,"lease":1763800000,"depends_on":["plan-g2-1"],"inputs":["t-00001","t-00002"],"finding":3,"group":2,"route":"generic","verdict":"real","root_cause":"unused import","reroutes":1,"resends":2,"ran":"haiku","last_rejection":"field `verdict`","errors":["attempt 1 (haiku): ended"],"rule":"ruff F401","duplicate_of":"t-00009","security":true}"#
        );
        assert_eq!(serde_json::from_str::<WorkItem>(&text).unwrap(), item);
    }

    #[test]
    fn an_item_with_no_extra_writes_only_its_set_fields() {
        let item = WorkItem::new("agg-1", ItemKind::Aggregate, Tier::Sonnet);
        let text = serde_json::to_string(&item).unwrap();
        assert_eq!(
            text,
            r#"{"id":"agg-1","kind":"aggregate","status":"pending","tier":"sonnet"}"#
        );
        assert_eq!(serde_json::from_str::<WorkItem>(&text).unwrap(), item);
    }
}
