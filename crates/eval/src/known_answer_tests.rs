//! Known-answer tests: a scripted model errs at a set rate per tier, and every figure must be
//! exactly what that rate implies, computed here from the plan alone (never from the run).
//! The mutation tests show the check fails when the run or the claim is off by one verdict.

use crate::synthetic_run::{ISSUE_34_PLAN, TierPlan, synthetic_run};
use crate::{Confusion, Ended, EvalReport, ScoreRow};

/// What a plan implies for its tier's row.
struct Expected {
    findings: u32,
    labelled: u32,
    confusion: Confusion,
    precision: f64,
    recall: f64,
    decided_score: f64,
    strict_score: f64,
    unsafe_rate: f64,
    false_alarm_rate: f64,
    usd_per_finding: f64,
    usd_per_correct: f64,
    agents: u32,
}

fn expected(plan: &TierPlan) -> Expected {
    let (num, den) = plan.errs;
    let half = plan.decided / 2;
    let e = half * num / den;
    let a = plan.abstained;
    let (a_real, a_false) = (a.div_ceil(2), a / 2);
    let rate = f64::from(num) / f64::from(den);
    let findings = plan.decided + a + plan.unlabelled;
    let correct = plan.decided - 2 * e;
    Expected {
        findings,
        labelled: plan.decided + a,
        confusion: Confusion {
            real_kept: half - e,
            real_closed: e,
            real_abstained: a_real,
            false_kept: e,
            false_closed: half - e,
            false_abstained: a_false,
            unsure: a.div_ceil(3),
            quarantined: (a + 1) / 3,
            refused: a / 3,
            pending: 0,
        },
        precision: 1.0 - rate,
        recall: 1.0 - rate,
        decided_score: 1.0 - rate,
        strict_score: f64::from(correct) / f64::from(plan.decided + a),
        unsafe_rate: f64::from(e) / f64::from(half + a_real),
        false_alarm_rate: f64::from(e) / f64::from(half + a_false),
        usd_per_finding: plan.usd,
        usd_per_correct: plan.usd * f64::from(plan.decided + a) / f64::from(correct),
        agents: findings,
    }
}

fn close(a: Option<f64>, b: f64) -> bool {
    a.is_some_and(|a| (a - b).abs() <= 1e-9 * b.abs().max(1.0))
}

/// Every way `row` differs from what `plan` implies, one line each.
fn row_mismatches(row: &ScoreRow, plan: &TierPlan) -> Vec<String> {
    let want = expected(plan);
    let mut out = Vec::new();
    let mut check = |what: &str, ok: bool, got: String| {
        if !ok {
            out.push(format!("{} {what}: got {got}", plan.tier));
        }
    };
    check(
        "findings",
        row.findings == want.findings,
        row.findings.to_string(),
    );
    check(
        "labelled",
        row.labelled == want.labelled,
        row.labelled.to_string(),
    );
    check(
        "confusion",
        row.confusion == want.confusion,
        format!("{:?}", row.confusion),
    );
    check(
        "precision",
        close(row.precision, want.precision),
        format!("{:?}", row.precision),
    );
    check(
        "recall",
        close(row.recall, want.recall),
        format!("{:?}", row.recall),
    );
    check(
        "decided score",
        close(row.decided_score, want.decided_score),
        format!("{:?}", row.decided_score),
    );
    check(
        "strict score",
        close(row.strict_score, want.strict_score),
        format!("{:?}", row.strict_score),
    );
    check(
        "unsafe closure rate",
        close(row.unsafe_closure_rate, want.unsafe_rate),
        format!("{:?}", row.unsafe_closure_rate),
    );
    check(
        "false alarm rate",
        close(row.false_alarm_rate, want.false_alarm_rate),
        format!("{:?}", row.false_alarm_rate),
    );
    check(
        "$/finding",
        close(row.per_finding.map(|p| p.usd), want.usd_per_finding),
        format!("{:?}", row.per_finding),
    );
    check(
        "$/correct",
        close(row.per_correct.map(|p| p.usd), want.usd_per_correct),
        format!("{:?}", row.per_correct),
    );
    check(
        "agents",
        row.spend.agents == want.agents,
        row.spend.agents.to_string(),
    );
    out
}

fn mismatches(report: &EvalReport, plans: &[TierPlan]) -> Vec<String> {
    let mut out = Vec::new();
    for plan in plans {
        match report.tiers.iter().find(|r| r.name == plan.tier) {
            Some(row) => out.extend(row_mismatches(row, plan)),
            None => out.push(format!("no row for tier {}", plan.tier)),
        }
    }
    out
}

#[test]
fn scores_equal_what_the_error_rates_imply() {
    let (run, labels) = synthetic_run(&ISSUE_34_PLAN);
    let report = EvalReport::of(&run, &labels).unwrap();
    assert_eq!(mismatches(&report, &ISSUE_34_PLAN), Vec::<String>::new());
    // The exact figures of issue 34's rates, spelled out once.
    let haiku = &report.tiers[0];
    assert_eq!(
        (haiku.unsafe_closures, haiku.false_alarms, haiku.abstentions),
        (5, 5, 3)
    );
    assert_eq!(haiku.precision, Some(0.75));
    let opus = &report.tiers[2];
    assert_eq!((opus.unsafe_closures, opus.false_alarms), (0, 0));
    assert_eq!(opus.decided_score, Some(1.0));
}

#[test]
fn the_all_and_route_rows_add_up_the_tiers() {
    let (run, labels) = synthetic_run(&ISSUE_34_PLAN);
    let report = EvalReport::of(&run, &labels).unwrap();
    let sum = |rows: &[&ScoreRow]| {
        let mut c = Confusion::default();
        for r in rows {
            let x = r.confusion;
            c.real_kept += x.real_kept;
            c.real_closed += x.real_closed;
            c.real_abstained += x.real_abstained;
            c.false_kept += x.false_kept;
            c.false_closed += x.false_closed;
            c.false_abstained += x.false_abstained;
            c.unsure += x.unsure;
            c.quarantined += x.quarantined;
            c.refused += x.refused;
        }
        c
    };
    let tiers: Vec<&ScoreRow> = report.tiers.iter().collect();
    assert_eq!(report.all.confusion, sum(&tiers));
    let names: Vec<&str> = report.routes.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["generic", "security"]);
    assert_eq!(report.routes[1].confusion, sum(&tiers[1..]));
    // All: 109 findings, one agent each, plus the main session's tokens and dollars.
    assert_eq!(report.all.findings, 109);
    assert_eq!(report.all.spend.agents, 109);
    assert_eq!(
        report.all.spend.tokens,
        45 * 10_000 + 43 * 20_000 + 21 * 30_000 + 5_000
    );
    assert!(close(
        Some(report.all.spend.usd),
        45.0 * 0.01 + 43.0 * 0.06 + 21.0 * 0.3 + 0.02
    ));
    assert_eq!(report.labels.unlabelled_findings, 3);
    assert_eq!(report.labels.matched_labels, 106);
}

#[test]
fn one_verdict_changed_fails_the_known_answer() {
    let (mut run, labels) = synthetic_run(&ISSUE_34_PLAN);
    // The second haiku finding is labelled real and was kept: close it.
    assert_eq!(run.findings[1].ended, Ended::Real);
    run.findings[1].ended = Ended::FalsePositive;
    let report = EvalReport::of(&run, &labels).unwrap();
    let found = mismatches(&report, &ISSUE_34_PLAN);
    assert!(
        found.iter().any(|m| m.starts_with("haiku confusion")),
        "{found:?}"
    );
    assert!(
        found.iter().any(|m| m.starts_with("haiku recall")),
        "{found:?}"
    );
}

#[test]
fn a_wrong_claimed_rate_fails_the_known_answer() {
    let (run, labels) = synthetic_run(&ISSUE_34_PLAN);
    let report = EvalReport::of(&run, &labels).unwrap();
    let mut claimed = ISSUE_34_PLAN;
    claimed[1].errs = (1, 20);
    let found = mismatches(&report, &claimed);
    assert!(
        found.iter().any(|m| m.starts_with("sonnet precision")),
        "{found:?}"
    );
    assert!(mismatches(&report, &ISSUE_34_PLAN).is_empty());
}

#[test]
fn a_finding_filed_under_another_tier_fails_the_known_answer() {
    let (mut run, labels) = synthetic_run(&ISSUE_34_PLAN);
    run.findings[0].tier = Some("sonnet".to_owned());
    let report = EvalReport::of(&run, &labels).unwrap();
    let found = mismatches(&report, &ISSUE_34_PLAN);
    assert!(
        found.iter().any(|m| m.starts_with("haiku findings")),
        "{found:?}"
    );
    assert!(
        found.iter().any(|m| m.starts_with("sonnet findings")),
        "{found:?}"
    );
}

#[test]
fn a_pending_finding_is_in_no_score() {
    let (mut run, labels) = synthetic_run(&ISSUE_34_PLAN);
    // Finding 0 is one the model erred on (an unsafe closure): pending, it leaves the errors.
    assert_eq!(run.findings[0].ended, Ended::FalsePositive);
    run.findings[0].ended = Ended::Pending;
    let report = EvalReport::of(&run, &labels).unwrap();
    let haiku = &report.tiers[0];
    assert_eq!(haiku.confusion.pending, 1);
    assert_eq!(haiku.labelled, 43);
    assert_eq!(haiku.confusion.scored(), 42);
    assert_eq!(haiku.unsafe_closures, 4);
    assert_eq!(haiku.strict_score, Some(30.0 / 42.0));
}
