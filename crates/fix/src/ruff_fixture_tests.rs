//! The analyzer verdict on a real Ruff 0.17.6 output (tests/fixtures/formats), before and after
//! the fix of its `F401` finding.

use std::collections::BTreeSet;
use std::path::Path;

use self_repair_engine::{Finding, FindingRecord};
use self_repair_ingest::{Format, IngestOptions, parse};

use crate::AnalyzerVerdict;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/formats");

fn ruff_findings(root: &Path, json: &str) -> Vec<Finding> {
    let options = IngestOptions::new("ruff.json", root).with_base("/home/dev/samples");
    parse(json, Format::Ruff, &options).unwrap().findings
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("py")).unwrap();
    std::fs::copy(
        Path::new(FIXTURES).join("python-input-mod.py"),
        dir.path().join("py/mod.py"),
    )
    .unwrap();
    dir
}

fn records(findings: &[Finding]) -> Vec<FindingRecord> {
    findings
        .iter()
        .enumerate()
        .map(|(i, f)| FindingRecord {
            fingerprint: format!("{i}"),
            finding: f.clone(),
            occurrences: Vec::new(),
            item: Some(format!("t-{}", i + 1)),
            predecided: None,
            job_index: None,
        })
        .collect()
}

/// The real output without its `F401` entries: what Ruff prints once the import is removed.
fn without_rule(json: &str, rule: &str) -> String {
    let mut entries: Vec<serde_json::Value> = serde_json::from_str(json).unwrap();
    entries.retain(|e| e["code"] != rule);
    serde_json::to_string(&entries).unwrap()
}

#[test]
fn the_group_is_gone_when_ruff_no_longer_reports_its_rule() {
    let dir = project();
    let json = std::fs::read_to_string(Path::new(FIXTURES).join("ruff-0.17.6.json")).unwrap();
    let baseline = records(&ruff_findings(dir.path(), &json));
    let group: Vec<FindingRecord> = baseline
        .iter()
        .filter(|r| r.finding.rule_id == "F401")
        .cloned()
        .collect();
    assert!(!group.is_empty(), "the fixture has an F401 finding");
    assert!(baseline.len() > group.len(), "and others that stay");
    let touched = BTreeSet::from(["py/mod.py".to_owned()]);

    let unchanged = ruff_findings(dir.path(), &json);
    let verdict = AnalyzerVerdict::judge(&group, &baseline, &unchanged, &touched);
    assert_eq!(verdict.gone, 0);
    assert_eq!(verdict.remaining.len(), group.len());
    assert!(verdict.new_in_touched.is_empty());
    assert!(!verdict.passed());

    let fixed = ruff_findings(dir.path(), &without_rule(&json, "F401"));
    let verdict = AnalyzerVerdict::judge(&group, &baseline, &fixed, &touched);
    assert_eq!(verdict.gone, group.len());
    assert!(verdict.remaining.is_empty());
    assert!(
        verdict.new_in_touched.is_empty(),
        "the other findings were in the baseline"
    );
    assert!(verdict.passed());
}

#[test]
fn a_finding_the_baseline_did_not_hold_in_a_touched_file_fails_the_check() {
    let dir = project();
    let json = std::fs::read_to_string(Path::new(FIXTURES).join("ruff-0.17.6.json")).unwrap();
    let baseline = records(&ruff_findings(dir.path(), &json));
    let group: Vec<FindingRecord> = baseline
        .iter()
        .filter(|r| r.finding.rule_id == "F401")
        .cloned()
        .collect();
    // The fix replaced `import os` with `import sys`, which is unused too.
    let after = without_rule(&json, "F401").replacen(
        '[',
        &format!(
            "[{},",
            serde_json::to_string(
                &serde_json::from_str::<Vec<serde_json::Value>>(&json).unwrap()[0]
            )
            .unwrap()
            .replace("`os`", "`sys`")
        ),
        1,
    );
    let current = ruff_findings(dir.path(), &after);
    let touched = BTreeSet::from(["py/mod.py".to_owned()]);
    let verdict = AnalyzerVerdict::judge(&group, &baseline, &current, &touched);
    assert!(verdict.remaining.is_empty());
    assert_eq!(verdict.new_in_touched.len(), 1);
    assert!(verdict.new_in_touched[0].message.contains("`sys`"));
    assert!(!verdict.passed());
    let untouched = AnalyzerVerdict::judge(&group, &baseline, &current, &BTreeSet::new());
    assert!(untouched.passed(), "only touched files are held to it");
}
