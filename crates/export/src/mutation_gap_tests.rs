//! Cases the crate's mutation run found untested (reference/mutants.md).

use serde_json::Value;

use crate::export_tests::codeql_run;
use crate::{SarifSource, export_sarif_audited};

#[test]
fn an_unaudited_dismissal_is_exported_without_its_suppression_and_says_why() {
    let (text, input, records, report) = codeql_run();
    let sources = [SarifSource {
        input: &input,
        text: &text,
    }];
    let export = export_sarif_audited(&report, &records, &sources, Some("not audited yet"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(export.counts.suppressed, 0);
    let exported: Value = serde_json::from_str(&export.text).unwrap_or_else(|e| panic!("{e}"));
    let results = &exported["runs"][0]["results"];
    // The real finding: no audit mark.
    assert_eq!(
        results[0]["properties"]["self-repair"]["audit"],
        Value::Null
    );
    for dismissed in [&results[1], &results[2]] {
        assert_eq!(dismissed["suppressions"], Value::Null, "{dismissed}");
        let bag = &dismissed["properties"]["self-repair"];
        assert_eq!(bag["audit"], "unaudited", "{dismissed}");
        assert_eq!(bag["auditNote"], "not audited yet", "{dismissed}");
        assert!(
            bag["verdict"].is_string(),
            "the verdict is kept: {dismissed}"
        );
    }
}

/// Writes a share's `inputs/index.json` (and a SARIF copy) by hand: shapes `start` would not
/// write, as a hand edit or an older version might leave them.
fn share(inputs: Vec<crate::IndexedInput>, copy_text: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    std::fs::create_dir_all(dir.path().join("inputs")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(dir.path().join("inputs/1.sarif"), copy_text).unwrap_or_else(|e| panic!("{e}"));
    let text = serde_json::to_string(&crate::InputIndex::new(inputs)).unwrap_or_default();
    std::fs::write(dir.path().join(crate::INDEX_FILE), text).unwrap_or_else(|e| panic!("{e}"));
    dir
}

fn input(
    source: &str,
    copy: bool,
    findings: &[[u32; 2]],
    results: &[[u32; 2]],
    alerts: &[u64],
) -> crate::IndexedInput {
    crate::IndexedInput {
        source: source.to_owned(),
        format: if copy { "sarif" } else { "other" }.to_owned(),
        copy: copy.then(|| crate::IndexedInput::copy_name(1)),
        findings: findings.to_vec(),
        results: results.to_vec(),
        alerts: alerts.to_vec(),
    }
}

#[test]
fn merged_sarif_inputs_keep_the_first_copy_and_every_result_in_result_order() {
    let first = share(
        vec![input(
            "codeql.sarif",
            true,
            &[[1, 0], [0, 0]],
            &[[0, 5], [0, 2]],
            &[],
        )],
        "first share's copy",
    );
    let second = share(
        vec![input("codeql.sarif", true, &[[0, 0]], &[[0, 3]], &[])],
        "second share's copy",
    );
    let merged = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let even = |local: u32| Some(local * 2);
    let odd = |local: u32| Some(local * 2 + 1);
    crate::merge_inputs(
        merged.path(),
        &[(first.path(), &even), (second.path(), &odd)],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let Some((index, texts)) = crate::load_inputs(merged.path()).unwrap_or_else(|e| panic!("{e}"))
    else {
        panic!("no merged index");
    };
    assert_eq!(index.inputs.len(), 1);
    assert_eq!(index.inputs[0].results, [[0, 2], [0, 3], [0, 5]]);
    assert_eq!(index.inputs[0].findings, [[0, 0], [1, 0], [2, 0]]);
    assert_eq!(texts, [Some("first share's copy".to_owned())]);
}

#[test]
fn merged_positions_or_alerts_that_do_not_match_their_findings_are_dropped_not_misread() {
    // Share 1: results for a SARIF input; alerts shorter than the findings; results for an
    // input that has no copy. Share 2: the SARIF input with no results.
    let first = share(
        vec![
            input(
                "codeql.sarif",
                true,
                &[[1, 0], [0, 0]],
                &[[0, 5], [0, 2]],
                &[],
            ),
            input("alerts.json", false, &[[2, 0], [3, 0]], &[], &[7]),
            input("ruff.json", false, &[[4, 0]], &[[9, 9]], &[]),
        ],
        "copy",
    );
    let second = share(
        vec![
            input("codeql.sarif", true, &[[0, 0]], &[], &[]),
            input("alerts.json", false, &[[5, 0]], &[], &[9]),
            input("ruff.json", false, &[[6, 0]], &[], &[]),
        ],
        "copy",
    );
    let merged = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let same = |local: u32| Some(local);
    let shifted = |local: u32| (local < 6).then_some(local + 10);
    crate::merge_inputs(
        merged.path(),
        &[(first.path(), &same), (second.path(), &shifted)],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let Some((index, _)) = crate::load_inputs(merged.path()).unwrap_or_else(|e| panic!("{e}"))
    else {
        panic!("no merged index");
    };
    let sarif = &index.inputs[0];
    assert_eq!(
        sarif.findings,
        [[1, 0], [0, 0], [10, 0]],
        "every finding kept"
    );
    assert!(sarif.results.is_empty(), "{sarif:?}");
    let alerts = &index.inputs[1];
    assert_eq!(alerts.findings, [[2, 0], [3, 0], [15, 0]]);
    assert!(alerts.alerts.is_empty(), "{alerts:?}");
    let other = &index.inputs[2];
    assert_eq!(
        other.findings,
        [[4, 0]],
        "share 2's record 6 is not in the merged run"
    );
    assert!(other.results.is_empty(), "{other:?}");
}

#[test]
fn a_raw_object_that_is_not_an_object_says_what_it_expected() {
    let error = serde_json::from_str::<crate::raw_object::RawObject<'_>>("[1, 2]")
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(error.contains("expected a JSON object"), "{error}");
}

fn automation_id(run: &str) -> Option<String> {
    let value: Value = serde_json::from_str(run).ok()?;
    value["automationDetails"]["id"].as_str().map(str::to_owned)
}

fn copied(source: &str) -> crate::run_categories::RunOrigin {
    crate::run_categories::RunOrigin::Copied {
        source: source.to_owned(),
        run: 0,
    }
}

#[test]
fn runs_whose_ids_have_no_category_get_the_tool_s_name_as_one() {
    let run =
        r#"{"tool":{"driver":{"name":"Ruff"}},"automationDetails":{"id":"nightly"},"results":[]}"#;
    let mut runs = vec![run.to_owned(), run.to_owned()];
    crate::run_categories::distinct_categories(&mut runs, &[copied("a.sarif"), copied("b.sarif")]);
    let ids: Vec<Option<String>> = runs.iter().map(|r| automation_id(r)).collect();
    assert_eq!(
        ids,
        [
            Some("ruff/a.sarif/".to_owned()),
            Some("ruff/b.sarif/".to_owned())
        ]
    );
}

#[test]
fn the_same_file_three_times_gets_three_ids() {
    let run = r#"{"tool":{"driver":{"name":"ruff"}},"results":[]}"#;
    let mut runs = vec![run.to_owned(), run.to_owned(), run.to_owned()];
    let origins = [
        copied("ruff.sarif"),
        copied("ruff.sarif"),
        copied("ruff.sarif"),
    ];
    crate::run_categories::distinct_categories(&mut runs, &origins);
    let ids: Vec<Option<String>> = runs.iter().map(|r| automation_id(r)).collect();
    assert_eq!(
        ids,
        [
            Some("ruff/ruff.sarif/run-0/".to_owned()),
            Some("ruff/ruff.sarif/run-0-2/".to_owned()),
            Some("ruff/ruff.sarif/run-0-3/".to_owned())
        ]
    );
}

#[test]
fn a_copied_run_without_results_gets_them_after_its_other_members() {
    let (_, input, records, report) = codeql_run();
    let text = r#"{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"CodeQL"}},"columnKind":"utf16CodeUnits"}]}"#;
    let input = crate::IndexedInput {
        findings: Vec::new(),
        results: Vec::new(),
        ..input
    };
    let sources = [SarifSource {
        input: &input,
        text,
    }];
    let export =
        crate::export_sarif(&report, &records[..0], &sources).unwrap_or_else(|e| panic!("{e}"));
    let exported: Value =
        serde_json::from_str(&export.text).unwrap_or_else(|e| panic!("{e}: {}", export.text));
    assert_eq!(exported["runs"][0]["results"], serde_json::json!([]));
    assert_eq!(exported["runs"][0]["columnKind"], "utf16CodeUnits");
}

#[test]
fn an_empty_result_object_still_gets_its_verdict_as_valid_json() {
    let (_, input, records, report) = codeql_run();
    let text = r#"{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"CodeQL"}},"results":[{},{},{}]}]}"#;
    let sources = [SarifSource {
        input: &input,
        text,
    }];
    let export = crate::export_sarif(&report, &records, &sources).unwrap_or_else(|e| panic!("{e}"));
    let exported: Value =
        serde_json::from_str(&export.text).unwrap_or_else(|e| panic!("{e}: {}", export.text));
    let results = &exported["runs"][0]["results"];
    assert_eq!(
        results[1]["suppressions"][0]["kind"], "external",
        "{results}"
    );
    assert!(
        results[0]["properties"]["self-repair"]["verdict"].is_string(),
        "{results}"
    );
}

#[test]
fn a_copied_result_with_too_many_locations_is_cut_to_the_limit_and_said_so() {
    let (_, input, records, report) = codeql_run();
    let location =
        r#"{"physicalLocation":{"artifactLocation":{"uri":"a.py"},"region":{"startLine":1}}}"#;
    let many = vec![location; crate::LOCATIONS_PER_RESULT + 1].join(",");
    let text = format!(
        r#"{{"version":"2.1.0","runs":[{{"tool":{{"driver":{{"name":"CodeQL"}}}},"results":[{{"ruleId":"a","locations":[{many}]}},{{"ruleId":"b"}},{{"ruleId":"c"}}]}}]}}"#
    );
    let sources = [SarifSource {
        input: &input,
        text: &text,
    }];
    let export = crate::export_sarif(&report, &records, &sources).unwrap_or_else(|e| panic!("{e}"));
    let exported: Value = serde_json::from_str(&export.text).unwrap_or_else(|e| panic!("{e}"));
    let locations = exported["runs"][0]["results"][0]["locations"]
        .as_array()
        .map_or(0, Vec::len);
    assert_eq!(locations, crate::LOCATIONS_PER_RESULT);
    assert!(
        export
            .notices
            .iter()
            .any(|n| n.message.contains("locations")),
        "{:?}",
        export.notices
    );
}

/// The locations of each finding's result in a run built from other formats.
fn built_locations(findings: &[Value]) -> Vec<Value> {
    let records: Vec<self_repair_engine::FindingRecord> = findings
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let finding: self_repair_engine::Finding =
                serde_json::from_value(f.clone()).unwrap_or_else(|e| panic!("{e}"));
            let mut record = self_repair_engine::FindingRecord::new(format!("fp{i}"), finding);
            record.occurrences.push(self_repair_engine::Occurrence {
                path: record.finding.path.clone(),
                line: record.finding.line,
                column: record.finding.column,
            });
            record
        })
        .collect();
    let decided: Vec<crate::export_tests::Decided> = findings
        .iter()
        .map(|_| crate::export_tests::decided("real", "agent", "r"))
        .collect();
    let report = crate::export_tests::report(&records, &decided, Vec::new());
    let export = crate::export_sarif(&report, &records, &[]).unwrap_or_else(|e| panic!("{e}"));
    let exported: Value = serde_json::from_str(&export.text).unwrap_or_else(|e| panic!("{e}"));
    exported["runs"][0]["results"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|r| r["locations"].clone())
        .collect()
}

#[test]
fn a_built_result_has_a_location_and_region_only_where_the_finding_gives_them() {
    use serde_json::json;
    let finding = |path: &str, place: [u32; 4]| {
        let [line, column, end_line, end_column] = place;
        serde_json::json!({"tool": "ruff", "rule_id": "E1", "message": "m", "path": path,
            "line": line, "column": column, "end_line": end_line, "end_column": end_column})
    };
    let regions: Vec<Value> = built_locations(&[
        finding("a.py", [5, 10, 5, 3]),
        finding("a.py", [5, 10, 7, 3]),
        finding("a.py", [5, 10, 5, 10]),
        finding("a.py", [5, 10, 5, 12]),
        finding("a.py", [5, 0, 5, 12]),
        finding("a.py", [0, 3, 0, 4]),
    ])
    .iter()
    .map(|l| l[0]["physicalLocation"]["region"].clone())
    .collect();
    assert_eq!(
        regions[0],
        json!({"startLine": 5, "startColumn": 10, "endLine": 5})
    );
    assert_eq!(
        regions[1],
        json!({"startLine": 5, "startColumn": 10, "endLine": 7, "endColumn": 3})
    );
    assert_eq!(
        regions[2],
        json!({"startLine": 5, "startColumn": 10, "endLine": 5})
    );
    assert_eq!(
        regions[3],
        json!({"startLine": 5, "startColumn": 10, "endLine": 5, "endColumn": 12})
    );
    // Column 0: no start column (SARIF's default, 1, stands), the end column kept.
    assert_eq!(
        regions[4],
        json!({"startLine": 5, "endLine": 5, "endColumn": 12})
    );
    assert_eq!(regions[5], Value::Null, "line 0: no region");
}

#[test]
fn a_finding_of_the_whole_project_has_no_location() {
    let finding = |path: &str| serde_json::json!({"tool": "ruff", "rule_id": "E1", "message": "m", "path": path});
    let locations = built_locations(&[finding("."), finding(""), finding("a.py")]);
    assert_eq!(locations[0], Value::Null, "{locations:?}");
    assert_eq!(locations[1], Value::Null, "{locations:?}");
    assert_eq!(
        locations[2][0]["physicalLocation"]["artifactLocation"]["uri"],
        "a.py"
    );
}
