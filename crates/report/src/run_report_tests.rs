//! report.md of a large run stays a summary a person reads: every finding listed one a line up
//! to [`FINDINGS_LISTED`], counted by rule past it, and every other list cut at [`LIST_ROWS`]
//! with the `report.json` field that holds the rest.

use std::collections::BTreeMap;

use super::{FINDINGS_LISTED, FindingOutcome, GroupOutcome, LIST_ROWS, RunReport};

fn finding(n: usize, rules: usize) -> FindingOutcome<'static> {
    FindingOutcome {
        fingerprint: format!("fp{n}").into(),
        tool: "ruff".into(),
        rule_id: format!("X{:03}", 1 + n % rules).into(),
        level: "warning".into(),
        path: format!("src/m{}.py", n % 7).into(),
        line: Some(u32::try_from(n % 90 + 1).unwrap()),
        message: "unused".into(),
        occurrences: 1,
        item: Some(format!("t-{:05}", n + 1).into()),
        decided_by: "agent".into(),
        ended: None,
        verdict: Some(
            if n.is_multiple_of(10) {
                "false_positive"
            } else {
                "real"
            }
            .into(),
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
pub(crate) fn empty_report() -> RunReport<'static> {
    report(0, 1, 0)
}

fn report(findings: usize, rules: usize, groups: usize) -> RunReport<'static> {
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

/// Exactly as many rules as rows: every rule is listed and none is said to be left out.
#[test]
fn rules_at_the_row_limit_are_all_listed_with_no_rest() {
    let markdown = report(FINDINGS_LISTED + LIST_ROWS, LIST_ROWS, 0).render_markdown();
    assert_eq!(
        markdown.matches("\n| ruff X").count(),
        LIST_ROWS,
        "{markdown}"
    );
    assert!(!markdown.contains("more rules"), "{markdown}");
}

/// A verdict as report.md and `status --findings` show it, beside a duplicate's target.
#[test]
fn verdict_text_names_a_duplicate_s_target_and_an_answer_its_chain_overruled() {
    for (verdict, duplicate_of, expected) in [
        (Some("real"), None, "real"),
        (Some("duplicate"), Some("t-00003"), "duplicate of t-00003"),
        (
            Some("real"),
            Some("t-00003"),
            "real (answered duplicate of t-00003)",
        ),
        (None, Some("t-00003"), "-"),
        (None, None, "-"),
    ] {
        assert_eq!(
            super::verdict_text(verdict, duplicate_of, "-"),
            expected,
            "{verdict:?} {duplicate_of:?}"
        );
    }
    assert_eq!(super::verdict_text(None, None, "none"), "none");
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

/// A run of three findings, one a line each (`t-00001` to `t-00003`), whose first item the
/// agent answered `real` without a dispatch the state saw; the other two still pending.
fn built() -> RunReport<'static> {
    use self_repair_engine::{
        Config, Event, Intake, JournalEntry, RoutedFinding, Tier, apply, create_run,
    };
    let routed: Vec<RoutedFinding> = (0..3)
        .map(|i| RoutedFinding {
            finding: i,
            route: "generic".into(),
            tier: Tier::Haiku,
            rule: "ruff F401".into(),
            path: format!("src/m{i}.py"),
            safe_fix: false,
            security: false,
            severe: false,
        })
        .collect();
    let config = Config {
        triage_batch: 1,
        survey_min: 0,
        ..Config::default()
    };
    let mut state = create_run("r".into(), 0, config, Intake::default(), None, &routed);
    let answer = serde_json::json!({"confidence": 0.9, "verdict": "real", "root_cause": "an unused import",
        "reason": "the import is never used anywhere"});
    let entry = JournalEntry {
        at: 0,
        event: Event::Submitted {
            item: "t-00001".into(),
            result: answer.clone(),
        },
    };
    assert!(apply(&mut state, &entry).changed);
    let findings: Vec<self_repair_engine::FindingRecord> = (0..3)
        .map(|i| {
            let finding = serde_json::from_value(serde_json::json!({"tool": "ruff",
                "rule_id": "F401", "level": "warning", "message": "unused",
                "path": format!("src/m{i}.py"), "line": i + 1}))
            .unwrap();
            let mut record = self_repair_engine::FindingRecord::new(format!("fp{i}"), finding);
            record.item = Some(format!("t-{:05}", i + 1));
            record
        })
        .collect();
    let triage = std::collections::HashMap::from([(
        "t-00001".to_owned(),
        serde_json::from_value(answer).unwrap(),
    )]);
    RunReport::build(&state, &findings, &triage).into_owned()
}

#[test]
fn a_built_report_counts_verdicts_items_launches_and_tiers() {
    let report = built();
    assert_eq!(
        report.verdicts,
        BTreeMap::from([("real".to_owned(), 1), ("undecided".to_owned(), 2)])
    );
    let decided: Vec<(&str, &str)> = report
        .findings
        .iter()
        .map(|f| (&*f.decided_by, f.verdict.as_deref().unwrap_or("-")))
        .collect();
    assert_eq!(decided, [("agent", "real"), ("none", "-"), ("none", "-")]);
    assert!(report.quarantined.is_empty());
    assert!(!report.ended_after_triage);
    let triage = &report.cost["triage"];
    assert_eq!(
        (triage.items, triage.launches, triage.failed_attempts),
        (3, 1, 0),
        "one launch: the item answered alone"
    );
    assert_eq!(triage.by_tier, BTreeMap::from([("haiku".to_owned(), 3)]));
}

/// A triage batch is one launch for its findings, which count as items; a finding an agent
/// decided in the batch names it, one no agent decided does not; failed attempts add up.
#[test]
fn a_batch_counts_as_one_launch_and_names_the_findings_its_agent_decided() {
    use self_repair_engine::{
        Config, Event, Intake, JournalEntry, RoutedFinding, StopEvent, Tier, apply, create_run,
        decide_stop,
    };
    let routed: Vec<RoutedFinding> = (0..3)
        .map(|i| RoutedFinding {
            finding: i,
            route: "generic".into(),
            tier: Tier::Haiku,
            rule: "ruff F401".into(),
            path: format!("src/m{i}.py"),
            safe_fix: false,
            security: false,
            severe: false,
        })
        .collect();
    let config = Config {
        triage_batch: 3,
        survey_min: 0,
        ..Config::default()
    };
    let mut state = create_run("r".into(), 0, config, Intake::default(), None, &routed);
    let stop = StopEvent {
        session: Some("s1".to_owned()),
        running: Some(Vec::new()),
        ..StopEvent::default()
    };
    decide_stop(&mut state, &stop, 10);
    let answer = |item: &str| {
        serde_json::json!({"item": item, "confidence": 0.9, "verdict": "real",
            "root_cause": "an unused import", "reason": "the import is never used anywhere"})
    };
    let verdicts: Vec<serde_json::Value> = ["t-00001", "t-00002", "t-00003"]
        .iter()
        .map(|item| answer(item))
        .collect();
    let entry = JournalEntry {
        at: 20,
        event: Event::Submitted {
            item: "tb-00001".into(),
            result: serde_json::json!({ "verdicts": verdicts }),
        },
    };
    assert!(apply(&mut state, &entry).changed);
    // Its agent was launched once (the launch a later stop reads), and one member had failed
    // twice before.
    let batch = state
        .items
        .iter()
        .position(|item| item.id == "tb-00001")
        .unwrap();
    state.items[batch].dispatches = 1;
    state.items[1].attempts = 2;
    let findings: Vec<self_repair_engine::FindingRecord> = (0..3)
        .map(|i| {
            let finding = serde_json::from_value(serde_json::json!({"tool": "ruff",
                "rule_id": "F401", "level": "warning", "message": "unused",
                "path": format!("src/m{i}.py"), "line": i + 1}))
            .unwrap();
            let mut record = self_repair_engine::FindingRecord::new(format!("fp{i}"), finding);
            record.item = Some(format!("t-{:05}", i + 1));
            record
        })
        .collect();
    // The third finding's answer is not among the triage results: no agent decided it here.
    let triage: std::collections::HashMap<String, self_repair_engine::TriageResult> =
        ["t-00001", "t-00002"]
            .iter()
            .map(|item| {
                let mut result = answer(item);
                result.as_object_mut().unwrap().remove("item");
                ((*item).to_owned(), serde_json::from_value(result).unwrap())
            })
            .collect();
    let report = RunReport::build(&state, &findings, &triage);
    let batches: Vec<(&str, Option<&str>)> = report
        .findings
        .iter()
        .map(|f| (&*f.decided_by, f.batch.as_deref()))
        .collect();
    assert_eq!(
        batches,
        [
            ("agent", Some("tb-00001")),
            ("agent", Some("tb-00001")),
            ("none", None)
        ]
    );
    let triage = &report.cost["triage"];
    assert_eq!(
        (triage.items, triage.launches, triage.failed_attempts),
        (3, 1, 2),
        "one launch, the batch's"
    );
}

#[test]
fn report_md_says_existing_tasks_priorities_proposals_and_provider_refusals() {
    use self_repair_engine::{REFUSED_BY_PROVIDER, TaskRecord};
    let mut report = report(1, 1, 1);
    let task = TaskRecord {
        group: "g1".to_owned(),
        task_id: "task-3".to_owned(),
        file: "backlog/tasks/task-3 - A.md".to_owned(),
        title: "Fix the imports".to_owned(),
        existing: true,
        priority: Some("high".to_owned()),
    };
    report.groups[0].task = Some(task.clone());
    report.tasks = vec![task];
    report.quarantined = vec![
        super::QuarantinedItem {
            item: "t-00001".to_owned(),
            kind: "triage".to_owned(),
            errors: vec!["no answer".to_owned()],
            refused_by_provider: true,
        },
        super::QuarantinedItem {
            item: "t-00002".to_owned(),
            kind: "triage".to_owned(),
            errors: vec![format!("{REFUSED_BY_PROVIDER} twice")],
            refused_by_provider: true,
        },
    ];
    report = report.with_proposals(
        vec![crate::RuleProposal {
            id: "r-1-p1".to_owned(),
            name: "tests".to_owned(),
            outcome: "verdict intended".to_owned(),
            reason: "r".to_owned(),
            matches: Some(4),
            agreed: Some(3),
        }],
        vec![crate::KnownProposal {
            fingerprint: "abc".to_owned(),
            item: Some("t-00009".to_owned()),
            verdict: "false_positive".to_owned(),
            summary: "bandit B602 a.py: shell".to_owned(),
            reason: "fixed input".to_owned(),
        }],
    );
    let markdown = report.render_markdown();
    for expected in [
        "| task-3 (existed) |\n",
        "\n## Tasks by priority\n\n",
        "| high | task-3 (existed) | Fix the imports | g1 | `backlog/tasks/task-3 - A.md` |\n",
        "\n## Rule proposals\n\n",
        "| r-1-p1 | tests | verdict intended | 3 of 4 matches agreed | `self-repair rules accept r-1-p1` |\n",
        "\n## Waiting for `known accept`\n\n",
        "| t-00009 | bandit B602 a.py: shell | false_positive | fixed input | `self-repair known accept abc` |\n",
        "- `t-00001` (triage) (refused by the model provider): no answer\n",
    ] {
        assert!(markdown.contains(expected), "{expected:?} in:\n{markdown}");
    }
    let refused_twice = format!("- `t-00002` (triage): {REFUSED_BY_PROVIDER} twice\n");
    assert!(markdown.contains(&refused_twice), "said once:\n{markdown}");
}

#[test]
fn locations_show_five_then_say_where_the_rest_are() {
    let small = report(7, 1, 0);
    let items: Vec<String> = (1..=7).map(|n| format!("t-{n:05}")).collect();
    let text = small.locations(&items);
    assert_eq!(text.matches('`').count(), 10, "five shown: {text}");
    assert!(text.starts_with("`src/m0.py:1`, `src/m1.py:2`"), "{text}");
    assert!(
        text.ends_with(" and 2 more (the Findings table below)"),
        "{text}"
    );
    assert_eq!(small.locations(&items[..5]).matches(" more ").count(), 0);
    let large = report(FINDINGS_LISTED + 1, 1, 0);
    assert!(
        large
            .locations(&items)
            .ends_with(" and 2 more (report.json's `findings`)")
    );
}

#[test]
fn priorities_sort_high_medium_low_other_none_and_fences_outlast_backticks() {
    for (priority, rank) in [
        (Some("high"), 0),
        (Some("Medium"), 1),
        (Some("LOW"), 2),
        (Some("urgent"), 3),
        (None, 4),
    ] {
        assert_eq!(super::priority_rank(priority), rank, "{priority:?}");
    }
    assert_eq!(super::longest_backticks("a ``` b `` c"), 3);
    assert_eq!(super::longest_backticks("no ticks"), 0);
}

#[test]
fn provider_refusals_are_written_only_when_there_are_some() {
    let mut report = empty_report();
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json.get("provider_refusals"), None);
    report.provider_refusals = 2;
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["provider_refusals"], 2);
}

#[test]
fn a_new_task_is_named_by_its_file_and_a_run_at_the_listing_limit_points_to_its_table() {
    let report_of = |findings| report(findings, 1, 0);
    let mut report = report(1, 1, 1);
    report.groups[0].task = Some(self_repair_engine::TaskRecord {
        group: "g1".to_owned(),
        task_id: "task-4".to_owned(),
        file: "backlog/tasks/task-4 - B.md".to_owned(),
        title: "B".to_owned(),
        existing: false,
        priority: None,
    });
    let markdown = report.render_markdown();
    assert!(
        markdown.contains("| task-4 `backlog/tasks/task-4 - B.md` |\n"),
        "{markdown}"
    );
    assert!(!markdown.contains("(existed)"), "{markdown}");
    let at_limit = report_of(FINDINGS_LISTED);
    let items: Vec<String> = (1..=7).map(|n| format!("t-{n:05}")).collect();
    assert!(
        at_limit
            .locations(&items)
            .ends_with(" and 2 more (the Findings table below)")
    );
}
