//! Phase transitions: when every item of a phase is terminal, create the next phase's items.

use compact_str::CompactString;
use std::collections::BTreeMap;

use crate::group_label::label_key;
use crate::{
    Group, ItemExtra, ItemKind, ItemStatus, Phase, PlanDepth, ProposedGroup, RunState, Verdict,
    WorkItem,
};

/// Advances through every finished phase, skipping empty ones. Stops at `Finalize`, which the
/// caller performs (it writes files). Returns true when the phase changed.
pub(crate) fn advance(state: &mut RunState) -> bool {
    let mut changed = false;
    while !matches!(state.phase, Phase::Finalize | Phase::Complete) && phase_done(state) {
        if state.phase == Phase::Triage && crate::duplicate_chain::resolve(state) {
            // Duplicates of dismissed findings under the two-look rule get their own second
            // looks: the phase goes on.
            state.progress += 1;
            changed = true;
            continue;
        }
        match state.phase {
            Phase::Triage if state.until == Some(Phase::Triage) => {
                state.phase = Phase::Finalize;
            }
            Phase::Triage => {
                state.phase = Phase::Aggregate;
                start_aggregate(state);
            }
            Phase::Aggregate => {
                if start_label_merge(state) {
                    // The phase goes on: its label-merge agent reads the groups first.
                    state.progress += 1;
                    changed = true;
                    continue;
                }
                state.phase = Phase::RuleReview;
                form_groups(state);
                start_rule_review(state);
            }
            Phase::RuleReview => {
                state.phase = Phase::Plan;
                start_plan(state);
            }
            Phase::Plan | Phase::Finalize | Phase::Complete => state.phase = Phase::Finalize,
        }
        state.progress += 1;
        changed = true;
    }
    changed
}

fn phase_done(state: &RunState) -> bool {
    let phase = state.phase;
    state
        .items
        .iter()
        .filter(|i| i.kind.phase() == phase)
        .all(|i| i.status.is_terminal())
}

fn real_findings(state: &RunState) -> Vec<&WorkItem> {
    state.items[..state.triage_items as usize]
        .iter()
        .filter(|i| i.status == ItemStatus::Done && i.verdict == Some(Verdict::Real))
        .collect()
}

fn push(state: &mut RunState, id: String, kind: ItemKind) -> &mut WorkItem {
    let tier = state.config.tiers.of(kind);
    state.items.push(WorkItem::new(id, kind, tier));
    let last = state.items.len() - 1;
    &mut state.items[last]
}

fn start_aggregate(state: &mut RunState) {
    // A rule's `fix_all` policy already grouped its findings: no aggregator reads them.
    let (policy_groups, covered) = crate::rule_survey::policy_groups(state);
    state.proposals.extend(policy_groups);
    let reals: Vec<(String, String)> = real_findings(state)
        .iter()
        .filter(|i| !covered.contains(i.id.as_str()))
        .map(|i| {
            (
                i.id.to_string(),
                i.root_cause.as_deref().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    if reals.len() == 1 {
        // One finding needs no aggregator: its own root cause is its group.
        let (id, cause) = reals[0].clone();
        state.proposals.push(ProposedGroup {
            label: cause.clone(),
            root_cause: cause,
            members: vec![id],
        });
        return;
    }
    // One cause, one slice: findings whose triage named the same cause (by merge key) sit
    // together, so one aggregator sees them all and no cause is split between two slices and
    // proposed twice.
    let mut reals = reals;
    reals.sort_by_cached_key(|(_, cause)| label_key(cause));
    let batch = state.config.aggregate_batch.max(2) as usize;
    let slices: Vec<Vec<CompactString>> = reals
        .chunks(batch)
        .map(|chunk| chunk.iter().map(|(id, _)| id.as_str().into()).collect())
        .collect();
    for (n, slice) in slices.into_iter().enumerate() {
        let item = push(state, format!("agg-{}", n + 1), ItemKind::Aggregate);
        item.extra_mut().inputs = slice;
    }
}

/// Most labels the label-merge agent reads (the largest groups'): its task stays bounded.
const MERGE_LABELS_LISTED: usize = 300;

/// Once the aggregators are done, when their proposals name two or more labels that code does
/// not already merge: one cheap agent over the labels only (`ml-1`) says which name the same
/// cause. Once per run. Returns whether it created the item.
fn start_label_merge(state: &mut RunState) -> bool {
    if state.items.iter().any(|i| i.kind == ItemKind::MergeLabels) {
        return false;
    }
    let mut labels: BTreeMap<String, (String, usize)> = BTreeMap::new();
    for proposal in &state.proposals {
        let entry = labels
            .entry(label_key(&proposal.label))
            .or_insert_with(|| (proposal.label.clone(), 0));
        entry.1 += proposal.members.len();
    }
    if labels.len() < 2 {
        return false;
    }
    let mut listed: Vec<(String, usize)> = labels.into_values().collect();
    listed.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    listed.truncate(MERGE_LABELS_LISTED);
    let item = push(state, "ml-1".to_owned(), ItemKind::MergeLabels);
    item.extra_mut().inputs = listed.into_iter().map(|(label, _)| label.into()).collect();
    true
}

/// The label-merge agent's answer: the proposals of each merged set of labels take its new
/// label and root cause, so `form_groups` makes one group of them. A label named by an earlier
/// merge stays there.
pub(crate) fn join_labels(state: &mut RunState, result: &crate::LabelMergeResult) {
    let mut taken = std::collections::HashSet::new();
    for merge in &result.merges {
        let keys: std::collections::HashSet<String> = merge
            .labels
            .iter()
            .map(|l| label_key(l))
            .filter(|k| taken.insert(k.clone()))
            .collect();
        if keys.len() < 2 {
            continue;
        }
        for proposal in &mut state.proposals {
            if keys.contains(&label_key(&proposal.label)) {
                proposal.label.clone_from(&merge.label);
                proposal.root_cause.clone_from(&merge.root_cause);
            }
        }
    }
}

/// Merges the aggregators' proposals by label; real findings no aggregator covered (its item
/// was quarantined) are grouped by their own root-cause label.
fn form_groups(state: &mut RunState) {
    let mut merged: BTreeMap<String, (String, String, Vec<String>)> = BTreeMap::new();
    let mut covered = std::collections::HashSet::new();
    let mut add = |label: &str,
                   cause: &str,
                   member: &str,
                   covered: &mut std::collections::HashSet<String>| {
        if !covered.insert(member.to_owned()) {
            return;
        }
        let entry = merged
            .entry(label_key(label))
            .or_insert_with(|| (label.to_owned(), cause.to_owned(), Vec::new()));
        entry.2.push(member.to_owned());
    };
    for proposal in &state.proposals {
        for member in &proposal.members {
            add(&proposal.label, &proposal.root_cause, member, &mut covered);
        }
    }
    for item in real_findings(state) {
        let cause = item.root_cause.as_deref().unwrap_or("unlabelled");
        add(cause, cause, &item.id, &mut covered);
    }
    let mut groups: Vec<(String, String, Vec<String>)> = merged.into_values().collect();
    for group in &mut groups {
        group.2.sort_by_key(|id| state.index_of(id));
    }
    groups.sort_by_key(|g| g.2.first().and_then(|id| state.index_of(id)));
    let min = state.config.min_group_size as usize;
    state.groups = groups
        .into_iter()
        .enumerate()
        .map(|(n, (label, root_cause, members))| Group {
            id: format!("g{}", n + 1),
            label,
            root_cause,
            planned: members.len() >= min,
            depth: PlanDepth::default(),
            members,
        })
        .collect();
}

fn start_rule_review(state: &mut RunState) {
    let decided_by_agents = state.items[..state.triage_items as usize]
        .iter()
        .any(|i| i.status == ItemStatus::Done);
    if decided_by_agents {
        push(state, "rr-1".to_owned(), ItemKind::RuleReview);
    }
}

/// Creates each planned group's items at its depth: none for a group the analyzer fixes
/// (finalize writes its task), one plan -> one review -> the revise step -> the task writer for
/// a light group, `planners` plans -> a synthesis -> one review per angle -> the revise step ->
/// the task writer for a full one. The revise step is settled by code when the reviews ask for
/// nothing (design note 35).
fn start_plan(state: &mut RunState) {
    for index in 0..state.groups.len() {
        if !state.groups[index].planned {
            continue;
        }
        let depth = PlanDepth::of(state, &state.groups[index]);
        state.groups[index].depth = depth;
        let number = index as u32 + 1;
        let gid = state.groups[index].id.clone();
        match depth {
            PlanDepth::AnalyzerFix => {}
            PlanDepth::Light => start_light_plan(state, number, &gid),
            PlanDepth::Full => start_full_plan(state, number, &gid),
        }
    }
}

/// One plan goes straight to one review (the first angle), then to the revise step and the
/// task writer.
fn start_light_plan(state: &mut RunState, number: u32, gid: &str) {
    let plan = format!("plan-{gid}-1");
    push(state, plan.clone(), ItemKind::Plan).group = Some(number);
    let review = format!("rev-{gid}-1");
    let item = push(state, review.clone(), ItemKind::Review);
    item.group = Some(number);
    item.extra_mut().depends_on = vec![plan.clone()];
    finish_plan(state, number, gid, plan, vec![review]);
}

/// The revise step after the reviews, then the task writer after it. Both read the plan the
/// reviews read first in `depends_on`; the task writer's last dependency is the revise step.
fn finish_plan(state: &mut RunState, number: u32, gid: &str, plan: String, reviews: Vec<String>) {
    let revise = format!("rv-{gid}");
    let mut deps = vec![plan];
    deps.extend(reviews);
    let item = push(state, revise.clone(), ItemKind::Revise);
    item.group = Some(number);
    item.extra_mut().depends_on.clone_from(&deps);
    deps.push(revise);
    let item = push(state, format!("tw-{gid}"), ItemKind::WriteTask);
    item.group = Some(number);
    item.extra_mut().depends_on = deps;
}

fn start_full_plan(state: &mut RunState, number: u32, gid: &str) {
    let planners = state.config.planners;
    let reviewers = state.config.reviewer_angles.len() as u32;
    let plans: Vec<String> = (1..=planners).map(|p| format!("plan-{gid}-{p}")).collect();
    for id in &plans {
        push(state, id.clone(), ItemKind::Plan).group = Some(number);
    }
    let syn = format!("syn-{gid}");
    let item = push(state, syn.clone(), ItemKind::Synthesize);
    item.group = Some(number);
    item.set_extra(ItemExtra {
        inputs: plans.iter().map(|p| p.as_str().into()).collect(),
        depends_on: plans,
        ..ItemExtra::default()
    });
    let reviews: Vec<String> = (1..=reviewers).map(|r| format!("rev-{gid}-{r}")).collect();
    for id in &reviews {
        let item = push(state, id.clone(), ItemKind::Review);
        item.group = Some(number);
        item.extra_mut().depends_on = vec![syn.clone()];
    }
    finish_plan(state, number, gid, syn, reviews);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::per_finding_run;
    use crate::{Config, Tier};

    #[test]
    fn a_run_until_triage_finalizes_after_triage_with_nothing_aggregated_or_planned() {
        let mut state =
            per_finding_run("r", 4, "ruff", |_| "generic", |_| false, Config::default());
        state.until = Some(Phase::Triage);
        let before =
            crate::agent_estimate::total_agents(&crate::agent_estimate::agents_ahead(&state));
        for item in &mut state.items {
            item.status = ItemStatus::Done;
            item.verdict = Some(Verdict::Real);
            item.root_cause = Some("unused import".into());
        }
        assert!(advance(&mut state));
        assert_eq!(state.phase, Phase::Finalize);
        assert!(state.items.iter().all(|i| i.kind == ItemKind::Triage));
        assert!(state.groups.is_empty());
        // Its estimate counts triage's agents only: 4 triage agents and their second looks.
        let mut whole =
            per_finding_run("r", 4, "ruff", |_| "generic", |_| false, Config::default());
        let to_the_end =
            crate::agent_estimate::total_agents(&crate::agent_estimate::agents_ahead(&whole));
        assert!(
            before.1 < to_the_end.1,
            "likely {before:?} vs {to_the_end:?}"
        );
        assert!(
            before.2 < to_the_end.2,
            "at most {before:?} vs {to_the_end:?}"
        );
        // Without it the same answers go on to aggregation.
        for item in &mut whole.items {
            item.status = ItemStatus::Done;
            item.verdict = Some(Verdict::Real);
            item.root_cause = Some("unused import".into());
        }
        advance(&mut whole);
        assert_eq!(whole.phase, Phase::Aggregate);
    }

    #[test]
    fn aggregate_slices_are_cut_by_cause_so_one_cause_is_never_split() {
        let causes = [
            "Unused imports",
            "Line too long",
            "unused import",
            "Lines too long",
            "Unused imports",
            "line too long",
        ];
        let config = Config {
            aggregate_batch: 3,
            ..Config::default()
        };
        let n = causes.len() as u32;
        let mut state = per_finding_run("r", n, "ruff", |_| "generic", |_| false, config);
        for (item, cause) in state.items.iter_mut().zip(causes) {
            item.status = ItemStatus::Done;
            item.verdict = Some(Verdict::Real);
            item.root_cause = Some(cause.into());
        }
        start_aggregate(&mut state);
        let slices: Vec<Vec<String>> = state
            .items
            .iter()
            .filter(|i| i.kind == ItemKind::Aggregate)
            .map(|i| {
                i.inputs()
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
            })
            .collect();
        // Item order would have mixed both causes in each slice.
        assert_eq!(
            slices,
            [
                ["t-00001", "t-00003", "t-00005"],
                ["t-00002", "t-00004", "t-00006"]
            ]
        );
    }

    #[test]
    fn the_label_merge_agent_reads_labels_only_and_its_merge_joins_two_groups_into_one() {
        let mut state =
            per_finding_run("r", 3, "ruff", |_| "generic", |_| false, Config::default());
        state.phase = Phase::Aggregate;
        let proposal = |label: &str, members: &[&str]| ProposedGroup {
            label: label.to_owned(),
            root_cause: format!("{label} everywhere"),
            members: members.iter().map(|m| (*m).to_owned()).collect(),
        };
        // Code cannot tell these two apart from their words: one is not a rewording of the other.
        state.proposals = vec![
            proposal("unused import", &["t-00001"]),
            proposal("dead imports left by refactors", &["t-00002"]),
            proposal("line too long", &["t-00003"]),
        ];
        for item in &mut state.items {
            item.status = ItemStatus::Done;
            item.verdict = Some(Verdict::Real);
        }
        assert!(start_label_merge(&mut state));
        let merge = state.items.last().unwrap();
        assert_eq!(merge.id, "ml-1");
        assert_eq!(merge.tier, Tier::Haiku);
        assert_eq!(merge.inputs().len(), 3);
        assert!(!start_label_merge(&mut state), "once per run");
        join_labels(
            &mut state,
            &crate::LabelMergeResult {
                merges: vec![crate::LabelMerge {
                    labels: vec![
                        "unused import".into(),
                        "dead imports left by refactors".into(),
                    ],
                    label: "unused imports".into(),
                    root_cause: "imports left behind".into(),
                }],
            },
        );
        form_groups(&mut state);
        let groups: Vec<(&str, usize)> = state
            .groups
            .iter()
            .map(|g| (g.label.as_str(), g.members.len()))
            .collect();
        assert_eq!(groups, [("unused imports", 2), ("line too long", 1)]);
    }

    #[test]
    fn one_label_needs_no_merge_agent() {
        let mut state =
            per_finding_run("r", 0, "ruff", |_| "generic", |_| false, Config::default());
        state.proposals = vec![ProposedGroup {
            label: "unused import".into(),
            root_cause: "unused".into(),
            members: vec!["t-00001".into()],
        }];
        assert!(!start_label_merge(&mut state));
    }
}
