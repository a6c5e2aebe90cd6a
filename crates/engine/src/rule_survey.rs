//! The rule survey (issue 13 item 1, design note 26): before its findings are triaged one by
//! one, a rule with many findings is read once (`rs-` items) and answered with a policy for the
//! whole rule. Code checks a `fix_all` or `suppress` policy on a few findings the surveyor did
//! not see; when they agree the policy decides the rest, else the rule is triaged as usual.
//!
//! The triage items (`t-00042`) stay the per-finding records. While its survey is open a
//! rule's items are held (never dispatched); what the survey resolves to releases them, decides
//! them, or both.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::{ItemKind, ItemStatus, ProposedGroup, RoutedFinding, RunState, Verdict, WorkItem};

/// What a surveyor answers for its rule in this codebase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SurveyPolicy {
    /// Real everywhere, one root cause.
    FixAll,
    /// A false positive or intended here; the analyzer's configuration should silence it.
    Suppress,
    /// Needs judgement per finding.
    TriageEach,
}

impl SurveyPolicy {
    /// Every policy, for schemas and messages.
    pub const ALL: [SurveyPolicy; 3] = [
        SurveyPolicy::FixAll,
        SurveyPolicy::Suppress,
        SurveyPolicy::TriageEach,
    ];

    /// The spelling used in files and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            SurveyPolicy::FixAll => "fix_all",
            SurveyPolicy::Suppress => "suppress",
            SurveyPolicy::TriageEach => "triage_each",
        }
    }
}

/// A surveyor's answer, as `submit` accepts it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SurveyResult {
    pub policy: SurveyPolicy,
    pub reason: String,
    /// With `fix_all`: the one root cause, as a short label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root_cause: Option<String>,
    /// With `suppress`: `false_positive` or `intended`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
    /// With `suppress`: the exact analyzer configuration change that silences the rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_change: Option<String>,
    /// With `triage_each`: the diagnosis route its findings should take instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub route: Option<String>,
}

/// Where a survey is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SurveyStage {
    /// Its agent has not answered: every member is held.
    Open,
    /// A `fix_all` or `suppress` answer awaits its spot checks: the others stay held.
    Checking,
    /// The policy decided every member but the spot checks.
    Applied,
    /// No policy applies (`triage_each`, a spot check disagreed, or the survey failed): the
    /// members were released to ordinary triage.
    Dropped,
}

/// One surveyed rule: `state.json`'s `surveys`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SurveyRecord {
    /// The survey item (`rs-00001`).
    pub id: String,
    /// The analyzer and its rule (`ruff D205`).
    pub rule: String,
    /// Every triage item of the rule on the surveyed route, in item order; in the file, their
    /// numbers (`"1,38,75-77"`: [`crate::member_list`]).
    pub members: crate::MemberList,
    /// The members the surveyor reads (spread over files).
    pub sample: Vec<String>,
    /// Members outside the sample, triaged on their own to check a policy.
    pub spot_checks: Vec<String>,
    pub stage: SurveyStage,
    /// The surveyor's answer, once recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<SurveyResult>,
    /// Why the policy was dropped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dropped: Option<String>,
}

/// The route whose findings keep per-finding triage, import-blacklist rules aside.
const SECURITY: &str = "security";

/// Whether `rule` (`bandit B404`) is an import-blacklist rule: Bandit's B401-B499 and Ruff's
/// S401-S499 flag the import of a module with a risky API, not a use of it (the uses have rules
/// of their own). One policy fits the whole rule, so it is surveyed on the security route too
/// (issue 40, item 4): its own spot checks still get per-finding triage and their second looks.
pub(crate) fn import_blacklist(rule: &str) -> bool {
    let Some((tool, id)) = rule.split_once(' ') else {
        return false;
    };
    let prefix = match tool.to_ascii_lowercase().as_str() {
        "bandit" => 'B',
        "ruff" => 'S',
        _ => return false,
    };
    let mut chars = id.chars();
    chars.next() == Some(prefix)
        && chars.next() == Some('4')
        && id.len() == 4
        && id[1..].bytes().all(|b| b.is_ascii_digit())
}

/// The id of the `n`-th (1-based) survey: `rs-00003`.
fn survey_id(n: usize) -> String {
    format!("rs-{n:05}")
}

/// Creates a survey for each rule with at least `survey_min` findings on one route other than
/// security and not tagged security by their analyzer (import-blacklist rules on any route),
/// right after the triage items; returns the
/// indices of the findings it holds (not to be batched). Nothing when `survey_min` is 0.
pub(crate) fn form_surveys(state: &mut RunState, routed: &[RoutedFinding]) -> HashSet<usize> {
    let min = state.config.survey_min as usize;
    let mut held = HashSet::new();
    if min < 2 {
        return held;
    }
    let mut by_rule: BTreeMap<(&str, &str), Vec<usize>> = BTreeMap::new();
    for (i, r) in routed.iter().enumerate() {
        // A finding its analyzer tags security keeps per-finding triage and its two looks on
        // whatever route rules.json gave it (the two-look rule, reference/routes.md).
        if (r.route != SECURITY && !r.security) || import_blacklist(&r.rule) {
            by_rule
                .entry((r.rule.as_str(), r.route.as_str()))
                .or_default()
                .push(i);
        }
    }
    let mut rules: Vec<(&str, Vec<usize>)> = by_rule
        .into_iter()
        .filter(|(_, members)| members.len() >= min)
        .map(|((rule, _), members)| (rule, members))
        .collect();
    rules.sort_by_key(|(_, members)| members[0]);
    let tier = state.config.tiers.rule_survey;
    for (n, (rule, members)) in rules.into_iter().enumerate() {
        let id = survey_id(n + 1);
        let by_path: Vec<usize> = {
            let mut sorted = members.clone();
            sorted.sort_by_key(|&i| (routed[i].path.as_str(), i));
            sorted
        };
        let spots = (state.config.survey_spot_checks as usize).min(members.len() - 1);
        let sample_size = (state.config.survey_sample as usize)
            .min(members.len() - spots)
            .max(1);
        let path_of = |i: usize| routed[i].path.as_str();
        let sample = spread(&by_path, sample_size, &HashSet::new(), path_of);
        let taken: HashSet<usize> = sample.iter().copied().collect();
        let spot_checks = spread(&by_path, spots, &taken, path_of);
        let name = |i: &usize| state.items[*i].id.to_string();
        let mut item = WorkItem::new(id.clone(), ItemKind::RuleSurvey, tier);
        item.route.clone_from(&state.items[members[0]].route);
        item.extra_mut().inputs = sample.iter().map(|&i| state.items[i].id.clone()).collect();
        state.surveys.push(SurveyRecord {
            id,
            rule: rule.to_owned(),
            members: members.iter().map(name).collect(),
            sample: sample.iter().map(name).collect(),
            spot_checks: spot_checks.iter().map(name).collect(),
            stage: SurveyStage::Open,
            answer: None,
            dropped: None,
        });
        state.items.push(item);
        held.extend(members);
    }
    held
}

/// Up to `count` of `by_path` (indices sorted by path) not in `skip`, spread over files: the
/// first finding of evenly spaced files, then the next finding of each file in turn.
fn spread<'p>(
    by_path: &[usize],
    count: usize,
    skip: &HashSet<usize>,
    path_of: impl Fn(usize) -> &'p str,
) -> Vec<usize> {
    let mut files: Vec<Vec<usize>> = Vec::new();
    for &i in by_path.iter().filter(|i| !skip.contains(i)) {
        match files.last_mut() {
            Some(file) if path_of(file[0]) == path_of(i) => file.push(i),
            _ => files.push(vec![i]),
        }
    }
    let mut picked = Vec::with_capacity(count);
    let first_round = count.min(files.len());
    for k in 0..first_round {
        picked.push(files[k * files.len() / first_round][0]);
    }
    let mut depth = 0;
    while picked.len() < count && files.iter().any(|f| f.len() > depth) {
        for file in &files {
            if picked.len() == count {
                break;
            }
            if let Some(&i) = file.get(depth).filter(|i| !picked.contains(i)) {
                picked.push(i);
            }
        }
        depth += 1;
    }
    picked.sort_unstable();
    picked
}

/// Triage items that open or checking surveys hold: they are neither dispatched nor batched.
/// `dispatched_only` keeps those of surveys in flight (what `status` counts as running).
#[must_use]
pub fn survey_members_held(state: &RunState, dispatched_only: bool) -> HashSet<&str> {
    survey_members(state, dispatched_only).collect()
}

/// The surveys whose members [`survey_members_held`] lists, each with whether it is open (all
/// its members held) rather than checking (its spot checks out on their own).
pub(crate) fn holding_surveys(
    state: &RunState,
    dispatched_only: bool,
) -> impl Iterator<Item = (&SurveyRecord, bool)> {
    state.surveys.iter().filter_map(move |survey| {
        let open = match survey.stage {
            SurveyStage::Open => true,
            SurveyStage::Checking => false,
            SurveyStage::Applied | SurveyStage::Dropped => return None,
        };
        let counted = !dispatched_only
            || (open
                && state
                    .item(&survey.id)
                    .is_some_and(|i| i.status == ItemStatus::Dispatched));
        counted.then_some((survey, open))
    })
}

/// The ids of [`survey_members_held`], one by one.
pub(crate) fn survey_members(
    state: &RunState,
    dispatched_only: bool,
) -> impl Iterator<Item = &str> {
    holding_surveys(state, dispatched_only).flat_map(|(survey, open)| {
        survey
            .members
            .iter()
            .filter(move |m| open || !survey.spot_checks.contains(m))
            .map(String::as_str)
    })
}

/// Records a surveyor's answer; [`resolve_surveys`] acts on it at the next settle.
pub(crate) fn record_answer(state: &mut RunState, id: &str, answer: SurveyResult) {
    if let Some(survey) = state.surveys.iter_mut().find(|s| s.id == id)
        && survey.stage == SurveyStage::Open
    {
        survey.answer = Some(answer);
    }
}

/// Moves every survey on as far as its item and spot checks allow: an answered survey releases
/// its rule (`triage_each`) or its spot checks; checked spot checks apply the policy or drop
/// it; a failed survey releases its rule. Released findings are batched together. Returns true
/// when anything changed.
pub(crate) fn resolve_surveys(state: &mut RunState) -> bool {
    // The released findings, by index.
    let mut released: Vec<usize> = Vec::new();
    let mut changed = false;
    for index in 0..state.surveys.len() {
        let survey = &state.surveys[index];
        let item = state.item(&survey.id).map(|i| i.status);
        match (survey.stage, item) {
            (SurveyStage::Open, Some(ItemStatus::Done)) => {
                let answer = survey.answer.clone();
                match answer {
                    Some(a) if a.policy != SurveyPolicy::TriageEach => {
                        state.surveys[index].stage = SurveyStage::Checking;
                        let checks = &state.surveys[index].spot_checks;
                        released.extend(checks.iter().filter_map(|id| state.index_of(id)));
                    }
                    Some(a) => {
                        if let Some(route) = &a.route {
                            reroute_members(state, index, route);
                        }
                        released.extend(drop_policy(
                            state,
                            index,
                            "the surveyor answered triage_each",
                        ));
                    }
                    None => released.extend(drop_policy(state, index, "no answer was recorded")),
                }
            }
            (SurveyStage::Open, Some(ItemStatus::Failed | ItemStatus::Quarantined) | None) => {
                released.extend(drop_policy(
                    state,
                    index,
                    "the survey ended without an answer",
                ));
            }
            (SurveyStage::Checking, _) => match check(state, &state.surveys[index]) {
                Check::Waiting => continue,
                Check::Agreed => apply_policy(state, index),
                Check::Disagreed(why) => released.extend(drop_policy(state, index, &why)),
            },
            _ => continue,
        }
        changed = true;
    }
    batch_released(state, &released);
    if changed {
        state.progress += 1;
    }
    changed
}

/// What the spot checks of a checking survey say.
enum Check {
    Waiting,
    Agreed,
    Disagreed(String),
}

/// Whether a verdict agrees with a policy: `fix_all` wants `real`; `suppress` wants
/// `false_positive` or `intended`.
fn agrees(policy: SurveyPolicy, verdict: Verdict) -> bool {
    match policy {
        SurveyPolicy::FixAll => verdict == Verdict::Real,
        SurveyPolicy::Suppress => matches!(verdict, Verdict::FalsePositive | Verdict::Intended),
        SurveyPolicy::TriageEach => false,
    }
}

fn check(state: &RunState, survey: &SurveyRecord) -> Check {
    let Some(policy) = survey.answer.as_ref().map(|a| a.policy) else {
        return Check::Disagreed("no answer was recorded".to_owned());
    };
    let mut decided = 0;
    for id in &survey.spot_checks {
        let Some(item) = state.item(id) else {
            continue;
        };
        if !item.status.is_terminal() {
            return Check::Waiting;
        }
        if let Some(verdict) = item.verdict.filter(|_| item.status == ItemStatus::Done) {
            if !agrees(policy, verdict) {
                return Check::Disagreed(format!(
                    "spot check {id} answered {}, which {} does not allow",
                    verdict.as_str(),
                    policy.as_str()
                ));
            }
            decided += 1;
        }
    }
    if decided == 0 && !survey.spot_checks.is_empty() {
        return Check::Disagreed("no spot check was decided".to_owned());
    }
    Check::Agreed
}

/// Decides every held member by the policy.
fn apply_policy(state: &mut RunState, index: usize) {
    let survey = &state.surveys[index];
    let Some(answer) = survey.answer.as_ref() else {
        return;
    };
    let (verdict, cause) = match answer.policy {
        SurveyPolicy::FixAll => (
            Verdict::Real,
            answer
                .root_cause
                .clone()
                .unwrap_or_else(|| survey.rule.clone()),
        ),
        _ => (
            answer.verdict.unwrap_or(Verdict::FalsePositive),
            format!("{} suppressed", survey.rule),
        ),
    };
    let cause: std::sync::Arc<str> = cause.into();
    let decided: Vec<String> = survey
        .members
        .iter()
        .filter(|m| !survey.spot_checks.contains(m))
        .cloned()
        .collect();
    for id in decided {
        if let Some(item) = state.item_mut(&id)
            && !item.status.is_terminal()
        {
            item.status = ItemStatus::Done;
            item.verdict = Some(verdict);
            item.root_cause = Some(cause.clone());
            item.lease = None;
        }
    }
    state.surveys[index].stage = SurveyStage::Applied;
}

/// Drops the policy: the members not yet decided go to ordinary triage. Returns their
/// indices.
fn drop_policy(state: &mut RunState, index: usize, why: &str) -> Vec<usize> {
    let survey = &mut state.surveys[index];
    let checking = survey.stage == SurveyStage::Checking;
    survey.stage = SurveyStage::Dropped;
    survey.dropped = Some(why.to_owned());
    let survey = &state.surveys[index];
    // A checking survey's spot checks went out already.
    let checks: HashSet<usize> = if checking {
        survey
            .spot_checks
            .iter()
            .filter_map(|id| state.index_of(id))
            .collect()
    } else {
        HashSet::new()
    };
    survey
        .members
        .indices(state)
        .flatten()
        .filter(|i| !checks.contains(i))
        .filter(|&i| state.items[i].status == ItemStatus::Pending)
        .collect()
}

/// A `triage_each` answer named a better route for the rule's findings.
fn reroute_members(state: &mut RunState, index: usize, route: &str) {
    let Some(known) = crate::route::route(route) else {
        return;
    };
    let members: Vec<usize> = state.surveys[index]
        .members
        .indices(state)
        .flatten()
        .collect();
    let shared: std::sync::Arc<str> = known.name.into();
    for index in members {
        let item = &mut state.items[index];
        if item.status == ItemStatus::Pending {
            item.route = Some(shared.clone());
            item.tier = item.tier.max(known.tier);
        }
    }
}

/// Batches released findings (route by route, in item order) so they are not one agent each.
fn batch_released(state: &mut RunState, released: &[usize]) {
    let size = state.config.triage_batch as usize;
    if size < 2 || released.len() < 2 {
        return;
    }
    // In item order without a sort (a release at 100,000 findings is 100,000 of them): each
    // index marked as many times as it was released, then walked in order.
    let mut times = vec![0u32; state.items.len()];
    for &index in released {
        times[index] += 1;
    }
    let mut by_route: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (index, &n) in times.iter().enumerate().filter(|&(_, &n)| n > 0) {
        let route = state.items[index].route.as_deref().unwrap_or_default();
        let members = by_route.entry(route).or_default();
        members.extend(std::iter::repeat_n(index, n as usize));
    }
    let by_route: Vec<Vec<usize>> = by_route.into_values().collect();
    let mut next = crate::triage_batch::next_batch_number(state);
    for members in by_route {
        for chunk in members.chunks(size).filter(|c| c.len() > 1) {
            let items: Vec<&WorkItem> = chunk.iter().map(|&i| &state.items[i]).collect();
            let batch = crate::triage_batch::numbered_batch(next, &items);
            state.items.push(batch);
            next += 1;
        }
    }
}

/// For each triage item a survey's policy decided, its survey: what `report.json` and `status
/// --findings` show as `by: survey`.
#[must_use]
pub fn survey_of(state: &RunState) -> HashMap<&str, &SurveyRecord> {
    let mut out = HashMap::new();
    for survey in state
        .surveys
        .iter()
        .filter(|s| s.stage == SurveyStage::Applied)
    {
        for member in survey
            .members
            .iter()
            .filter(|m| !survey.spot_checks.contains(m))
        {
            out.insert(member.as_str(), survey);
        }
    }
    out
}

/// The groups `fix_all` policies formed, one per applied rule (its decided findings and the
/// spot checks that agreed), and every item they cover: no aggregator is needed for them.
pub(crate) fn policy_groups(state: &RunState) -> (Vec<ProposedGroup>, HashSet<String>) {
    let mut groups = Vec::new();
    let mut covered = HashSet::new();
    for survey in state
        .surveys
        .iter()
        .filter(|s| s.stage == SurveyStage::Applied)
    {
        let Some(answer) = survey
            .answer
            .as_ref()
            .filter(|a| a.policy == SurveyPolicy::FixAll)
        else {
            continue;
        };
        let members: Vec<String> = survey
            .members
            .iter()
            .filter(|m| {
                state.item(m).is_some_and(|i| {
                    i.status == ItemStatus::Done && i.verdict == Some(Verdict::Real)
                })
            })
            .cloned()
            .collect();
        if members.is_empty() {
            continue;
        }
        let cause = answer
            .root_cause
            .clone()
            .unwrap_or_else(|| survey.rule.clone());
        covered.extend(members.iter().cloned());
        groups.push(ProposedGroup {
            label: cause.clone(),
            root_cause: format!("{} everywhere: {cause}", survey.rule),
            members,
        });
    }
    (groups, covered)
}

#[cfg(test)]
#[path = "rule_survey_tests.rs"]
mod tests;
