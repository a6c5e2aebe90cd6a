//! How many agents a run will still launch, per kind of item: the one count `start`'s preflight
//! and `status` both read (reference/cost.md, "Preflight"). Items that exist are counted as they
//! are; the agents still to come (the batches a survey may release, second opinions, the phases
//! whose size depends on the verdicts) as a range with a likely figure inside it.

use serde::Serialize;

use crate::held_items::HeldItems;
use crate::{ItemKind, Phase, RunState, SurveyStage, Verdict};

/// The likely share of each span between the least and the most agents, measured on the
/// scripted-model e2e runs (reference/cost.md, "How close the likely figure is").
pub mod likely {
    /// Of a surveyed rule's findings beyond its spot checks, the share triaged after all (its
    /// policy dropped).
    pub const SURVEY_RELEASED: f64 = 0.06;
    /// Of the findings an agent triages off the security route, the share that gets a second
    /// opinion (`vf-`).
    pub const VERIFIED: f64 = 0.08;
    /// Of the security findings an agent triages, the share dismissed, each dismissal then
    /// checked by a second look in batches of `verify_batch` (measured: 301 of 568 on the OWASP
    /// Benchmark for Python corpus with the scripted model, reference/quality.md).
    pub const SECURITY_DISMISSED: f64 = 0.53;
    /// Of the findings an agent triages, the share answered `real` below `verify_below`, each
    /// then checked by a blind second look in batches of `verify_batch` (issue 48; measured: 45
    /// of 568 on the OWASP Benchmark for Python corpus with the calibrated scripted model,
    /// reference/quality.md).
    pub const LOW_CONFIDENCE_REAL: f64 = 0.08;
    /// Of the findings not yet decided, the share triage calls real.
    pub const REAL: f64 = 0.9;
    /// Of the groups, the share whose review asks for a change (a revise step).
    pub const REVISED: f64 = 1.0;
}

/// Agents of one kind: at least `min`, likely `likely`, at most `max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct KindAgents {
    pub kind: ItemKind,
    pub min: u32,
    pub likely: u32,
    pub max: u32,
}

impl KindAgents {
    fn exact(kind: ItemKind, n: u32) -> KindAgents {
        KindAgents {
            kind,
            min: n,
            likely: n,
            max: n,
        }
    }

    /// Between `min` and `max`, `share` of the way.
    fn between(kind: ItemKind, min: u32, max: u32, share: f64) -> KindAgents {
        let likely = f64::from(min) + share * f64::from(max.saturating_sub(min));
        KindAgents {
            kind,
            min,
            likely: (likely.round() as u32).clamp(min, max.max(min)),
            max: max.max(min),
        }
    }

    fn add(&mut self, other: KindAgents) {
        self.min += other.min;
        self.likely += other.likely;
        self.max += other.max;
    }
}

/// The agents `state` will still launch, kind by kind, in pipeline order; kinds with none at
/// most are left out. Every item not yet ended counts once (a batch once, its members not; a
/// finding a rule survey holds not at all: the survey and the batches it may release count);
/// the phases not yet reached are projected from the findings that may be real. Retries and
/// re-routes are not counted. `start` prices it before the first dispatch, `status` counts it
/// at any time: at the start of a run both say the same.
pub fn agents_ahead(state: &RunState) -> Vec<KindAgents> {
    agents_ahead_of(state, &HeldItems::waiting(state))
}

/// [`agents_ahead`], given the findings that wait for a live batch or survey
/// ([`HeldItems::waiting`]): a stop reads them to find its ready items too.
pub(crate) fn agents_ahead_of(state: &RunState, held: &HeldItems) -> Vec<KindAgents> {
    let config = &state.config;
    let triage = &state.items[..state.triage_items as usize];
    let mut counts: Vec<KindAgents> = ItemKind::ALL
        .iter()
        .map(|&kind| KindAgents::exact(kind, 0))
        .collect();
    let mut add = |agents: KindAgents| {
        if let Some(entry) = counts.iter_mut().find(|c| c.kind == agents.kind) {
            entry.add(agents);
        }
    };
    let per_batch = config.triage_batch.max(1);
    let mut spot_checks_ahead = 0u32;
    let mut surveyed = HeldItems::new(state);
    for survey in &state.surveys {
        match survey.stage {
            SurveyStage::Open => {
                surveyed.extend_survey(survey, true);
                // Its spot checks go out in batches; the rest only when the policy drops.
                let checks = survey.spot_checks.len() as u32;
                let members = survey.members.count() as u32;
                add(KindAgents::between(
                    ItemKind::TriageBatch,
                    checks.div_ceil(per_batch),
                    members.div_ceil(per_batch),
                    likely::SURVEY_RELEASED,
                ));
                spot_checks_ahead += checks;
            }
            SurveyStage::Checking => {
                let others = surveyed.extend_survey(survey, true);
                add(KindAgents::between(
                    ItemKind::TriageBatch,
                    0,
                    others.div_ceil(per_batch),
                    likely::SURVEY_RELEASED,
                ));
            }
            SurveyStage::Applied | SurveyStage::Dropped => {}
        }
    }
    // Items that exist and have not ended, counted per kind first (one `add` per kind, not
    // one search of the kinds per item: this runs at every dispatch).
    let mut triaged_ahead = spot_checks_ahead;
    // Of those, on the security route, and second looks waiting to be checked in batches.
    let (mut security_ahead, mut second_looks_waiting) = (0u32, 0u32);
    let mut exact = [0u32; ItemKind::ALL.len()];
    let on_security = |item: &crate::WorkItem| item.route.as_deref() == Some("security");
    for (index, item) in state.items.iter().enumerate() {
        if item.status.is_terminal() {
            continue;
        }
        if item.kind == ItemKind::Triage {
            if held.holds(index, &item.id) {
                continue;
            }
            triaged_ahead += 1;
            security_ahead += u32::from(on_security(item));
        }
        if item.kind == ItemKind::TriageBatch && !crate::holds_second_looks(item) {
            let members = held
                .batch_size(index)
                .unwrap_or_else(|| crate::triage_batch::member_count(item) as u32);
            triaged_ahead += members;
            if on_security(item) {
                security_ahead += members;
            }
        }
        if item.kind == ItemKind::Verify && crate::verification::batchable(item) {
            second_looks_waiting += 1;
            continue;
        }
        exact[item.kind as usize] += 1;
    }
    for (kind, n) in ItemKind::ALL.iter().zip(exact) {
        if n > 0 {
            add(KindAgents::exact(*kind, n));
        }
    }
    // Blind second looks (security dismissals, low-confidence reals) go out in batches of
    // `verify_batch`: those waiting, and likely a share of the findings still to triage.
    let per_check = config.verify_batch.max(1);
    add(KindAgents::exact(
        ItemKind::TriageBatch,
        second_looks_waiting.div_ceil(per_check),
    ));
    if state.phase <= Phase::Triage && security_ahead > 0 {
        let share = likely::SECURITY_DISMISSED + likely::LOW_CONFIDENCE_REAL;
        let likely = (f64::from(security_ahead) * share).round() as u32;
        add(KindAgents {
            kind: ItemKind::TriageBatch,
            min: 0,
            likely: likely.div_ceil(per_check),
            max: security_ahead,
        });
        triaged_ahead -= security_ahead.min(triaged_ahead);
    }
    // Any finding an agent triages may need a second agent (a dismissal, an unsure one or a
    // low-confidence real); the reals' second looks likely go out in batches.
    if state.phase <= Phase::Triage {
        let reals = (f64::from(triaged_ahead) * likely::LOW_CONFIDENCE_REAL).round() as u32;
        if reals > 0 && config.verify_batch >= 2 {
            // The Verify span's most already holds a second agent per finding: these add
            // their likely batches only.
            let batches = reals.div_ceil(per_check);
            add(KindAgents {
                kind: ItemKind::TriageBatch,
                min: 0,
                likely: batches,
                max: batches,
            });
        }
        add(KindAgents::between(
            ItemKind::Verify,
            0,
            triaged_ahead,
            likely::VERIFIED,
        ));
    }
    project_later_phases(state, triage, &surveyed, &mut add);
    counts.retain(|k| k.max > 0);
    counts
}

/// Adds the agents of the phases `state` has not reached, sized by the findings that may be
/// real: at most every one not dismissed, likely those triage called real and [`likely::REAL`]
/// of those not yet decided. Aggregators read the findings no survey policy decides (`held`
/// are those a survey may still decide); groups are likely one per route (measured: the
/// scripted model's root causes follow the route), at full depth when that many findings
/// reach `full_plan_min`.
fn project_later_phases(
    state: &RunState,
    triage: &[crate::WorkItem],
    surveyed: &HeldItems,
    add: &mut impl FnMut(KindAgents),
) {
    if state.until == Some(Phase::Triage) {
        return;
    }
    let config = &state.config;
    let (mut most, mut security) = (0u32, 0u32);
    let (mut likely_real, mut likely_aggregated) = (0.0, 0.0);
    // A handful of routes: a list beats hashing one route per finding at every dispatch.
    let mut routes: Vec<&str> = Vec::new();
    for (index, item) in triage.iter().enumerate() {
        let share = match item.verdict {
            Some(Verdict::Real) => 1.0,
            None | Some(Verdict::Unsure) => likely::REAL,
            Some(_) => continue,
        };
        most += 1;
        likely_real += share;
        likely_aggregated += if surveyed.holds(index, &item.id) {
            share * likely::SURVEY_RELEASED
        } else {
            share
        };
        if let Some(route) = item.route.as_deref()
            && !routes.contains(&route)
        {
            routes.push(route);
        }
        // A security group is full from `SEVERE_FULL_MIN` findings when one is severe
        // (`PlanDepth::of`): the severe ones bound how many can be.
        if item.route.as_deref() == Some("security")
            && item
                .finding
                .is_some_and(|f| state.severe.binary_search(&f).is_ok())
        {
            security += 1;
        }
    }
    let likely_real = likely_real.round() as u32;
    let likely_aggregated = likely_aggregated.round() as u32;
    let span = |kind, max: u32, likely: u32| KindAgents {
        kind,
        min: 0,
        likely: likely.min(max),
        max,
    };
    if state.phase < Phase::Aggregate {
        let aggregators = |n: u32| {
            if n >= 2 {
                n.div_ceil(config.aggregate_batch.max(2))
            } else {
                0
            }
        };
        add(span(
            ItemKind::Aggregate,
            aggregators(most),
            aggregators(likely_aggregated),
        ));
        add(span(
            ItemKind::MergeLabels,
            u32::from(most >= 2),
            u32::from(likely_real >= 2),
        ));
    }
    if state.phase < Phase::RuleReview {
        add(span(
            ItemKind::RuleReview,
            u32::from(most > 0),
            u32::from(likely_real > 0),
        ));
    }
    if state.phase < Phase::Plan {
        // A light group: one plan, one review, the revise step, the task writer; a full one:
        // `planners` plans, a synthesis, one review per angle, the revise step, the task
        // writer. The revise step launches an agent only when a review asks for a change.
        let groups_max = most / config.min_group_size.max(1);
        let severe_full = security / crate::plan_depth::SEVERE_FULL_MIN as u32;
        let full_max = (most / config.full_plan_min.max(1) + severe_full).min(groups_max);
        let groups = if likely_real >= config.min_group_size.max(1) {
            (routes.len() as u32).max(1).min(groups_max)
        } else {
            0
        };
        let full = if groups > 0 && likely_real / groups >= config.full_plan_min {
            groups
        } else {
            u32::from(severe_full > 0).min(groups)
        }
        .min(full_max);
        let revised = (f64::from(groups) * likely::REVISED).round() as u32;
        let planners = config.planners.saturating_sub(1);
        let angles = (config.reviewer_angles.len() as u32).saturating_sub(1);
        add(span(
            ItemKind::Plan,
            groups_max + full_max * planners,
            groups + full * planners,
        ));
        add(span(ItemKind::Synthesize, full_max, full));
        add(span(
            ItemKind::Review,
            groups_max + full_max * angles,
            groups + full * angles,
        ));
        add(span(ItemKind::Revise, groups_max, revised));
        add(span(ItemKind::WriteTask, groups_max, groups));
    }
}

/// The sums of `agents`: at least, likely, at most.
pub fn total_agents(agents: &[KindAgents]) -> (u32, u32, u32) {
    agents.iter().fold((0, 0, 0), |(min, likely, max), k| {
        (min + k.min, likely + k.likely, max + k.max)
    })
}

/// The agents `state` has had: each item that ended after an agent ran for it, once (its
/// retries are not counted, as `agents_ahead` does not count them). With `agents_ahead`'s likely
/// count it is the whole run's progress: `self-repair statusline`'s bar.
pub fn agents_behind(state: &RunState) -> u32 {
    // A sum of flags, not a count of a filter: no branch per item (112,500 at 100,000
    // findings, at every dispatch).
    state
        .items
        .iter()
        .map(|item| u32::from(item.status.is_terminal() && item.dispatches > 0))
        .sum()
}

#[cfg(test)]
mod tests {
    #[test]
    fn item_kinds_index_their_own_place_in_all() {
        for (n, kind) in ItemKind::ALL.iter().enumerate() {
            assert_eq!(*kind as usize, n, "{kind:?}");
        }
    }

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
                security: false,
                severe: i < security,
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
        let estimate = agents_ahead(&run(100, 0, config));
        assert_eq!(of(&estimate, ItemKind::Triage), (100, 100));
        assert_eq!(of(&estimate, ItemKind::Verify), (0, 100));
        // No first-look batch; likely one batch of the second looks of low-confidence reals
        // (8 of 100, issue 48).
        assert_eq!(of(&estimate, ItemKind::TriageBatch), (0, 1));
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
    fn security_findings_triaged_alone_count_their_second_looks_as_batches_once() {
        let config = Config {
            triage_batch: 1,
            survey_min: 0,
            ..Config::default()
        };
        // Ten security findings: each may be dismissed, and every dismissal is checked, in
        // batches: at most one second look each, counted with the batches, not as verifiers.
        let estimate = agents_ahead(&run(10, 10, config.clone()));
        assert_eq!(of(&estimate, ItemKind::Triage), (10, 10));
        assert_eq!(
            of(&estimate, ItemKind::TriageBatch),
            (0, 10),
            "{estimate:?}"
        );
        assert_eq!(of(&estimate, ItemKind::Verify), (0, 0), "{estimate:?}");
        // Ten generic ones: any may need a verifier; likely one batch of low-confidence reals.
        let estimate = agents_ahead(&run(10, 0, config));
        assert_eq!(of(&estimate, ItemKind::TriageBatch), (0, 1), "{estimate:?}");
        assert_eq!(of(&estimate, ItemKind::Verify), (0, 10), "{estimate:?}");
    }

    #[test]
    fn agents_behind_counts_each_item_an_agent_ended_once_and_not_those_decided_without_one() {
        let mut state = run(4, 0, Config::default());
        assert_eq!(agents_behind(&state), 0);
        // Done after two launches (a retry), failed after one, in flight, decided by no agent.
        state.items[0].status = crate::ItemStatus::Done;
        state.items[0].dispatches = 2;
        state.items[1].status = crate::ItemStatus::Failed;
        state.items[1].dispatches = 1;
        state.items[2].status = crate::ItemStatus::Dispatched;
        state.items[2].dispatches = 1;
        state.items[3].status = crate::ItemStatus::Done;
        assert_eq!(agents_behind(&state), 2);
    }

    #[test]
    fn a_batched_run_counts_its_batches_and_severe_security_findings_may_get_the_full_depth() {
        let estimate = agents_ahead(&run(20, 3, Config::default()));
        let (batches, _) = of(&estimate, ItemKind::TriageBatch);
        let (singles, _) = of(&estimate, ItemKind::Triage);
        assert!(batches > 0 && batches < 20, "{estimate:?}");
        assert!(batches + singles <= 20);
        // 20 findings, full_plan_min 10: 2 full groups, plus a group of the 3 severe security
        // findings (`PlanDepth::of`).
        assert_eq!(of(&estimate, ItemKind::Synthesize), (0, 3));
        // One security finding alone is a light group (issue 40, item 4).
        let estimate = agents_ahead(&run(20, 1, Config::default()));
        assert_eq!(of(&estimate, ItemKind::Synthesize), (0, 2));
    }

    #[test]
    fn a_surveyed_rule_counts_its_survey_and_between_its_spot_checks_and_all_its_findings() {
        // 20 generic findings of one rule: one survey holds them all.
        let estimate = agents_ahead(&run(20, 0, Config::default()));
        assert_eq!(of(&estimate, ItemKind::RuleSurvey), (1, 1), "{estimate:?}");
        assert_eq!(of(&estimate, ItemKind::Triage), (0, 0));
        // Only its spot checks may need a second agent.
        assert_eq!(of(&estimate, ItemKind::Verify), (0, 2));
        // At least its 2 spot checks (one batch), at most all 20 in batches of 8.
        assert_eq!(of(&estimate, ItemKind::TriageBatch), (1, 3));
    }

    #[test]
    fn the_likely_figure_lies_its_share_of_the_way_from_the_least_to_the_most() {
        for (min, max, share, expected) in [
            (10, 110, 0.06, (10, 16, 110)),
            (0, 10, 1.0, (0, 10, 10)),
            (4, 4, 0.5, (4, 4, 4)),
            (5, 3, 0.5, (5, 5, 5)),
        ] {
            let k = KindAgents::between(ItemKind::Verify, min, max, share);
            assert_eq!((k.min, k.likely, k.max), expected, "{min} {max} {share}");
        }
    }
}
