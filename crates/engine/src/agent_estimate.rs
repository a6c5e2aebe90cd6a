//! How many agents a run will launch, per kind of item, before any is dispatched: exact for
//! triage (its items exist from `start`), a range for the phases whose size depends on the
//! verdicts (aggregation, rule review, planning). `start` prices it (reference/cost.md).

use serde::Serialize;

use crate::{ItemKind, ItemStatus, RunState};

/// Agents of one kind: at least `min`, at most `max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct KindAgents {
    pub kind: ItemKind,
    pub min: u32,
    pub max: u32,
}

/// The agents a freshly started run is expected to launch, kind by kind, in pipeline order;
/// kinds with none at most are left out. Retries and re-routes are not counted.
pub fn expected_agents(state: &RunState) -> Vec<KindAgents> {
    let config = &state.config;
    let triage = &state.items[..state.triage_items as usize];
    let in_a_batch: std::collections::HashSet<&str> = state
        .items
        .iter()
        .filter(|i| i.kind == ItemKind::TriageBatch)
        .flat_map(|i| i.inputs().iter().map(String::as_str))
        .collect();
    let batches = state
        .items
        .iter()
        .filter(|i| i.kind == ItemKind::TriageBatch && i.status == ItemStatus::Pending)
        .count() as u32;
    // A surveyed rule's findings wait for its survey: at least its spot checks are triaged,
    // at most all of them (the policy dropped), batched.
    let surveys = state
        .items
        .iter()
        .filter(|i| i.kind == ItemKind::RuleSurvey && i.status == ItemStatus::Pending)
        .count() as u32;
    let held: std::collections::HashSet<&str> = state
        .surveys
        .iter()
        .flat_map(|s| s.members.iter().map(String::as_str))
        .collect();
    let per_batch = config.triage_batch.max(1);
    let (checks_min, held_max) = state.surveys.iter().fold((0, 0), |(min, max), s| {
        (
            min + (s.spot_checks.len() as u32).div_ceil(per_batch),
            max + (s.members.len() as u32).div_ceil(per_batch),
        )
    });
    // Any finding an agent triages may need a second agent (a dismissal or an unsure one); a
    // survey's policy decides its findings without one.
    let spot_checks: u32 = state
        .surveys
        .iter()
        .map(|s| s.spot_checks.len() as u32)
        .sum();
    let verifiable = (triage.len() - held.len()) as u32 + spot_checks;
    let singles = triage
        .iter()
        .filter(|i| {
            i.status == ItemStatus::Pending
                && !in_a_batch.contains(i.id.as_str())
                && !held.contains(i.id.as_str())
        })
        .count() as u32;
    // Every finding triage may call real (the pre-decided ones never reach the phases after).
    let findings = triage.len() as u32;
    let security = triage
        .iter()
        .filter(|i| i.route.as_deref() == Some("security"))
        .count() as u32;
    let aggregators = if findings >= 2 {
        findings.div_ceil(config.aggregate_batch.max(2))
    } else {
        0
    };
    let groups = findings / config.min_group_size.max(1);
    let full = (findings / config.full_plan_min.max(1) + security).min(groups);
    let angles = config.reviewer_angles.len() as u32;
    let exact = |kind, n| KindAgents {
        kind,
        min: n,
        max: n,
    };
    let upto = |kind, n| KindAgents {
        kind,
        min: 0,
        max: n,
    };
    [
        exact(ItemKind::RuleSurvey, surveys),
        KindAgents {
            kind: ItemKind::TriageBatch,
            min: batches + checks_min,
            max: batches + held_max,
        },
        exact(ItemKind::Triage, singles),
        upto(ItemKind::Verify, verifiable),
        upto(ItemKind::Aggregate, aggregators),
        upto(ItemKind::MergeLabels, u32::from(findings >= 2)),
        upto(ItemKind::RuleReview, u32::from(findings > 0)),
        // A light group: one plan, one review, the revise step, the task writer; a full one:
        // `planners` plans, a synthesis, one review per angle, the revise step, the task
        // writer. The revise step launches an agent only when a review asks for a change.
        upto(
            ItemKind::Plan,
            groups + full * config.planners.saturating_sub(1),
        ),
        upto(ItemKind::Synthesize, full),
        upto(ItemKind::Review, groups + full * angles.saturating_sub(1)),
        upto(ItemKind::Revise, groups),
        upto(ItemKind::WriteTask, groups),
    ]
    .into_iter()
    .filter(|k| k.max > 0)
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Config, Intake, RoutedFinding, Tier, create_run};

    fn run(findings: u32, security: u32, config: Config) -> RunState {
        let routed: Vec<RoutedFinding> = (0..findings)
            .map(|i| RoutedFinding {
                finding: i,
                route: if i < security { "security" } else { "generic" }.into(),
                tier: Tier::Haiku,
                rule: "ruff F401".into(),
                path: format!("src/m{}.py", i / 3),
                safe_fix: false,
            })
            .collect();
        let intake = Intake {
            findings,
            unique: findings,
            routed: findings,
            ..Intake::default()
        };
        create_run("r-e".into(), 0, config, intake, None, &routed)
    }

    fn of(estimate: &[KindAgents], kind: ItemKind) -> (u32, u32) {
        estimate
            .iter()
            .find(|k| k.kind == kind)
            .map_or((0, 0), |k| (k.min, k.max))
    }

    #[test]
    fn triage_is_exact_and_the_later_phases_are_bounded_by_the_config() {
        let config = Config {
            triage_batch: 1,
            survey_min: 0,
            aggregate_batch: 40,
            min_group_size: 2,
            full_plan_min: 10,
            ..Config::default()
        };
        let estimate = expected_agents(&run(100, 0, config));
        assert_eq!(of(&estimate, ItemKind::Triage), (100, 100));
        assert_eq!(of(&estimate, ItemKind::Verify), (0, 100));
        assert_eq!(of(&estimate, ItemKind::TriageBatch), (0, 0));
        assert_eq!(of(&estimate, ItemKind::Aggregate), (0, 3));
        assert_eq!(of(&estimate, ItemKind::RuleReview), (0, 1));
        // At most 50 groups of 2; at most 10 of them with 10 findings (full depth).
        assert_eq!(of(&estimate, ItemKind::WriteTask), (0, 50));
        // One revise step a group, launched only when a review asks for a change.
        assert_eq!(of(&estimate, ItemKind::Revise), (0, 50));
        assert_eq!(of(&estimate, ItemKind::Synthesize), (0, 10));
        assert_eq!(of(&estimate, ItemKind::Plan), (0, 50 + 10 * 4));
        assert_eq!(of(&estimate, ItemKind::Review), (0, 50 + 10 * 3));
    }

    #[test]
    fn a_batched_run_counts_its_batches_and_a_security_finding_may_get_the_full_depth() {
        let estimate = expected_agents(&run(20, 1, Config::default()));
        let (batches, _) = of(&estimate, ItemKind::TriageBatch);
        let (singles, _) = of(&estimate, ItemKind::Triage);
        assert!(batches > 0 && batches < 20, "{estimate:?}");
        assert!(batches + singles <= 20);
        // 20 findings, full_plan_min 10: 2 full groups, plus the security finding's group.
        assert_eq!(of(&estimate, ItemKind::Synthesize), (0, 3));
    }

    #[test]
    fn a_surveyed_rule_counts_its_survey_and_between_its_spot_checks_and_all_its_findings() {
        // 20 generic findings of one rule: one survey holds them all.
        let estimate = expected_agents(&run(20, 0, Config::default()));
        assert_eq!(of(&estimate, ItemKind::RuleSurvey), (1, 1), "{estimate:?}");
        assert_eq!(of(&estimate, ItemKind::Triage), (0, 0));
        // Only its spot checks may need a second agent.
        assert_eq!(of(&estimate, ItemKind::Verify), (0, 2));
        // At least its 2 spot checks (one batch), at most all 20 in batches of 8.
        assert_eq!(of(&estimate, ItemKind::TriageBatch), (1, 3));
    }
}
