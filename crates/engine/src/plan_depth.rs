//! How much planning a root-cause group gets: its depth scales with its size and route, and a
//! group the analyzer can fix itself gets no planning agent at all.

use serde::{Deserialize, Serialize};

use crate::{Config, Group, RunState};

/// Findings from which a security group with a severe one (the analyzer's top level:
/// Bandit's HIGH severity) gets the full plan depth.
pub(crate) const SEVERE_FULL_MIN: usize = 3;

/// The plan phase's shape for one group (reference/state-machine.md, design notes 21 and 22).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlanDepth {
    /// `planners` plans, a synthesis, one review per angle, the revise step, the task writer:
    /// for groups of at least `full_plan_min` findings, and security groups of at least
    /// [`SEVERE_FULL_MIN`] with a severe finding.
    #[default]
    Full,
    /// One plan, one review (the first of `reviewer_angles`), the revise step, the task writer:
    /// smaller groups.
    Light,
    /// No agent: every finding has the analyzer's own safe fix, so finalize writes the task
    /// (the analyzer's fix command, the counts, the re-run as acceptance).
    AnalyzerFix,
}

impl PlanDepth {
    /// The spelling used in files and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            PlanDepth::Full => "full",
            PlanDepth::Light => "light",
            PlanDepth::AnalyzerFix => "analyzer_fix",
        }
    }

    /// Agent items the plan phase creates for one group of this depth (the revise step among
    /// them, though code settles it when the reviews ask for nothing).
    pub fn agent_items(self, config: &Config) -> u32 {
        match self {
            PlanDepth::Full => config.planners + 1 + config.reviewer_angles.len() as u32 + 2,
            PlanDepth::Light => 4,
            PlanDepth::AnalyzerFix => 0,
        }
    }

    /// The depth a group gets in this run. A group with a finding on the security route is
    /// always planned by agents (never by the analyzer's fix alone), at a depth set by its size
    /// and severity, not its route: full from `full_plan_min` findings, or from
    /// [`SEVERE_FULL_MIN`] when one is severe (the analyzer's top level); light below (issue 40:
    /// a one-line fix of one finding got 5 planners, a synthesis and 4 reviews).
    pub(crate) fn of(state: &RunState, group: &Group) -> PlanDepth {
        let members = || group.members.iter().filter_map(|id| state.item(id));
        if members().any(|item| item.route.as_deref() == Some("security")) {
            let size = group.members.len();
            let severe = members().any(|item| {
                item.finding
                    .is_some_and(|f| state.severe.binary_search(&f).is_ok())
            });
            let full =
                size >= state.config.full_plan_min as usize || (severe && size >= SEVERE_FULL_MIN);
            return if full {
                PlanDepth::Full
            } else {
                PlanDepth::Light
            };
        }
        let all_safe = !group.members.is_empty()
            && members().count() == group.members.len()
            && members().all(|item| {
                item.finding
                    .is_some_and(|f| state.safe_fixes.binary_search(&f).is_ok())
            });
        if all_safe {
            PlanDepth::AnalyzerFix
        } else if group.members.len() >= state.config.full_plan_min as usize {
            PlanDepth::Full
        } else {
            PlanDepth::Light
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::PlanDepth;
    use crate::test_support::{NOW, per_finding_run, stop_event, submit};
    use crate::{Config, ItemKind, Phase, RunState, decide_stop};

    /// A run of `n` findings, `safe` of them (the first ones) with a safe analyzer fix, the
    /// first `security` of them on the security route.
    fn run(n: u32, safe: u32, security: u32, config: Config) -> RunState {
        let route = move |i| if i < security { "security" } else { "generic" };
        per_finding_run("r-depth", n, "ruff F401", route, move |i| i < safe, config)
    }

    fn stop(state: &mut RunState) {
        decide_stop(state, &stop_event("s1", Some(&[])), NOW);
    }

    /// Triage says every finding is real, one aggregator puts them all in one group, the rule
    /// review proposes nothing: the run is in the plan phase with one group.
    fn to_plan_phase(state: &mut RunState) {
        stop(state);
        let ids: Vec<String> = (1..=state.triage_items as usize)
            .map(crate::triage_id)
            .collect();
        for id in &ids {
            submit(
                state,
                id,
                json!({"confidence": 0.9, "verdict": "real", "root_cause": "one cause", "reason": "the code does this"}),
            );
        }
        stop(state);
        if state.item("agg-1").is_some() {
            submit(
                state,
                "agg-1",
                json!({"groups": [{"label": "one cause", "root_cause": "one cause", "items": ids}]}),
            );
            stop(state);
        }
        submit(state, "rr-1", json!({"rules": []}));
        stop(state);
    }

    fn plan_items(state: &RunState) -> Vec<(String, ItemKind, Vec<String>)> {
        state
            .items
            .iter()
            .filter(|i| i.kind.phase() == Phase::Plan)
            .map(|i| (i.id.to_string(), i.kind, i.depends_on().to_vec()))
            .collect()
    }

    #[test]
    fn a_group_below_full_plan_min_gets_one_plan_one_review_the_revise_step_and_the_task_writer() {
        let mut state = run(3, 0, 0, Config::default());
        to_plan_phase(&mut state);
        assert_eq!(state.groups[0].depth, PlanDepth::Light);
        let owned = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            plan_items(&state),
            [
                ("plan-g1-1".to_owned(), ItemKind::Plan, vec![]),
                (
                    "rev-g1-1".to_owned(),
                    ItemKind::Review,
                    owned(&["plan-g1-1"])
                ),
                (
                    "rv-g1".to_owned(),
                    ItemKind::Revise,
                    owned(&["plan-g1-1", "rev-g1-1"])
                ),
                (
                    "tw-g1".to_owned(),
                    ItemKind::WriteTask,
                    owned(&["plan-g1-1", "rev-g1-1", "rv-g1"])
                ),
            ]
        );
        // The single review takes the first configured angle.
        let review = state.item("rev-g1-1").map(|i| crate::item_input(&state, i));
        assert_eq!(
            review.and_then(|r| r.angle).as_deref(),
            Some("root cause vs symptom")
        );
        assert_eq!(
            PlanDepth::Light.agent_items(&state.config) as usize,
            plan_items(&state).len()
        );
    }

    #[test]
    fn a_group_at_full_plan_min_gets_the_full_depth() {
        let config = Config {
            full_plan_min: 3,
            ..Config::default()
        };
        let mut state = run(3, 0, 0, config);
        to_plan_phase(&mut state);
        assert_eq!(state.groups[0].depth, PlanDepth::Full);
        let kinds: Vec<ItemKind> = plan_items(&state).iter().map(|(_, k, _)| *k).collect();
        assert_eq!(kinds.len(), 12);
        assert_eq!(
            kinds.iter().filter(|k| **k == ItemKind::Plan).count(),
            5,
            "{kinds:?}"
        );
        assert_eq!(kinds[5], ItemKind::Synthesize);
        assert_eq!(kinds[10..], [ItemKind::Revise, ItemKind::WriteTask]);
        assert_eq!(
            PlanDepth::Full.agent_items(&state.config) as usize,
            kinds.len()
        );
    }

    /// Issue 40, item 4: a one-finding security fix got 5 planners, a synthesis and 4 reviews.
    #[test]
    fn a_small_security_group_gets_the_light_depth_planned_by_agents_even_with_safe_fixes() {
        let mut state = run(2, 2, 1, Config::default());
        state.severe = vec![0, 1];
        to_plan_phase(&mut state);
        assert_eq!(state.groups[0].members.len(), 2);
        assert_eq!(state.groups[0].depth, PlanDepth::Light, "size, not route");
        assert_eq!(plan_items(&state).len(), 4);
    }

    #[test]
    fn a_security_group_gets_the_full_depth_by_size_or_by_severity() {
        let depth = |n: u32, severe: Vec<u32>, full_plan_min: u32| {
            let config = Config {
                full_plan_min,
                ..Config::default()
            };
            let mut state = run(n, 0, n, config);
            state.severe = severe;
            to_plan_phase(&mut state);
            state.groups[0].depth
        };
        assert_eq!(
            depth(super::SEVERE_FULL_MIN as u32, vec![2], 10),
            PlanDepth::Full
        );
        assert_eq!(
            depth(super::SEVERE_FULL_MIN as u32, vec![], 10),
            PlanDepth::Light
        );
        assert_eq!(depth(2, vec![0, 1], 10), PlanDepth::Light);
        assert_eq!(depth(4, vec![], 4), PlanDepth::Full);
    }

    #[test]
    fn a_group_whose_findings_all_have_a_safe_analyzer_fix_dispatches_no_plan_item() {
        let mut state = run(12, 12, 0, Config::default());
        to_plan_phase(&mut state);
        assert_eq!(state.groups[0].depth, PlanDepth::AnalyzerFix);
        assert!(plan_items(&state).is_empty());
        // Nothing to plan: the run goes straight to finalize, which writes the task.
        assert_eq!(state.phase, Phase::Finalize);
    }

    #[test]
    fn one_finding_without_a_safe_fix_keeps_the_group_planned_by_agents() {
        let mut state = run(3, 2, 0, Config::default());
        to_plan_phase(&mut state);
        assert_eq!(state.groups[0].depth, PlanDepth::Light);
        assert_eq!(plan_items(&state).len(), 4);
    }

    #[test]
    fn a_state_written_before_depths_reads_its_groups_as_full() {
        let group: crate::Group = serde_json::from_value(json!({
            "id": "g1", "label": "l", "root_cause": "c", "members": ["t-00001"], "planned": true
        }))
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(group.depth, PlanDepth::Full);
    }
}
