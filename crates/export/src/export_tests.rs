//! The export on real shapes of input: a CodeQL-style SARIF copied through with verdicts, Ruff's
//! JSON turned into a run of its own, the round trip through the SARIF reader, and the
//! dismissal script.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use self_repair_engine::{FindingRecord, Intake, Occurrence, TaskRecord};
use self_repair_ingest::{Format, IngestOptions, Parsed, fingerprint, parse};
use self_repair_report::{FindingOutcome, RunReport};
use serde_json::Value;

use crate::{DismissalScript, IndexedInput, SarifSource, export_sarif};

pub(crate) fn fixture(path: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// With `SELF_REPAIR_EXPORT_DUMP=DIR`, writes `DIR/NAME.sarif` (to run a validator on by hand).
fn dump(name: &str, text: &str) {
    if let Some(dir) = std::env::var_os("SELF_REPAIR_EXPORT_DUMP") {
        let path = Path::new(&dir).join(format!("{name}.sarif"));
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}

fn project() -> PathBuf {
    PathBuf::from("/project")
}

/// One record per finding, each reported once.
fn records_of(parsed: &Parsed) -> Vec<FindingRecord> {
    parsed
        .findings
        .iter()
        .map(|f| {
            let mut record = FindingRecord::new(fingerprint(f, None), f.clone());
            record.occurrences.push(Occurrence {
                path: f.path.clone(),
                line: f.line,
                column: f.column,
            });
            record
        })
        .collect()
}

/// What a run decided about a finding.
pub(crate) struct Decided {
    pub(crate) verdict: &'static str,
    pub(crate) by: &'static str,
    pub(crate) model: Option<&'static str>,
    pub(crate) reason: &'static str,
    pub(crate) group: Option<&'static str>,
}

pub(crate) const fn decided(
    verdict: &'static str,
    by: &'static str,
    reason: &'static str,
) -> Decided {
    Decided {
        verdict,
        by,
        model: None,
        reason,
        group: None,
    }
}

pub(crate) fn report(
    records: &[FindingRecord],
    decided: &[Decided],
    tasks: Vec<TaskRecord>,
) -> RunReport<'static> {
    let findings = records
        .iter()
        .zip(decided)
        .enumerate()
        .map(|(i, (record, d))| FindingOutcome {
            fingerprint: record.fingerprint.clone().into(),
            tool: record.finding.tool.clone().into(),
            rule_id: record.finding.rule_id.clone().into(),
            level: record.finding.level.as_str().to_owned().into(),
            path: record.finding.path.clone().into(),
            line: record.finding.line,
            message: record.finding.message.clone().into(),
            occurrences: record.occurrences.len(),
            item: (d.by == "agent").then(|| format!("t-{:05}", i + 1).into()),
            decided_by: d.by.to_owned().into(),
            ended: None,
            verdict: Some(d.verdict.to_owned().into()),
            root_cause: None,
            reason: Some(d.reason.to_owned().into()),
            group: d.group.map(|g| g.to_owned().into()),
            batch: None,
            survey: None,
            spot_checks: Vec::new(),
            config_change: None,
            ran_model: d.model.map(|m| m.to_owned().into()),
            rerouted_from: None,
            duplicate_of: None,
            verification: None,
        })
        .collect();
    RunReport {
        schema_version: 1,
        run: "r-20261126-1130".to_owned(),
        created_at: "2026-11-26T11:30:00Z".to_owned(),
        status: "complete".to_owned(),
        summary: String::new(),
        intake: Intake::default(),
        verdicts: BTreeMap::new(),
        findings,
        groups: Vec::new(),
        tasks,
        quarantined: Vec::new(),
        provider_refusals: 0,
        cost: BTreeMap::new(),
        spend: None,
        suppressions: Vec::new(),
        rule_proposals: Vec::new(),
        known_proposals: Vec::new(),
        scope: None,
        ended_after_triage: false,
        merged_from: Vec::new(),
        since_previous: None,
    }
}

pub(crate) fn task(group: &str, id: &str) -> TaskRecord {
    TaskRecord {
        group: group.to_owned(),
        task_id: id.to_owned(),
        file: format!("backlog/tasks/{id} - Parameterize the user query.md"),
        title: "Parameterize the user query".to_owned(),
        existing: false,
        priority: Some("high".to_owned()),
    }
}

/// The CodeQL-style log read as `start` reads it, its index entry, records and verdicts.
pub(crate) fn codeql_run() -> (String, IndexedInput, Vec<FindingRecord>, RunReport<'static>) {
    let text = fixture("export/codeql-style.sarif");
    let parsed = parse(
        &text,
        Format::Sarif,
        &IngestOptions::new("codeql.sarif", project()),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let records = records_of(&parsed);
    let input = IndexedInput {
        source: "codeql.sarif".to_owned(),
        format: "sarif".to_owned(),
        copy: Some(IndexedInput::copy_name(1)),
        findings: (0..records.len() as u32).map(|r| [r, 0]).collect(),
        results: parsed.positions.iter().map(|p| [p.run, p.result]).collect(),
        alerts: Vec::new(),
    };
    let verdicts = [
        Decided {
            model: Some("opus"),
            group: Some("g-1"),
            ..decided(
                "real",
                "agent",
                "request.args reaches cursor.execute unescaped",
            )
        },
        Decided {
            model: Some("sonnet"),
            ..decided(
                "false_positive",
                "agent",
                "os is used by the plugin loader through importlib",
            )
        },
        decided(
            "intended",
            "known",
            "a fixture password, logged on purpose in this test",
        ),
    ];
    let report = report(&records, &verdicts, vec![task("g-1", "task-7")]);
    (text, input, records, report)
}

fn reread(text: &str) -> Vec<self_repair_engine::Finding> {
    parse(
        text,
        Format::Sarif,
        &IngestOptions::new("export.sarif", project()),
    )
    .unwrap_or_else(|e| panic!("the export does not read back: {e}\n{text}"))
    .findings
}

#[test]
fn a_sarif_input_is_copied_through_with_its_verdicts() {
    let (text, input, records, report) = codeql_run();
    assert_eq!(input.results, vec![[0, 0], [0, 1], [0, 2]]);
    let sources = [SarifSource {
        input: &input,
        text: &text,
    }];
    let export = export_sarif(&report, &records, &sources).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (export.counts.runs, export.counts.copied_runs),
        (1, 1),
        "no run is built for findings a SARIF input holds"
    );
    assert_eq!(export.counts.results, 4);
    assert_eq!((export.counts.suppressed, export.counts.linked), (2, 1));
    assert!(export.notices.is_empty());
    dump("codeql-style", &export.text);
    let exported: Value = serde_json::from_str(&export.text).unwrap_or_else(|e| panic!("{e}"));
    let original: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    let run = &exported["runs"][0];
    let before = &original["runs"][0];
    for key in [
        "tool",
        "artifacts",
        "automationDetails",
        "invocations",
        "columnKind",
    ] {
        assert_eq!(run[key], before[key], "{key} is copied verbatim");
    }
    let results = run["results"].as_array().cloned().unwrap_or_default();
    for (after, before) in results
        .iter()
        .zip(before["results"].as_array().into_iter().flatten())
    {
        for key in [
            "ruleId",
            "rule",
            "locations",
            "partialFingerprints",
            "codeFlows",
            "relatedLocations",
        ] {
            assert_eq!(after[key], before[key], "{key} is kept");
        }
    }
    assert_eq!(results[0]["suppressions"], Value::Null, "real stays open");
    assert_eq!(results[0]["properties"]["self-repair"]["task"], "task-7");
    assert_eq!(results[1]["suppressions"][0]["kind"], "external");
    assert_eq!(results[1]["suppressions"][0]["status"], "accepted");
    assert_eq!(
        results[3], original["runs"][0]["results"][3],
        "a result the analyzer suppressed itself is untouched"
    );
    insta::assert_snapshot!(
        "codeql_style_export_results",
        serde_json::to_string_pretty(&run["results"]).unwrap_or_default()
    );
}

/// Issue 26's round trip: the export fed back to `start` leaves nothing to triage for the
/// findings the run dismissed.
#[test]
fn the_export_read_back_leaves_only_what_was_not_dismissed() {
    let (text, input, records, report) = codeql_run();
    let sources = [SarifSource {
        input: &input,
        text: &text,
    }];
    let export = export_sarif(&report, &records, &sources).unwrap_or_else(|e| panic!("{e}"));
    let again = reread(&export.text);
    let left: Vec<&str> = again.iter().map(|f| f.rule_id.as_str()).collect();
    assert_eq!(left, vec!["py/sql-injection"]);
}

fn ruff_run() -> (Vec<FindingRecord>, RunReport<'static>) {
    let parsed = parse(
        &fixture("formats/ruff-0.17.6.json"),
        Format::Ruff,
        &IngestOptions::new("ruff.json", project()).with_base("/home/dev/samples/py"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let records = records_of(&parsed);
    let mut verdicts = vec![Decided {
        model: Some("haiku"),
        ..decided(
            "false_positive",
            "agent",
            "re-exported for the package's users",
        )
    }];
    while verdicts.len() < records.len() {
        verdicts.push(decided("unsure", "agent", "needs the caller's intent"));
    }
    let report = report(&records, &verdicts, Vec::new());
    (records, report)
}

#[test]
fn findings_of_other_formats_become_a_run_of_their_tool() {
    let (records, report) = ruff_run();
    assert!(records.len() >= 2, "the fixture has {}", records.len());
    let export = export_sarif(&report, &records, &[]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((export.counts.runs, export.counts.copied_runs), (1, 0));
    dump("ruff-json", &export.text);
    assert_eq!(export.counts.results, records.len());
    assert_eq!(export.counts.suppressed, 1);
    let exported: Value = serde_json::from_str(&export.text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(exported["version"], "2.1.0");
    assert_eq!(exported["runs"][0]["tool"]["driver"]["name"], "ruff");
    insta::assert_snapshot!(
        "ruff_json_export",
        serde_json::to_string_pretty(&exported).unwrap_or_default()
    );
    let again = reread(&export.text);
    assert_eq!(again.len(), records.len() - 1);
    assert!(
        again
            .iter()
            .zip(records.iter().skip(1))
            .all(|(f, r)| f.rule_id == r.finding.rule_id
                && f.path == r.finding.path
                && f.line == r.finding.line),
        "the open findings read back where they were"
    );
}

#[test]
fn the_dismissal_script_calls_gh_for_each_dismissed_finding() {
    let (_, _, records, report) = codeql_run();
    let script = DismissalScript::build(&report, &records, None);
    assert_eq!(script.dismissals, 2);
    assert!(script.text.contains("dismissed_reason=\"$5\""));
    insta::assert_snapshot!("codeql_style_dismissals", script.text);
}

/// A result that already has a property bag and a suppression under review keeps both: the
/// verdict's suppression is added to the list and its properties beside the analyzer's.
#[test]
fn a_result_with_its_own_properties_and_suppressions_keeps_them() {
    let text = r#"{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"Semgrep OSS"}},"results":[
        {"ruleId":"python.lang.eval","message":{"text":"eval of user input"},
         "locations":[{"physicalLocation":{"artifactLocation":{"uri":"app.py"},"region":{"startLine":3}}}],
         "suppressions":[{"kind":"external","status":"underReview"}],
         "properties":{"confidence":"HIGH"}}]}]}"#;
    let parsed = parse(
        text,
        Format::Sarif,
        &IngestOptions::new("semgrep.sarif", project()),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(parsed.findings.len(), 1, "under review is still a finding");
    let records = records_of(&parsed);
    let input = IndexedInput {
        source: "semgrep.sarif".to_owned(),
        format: "sarif".to_owned(),
        copy: Some(IndexedInput::copy_name(1)),
        findings: vec![[0, 0]],
        results: vec![[0, 0]],
        alerts: Vec::new(),
    };
    let report = report(
        &records,
        &[decided(
            "false_positive",
            "agent",
            "the argument is a constant",
        )],
        Vec::new(),
    );
    let export = export_sarif(
        &report,
        &records,
        &[SarifSource {
            input: &input,
            text,
        }],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let exported: Value = serde_json::from_str(&export.text).unwrap_or_else(|e| panic!("{e}"));
    let result = &exported["runs"][0]["results"][0];
    assert_eq!(result["suppressions"][0]["status"], "underReview");
    assert_eq!(result["suppressions"][1]["status"], "accepted");
    assert_eq!(result["properties"]["confidence"], "HIGH");
    assert_eq!(
        result["properties"]["self-repair"]["verdict"],
        "false_positive"
    );
    assert!(reread(&export.text).is_empty());
}

/// A run started on the code scanning alerts themselves: each dismissed finding's alert is
/// dismissed by the number the run read, with nothing looked up.
#[test]
fn a_run_over_github_alerts_dismisses_by_the_alert_numbers_it_read() {
    let parsed = parse(
        &fixture("github-alerts/ruff-two-pages.json"),
        Format::Auto,
        &IngestOptions::new("alerts.json", project()),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(parsed.format, Format::GithubAlerts);
    let records = records_of(&parsed);
    let input = IndexedInput {
        source: "alerts.json".to_owned(),
        format: "github-alerts".to_owned(),
        copy: None,
        findings: (0..records.len() as u32).map(|r| [r, 0]).collect(),
        results: Vec::new(),
        alerts: parsed.alerts.clone(),
    };
    let index = crate::InputIndex::new(vec![input]);
    let report = report(
        &records,
        &[
            decided(
                "false_positive",
                "agent",
                "os is imported for its side effect",
            ),
            decided("intended", "rule", "the comparison is on purpose"),
        ],
        Vec::new(),
    );
    let script = DismissalScript::build(&report, &records, Some(&index));
    assert_eq!((script.dismissals, script.by_number), (2, 2));
    assert!(!script.text.contains("jq"), "{}", script.text);
    insta::assert_snapshot!("github_alerts_dismissals", script.text);
}

/// Alerts and a SARIF file in one run: the alerts' findings by number, the SARIF's looked up.
#[test]
fn a_run_over_alerts_and_sarif_dismisses_some_by_number_and_looks_up_the_rest() {
    let (_, _, mut records, _) = codeql_run();
    let codeql = records.len() as u32;
    let alerts = parse(
        &fixture("github-alerts/list-alerts-docs-example.json"),
        Format::Auto,
        &IngestOptions::new("alerts.json", project()),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    records.extend(records_of(&alerts));
    let index = crate::InputIndex::new(vec![IndexedInput {
        source: "alerts.json".to_owned(),
        format: "github-alerts".to_owned(),
        copy: None,
        findings: vec![[codeql, 0]],
        results: Vec::new(),
        alerts: alerts.alerts.clone(),
    }]);
    let decisions: Vec<Decided> = (0..records.len())
        .map(|_| decided("false_positive", "agent", "not reachable"))
        .collect();
    let report = report(&records, &decisions, Vec::new());
    let script = DismissalScript::build(&report, &records, Some(&index));
    assert_eq!(script.by_number, 1);
    assert_eq!(script.dismissals, records.len());
    assert!(
        script.text.contains("\ndismiss_alert 4 'false positive' "),
        "{}",
        script.text
    );
    assert!(
        script.text.contains("\ndismiss 'codeql' "),
        "{}",
        script.text
    );
    assert!(
        script.text.contains("dismissed by number"),
        "{}",
        script.text
    );
}
