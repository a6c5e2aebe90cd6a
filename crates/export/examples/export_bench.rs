//! What keeping a run's SARIF input for the export costs, and what the export costs, on a
//! generated log with many results.
//!
//! `cargo run -p self-repair-export --example export_bench -- [RESULTS]` (default 100000).
//! Prints the input's size, `save_inputs` (the copy + the index) time and bytes beside the size
//! of `findings.json` for the same findings, and `export_sarif` time and size with a third of
//! the findings dismissed and a third real. Measure peak memory with `/usr/bin/time -v`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Instant;

use self_repair_engine::{FindingRecord, Intake, Occurrence};
use self_repair_export::{InputToSave, SarifSource, export_sarif, load_inputs, save_inputs};
use self_repair_ingest::{Format, IngestOptions, fingerprint, parse};
use self_repair_report::{FindingOutcome, RunReport};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let results: usize = std::env::args().nth(1).map_or(Ok(100_000), |a| a.parse())?;
    let sarif = generate_sarif(results);
    println!("input: {results} results, {:.1} MB", mb(sarif.len()));

    let started = Instant::now();
    let parsed = parse(
        &sarif,
        Format::Sarif,
        &IngestOptions::new("big.sarif", "/project"),
    )?;
    println!("ingest parse: {:.0} ms", ms(started));
    let records: Vec<FindingRecord> = parsed
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
        .collect();
    let rows: usize = records
        .iter()
        .map(|r| serde_json::to_string(r).map_or(0, |t| t.len() + 1))
        .sum();
    println!("findings.json for the same findings: {:.1} MB", mb(rows));

    let run_dir = tempfile::tempdir()?;
    let positions: Vec<[u32; 2]> = parsed.positions.iter().map(|p| [p.run, p.result]).collect();
    let placed: Vec<[u32; 2]> = (0..records.len() as u32).map(|r| [r, 0]).collect();
    let started = Instant::now();
    save_inputs(
        run_dir.path(),
        &[InputToSave {
            source: "big.sarif",
            format: "sarif",
            sarif_text: Some(&sarif),
            positions: &positions,
            findings: &placed,
            alerts: &[],
        }],
    )?;
    let save_ms = ms(started);
    let index_bytes = std::fs::metadata(run_dir.path().join("inputs/index.json"))?.len();
    println!(
        "save_inputs (copy {:.1} MB + index {:.1} MB): {save_ms:.0} ms",
        mb(sarif.len()),
        mb(index_bytes as usize)
    );

    let report = report(&records);
    let started = Instant::now();
    let Some((index, texts)) = load_inputs(run_dir.path())? else {
        return Err("no index".into());
    };
    let sources: Vec<SarifSource<'_>> = index
        .inputs
        .iter()
        .zip(&texts)
        .filter_map(|(input, text)| {
            Some(SarifSource {
                input,
                text: text.as_deref()?,
            })
        })
        .collect();
    let export = export_sarif(&report, &records, &sources)?;
    println!(
        "load_inputs + export_sarif: {:.0} ms, {:.1} MB, {} results ({} suppressed, {} notices)",
        ms(started),
        mb(export.text.len()),
        export.counts.results,
        export.counts.suppressed,
        export.notices.len()
    );
    for notice in &export.notices {
        println!("  notice: {}", notice.message);
    }
    Ok(())
}

fn mb(bytes: usize) -> f64 {
    bytes as f64 / 1e6
}

fn ms(started: Instant) -> f64 {
    started.elapsed().as_secs_f64() * 1e3
}

/// A third dismissed, a third real, a third unsure.
fn report(records: &[FindingRecord]) -> RunReport<'_> {
    let findings = records
        .iter()
        .enumerate()
        .map(|(i, r)| FindingOutcome {
            fingerprint: r.fingerprint.as_str().into(),
            tool: r.finding.tool.as_str().into(),
            rule_id: r.finding.rule_id.as_str().into(),
            level: r.finding.level.as_str().into(),
            path: r.finding.path.as_str().into(),
            line: r.finding.line,
            message: r.finding.message.as_str().into(),
            occurrences: 1,
            item: Some(format!("t-{:05}", i + 1).into()),
            decided_by: "agent".into(),
            ended: None,
            verdict: Some(["false_positive", "real", "unsure"][i % 3].into()),
            root_cause: None,
            reason: Some("the value is checked two lines above".into()),
            group: None,
            batch: None,
            survey: None,
            spot_checks: Vec::new(),
            config_change: None,
            ran_model: Some("haiku".into()),
            rerouted_from: None,
            duplicate_of: None,
            verification: None,
        })
        .collect();
    RunReport {
        schema_version: 1,
        run: "r-bench".to_owned(),
        created_at: String::new(),
        status: "complete".to_owned(),
        summary: String::new(),
        intake: Intake::default(),
        verdicts: BTreeMap::new(),
        findings,
        groups: Vec::new(),
        tasks: Vec::new(),
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

/// CodeQL-like results: a rule table, relative URIs, a line hash each.
fn generate_sarif(results: usize) -> String {
    let mut out = String::with_capacity(results * 420);
    out.push_str(r#"{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"BenchLint","version":"1.0","rules":["#);
    for rule in 0..50 {
        if rule > 0 {
            out.push(',');
        }
        let _ = write!(
            out,
            r#"{{"id":"B{rule:03}","shortDescription":{{"text":"Bench rule {rule}"}}}}"#
        );
    }
    out.push_str(r#"]}},"results":["#);
    for index in 0..results {
        if index > 0 {
            out.push_str(",\n");
        }
        let (rule, file, line) = (index % 50, index % 1000, (index / 1000) % 200 + 1);
        let _ = write!(
            out,
            r#"{{"ruleId":"B{rule:03}","ruleIndex":{rule},"level":"warning","message":{{"text":"Value `value_{line}` looks suspicious ({index})"}},"locations":[{{"physicalLocation":{{"artifactLocation":{{"uri":"src/pkg{}/module_{file}.py","uriBaseId":"%SRCROOT%"}},"region":{{"startLine":{line},"startColumn":5,"endColumn":17}}}}}}],"partialFingerprints":{{"primaryLocationLineHash":"{index:016x}:1"}}}}"#,
            file % 20
        );
    }
    out.push_str("]}]}\n");
    out
}
