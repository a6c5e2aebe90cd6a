//! Every input shape's export through the checks GitHub applies to an upload, one test a shape
//! (issue 36 item 2). The checks are ported from github/codeql-action (v4; `src/upload-lib.ts`
//! `uploadSpecifiedFiles` → `throwIfCombineSarifFilesDisabled` → `src/sarif/index.ts`
//! `areAllRunsUnique`/`createRunKey`, then `populateRunAutomationDetails`), plus code scanning's
//! own refusal of two runs of one tool in one category ("A delivery cannot contain multiple runs
//! with the same category", the 2025-07-21 changelog), in that order, as the action runs them
//! on a single `sarif_file`.

use self_repair_engine::FindingRecord;
use self_repair_ingest::{Format, IngestOptions, fingerprint, parse};
use serde_json::Value;

use crate::export_tests::{decided, fixture, report};
use crate::run_categories::category_of;
use crate::{
    IndexedInput, InputIndex, InputToSave, SarifSource, export_sarif, load_inputs, merge_inputs,
    save_inputs,
};

/// Where the fixtures' analyzers ran; every input is read with it as `--base`.
const BASE: &str = "/home/dev/samples";

/// Why GitHub would refuse `sarif` uploaded with `category` (`None`: the workflow gives none,
/// so the action derives one from the job), or `None` when it takes it.
fn github_refusal(sarif: &str, category: Option<&str>) -> Option<String> {
    let Ok(mut log) = serde_json::from_str::<Value>(sarif) else {
        return Some("Invalid SARIF. JSON syntax error".to_owned());
    };
    let Some(runs) = log.get_mut("runs").and_then(Value::as_array_mut) else {
        return Some("Invalid SARIF. Missing 'runs' array.".to_owned());
    };
    if runs.iter().any(|run| !run["results"].is_array()) {
        return Some("Invalid SARIF. Missing 'results' array in run.".to_owned());
    }
    // createRunKey: JSON.stringify of these six, undefined ones left out.
    let mut keys = std::collections::HashSet::new();
    for run in runs.iter() {
        let driver = &run["tool"]["driver"];
        let key = ["name", "fullName", "version", "semanticVersion", "guid"]
            .iter()
            .map(|field| driver.get(*field).cloned())
            .chain([run
                .get("automationDetails")
                .and_then(|a| a.get("id"))
                .cloned()])
            .map(|v| v.map_or_else(|| "undefined".to_owned(), |v| v.to_string()))
            .collect::<Vec<_>>()
            .join("\u{1f}");
        if !keys.insert(key) {
            return Some(
                "The CodeQL Action does not support uploading multiple SARIF runs with the same \
                 category. Please update your workflow to upload a single run per category."
                    .to_owned(),
            );
        }
    }
    // populateRunAutomationDetails: a run without automationDetails gets the category.
    let automation_id = category.map_or_else(
        || ".github/workflows/triage.yml:triage/".to_owned(),
        |c| {
            if c.ends_with('/') {
                c.to_owned()
            } else {
                format!("{c}/")
            }
        },
    );
    let mut slots = std::collections::HashSet::new();
    for run in runs.iter_mut() {
        if run.get("automationDetails").is_none() {
            run["automationDetails"] = serde_json::json!({"id": automation_id});
        }
        let tool = run["tool"]["driver"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let id = run["automationDetails"]["id"].as_str().unwrap_or_default();
        if !slots.insert((tool, category_of(id).to_owned())) {
            return Some(
                "A delivery cannot contain multiple runs with the same category".to_owned(),
            );
        }
    }
    None
}

/// One input of a shape: its name as given to `start`, its text and format.
struct Input {
    source: &'static str,
    text: String,
}

/// Ruff's SARIF of the sample, as if Ruff ran in `folder` of the project.
fn ruff_sarif(source: &'static str, folder: &str) -> Input {
    Input {
        source,
        text: fixture("formats/ruff-0.17.6.sarif").replace(
            "file:///home/dev/samples/py/",
            &format!("file://{BASE}/{folder}/"),
        ),
    }
}

fn codeql(source: &'static str, with_automation_details: bool) -> Input {
    let mut text = fixture("export/codeql-style.sarif");
    if !with_automation_details {
        let mut log: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
        if let Some(run) = log["runs"][0].as_object_mut() {
            run.remove("automationDetails");
        }
        text = log.to_string();
    }
    Input { source, text }
}

fn plain(source: &'static str, fixture_path: &str) -> Input {
    Input {
        source,
        text: fixture(fixture_path),
    }
}

/// The run `start` makes of `inputs`: a record per finding, each input's index entry.
fn run_of(inputs: &[Input]) -> (Vec<FindingRecord>, Vec<IndexedInput>) {
    let mut records = Vec::new();
    let mut indexed = Vec::new();
    for (number, input) in inputs.iter().enumerate() {
        let options = IngestOptions::new(input.source, "/project").with_base(BASE);
        let parsed = parse(&input.text, Format::Auto, &options).unwrap_or_else(|e| panic!("{e}"));
        let sarif = parsed.format == Format::Sarif;
        let first = records.len() as u32;
        for finding in &parsed.findings {
            records.push(FindingRecord::new(
                fingerprint(finding, None),
                finding.clone(),
            ));
        }
        indexed.push(IndexedInput {
            source: input.source.to_owned(),
            format: parsed.format.as_str().to_owned(),
            copy: sarif.then(|| IndexedInput::copy_name(number + 1)),
            findings: (first..records.len() as u32).map(|r| [r, 0]).collect(),
            results: parsed.positions.iter().map(|p| [p.run, p.result]).collect(),
            alerts: Vec::new(),
        });
    }
    (records, indexed)
}

/// The export of a run over `inputs` (index and copies as `load_inputs` gives them back).
fn export_of(records: &[FindingRecord], index: &InputIndex, texts: &[Option<String>]) -> String {
    let decisions: Vec<_> = records
        .iter()
        .map(|_| decided("real", "agent", "reachable"))
        .collect();
    let report = report(records, &decisions, Vec::new());
    let sources: Vec<SarifSource<'_>> = index
        .inputs
        .iter()
        .zip(texts)
        .filter_map(|(input, text)| {
            Some(SarifSource {
                input,
                text: text.as_deref()?,
            })
        })
        .collect();
    export_sarif(&report, records, &sources)
        .unwrap_or_else(|e| panic!("{e}"))
        .text
}

/// Exports a run over `inputs` and passes it through GitHub's checks, with the recipes'
/// `category: ruff` and with none.
fn assert_github_accepts(shape: &str, inputs: &[Input]) -> String {
    let (records, indexed) = run_of(inputs);
    let texts: Vec<Option<String>> = indexed
        .iter()
        .zip(inputs)
        .map(|(i, input)| i.copy.as_ref().map(|_| input.text.clone()))
        .collect();
    let export = export_of(&records, &InputIndex::new(indexed), &texts);
    for category in [Some("ruff"), None] {
        assert_eq!(
            github_refusal(&export, category),
            None,
            "{shape}, category {category:?}"
        );
    }
    export
}

/// What the export did before issue 36: each SARIF input's runs copied as they were.
fn runs_copied_as_they_were(inputs: &[Input]) -> String {
    let runs: Vec<Value> = inputs
        .iter()
        .filter_map(|i| serde_json::from_str::<Value>(&i.text).ok())
        .flat_map(|log| log["runs"].as_array().cloned().unwrap_or_default())
        .collect();
    serde_json::json!({"version": "2.1.0", "runs": runs}).to_string()
}

#[test]
fn shape_one_tool_in_two_files_is_refused_as_copied_and_accepted_as_exported() {
    let inputs = [
        ruff_sarif("py-a/ruff.sarif", "py-a"),
        ruff_sarif("py-b/ruff.sarif", "py-b"),
    ];
    // Before: the two `ruff` runs copied as they were.
    let before = github_refusal(&runs_copied_as_they_were(&inputs), Some("ruff"));
    assert!(
        before
            .as_deref()
            .is_some_and(|r| r.contains("multiple SARIF runs with the same category")),
        "{before:?}"
    );
    // After: one category each, named after its input.
    let export = assert_github_accepts("one tool in two files", &inputs);
    let log: Value = serde_json::from_str(&export).unwrap_or_else(|e| panic!("{e}"));
    let ids: Vec<&str> = log["runs"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|run| run["automationDetails"]["id"].as_str())
        .collect();
    assert_eq!(ids, ["ruff/py-a/ruff.sarif/", "ruff/py-b/ruff.sarif/"]);
}

#[test]
fn shape_several_tools() {
    let export = assert_github_accepts(
        "several tools",
        &[ruff_sarif("ruff.sarif", "py"), codeql("codeql.sarif", true)],
    );
    // Nothing shared a category: the runs keep theirs (Ruff's: the workflow's).
    assert!(!export.contains("\"ruff/ruff.sarif/\""), "{export}");
    assert!(export.contains("\"/language:python/\""), "{export}");
}

#[test]
fn shape_sarif_with_and_without_automation_details() {
    assert_github_accepts(
        "SARIF with and without automationDetails",
        &[
            codeql("codeql.sarif", true),
            codeql("codeql-default.sarif", false),
            ruff_sarif("ruff.sarif", "py"),
        ],
    );
}

#[test]
fn shape_two_logs_of_one_tool_with_the_same_automation_details_id() {
    let inputs = [
        codeql("a/codeql.sarif", true),
        codeql("b/codeql.sarif", true),
    ];
    assert!(github_refusal(&runs_copied_as_they_were(&inputs), None).is_some());
    let export = assert_github_accepts("two logs with the same automationDetails.id", &inputs);
    assert!(
        export.contains("\"/language:python/a/codeql.sarif/\""),
        "{export}"
    );
}

#[test]
fn shape_non_sarif_inputs() {
    assert_github_accepts(
        "non-SARIF inputs",
        &[
            plain("ruff.json", "formats/ruff-0.17.6.json"),
            plain("eslint.json", "formats/eslint-10.15.json"),
            plain("bandit.json", "formats/bandit-1.9.4.json"),
        ],
    );
}

#[test]
fn shape_sarif_and_non_sarif_of_one_tool() {
    let export = assert_github_accepts(
        "SARIF and non-SARIF of one tool",
        &[
            ruff_sarif("ruff.sarif", "py"),
            plain("ruff.json", "formats/ruff-0.17.6.json"),
        ],
    );
    assert!(export.contains("\"ruff/other-formats/\""), "{export}");
}

#[test]
fn shape_merged_partitions() -> Result<(), Box<dyn std::error::Error>> {
    let inputs = [
        ruff_sarif("py-a/ruff.sarif", "py-a"),
        ruff_sarif("py-b/ruff.sarif", "py-b"),
        plain("ruff.json", "formats/ruff-0.17.6.json"),
    ];
    let (records, indexed) = run_of(&inputs);
    // Two shares: the even records and the odd ones, each numbered from 0 in its own run.
    let shares = [tempfile::tempdir()?, tempfile::tempdir()?];
    for (share, dir) in shares.iter().enumerate() {
        let mut kept = Vec::new();
        for input in &indexed {
            let mut findings = Vec::new();
            let mut results = Vec::new();
            for (at, [record, occurrence]) in input.findings.iter().copied().enumerate() {
                if record as usize % 2 == share {
                    findings.push([record / 2, occurrence]);
                    if let Some(result) = input.results.get(at) {
                        results.push(*result);
                    }
                }
            }
            kept.push((findings, results));
        }
        let to_save: Vec<InputToSave<'_>> = indexed
            .iter()
            .zip(&inputs)
            .zip(&kept)
            .map(|((input, original), (findings, results))| InputToSave {
                source: &input.source,
                format: &input.format,
                sarif_text: input.copy.as_ref().map(|_| original.text.as_str()),
                positions: results,
                findings,
                alerts: &[],
            })
            .collect();
        save_inputs(dir.path(), &to_save)?;
    }
    let merged = tempfile::tempdir()?;
    let even = |local: u32| Some(local * 2);
    let odd = |local: u32| Some(local * 2 + 1);
    merge_inputs(
        merged.path(),
        &[(shares[0].path(), &even), (shares[1].path(), &odd)],
    )?;
    let Some((index, texts)) = load_inputs(merged.path())? else {
        return Err("the merge kept no inputs".into());
    };
    let export = export_of(&records, &index, &texts);
    for category in [Some("ruff"), None] {
        assert_eq!(
            github_refusal(&export, category),
            None,
            "merged partitions, category {category:?}"
        );
    }
    Ok(())
}
