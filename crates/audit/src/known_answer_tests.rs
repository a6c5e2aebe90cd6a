//! Known answers: a scripted person who disagrees with a set share of each tier's dismissals;
//! every figure and bound must be exactly what that share implies, computed from the plan
//! alone (the bound checked against a binomial sum written out here, not the crate's).

use crate::{Answer, AuditCandidate, AuditFigure, AuditLabel, AuditLabels};

/// A finding of tool `tool` for the tests.
pub(crate) fn candidate(
    fingerprint: &str,
    rule: &str,
    route: &str,
    tier: &str,
    verdict: &str,
) -> AuditCandidate {
    AuditCandidate {
        fingerprint: fingerprint.to_owned(),
        tool: "tool".to_owned(),
        rule: rule.to_owned(),
        path: format!("src/{fingerprint}.py"),
        line: Some(3),
        message: "a message".to_owned(),
        verdict: verdict.to_owned(),
        reason: "the agent's reason".to_owned(),
        route: Some(route.to_owned()),
        tier: Some(tier.to_owned()),
        agents: Vec::new(),
        excerpt: None,
    }
}

/// A scripted person's answers on `candidates` in run `run`: every `period`-th one (1-based)
/// disagreed with, the rest agreed; `period` 0 agrees with all.
pub(crate) fn answers_at_rate(
    candidates: &[AuditCandidate],
    run: &str,
    period: usize,
) -> AuditLabels {
    let mut labels = AuditLabels::default();
    for (index, c) in candidates.iter().enumerate() {
        let answer = if period > 0 && (index + 1) % period == 0 {
            Answer::Disagree(format!("scripted disagreement {index}"))
        } else {
            Answer::Agree
        };
        labels.put(AuditLabel::of(c, run, &answer, "script", "2026-12-07T00:00:00Z").unwrap());
    }
    labels
}

/// P(X ≤ k) for X ~ Binomial(n, p), term by term in plain products.
fn binomial_cdf_plain(k: usize, n: usize, p: f64) -> f64 {
    (0..=k)
        .map(|i| {
            let choose: f64 = (0..i).map(|j| (n - j) as f64 / (j + 1) as f64).product();
            choose * p.powf(i as f64) * (1.0 - p).powf((n - i) as f64)
        })
        .sum()
}

/// The bound is the Clopper-Pearson limit: at it, the chance of so few errors is 1 − confidence.
fn assert_is_the_limit(wrong: usize, n: usize, bound: f64) {
    let at = binomial_cdf_plain(wrong, n, bound);
    assert!((at - 0.05).abs() < 1e-9, "P(X≤{wrong}|{n},{bound}) = {at}");
    assert!(binomial_cdf_plain(wrong, n, bound - 1e-4) > 0.05);
}

/// 60 dismissals per tier (haiku, sonnet, opus), a person disagreeing with 1 in 4 of haiku's,
/// 1 in 10 of sonnet's and none of opus's, and 6 kept findings all agreed.
fn plan() -> (Vec<AuditCandidate>, AuditLabels) {
    let mut all = Vec::new();
    let mut labels = AuditLabels::default();
    for (tier, period) in [("haiku", 4), ("sonnet", 10), ("opus", 0)] {
        let tier_candidates: Vec<AuditCandidate> = (0..60)
            .map(|i| {
                let rule = if i % 2 == 0 { "B602" } else { "B108" };
                candidate(
                    &format!("{tier}-{i:02}"),
                    rule,
                    "security",
                    tier,
                    "false_positive",
                )
            })
            .collect();
        for label in answers_at_rate(&tier_candidates, "r1", period)
            .labels
            .into_values()
        {
            labels.put(label);
        }
        all.extend(tier_candidates);
    }
    let kept: Vec<AuditCandidate> = (0..6)
        .map(|i| candidate(&format!("kept-{i}"), "B602", "security", "opus", "real"))
        .collect();
    for label in answers_at_rate(&kept, "r1", 0).labels.into_values() {
        labels.put(label);
    }
    all.extend(kept);
    (all, labels)
}

#[test]
fn each_tier_s_figures_are_exactly_what_its_disagreement_rate_implies() {
    let (_, labels) = plan();
    let figure = AuditFigure::of(labels.of_run("r1"), 0.95);
    let tier = |name: &str| {
        figure
            .tiers
            .iter()
            .find(|r| r.name == format!("tier {name}"))
            .unwrap()
            .clone()
    };
    // haiku: 60 / 4 = 15 wrong; sonnet: 60 / 10 = 6; opus: 0 (and its 6 kept agreed).
    for (name, wrong, kept) in [("haiku", 15, 0), ("sonnet", 6, 0), ("opus", 0, 6)] {
        let row = tier(name);
        assert_eq!(row.audited_closures, 60, "{name}");
        assert_eq!(row.unsafe_closures, wrong, "{name}");
        assert_eq!(row.audited_kept, kept, "{name}");
        assert_eq!(row.agreed, 60 - wrong + kept, "{name}");
        let bound = row.bound.unwrap();
        if wrong == 0 {
            assert!((bound - (1.0 - 0.05_f64.powf(1.0 / 60.0))).abs() < 1e-12);
        } else {
            assert_is_the_limit(wrong, 60, bound);
        }
    }
    assert_eq!(figure.all.audited_closures, 180);
    assert_eq!(figure.all.unsafe_closures, 21);
    assert_eq!(figure.all.answered, 186);
    assert_eq!(figure.all.agreed, 165);
    assert_is_the_limit(21, 180, figure.all.bound.unwrap());
    // Per rule: the rules alternate, so each has half of each tier's dismissals and errors
    // (every error falls on an odd index, i = 3, 7, ... and 9, 19, ...: B108).
    let rule = |name: &str| {
        figure
            .rules
            .iter()
            .find(|r| r.name == name)
            .unwrap()
            .clone()
    };
    assert_eq!(rule("rule tool B108").audited_closures, 90);
    assert_eq!(rule("rule tool B108").unsafe_closures, 15 + 6);
    assert_eq!(rule("rule tool B602").audited_closures, 90);
    assert_eq!(rule("rule tool B602").unsafe_closures, 0);
    assert_eq!(rule("rule tool B602").audited_kept, 6);
    assert_eq!(
        figure
            .tiers
            .iter()
            .find(|r| r.name == "tier opus")
            .unwrap()
            .sentence(0.95),
        "0 of 60 audited dismissals wrong: the unsafe-closure rate is below 4.9 %, 95 % confidence"
    );
}

#[test]
fn the_harness_fails_when_one_answer_changes() {
    let (candidates, mut labels) = plan();
    let flipped = AuditLabel::of(
        &candidates[120], // opus-00
        "r1",
        &Answer::Disagree("one more".into()),
        "script",
        "2026-12-08T00:00:00Z",
    )
    .unwrap();
    labels.put(flipped);
    let figure = AuditFigure::of(labels.of_run("r1"), 0.95);
    let opus = figure.tiers.iter().find(|r| r.name == "tier opus").unwrap();
    assert_eq!(opus.unsafe_closures, 1, "the later answer stands");
    assert!(opus.bound.unwrap() > 0.07);
}

#[test]
fn eval_scores_the_scripted_person_s_labels_as_the_same_unsafe_closures() {
    // eval reads audit.jsonl as it is: the disagreements on dismissals are its unsafe closures.
    let (_, labels) = plan();
    let set = self_repair_eval::LabelSet::parse("audit.jsonl", &labels.render()).unwrap();
    let real = set.labels.iter().filter(|l| l.real).count();
    assert_eq!(real, 21 + 6);
    assert_eq!(set.labels.len(), 186);
}

#[test]
fn what_a_person_reads_is_unchanged() {
    // The figure as `audit --figures`, report.md and eval show it, and one checklist entry.
    let (candidates, labels) = plan();
    let figure = AuditFigure::of(labels.of_run("r1"), 0.95);
    let mut with_agents = candidates[3].clone();
    with_agents.agents = vec![
        crate::AgentAnswer {
            who: "first look tb-00002".to_owned(),
            tier: Some("haiku".to_owned()),
            verdict: "false_positive".to_owned(),
            reason: "the command is a constant".to_owned(),
        },
        crate::AgentAnswer {
            who: "second look vf-00001".to_owned(),
            tier: Some("opus".to_owned()),
            verdict: "false_positive".to_owned(),
            reason: "no input reaches it".to_owned(),
        },
    ];
    with_agents.excerpt =
        Some("  2 | import subprocess\n> 3 | subprocess.run(CMD, shell=True)\n".to_owned());
    insta::assert_snapshot!(
        "audit_outputs",
        format!(
            "{}\n\n{}\n{}\n{}",
            figure.headline(),
            figure.render_text(),
            figure.render_markdown(),
            crate::render_checklist("r1", 44, &[&with_agents])
        )
    );
}
