use super::*;
use crate::test_support::{NOW, per_finding_run};
use crate::{Config, Finding, ItemStatus, Level, Verdict};

/// A finished share `k` of `n` of a job whose findings are `job` (`(fingerprint, verdict)`
/// in the job's order); the share holds those at `positions`.
fn share(
    k: u32,
    n: u32,
    digest: &str,
    job: &[(&str, Verdict)],
    positions: &[usize],
) -> PartitionRun {
    let mut state = per_finding_run(
        &format!("r-p{k}"),
        positions.len() as u32,
        "F401",
        |_| "generic",
        |_| false,
        Config::default(),
    );
    state.until = Some(Phase::Triage);
    state.scope = Some(RunScope {
        partition: Some(PartitionScope {
            share: k,
            shares: n,
            whole_rule_from: 5,
            whole_rules: 0,
            input_unique: job.len() as u32,
            input_digest: digest.to_owned(),
            other_shares: (job.len() - positions.len()) as u32,
        }),
        ..RunScope::default()
    });
    let mut findings = Vec::new();
    for (local, &at) in positions.iter().enumerate() {
        let (fingerprint, verdict) = job[at];
        let item = &mut state.items[local];
        item.status = ItemStatus::Done;
        item.verdict = Some(verdict);
        item.root_cause = Some(format!("cause of {fingerprint}").into());
        let mut record = FindingRecord::new(fingerprint, finding(at));
        record.item = Some(item.id.to_string());
        record.job_index = Some(at as u32);
        findings.push(record);
    }
    state.items.retain(|i| i.kind == ItemKind::Triage);
    state.phase = Phase::Complete;
    state.status = RunStatus::Complete;
    PartitionRun {
        folder: format!("artifacts/p{k}"),
        state,
        findings,
    }
}

fn finding(at: usize) -> Finding {
    Finding {
        tool: "ruff".into(),
        rule_id: "F401".into(),
        level: Level::Warning,
        message: "unused".into(),
        path: format!("src/m{at}.py"),
        line: Some(1),
        column: None,
        end_line: None,
        end_column: None,
        symbol: None,
        help_uri: None,
        raw: None,
        fix: None,
    }
}

const JOB: [(&str, Verdict); 5] = [
    ("fa", Verdict::Real),
    ("fb", Verdict::FalsePositive),
    ("fc", Verdict::Real),
    ("fd", Verdict::Intended),
    ("fe", Verdict::Real),
];

#[test]
fn the_shares_of_one_job_merge_in_the_jobs_order_with_every_verdict_and_go_on_to_aggregation() {
    let shares = [
        share(2, 2, "d1", &JOB, &[1, 3, 4]),
        share(1, 2, "d1", &JOB, &[0, 2]),
    ];
    assert_eq!(job_problems(&shares), []);
    let merged = merge_partitions("r-m".into(), NOW, None, &shares);
    let prints: Vec<&str> = merged
        .findings
        .iter()
        .map(|r| r.fingerprint.as_str())
        .collect();
    assert_eq!(prints, ["fa", "fb", "fc", "fd", "fe"]);
    for (n, record) in merged.findings.iter().enumerate() {
        let id = record.item.as_deref().unwrap_or_default();
        assert_eq!(id, triage_id(n + 1));
        let item = merged.state.item(id).unwrap();
        assert_eq!(item.finding, Some(n as u32));
        assert_eq!(item.verdict, Some(JOB[n].1), "{id}");
        assert_eq!(record.job_index, None);
    }
    assert_eq!(merged.renamed[0]["t-00001"], "t-00002");
    assert_eq!(merged.renamed[1]["t-00002"], "t-00003");
    let state = &merged.state;
    assert_eq!(state.phase, Phase::Aggregate);
    assert_eq!(state.status, RunStatus::Active);
    assert_eq!(state.until, None);
    assert_eq!(state.scope, None, "the merged run takes the whole job");
    assert_eq!(state.intake.unique, 5);
    assert_eq!(
        state
            .merged_from
            .iter()
            .map(|m| (m.share, m.run.as_str(), m.unique))
            .collect::<Vec<_>>(),
        [(1, "r-p1", 2), (2, "r-p2", 3)]
    );
    let aggregated: Vec<&str> = state
        .items
        .iter()
        .filter(|i| i.kind == ItemKind::Aggregate)
        .flat_map(|i| i.inputs().iter().map(compact_str::CompactString::as_str))
        .collect();
    assert_eq!(
        aggregated.len(),
        3,
        "the three real findings: {aggregated:?}"
    );
}

#[test]
fn a_second_opinion_and_a_survey_keep_their_findings_under_the_new_ids() {
    let mut second = share(2, 2, "d1", &JOB, &[1, 3, 4]);
    // t-00001 of share 2 (fb) was checked by vf-00001; a survey read t-00002 and t-00003.
    let mut verifier = WorkItem::new("vf-00001", ItemKind::Verify, crate::Tier::Sonnet);
    verifier.status = ItemStatus::Done;
    verifier.finding = Some(0);
    verifier.extra_mut().inputs = vec!["t-00001".into()];
    second.state.items.push(verifier);
    second.state.surveys.push(SurveyRecord {
        id: "rs-00001".into(),
        rule: "ruff F401".into(),
        members: vec!["t-00002".into(), "t-00003".into()].into(),
        sample: vec!["t-00002".into()],
        spot_checks: vec!["t-00003".into()],
        stage: crate::SurveyStage::Applied,
        answer: None,
        dropped: None,
    });
    let mut survey = WorkItem::new("rs-00001", ItemKind::RuleSurvey, crate::Tier::Sonnet);
    survey.status = ItemStatus::Done;
    survey.extra_mut().inputs = vec!["t-00002".into()];
    second.state.items.push(survey);
    let shares = [share(1, 2, "d1", &JOB, &[0, 2]), second];
    let merged = merge_partitions("r-m".into(), NOW, None, &shares);
    let state = &merged.state;
    let verifier = state.item("vf-00002").expect("fb is t-00002 now");
    assert_eq!(verifier.inputs(), ["t-00002"]);
    assert_eq!(verifier.finding, Some(1));
    assert_eq!(state.surveys[0].members, ["t-00004", "t-00005"]);
    assert_eq!(state.surveys[0].spot_checks, ["t-00005"]);
    assert_eq!(state.item("rs-00001").unwrap().inputs(), ["t-00004"]);
    assert_eq!(merged.renamed[1]["vf-00001"], "vf-00002");
    // Each item once: the second opinion and the survey among them, no other copied twice.
    let mut ids: Vec<&str> = state.items.iter().map(|i| i.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), state.items.len(), "{ids:?}");
    assert!(ids.contains(&"vf-00002") && ids.contains(&"rs-00001"));
}

#[test]
fn a_missing_share_is_named_with_what_to_run() {
    let shares = [
        share(1, 4, "d1", &JOB, &[0]),
        share(2, 4, "d1", &JOB, &[1, 2]),
        share(4, 4, "d1", &JOB, &[3, 4]),
    ];
    let problems = job_problems(&shares);
    assert_eq!(
        problems,
        [JobProblem::Missing {
            share: 3,
            shares: 4,
            digest: "d1".into()
        }]
    );
    assert!(
        problems[0]
            .to_string()
            .starts_with("share 3/4 is missing: no folder given holds it")
    );
}

#[test]
fn a_share_given_twice_names_both_folders() {
    let mut again = share(2, 2, "d1", &JOB, &[1, 3, 4]);
    again.folder = "retry/p2".into();
    let shares = [
        share(1, 2, "d1", &JOB, &[0, 2]),
        share(2, 2, "d1", &JOB, &[1, 3, 4]),
        again,
    ];
    assert_eq!(
        job_problems(&shares),
        [JobProblem::Duplicate {
            share: 2,
            shares: 2,
            first: "artifacts/p2".into(),
            second: "retry/p2".into()
        }]
    );
}

#[test]
fn foreign_folders_are_named_with_why() {
    let mut whole = share(2, 2, "d1", &JOB, &[1, 3, 4]);
    whole.state.scope = None;
    whole.folder = "whole".into();
    let mut other_n = share(2, 3, "d1", &JOB, &[1]);
    other_n.folder = "three".into();
    let mut other_input = share(2, 2, "d2", &JOB, &[1, 3, 4]);
    other_input.folder = "yesterday".into();
    let mut active = share(2, 2, "d1", &JOB, &[1, 3, 4]);
    active.state.status = RunStatus::Active;
    active.state.phase = Phase::Triage;
    active.folder = "active".into();
    let mut past = share(2, 2, "d1", &JOB, &[1, 3, 4]);
    past.state.until = None;
    past.folder = "past".into();
    let shares = [
        share(1, 2, "d1", &JOB, &[0, 2]),
        whole,
        other_n,
        other_input,
        active,
        past,
    ];
    // Share 2 is there, unfinished: it is named as such, not as missing.
    let problems: Vec<String> = job_problems(&shares)
        .iter()
        .map(ToString::to_string)
        .collect();
    let starts = [
        "whole (run r-p2) is not a partition",
        "three (run r-p2) is share hash:2/3 of another split: the job of artifacts/p1 has 2",
        "yesterday (run r-p2, share hash:2/2) belongs to another job",
        "active (run r-p2, share hash:2/2) has not finished: it is active in phase triage",
        "past (run r-p2, share hash:2/2) ran past triage",
    ];
    assert_eq!(problems.len(), starts.len(), "{problems:#?}");
    for (problem, start) in problems.iter().zip(starts) {
        assert!(problem.starts_with(start), "{problem}");
    }
}
