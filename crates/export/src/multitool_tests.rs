//! Microsoft's SARIF Multitool (`validate`) on what the export writes, over real Ruff SARIF
//! (Ruff 0.17.6 on Jinja2 3.1.6, tests/fixtures/corpus) with Ruff's JSON beside it, and over the
//! CodeQL-style log: 0 errors. Needs `SARIF_MULTITOOL_BIN` (scripts/install-tools.sh
//! --print-env); run by scripts/e2e.sh with the `real-tools` feature.

use std::path::Path;
use std::process::Command;

use self_repair_engine::{FindingRecord, Occurrence};
use self_repair_ingest::{Format, IngestOptions, fingerprint, parse};
use serde_json::Value;

use crate::export_tests::{Decided, decided, fixture, report, task};
use crate::{IndexedInput, SarifSource, export_sarif};

/// Runs `Sarif.Multitool validate` on `text`; returns its error and warning messages.
fn validate(name: &str, text: &str) -> (Vec<String>, Vec<String>) {
    let bin = std::env::var_os("SARIF_MULTITOOL_BIN").unwrap_or_else(|| {
        panic!(
            "SARIF_MULTITOOL_BIN is not set: eval \"$(bash scripts/install-tools.sh --print-env)\""
        )
    });
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let input = dir.path().join(format!("{name}.sarif"));
    let output = dir.path().join(format!("{name}.validation.sarif"));
    std::fs::write(&input, text).unwrap_or_else(|e| panic!("{e}"));
    let run = Command::new(&bin)
        .arg("validate")
        .arg(&input)
        .arg("--output")
        .arg(&output)
        .env("DOTNET_CLI_TELEMETRY_OPTOUT", "1")
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", Path::new(&bin).display()));
    let log: Value = std::fs::read_to_string(&output)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_else(|| {
            panic!(
                "the Multitool wrote no log (exit {:?}): {}{}",
                run.status.code(),
                String::from_utf8_lossy(&run.stdout),
                String::from_utf8_lossy(&run.stderr)
            )
        });
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    for result in log["runs"][0]["results"].as_array().into_iter().flatten() {
        let line = format!(
            "{} {}",
            result["ruleId"].as_str().unwrap_or_default(),
            result["message"]["text"]
                .as_str()
                .map_or_else(|| result["message"]["arguments"].to_string(), str::to_owned)
        );
        match result["level"].as_str() {
            Some("error") => errors.push(line),
            _ => warnings.push(line), // SARIF's default level is warning
        }
    }
    (errors, warnings)
}

#[test]
fn multitool_finds_no_error_in_the_export_of_real_ruff_sarif_and_json() {
    let base = "/tmp/corpus/jinja2-3.1.6";
    let project = Path::new("/project");
    let sarif = fixture("corpus/jinja2-3.1.6/ruff-0.17.6-select-all.sarif");
    let from_sarif = parse(
        &sarif,
        Format::Sarif,
        &IngestOptions::new("ruff.sarif", project).with_base(base),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let from_json = parse(
        &fixture("corpus/jinja2-3.1.6/ruff-0.17.6-select-all-isolated.json"),
        Format::Ruff,
        &IngestOptions::new("ruff.json", project).with_base(base),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mut records: Vec<FindingRecord> = Vec::new();
    for finding in from_sarif.findings.iter().chain(&from_json.findings) {
        let mut record = FindingRecord::new(fingerprint(finding, None), finding.clone());
        record.occurrences.push(Occurrence {
            path: finding.path.clone(),
            line: finding.line,
            column: finding.column,
        });
        records.push(record);
    }
    let sarif_count = from_sarif.findings.len() as u32;
    let input = IndexedInput {
        source: "ruff.sarif".to_owned(),
        format: "sarif".to_owned(),
        copy: Some(IndexedInput::copy_name(1)),
        findings: (0..sarif_count).map(|r| [r, 0]).collect(),
        results: from_sarif
            .positions
            .iter()
            .map(|p| [p.run, p.result])
            .collect(),
        alerts: Vec::new(),
    };
    let verdicts: Vec<Decided> = (0..records.len())
        .map(|i| match i % 4 {
            0 => decided(
                "false_positive",
                "agent",
                "the name is re-exported on purpose",
            ),
            1 => decided("intended", "survey", "docstring style is not enforced here"),
            2 => Decided {
                group: Some("g-1"),
                ..decided("real", "agent", "a real defect")
            },
            _ => decided("unsure", "agent", "needs the author"),
        })
        .collect();
    let report = report(&records, &verdicts, vec![task("g-1", "task-1")]);
    let export = export_sarif(
        &report,
        &records,
        &[SarifSource {
            input: &input,
            text: &sarif,
        }],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((export.counts.runs, export.counts.copied_runs), (2, 1));
    assert_eq!(export.counts.results, records.len());
    let (errors, warnings) = validate("ruff", &export.text);
    assert!(errors.is_empty(), "{} errors: {errors:#?}", errors.len());
    eprintln!(
        "ruff export: {} results, {} runs, Multitool: 0 errors, {} warnings",
        export.counts.results,
        export.counts.runs,
        warnings.len()
    );
}

#[test]
fn multitool_finds_no_error_in_the_export_of_codeql_style_sarif() {
    let text = fixture("export/codeql-style.sarif");
    let parsed = parse(
        &text,
        Format::Sarif,
        &IngestOptions::new("codeql.sarif", "/project"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let records: Vec<FindingRecord> = parsed
        .findings
        .iter()
        .map(|f| FindingRecord::new(fingerprint(f, None), f.clone()))
        .collect();
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
            group: Some("g-1"),
            ..decided("real", "agent", "tainted")
        },
        decided("false_positive", "agent", "used by a plugin"),
        decided("intended", "known", "a test fixture"),
    ];
    let report = report(&records, &verdicts, vec![task("g-1", "task-7")]);
    let export = export_sarif(
        &report,
        &records,
        &[SarifSource {
            input: &input,
            text: &text,
        }],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let (errors, warnings) = validate("codeql-style", &export.text);
    assert!(errors.is_empty(), "{} errors: {errors:#?}", errors.len());
    eprintln!(
        "codeql-style export: Multitool: 0 errors, {} warnings",
        warnings.len()
    );
}
