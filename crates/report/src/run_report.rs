//! `report.json` (versioned) and `report.md`: every finding's verdict, groups, tasks,
//! quarantined items, and agent launches per phase.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};

use self_repair_engine::{
    FindingRecord, ItemKind, ItemStatus, Phase, PlanDepth, RunState, TaskRecord, TriageResult,
    timestamp,
};
use serde::Serialize;

/// Version of the `report.json` layout.
pub const REPORT_SCHEMA_VERSION: u32 = 1;

/// One finding's outcome. Its texts borrow from the run's findings, state and answers where
/// they can: at 100,000 findings a copy of each was a tenth of the finalizing stop
/// (reference/benchmarks.md, "The finalize with a margin").
#[derive(Debug, Clone, Serialize)]
pub struct FindingOutcome<'a> {
    pub fingerprint: Cow<'a, str>,
    pub tool: Cow<'a, str>,
    pub rule_id: Cow<'a, str>,
    pub level: Cow<'a, str>,
    pub path: Cow<'a, str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    pub message: Cow<'a, str>,
    pub occurrences: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<Cow<'a, str>>,
    /// `agent`, `survey` (its rule's policy), `known`, `rule`, or `none` when the item was
    /// quarantined.
    pub decided_by: Cow<'a, str>,
    /// How an undecided finding's item ended: `quarantined` (its tiers exhausted, its inputs
    /// lost), or `refused` (the model provider refused its agent: `stop_reason: "refusal"`).
    /// Absent for a decided or pending finding. `eval` scores both as abstentions
    /// (`Ended::Quarantined`, `Ended::Refused`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ended: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root_cause: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<Cow<'a, str>>,
    /// The triage batch (`tb-00003`) whose agent decided the finding, when one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batch: Option<Cow<'a, str>>,
    /// The rule survey (`rs-00002`) whose policy decided the finding, when one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub survey: Option<Cow<'a, str>>,
    /// The findings triaged on their own that confirmed that policy.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub spot_checks: Vec<String>,
    /// With a `suppress` policy: the analyzer configuration change that silences the rule.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config_change: Option<Cow<'a, str>>,
    /// The model tier the answering agent really ran at (from the session transcript), when
    /// known; it can be lower than the tier dispatched when the launch dropped `model`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ran_model: Option<Cow<'a, str>>,
    /// The investigator's first answer when it asked for a re-route (`unsure` + `reroute`);
    /// `verdict` is then the re-routed agent's answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rerouted_from: Option<TriageResult>,
    /// The finding its first look named as the one it duplicates (issue 40): `verdict` is
    /// `duplicate` when that one ended dismissed, else what the chain settled (`real` for a
    /// duplicate of a real finding, a cycle, a missing target or one on another route).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duplicate_of: Option<Cow<'a, str>>,
    /// When the verdict needed a second agent (a low-confidence or security dismissal, an
    /// `unsure`): both answers, why, and what stood.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verification: Option<crate::Verification>,
}

impl FindingOutcome<'_> {
    /// The same outcome holding its own texts.
    #[must_use]
    pub fn into_owned(self) -> FindingOutcome<'static> {
        let own = |text: Cow<'_, str>| Cow::Owned(text.into_owned());
        let own_some = |text: Option<Cow<'_, str>>| text.map(own);
        FindingOutcome {
            fingerprint: own(self.fingerprint),
            tool: own(self.tool),
            rule_id: own(self.rule_id),
            level: own(self.level),
            path: own(self.path),
            line: self.line,
            message: own(self.message),
            occurrences: self.occurrences,
            item: own_some(self.item),
            decided_by: own(self.decided_by),
            ended: own_some(self.ended),
            verdict: own_some(self.verdict),
            root_cause: own_some(self.root_cause),
            reason: own_some(self.reason),
            group: own_some(self.group),
            batch: own_some(self.batch),
            survey: own_some(self.survey),
            spot_checks: self.spot_checks,
            config_change: own_some(self.config_change),
            ran_model: own_some(self.ran_model),
            rerouted_from: self.rerouted_from,
            duplicate_of: own_some(self.duplicate_of),
            verification: self.verification,
        }
    }
}

/// A group and its task.
#[derive(Debug, Clone, Serialize)]
pub struct GroupOutcome {
    pub id: String,
    pub label: String,
    pub root_cause: String,
    pub findings: usize,
    pub planned: bool,
    /// How it was planned, when it was: `full`, `light` (one plan, one review) or
    /// `analyzer_fix` (by code: every finding has the analyzer's safe fix, no agent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan: Option<PlanDepth>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskRecord>,
}

/// An item that exhausted its tiers or lost its inputs.
#[derive(Debug, Clone, Serialize)]
pub struct QuarantinedItem {
    pub item: String,
    pub kind: String,
    pub errors: Vec<String>,
    /// The model provider refused its agent (`stop_reason: "refusal"`): not a failure.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub refused_by_provider: bool,
}

/// Agent launches of one phase.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PhaseCost {
    pub items: u32,
    pub launches: u32,
    pub failed_attempts: u32,
    /// Items by the tier their last launch ran at (the transcript's evidence; the dispatched
    /// tier when there is none): a tier that never ran is never counted.
    pub by_tier: BTreeMap<String, u32>,
}

/// The whole report.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport<'a> {
    pub schema_version: u32,
    pub run: String,
    pub created_at: String,
    pub status: String,
    pub summary: String,
    pub intake: self_repair_engine::Intake,
    /// What part of its input the run took (`start --changed-since`, `--new-only`,
    /// `--partition`); absent when all of it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<self_repair_engine::RunScope>,
    /// `start --until triage`: the run ended after triage; real findings were not grouped.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub ended_after_triage: bool,
    /// A run `merge` made: the partitions' runs it combined, by share.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged_from: Vec<self_repair_engine::MergedShare>,
    /// Against the project's previous triage run (a partition's share is none): how many
    /// findings are new, persisting, resolved and reappeared (`self-repair runs --compare`
    /// lists them). Absent for the project's first run, and for a share.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since_previous: Option<crate::SincePrevious>,
    pub verdicts: BTreeMap<String, u32>,
    pub findings: Vec<FindingOutcome<'a>>,
    pub groups: Vec<GroupOutcome>,
    pub tasks: Vec<TaskRecord>,
    pub quarantined: Vec<QuarantinedItem>,
    /// Agents the model provider refused (`state.json`'s `provider_refusals`), counted apart
    /// from failed attempts; `findings[].ended` is `refused` for the findings they left open.
    #[serde(skip_serializing_if = "is_zero")]
    pub provider_refusals: u32,
    pub cost: BTreeMap<String, PhaseCost>,
    /// Tokens and dollars, read from the session's transcripts (absent when the hook never saw
    /// them: a run driven outside Claude Code).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spend: Option<crate::RunCost>,
    /// The rule surveys' `suppress` policies: the analyzer configuration each suggests.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub suppressions: Vec<crate::Suppression>,
    /// The rule review's proposals still waiting in `rules.json` for `rules accept`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rule_proposals: Vec<crate::RuleProposal>,
    /// The run's dismissals waiting in `known.json` for `known accept`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub known_proposals: Vec<crate::KnownProposal>,
}

impl<'a> RunReport<'a> {
    /// Builds the report from the final state, the findings and the triage results by item id.
    pub fn build(
        state: &'a RunState,
        findings: &'a [FindingRecord],
        triage: &'a HashMap<String, TriageResult>,
    ) -> RunReport<'a> {
        let group_of: HashMap<&str, &str> = state
            .groups
            .iter()
            .flat_map(|g| g.members.iter().map(move |m| (m.as_str(), g.id.as_str())))
            .collect();
        let batch_of = self_repair_engine::batch_of(state);
        let survey_of = self_repair_engine::survey_of(state);
        let mut verdicts: BTreeMap<String, u32> = BTreeMap::new();
        let outcomes: Vec<FindingOutcome<'a>> = findings
            .iter()
            .map(|record| {
                let f = &record.finding;
                let id = record.item.as_deref();
                let item = id.and_then(|id| state.item(id));
                let result = id.and_then(|id| triage.get(id));
                let survey = id.and_then(|id| Some((item?, *survey_of.get(id)?)));
                let (decided_by, verdict, root_cause, reason) =
                    match (&record.predecided, survey, result) {
                        (None, Some((item, s)), _) => (
                            Cow::Borrowed("survey"),
                            item.verdict.map(|v| Cow::Borrowed(v.as_str())),
                            item.root_cause.as_deref().map(Cow::Borrowed),
                            s.answer.as_ref().map(|a| Cow::Borrowed(a.reason.as_str())),
                        ),
                        (Some(p), _, _) => (
                            Cow::Borrowed(p.by.as_str()),
                            Some(Cow::Borrowed(p.verdict.as_str())),
                            None,
                            Some(Cow::Borrowed(p.reason.as_str())),
                        ),
                        (None, None, Some(r)) => (
                            Cow::Borrowed("agent"),
                            // The run's settled verdict (a duplicate's chain, a second look),
                            // else the answer's.
                            Some(Cow::Borrowed(
                                item.filter(|i| i.status == ItemStatus::Done)
                                    .and_then(|i| i.verdict)
                                    .unwrap_or(r.verdict)
                                    .as_str(),
                            )),
                            Some(Cow::Borrowed(r.root_cause.as_str())),
                            Some(Cow::Borrowed(r.reason.as_str())),
                        ),
                        (None, None, None) => (Cow::Borrowed("none"), None, None, None),
                    };
                let counted = verdict.as_deref().unwrap_or("undecided");
                match verdicts.get_mut(counted) {
                    Some(n) => *n += 1,
                    None => {
                        verdicts.insert(counted.to_owned(), 1);
                    }
                }
                let ended = item
                    .filter(|_| verdict.is_none())
                    .filter(|item| item.status == ItemStatus::Quarantined)
                    .map(|item| {
                        Cow::Borrowed(if item.refused_by_provider() {
                            "refused"
                        } else {
                            "quarantined"
                        })
                    });
                let batch = id
                    .filter(|_| decided_by == "agent")
                    .and_then(|id| batch_of.get(id))
                    .map(|b| Cow::Borrowed(*b));
                FindingOutcome {
                    fingerprint: Cow::Borrowed(&record.fingerprint),
                    tool: Cow::Borrowed(&f.tool),
                    rule_id: Cow::Borrowed(&f.rule_id),
                    level: Cow::Borrowed(f.level.as_str()),
                    path: Cow::Borrowed(&f.path),
                    line: f.line,
                    message: Cow::Borrowed(&f.message),
                    occurrences: record.occurrences.len(),
                    item: id.map(Cow::Borrowed),
                    decided_by,
                    ended,
                    verdict,
                    root_cause,
                    reason,
                    group: id
                        .and_then(|id| group_of.get(id))
                        .map(|g| Cow::Borrowed(*g)),
                    batch,
                    survey: survey.map(|(_, s)| Cow::Borrowed(s.id.as_str())),
                    spot_checks: survey
                        .map(|(_, s)| s.spot_checks.clone())
                        .unwrap_or_default(),
                    config_change: survey.and_then(|(_, s)| {
                        s.answer
                            .as_ref()?
                            .config_change
                            .as_deref()
                            .map(Cow::Borrowed)
                    }),
                    rerouted_from: None,
                    duplicate_of: item.and_then(|i| i.duplicate_of()).map(Cow::Borrowed),
                    verification: None,
                    ran_model: item.and_then(|i| i.ran).map(|t| Cow::Borrowed(t.as_str())),
                }
            })
            .collect();
        // The first task of each group (a group has at most one).
        let mut task_of: HashMap<&str, &TaskRecord> = HashMap::new();
        for task in &state.tasks {
            task_of.entry(task.group.as_str()).or_insert(task);
        }
        let groups = state
            .groups
            .iter()
            .map(|g| GroupOutcome {
                id: g.id.clone(),
                label: g.label.clone(),
                root_cause: g.root_cause.clone(),
                findings: g.members.len(),
                planned: g.planned,
                plan: g.planned.then_some(g.depth),
                task: task_of.get(g.id.as_str()).map(|t| (*t).clone()),
            })
            .collect();
        let quarantined = state
            .items
            .iter()
            .filter(|i| i.status == ItemStatus::Quarantined)
            .map(|i| QuarantinedItem {
                item: i.id.to_string(),
                kind: i.kind.as_str().to_owned(),
                errors: i.errors().to_vec(),
                refused_by_provider: i.refused_by_provider(),
            })
            .collect();
        let mut cost: BTreeMap<String, PhaseCost> = BTreeMap::new();
        for item in &state.items {
            let phase = cost
                .entry(item.kind.phase().as_str().to_owned())
                .or_default();
            // A batch is one launch for several findings: its findings count as items, it
            // counts as launches.
            phase.failed_attempts += item.attempts;
            if item.kind == ItemKind::TriageBatch {
                phase.launches += item.dispatches;
                continue;
            }
            phase.items += 1;
            let answered_alone =
                item.status == ItemStatus::Done && !batch_of.contains_key(item.id.as_str());
            phase.launches += item.dispatches.max(u32::from(answered_alone));
            *phase
                .by_tier
                .entry(item.ran.unwrap_or(item.tier).as_str().to_owned())
                .or_default() += 1;
        }
        RunReport {
            schema_version: REPORT_SCHEMA_VERSION,
            run: state.run.clone(),
            created_at: timestamp::rfc3339(state.created_at),
            status: state.shown_status().to_owned(),
            summary: self_repair_engine::summary(state),
            intake: state.intake.clone(),
            scope: state.scope.clone(),
            ended_after_triage: state.until == Some(self_repair_engine::Phase::Triage),
            merged_from: state.merged_from.clone(),
            since_previous: None,
            verdicts,
            findings: outcomes,
            groups,
            tasks: state.tasks.clone(),
            quarantined,
            provider_refusals: state.provider_refusals,
            cost,
            spend: None,
            suppressions: crate::Suppression::of(state),
            rule_proposals: Vec::new(),
            known_proposals: Vec::new(),
        }
    }

    /// The same report holding its own texts: one that outlives the answers it was built from.
    #[must_use]
    pub fn into_owned(self) -> RunReport<'static> {
        RunReport {
            findings: self
                .findings
                .into_iter()
                .map(FindingOutcome::into_owned)
                .collect(),
            schema_version: self.schema_version,
            run: self.run,
            created_at: self.created_at,
            status: self.status,
            summary: self.summary,
            intake: self.intake,
            scope: self.scope,
            ended_after_triage: self.ended_after_triage,
            merged_from: self.merged_from,
            since_previous: self.since_previous,
            verdicts: self.verdicts,
            groups: self.groups,
            tasks: self.tasks,
            quarantined: self.quarantined,
            provider_refusals: self.provider_refusals,
            cost: self.cost,
            spend: self.spend,
            suppressions: self.suppressions,
            rule_proposals: self.rule_proposals,
            known_proposals: self.known_proposals,
        }
    }

    /// Adds what the run proposes for a person to accept: its rules and its dismissals.
    #[must_use]
    pub fn with_proposals(
        mut self,
        rules: Vec<crate::RuleProposal>,
        known: Vec<crate::KnownProposal>,
    ) -> RunReport<'a> {
        self.rule_proposals = rules;
        self.known_proposals = known;
        self
    }

    /// The steps left to a person, counted from the report.
    pub fn next_steps(&self) -> crate::NextSteps {
        crate::NextSteps {
            run: self.run.clone(),
            tasks: self.tasks.len(),
            not_reproduced: 0,
            rule_proposals: self.rule_proposals.len(),
            known_proposals: self.known_proposals.len(),
            config_changes: self.suppressions.len(),
        }
    }

    /// Adds the counts against the project's previous run (`None`: there is none).
    #[must_use]
    pub fn with_since_previous(mut self, since: Option<crate::SincePrevious>) -> RunReport<'a> {
        self.since_previous = since;
        self
    }

    /// Adds what the run cost.
    #[must_use]
    pub fn with_spend(mut self, spend: Option<crate::RunCost>) -> RunReport<'a> {
        self.spend = spend;
        self
    }

    /// Adds the first answers of re-routed items (item id -> the `unsure` + `reroute` answer).
    #[must_use]
    pub fn with_rerouted_answers(
        mut self,
        earlier: &HashMap<String, TriageResult>,
    ) -> RunReport<'a> {
        for finding in &mut self.findings {
            if let Some(answer) = finding.item.as_deref().and_then(|id| earlier.get(id)) {
                finding.rerouted_from = Some(answer.clone());
            }
        }
        self
    }

    /// Attaches each verified finding's chain (by triage item).
    #[must_use]
    pub fn with_verifications(
        mut self,
        chains: &HashMap<String, crate::Verification>,
    ) -> RunReport<'a> {
        for finding in &mut self.findings {
            if let Some(chain) = finding.item.as_deref().and_then(|id| chains.get(id)) {
                finding.verification = Some(chain.clone());
            }
        }
        self
    }

    /// report.md's section on the agents the model provider refused, naming the findings they
    /// left open; empty when it refused none.
    fn render_refused(&self) -> String {
        if self.provider_refusals == 0 {
            return String::new();
        }
        let mut out = format!(
            "\n## Refused by the model provider\n\n{} agent(s) ended with `stop_reason: \
             \"refusal\"`: the provider's safety classifier declined the text, not a weak \
             model's failure. Their items are quarantined, neither escalated nor sent again \
             (a batch of several was split in halves at its tier); triage these findings \
             yourself:\n\n",
            self.provider_refusals
        );
        let refused: Vec<&FindingOutcome> = self
            .findings
            .iter()
            .filter(|f| f.ended.as_deref() == Some("refused"))
            .collect();
        if refused.is_empty() {
            out.push_str("- none left open (a later answer decided them)\n");
        }
        let more = more_rows(refused.len(), "refused findings", "`findings[].ended`");
        for f in refused.into_iter().take(LIST_ROWS) {
            let line = f.line.map(|l| format!(":{l}")).unwrap_or_default();
            out.push_str(&format!(
                "- `{}` {} `{}{line}` ({})\n",
                f.item.as_deref().unwrap_or("-"),
                cell(&f.rule_id),
                cell(&f.path),
                f.tool
            ));
        }
        out.push_str(&more);
        out
    }

    /// `report.md`.
    pub fn render_markdown(&self) -> String {
        let mut out = format!("# self-repair run {}\n\n{}\n\n", self.run, self.summary);
        out.push_str(&format!(
            "Started {}. {} findings read, {} unique; {} decided by the known registry, {} by \
             rules, {} investigated by agents.\n\n",
            self.created_at,
            self.intake.findings,
            self.intake.unique,
            self.intake.known,
            self.intake.rules,
            self.intake.routed
        ));
        if let Some(scope) = &self.scope {
            out.push_str(&format!("Scope: {}.\n\n", scope.summary()));
        }
        if let Some(since) = &self.since_previous {
            let c = &since.counts;
            out.push_str(&format!(
                "Since the previous run `{}`: {} new, {} persisting, {} resolved, {} reappeared \
                 (`self-repair runs --compare {} {}` lists them).\n\n",
                since.run, c.new, c.persisting, c.resolved, c.reappeared, since.run, self.run
            ));
        }
        if !self.merged_from.is_empty() {
            let shares: Vec<String> = self
                .merged_from
                .iter()
                .map(|m| format!("hash:{}/{} `{}` ({})", m.share, m.shares, m.run, m.folder))
                .collect();
            out.push_str(&format!(
                "Merged from {} partitions (`self-repair merge`): {}. Their agents triaged \
                 every finding; this run grouped, planned and wrote the tasks over all of \
                 them; the cost below includes theirs (`self-repair status` shows it per \
                 partition).\n\n",
                self.merged_from.len(),
                shares.join(", ")
            ));
        }
        out.push_str(&self.next_steps().render_markdown());
        out.push_str("## Verdicts\n\n| verdict | findings |\n|---|---|\n");
        for (verdict, n) in &self.verdicts {
            out.push_str(&format!("| {verdict} | {n} |\n"));
        }
        out.push_str("\n## Groups and tasks\n\n");
        if self.ended_after_triage {
            out.push_str(
                "The run ended after triage (`start --until triage`): its real findings are \
                 not grouped or planned here.\n",
            );
        } else if self.groups.is_empty() {
            out.push_str("No real findings: nothing to plan.\n");
        } else {
            let mut groups: Vec<&GroupOutcome> = self.groups.iter().collect();
            if groups.len() > LIST_ROWS {
                // The largest first when not all are listed.
                groups.sort_by_key(|g| std::cmp::Reverse(g.findings));
                out.push_str(&format!(
                    "The {LIST_ROWS} largest of {} groups:\n\n",
                    groups.len()
                ));
            }
            out.push_str(
                "| group | root cause | findings | plan | task |\n|---|---|---|---|---|\n",
            );
            for g in groups.into_iter().take(LIST_ROWS) {
                let task = match (&g.task, g.planned) {
                    (Some(t), _) if t.existing => format!("{} (existed)", t.task_id),
                    (Some(t), _) => format!("{} `{}`", t.task_id, t.file),
                    (None, false) => "below min_group_size".to_owned(),
                    (None, true) => "no task (planning failed)".to_owned(),
                };
                let plan = match g.plan {
                    Some(PlanDepth::Full) => "full",
                    Some(PlanDepth::Light) => "light: 1 plan, 1 review",
                    Some(PlanDepth::AnalyzerFix) => "by code: the analyzer's safe fixes",
                    None => "-",
                };
                out.push_str(&format!(
                    "| {} | {} | {} | {plan} | {task} |\n",
                    g.id,
                    cell(&g.label),
                    g.findings
                ));
            }
            out.push_str(&more_rows(self.groups.len(), "groups", "`groups`"));
        }
        out.push_str(&self.render_tasks_by_priority());
        out.push_str(&self.render_suppressions());
        out.push_str(&self.render_rule_proposals());
        out.push_str(&self.render_known_proposals());
        out.push_str(&self.render_refused());
        if !self.quarantined.is_empty() {
            out.push_str("\n## Quarantined items\n\n");
            for q in self.quarantined.iter().take(LIST_ROWS) {
                let last = q.errors.last().map_or("", String::as_str);
                // Said once: the reason already opens with it.
                let refused = if q.refused_by_provider
                    && !last.starts_with(self_repair_engine::REFUSED_BY_PROVIDER)
                {
                    " (refused by the model provider)"
                } else {
                    ""
                };
                out.push_str(&format!("- `{}` ({}){refused}: {last}\n", q.item, q.kind));
            }
            out.push_str(&more_rows(
                self.quarantined.len(),
                "quarantined items",
                "`quarantined`",
            ));
        }
        let verified: Vec<(&str, &crate::Verification)> = self
            .findings
            .iter()
            .filter_map(|f| Some((f.item.as_deref()?, f.verification.as_ref()?)))
            .collect();
        if !verified.is_empty() {
            out.push_str(
                "\n## Verified verdicts\n\nLow-confidence and security dismissals and `unsure` \
                 answers, checked by a second agent; a dismissal the two do not share stays \
                 `real`.\n\n",
            );
            let more = more_rows(
                verified.len(),
                "verified verdicts",
                "`findings[].verification`",
            );
            for (item, chain) in verified.into_iter().take(LIST_ROWS) {
                out.push_str(&format!("- `{item}`: {}\n", cell(&chain.summary())));
            }
            out.push_str(&more);
        }
        let rerouted: Vec<&FindingOutcome> = self
            .findings
            .iter()
            .filter(|f| f.rerouted_from.is_some())
            .collect();
        if !rerouted.is_empty() {
            out.push_str("\n## Re-routed findings\n\n");
            let more = more_rows(
                rerouted.len(),
                "re-routed findings",
                "`findings[].rerouted_from`",
            );
            for f in rerouted.into_iter().take(LIST_ROWS) {
                let route = f
                    .rerouted_from
                    .as_ref()
                    .and_then(|r| r.reroute.as_deref())
                    .unwrap_or("?");
                out.push_str(&format!(
                    "- `{}`: the first investigator was unsure and re-routed it to `{route}`; the \
                     re-routed agent answered {}\n",
                    f.item.as_deref().unwrap_or("-"),
                    f.verdict.as_deref().unwrap_or("nothing")
                ));
            }
            out.push_str(&more);
        }
        out.push_str("\n## Agents per phase\n\n| phase | items | launches | failed attempts | final tiers |\n|---|---|---|---|---|\n");
        for phase in Phase::ALL {
            if let Some(c) = self.cost.get(phase.as_str()) {
                let tiers: Vec<String> =
                    c.by_tier.iter().map(|(t, n)| format!("{t} {n}")).collect();
                out.push_str(&format!(
                    "| {} | {} | {} | {} | {} |\n",
                    phase.as_str(),
                    c.items,
                    c.launches,
                    c.failed_attempts,
                    tiers.join(", ")
                ));
            }
        }
        if let Some(spend) = &self.spend {
            out.push_str(&spend.render_markdown());
        }
        if self.findings.len() > FINDINGS_LISTED {
            out.push_str(&self.render_findings_by_rule());
            return out;
        }
        out.push_str("\n## Findings\n\n| finding | location | verdict | by | group |\n|---|---|---|---|---|\n");
        for f in &self.findings {
            let location = f
                .line
                .map_or_else(|| f.path.to_string(), |l| format!("{}:{l}", f.path));
            out.push_str(&format!(
                "| {} {} | `{}` | {} | {} | {} |\n",
                f.tool,
                cell(&f.rule_id),
                cell(&location),
                verdict_text(f.verdict.as_deref(), f.duplicate_of.as_deref(), "-"),
                f.decided_by,
                f.group.as_deref().unwrap_or("-")
            ));
        }
        out
    }
}

impl RunReport<'_> {
    /// The run's tasks, highest priority first (empty without tasks).
    fn render_tasks_by_priority(&self) -> String {
        if self.tasks.is_empty() {
            return String::new();
        }
        let mut tasks: Vec<&TaskRecord> = self.tasks.iter().collect();
        tasks.sort_by_key(|t| priority_rank(t.priority.as_deref()));
        let mut out = String::from(
            "\n## Tasks by priority\n\n| priority | task | title | group | file |\n|---|---|---|---|---|\n",
        );
        let more = more_rows(tasks.len(), "tasks", "`tasks`");
        for t in tasks.into_iter().take(LIST_ROWS) {
            out.push_str(&format!(
                "| {} | {}{} | {} | {} | `{}` |\n",
                cell(t.priority.as_deref().unwrap_or("-")),
                t.task_id,
                if t.existing { " (existed)" } else { "" },
                cell(&t.title),
                t.group,
                cell(&t.file)
            ));
        }
        out.push_str(&more);
        out
    }

    /// "Suggested analyzer configuration": each `suppress` policy with its change and the
    /// findings it covers.
    fn render_suppressions(&self) -> String {
        if self.suppressions.is_empty() {
            return String::new();
        }
        let mut out = String::from(
            "\n## Suggested analyzer configuration\n\nA rule survey judged every finding of \
             these rules a false positive or intended here (its policy checked by spot checks). \
             The change silences the rule at its source; until it is made, the analyzer keeps \
             reporting the findings and each run decides them again.\n",
        );
        for s in &self.suppressions {
            let change = match s.config_change.as_deref().map(str::trim) {
                None | Some("") => "(the surveyor gave none)".to_owned(),
                Some(c) if !c.contains(['\n', '`']) => format!("`{c}`"),
                Some(c) => {
                    let fence = "`".repeat(longest_backticks(c).max(2) + 1);
                    format!("\n\n{fence}text\n{c}\n{fence}\n")
                }
            };
            out.push_str(&format!(
                "\n### {} ({})\n\n- change: {change}\n- verdict: {}; why: {}\n- covers {}: {}\n",
                s.rule,
                s.survey,
                s.verdict.as_deref().unwrap_or("-"),
                cell(&s.reason),
                if s.items.len() == 1 {
                    "1 finding".to_owned()
                } else {
                    format!("{} findings", s.items.len())
                },
                self.locations(&s.items)
            ));
        }
        out
    }

    /// "Rule proposals": each with the command that accepts it.
    fn render_rule_proposals(&self) -> String {
        if self.rule_proposals.is_empty() {
            return String::new();
        }
        let mut out = String::from(
            "\n## Rule proposals\n\nThe rule reviewer's rules, measured on this run's agent \
             verdicts. They decide nothing until accepted; an accepted rule decides matching \
             findings from the next `self-repair start`, with no agent.\n\n\
             | rule | name | decides | measured | accept with |\n|---|---|---|---|---|\n",
        );
        for r in &self.rule_proposals {
            let measured = match (r.matches, r.agreed) {
                (Some(m), Some(a)) => format!("{a} of {m} matches agreed"),
                _ => "-".to_owned(),
            };
            out.push_str(&format!(
                "| {} | {} | {} | {measured} | `{}` |\n",
                r.id,
                cell(&r.name),
                cell(&r.outcome),
                r.accept_command()
            ));
        }
        out
    }

    /// "Waiting for `known accept`": the run's dismissals `known.json` keeps as proposals.
    fn render_known_proposals(&self) -> String {
        if self.known_proposals.is_empty() {
            return String::new();
        }
        let mut out = String::from(
            "\n## Waiting for `known accept`\n\nDismissals on the security route (or disputed \
             by a second agent) that `known.json` keeps as proposals: they decide nothing, and \
             the next run triages these findings again, until a person accepts them.\n\n\
             | item | finding | verdict | why | accept with |\n|---|---|---|---|---|\n",
        );
        for k in self.known_proposals.iter().take(LIST_ROWS) {
            out.push_str(&format!(
                "| {} | {} | {} | {} | `{}` |\n",
                k.item.as_deref().unwrap_or("-"),
                cell(&k.summary),
                k.verdict,
                cell(&k.reason),
                k.accept_command()
            ));
        }
        out.push_str(&more_rows(
            self.known_proposals.len(),
            "dismissals waiting",
            "`known_proposals`",
        ));
        out
    }

    /// report.md's summary of the findings of a run too large to list one a line: each rule's
    /// findings by verdict, the largest rules first, and where every finding is.
    fn render_findings_by_rule(&self) -> String {
        let mut by_rule: HashMap<(&str, &str), BTreeMap<&str, usize>> = HashMap::new();
        for f in &self.findings {
            *by_rule
                .entry((&*f.tool, &*f.rule_id))
                .or_default()
                .entry(f.verdict.as_deref().unwrap_or("undecided"))
                .or_default() += 1;
        }
        let mut rules: Vec<RuleCount<'_>> = by_rule
            .into_iter()
            .map(|(rule, verdicts)| (rule, verdicts.values().sum(), verdicts))
            .collect();
        rules.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut out = format!(
            "\n## Findings by rule\n\n{} findings, too many to list here one a line: every \
             finding with its verdict, who decided it and why is in `report.json` (`findings`), \
             and `self-repair status --findings --run {}` prints them (`--json` for a script).\n\n\
             | rule | findings | verdicts |\n|---|---|---|\n",
            self.findings.len(),
            self.run
        );
        for ((tool, rule), count, verdicts) in rules.iter().take(LIST_ROWS) {
            let verdicts: Vec<String> = verdicts.iter().map(|(v, n)| format!("{v} {n}")).collect();
            out.push_str(&format!(
                "| {tool} {} | {count} | {} |\n",
                cell(rule),
                verdicts.join(", ")
            ));
        }
        if rules.len() > LIST_ROWS {
            let rest: usize = rules.iter().skip(LIST_ROWS).map(|r| r.1).sum();
            out.push_str(&format!(
                "\n... and {} more rules ({rest} findings): `report.json` has every finding.\n",
                rules.len() - LIST_ROWS
            ));
        }
        out
    }

    /// Where the findings of `items` are: the first few `path:line`, then how many more.
    fn locations(&self, items: &[String]) -> String {
        const SHOWN: usize = 5;
        let items: HashSet<&str> = items.iter().map(String::as_str).collect();
        let mut at: Vec<String> = self
            .findings
            .iter()
            .filter(|f| f.item.as_deref().is_some_and(|i| items.contains(i)))
            .map(|f| {
                let location = f
                    .line
                    .map_or_else(|| f.path.to_string(), |l| format!("{}:{l}", f.path));
                format!("`{}`", cell(&location))
            })
            .collect();
        let more = at.len().saturating_sub(SHOWN);
        at.truncate(SHOWN);
        let mut text = at.join(", ");
        if more > 0 {
            let rest = if self.findings.len() > FINDINGS_LISTED {
                "report.json's `findings`"
            } else {
                "the Findings table below"
            };
            text.push_str(&format!(" and {more} more ({rest})"));
        }
        text
    }
}

/// One rule (`tool`, `rule_id`) of report.md's Findings by rule: its findings, by verdict.
type RuleCount<'a> = ((&'a str, &'a str), usize, BTreeMap<&'a str, usize>);

/// Most findings report.md lists one a line; a larger run's report.md counts them by rule and
/// points to `report.json`, which lists every one.
pub(crate) const FINDINGS_LISTED: usize = 1_000;

/// Most rows of any other list in report.md (groups, tasks, quarantined items, second looks,
/// rules...); the rest are counted, with the `report.json` field that lists them.
pub(crate) const LIST_ROWS: usize = 200;

/// The line after a list cut at [`LIST_ROWS`]; empty when nothing was cut.
fn more_rows(total: usize, what: &str, field: &str) -> String {
    if total <= LIST_ROWS {
        return String::new();
    }
    format!(
        "\n... and {} more {what} (the first {LIST_ROWS} of {total} are listed): `report.json` \
         {field} has every one.\n",
        total - LIST_ROWS
    )
}

/// Sort key of a task priority: high, medium, low, anything else, none.
fn priority_rank(priority: Option<&str>) -> u8 {
    match priority.map(str::to_ascii_lowercase).as_deref() {
        Some("high") => 0,
        Some("medium") => 1,
        Some("low") => 2,
        Some(_) => 3,
        None => 4,
    }
}

/// The longest run of backticks in `text` (a fence must be longer).
fn longest_backticks(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

/// A verdict as `status --findings` and report.md show it (`none` without one): a duplicate
/// names the finding it duplicates, and a finding answered `duplicate` whose chain settled
/// otherwise says so (`real (answered duplicate of t-00003)`).
#[must_use]
pub fn verdict_text(verdict: Option<&str>, duplicate_of: Option<&str>, none: &str) -> String {
    match (verdict, duplicate_of) {
        (Some("duplicate"), Some(target)) => format!("duplicate of {target}"),
        (Some(verdict), Some(target)) => format!("{verdict} (answered duplicate of {target})"),
        (Some(verdict), None) => verdict.to_owned(),
        (None, _) => none.to_owned(),
    }
}

/// Text safe inside a markdown table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace(['\n', '\r'], " ")
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde passes a reference"
)]
fn is_zero(n: &u32) -> bool {
    *n == 0
}

#[cfg(test)]
#[path = "run_report_tests.rs"]
pub(crate) mod tests;
