//! report.md of a large run stays a summary a person reads: every finding listed one a line up
//! to [`FINDINGS_LISTED`], counted by rule past it, and every other list cut at [`LIST_ROWS`]
//! with the `report.json` field that holds the rest.

use std::collections::BTreeMap;

use super::{FINDINGS_LISTED, FindingOutcome, GroupOutcome, LIST_ROWS, RunReport};

fn finding(n: usize, rules: usize) -> FindingOutcome {
    FindingOutcome {
        fingerprint: format!("fp{n}"),
        tool: "ruff".to_owned(),
        rule_id: format!("X{:03}", 1 + n % rules),
        level: "warning".to_owned(),
        path: format!("src/m{}.py", n % 7),
        line: Some(u32::try_from(n % 90 + 1).unwrap()),
        message: "unused".to_owned(),
        occurrences: 1,
        item: Some(format!("t-{:05}", n + 1)),
        decided_by: "agent".to_owned(),
        ended: None,
        verdict: Some(
            if n.is_multiple_of(10) {
                "false_positive"
            } else {
                "real"
            }
            .to_owned(),
        ),
        root_cause: None,
        reason: None,
        group: None,
        batch: None,
        survey: None,
        spot_checks: Vec::new(),
        config_change: None,
        ran_model: None,
        rerouted_from: None,
        duplicate_of: None,
        verification: None,
    }
}

/// A complete run's report with nothing in it: what other tests of the crate fill in.
pub(crate) fn empty_report() -> RunReport {
    report(0, 1, 0)
}

fn report(findings: usize, rules: usize, groups: usize) -> RunReport {
    RunReport {
        schema_version: 1,
        run: "r".to_owned(),
        created_at: "2026-11-26T00:00:00Z".to_owned(),
        status: "complete".to_owned(),
        summary: "s".to_owned(),
        intake: self_repair_engine::Intake::default(),
        scope: None,
        ended_after_triage: false,
        merged_from: Vec::new(),
        since_previous: None,
        verdicts: BTreeMap::new(),
        findings: (0..findings).map(|n| finding(n, rules)).collect(),
        groups: (0..groups)
            .map(|n| GroupOutcome {
                id: format!("g{}", n + 1),
                label: format!("cause {n}"),
                root_cause: "c".to_owned(),
                findings: n + 1,
                planned: false,
                plan: None,
                task: None,
            })
            .collect(),
        tasks: Vec::new(),
        quarantined: Vec::new(),
        provider_refusals: 0,
        cost: BTreeMap::new(),
        spend: None,
        suppressions: Vec::new(),
        rule_proposals: Vec::new(),
        known_proposals: Vec::new(),
    }
}

#[test]
fn a_run_up_to_the_limit_lists_every_finding_one_a_line() {
    let markdown = report(FINDINGS_LISTED, 3, 0).render_markdown();
    assert!(markdown.contains("\n## Findings\n"), "{markdown}");
    assert!(!markdown.contains("## Findings by rule"));
    assert_eq!(markdown.matches("| ruff X0").count(), FINDINGS_LISTED);
}

#[test]
fn a_run_past_the_limit_counts_its_findings_by_rule_and_points_to_report_json() {
    let markdown = report(FINDINGS_LISTED + 1, 3, 0).render_markdown();
    assert!(!markdown.contains("\n## Findings\n"), "{markdown}");
    assert!(markdown.contains("## Findings by rule"), "{markdown}");
    assert!(
        markdown.contains("`report.json` (`findings`)"),
        "{markdown}"
    );
    assert!(
        markdown.contains("`self-repair status --findings --run r`"),
        "{markdown}"
    );
    // 1,001 findings over 3 rules: X001 has findings 0, 3, ..., 999 (334; 34 of them n % 10 == 0).
    assert!(
        markdown.contains("| ruff X001 | 334 | false_positive 34, real 300 |"),
        "{markdown}"
    );
    assert!(markdown.contains("| ruff X002 | 334 |"), "{markdown}");
    assert!(markdown.contains("| ruff X003 | 333 |"), "{markdown}");
}

#[test]
fn rules_past_the_row_limit_are_counted_not_listed() {
    let rules = LIST_ROWS + 5;
    let markdown = report(FINDINGS_LISTED + rules, rules, 0).render_markdown();
    let rows = markdown.matches("\n| ruff X").count();
    assert_eq!(rows, LIST_ROWS, "{markdown}");
    assert!(markdown.contains("... and 5 more rules ("), "{markdown}");
}

#[test]
fn groups_past_the_row_limit_show_the_largest_and_count_the_rest() {
    let markdown = report(10, 3, LIST_ROWS + 3).render_markdown();
    assert!(
        markdown.contains(&format!(
            "The {LIST_ROWS} largest of {} groups",
            LIST_ROWS + 3
        )),
        "{markdown}"
    );
    // The largest group (g203, 203 findings) is listed, the three smallest are not.
    assert!(
        markdown.contains("| g203 | cause 202 | 203 |"),
        "{markdown}"
    );
    assert!(!markdown.contains("| g1 | cause 0 | 1 |"), "{markdown}");
    assert!(
        markdown.contains("... and 3 more groups (the first 200 of 203 are listed): `report.json` `groups` has every one."),
        "{markdown}"
    );
}

/// report.md's size is bounded whatever the run's: past the limit it grows with the rules,
/// never with the findings.
#[test]
fn report_md_is_bounded_past_the_limit() {
    for rules in [1, 7, 37, 59] {
        let small = report(FINDINGS_LISTED + 1, rules, 0).render_markdown();
        for extra in [2, 1_000, 20_000] {
            let large = report(FINDINGS_LISTED + extra, rules, 0).render_markdown();
            // Only the digits of the counts differ.
            assert!(
                large.len() <= small.len() + 8 * (rules + 2),
                "{rules} rules, {extra} more findings: {} bytes vs {}",
                large.len(),
                small.len()
            );
        }
    }
}

/// The whole report.md of a run past the limit, as a person reads it: the findings counted by
/// rule, with where the full list is.
#[test]
fn report_md_of_a_large_run_as_a_person_reads_it() {
    insta::assert_snapshot!(report(FINDINGS_LISTED + 1, 3, 0).render_markdown());
}
