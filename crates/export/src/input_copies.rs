//! Saving a run's inputs for a later export (at `start`) and reading them back (at `export`):
//! each SARIF input's verbatim copy under `inputs/` and the index of where every finding came
//! from (reference/export.md says why copies rather than fields kept per finding).

use std::path::Path;

use crate::export_error::ExportError;
use crate::input_index::{INDEX_FILE, IndexedInput, InputIndex};

/// One input as `start` read it, with where each of its findings went.
#[derive(Debug, Clone, Copy)]
pub struct InputToSave<'a> {
    /// The file as given to `start` (`stdin` for standard input).
    pub source: &'a str,
    /// The format it was read as.
    pub format: &'a str,
    /// Its text, when it is a SARIF log (the only kind copied).
    pub sarif_text: Option<&'a str>,
    /// `[run, result]` of each finding, for a SARIF log.
    pub positions: &'a [[u32; 2]],
    /// `[record, occurrence]` of each finding in `findings.json`.
    pub findings: &'a [[u32; 2]],
    /// The GitHub alert number of each finding, for code scanning alerts.
    pub alerts: &'a [u64],
}

/// Writes `inputs/<n>.sarif` for each SARIF input and `inputs/index.json` into `run_dir`.
pub fn save_inputs(run_dir: &Path, inputs: &[InputToSave<'_>]) -> Result<(), std::io::Error> {
    std::fs::create_dir_all(run_dir.join("inputs"))?;
    let mut indexed = Vec::with_capacity(inputs.len());
    for (number, input) in inputs.iter().enumerate() {
        let copy = match input.sarif_text {
            Some(text) => {
                let name = IndexedInput::copy_name(number + 1);
                std::fs::write(run_dir.join(&name), text)?;
                Some(name)
            }
            None => None,
        };
        indexed.push(IndexedInput {
            source: input.source.to_owned(),
            format: input.format.to_owned(),
            results: if copy.is_some() {
                input.positions.to_vec()
            } else {
                Vec::new()
            },
            copy,
            findings: input.findings.to_vec(),
            alerts: if input.alerts.len() == input.findings.len() {
                input.alerts.to_vec()
            } else {
                Vec::new()
            },
        });
    }
    let text = serde_json::to_string(&InputIndex::new(indexed)).map_err(std::io::Error::other)?;
    std::fs::write(run_dir.join(INDEX_FILE), text + "\n")
}

/// A partition's run folder, and where its `findings.json` entries are in the merged run's
/// (`None`: not there).
pub type ShareInputs<'a> = (&'a Path, &'a dyn Fn(u32) -> Option<u32>);

/// Writes the kept inputs of a run `merge` made (`run_dir`) from its partitions' runs
/// (`shares`: each folder and how its `findings.json` entries are numbered in the merged run).
/// Every share read the same inputs: the copies are the first share's, and each input's
/// findings are every share's, renumbered, in the input's order (a SARIF input's by its
/// `[run, result]`), each with its alert number when the input was code scanning alerts. Shares without an index (made before `start` kept inputs) give none.
pub fn merge_inputs(run_dir: &Path, shares: &[ShareInputs<'_>]) -> Result<(), ExportError> {
    let mut inputs: Vec<IndexedInput> = Vec::new();
    let mut first_copies: Vec<Option<(std::path::PathBuf, String)>> = Vec::new();
    for (folder, record_of) in shares {
        let Some((index, _)) = load_inputs(folder)? else {
            continue;
        };
        for (n, input) in index.inputs.into_iter().enumerate() {
            if inputs.len() <= n {
                first_copies.push(input.copy.clone().map(|c| (folder.join(&c), c)));
                inputs.push(IndexedInput {
                    findings: Vec::new(),
                    results: Vec::new(),
                    alerts: Vec::new(),
                    ..input.clone()
                });
            }
            let merged = &mut inputs[n];
            let keep_results = merged.copy.is_some() && input.results.len() == input.findings.len();
            let keep_alerts =
                !input.alerts.is_empty() && input.alerts.len() == input.findings.len();
            for (at, [record, occurrence]) in input.findings.iter().copied().enumerate() {
                let Some(record) = record_of(record) else {
                    continue;
                };
                merged.findings.push([record, occurrence]);
                if keep_results {
                    merged.results.push(input.results[at]);
                }
                if keep_alerts {
                    merged.alerts.push(input.alerts[at]);
                }
            }
        }
    }
    if inputs.is_empty() {
        return Ok(());
    }
    let io = |path: &Path| {
        let path = path.display().to_string();
        move |source: std::io::Error| ExportError::Write { path, source }
    };
    std::fs::create_dir_all(run_dir.join("inputs")).map_err(io(run_dir))?;
    for (input, copy) in inputs.iter_mut().zip(&first_copies) {
        if input.results.len() == input.findings.len() && !input.results.is_empty() {
            let mut pairs: Vec<([u32; 2], [u32; 2])> = input
                .results
                .iter()
                .copied()
                .zip(input.findings.iter().copied())
                .collect();
            pairs.sort_unstable();
            (input.results, input.findings) = pairs.into_iter().unzip();
        } else {
            input.results.clear();
        }
        if input.alerts.len() != input.findings.len() {
            input.alerts.clear();
        }
        if let Some((from, name)) = copy {
            std::fs::copy(from, run_dir.join(name)).map_err(io(from))?;
        }
    }
    let path = run_dir.join(INDEX_FILE);
    let text = serde_json::to_string(&InputIndex::new(inputs))
        .map_err(|e| io(&path)(std::io::Error::other(e)))?;
    std::fs::write(&path, text + "\n").map_err(io(&path))
}

/// A run's index and the text of each SARIF copy (parallel to the index's inputs; `None` for
/// inputs without a copy).
pub type LoadedInputs = (InputIndex, Vec<Option<String>>);

/// Reads a run's [`LoadedInputs`]. A run made before `start` kept them has no index: `Ok(None)`.
pub fn load_inputs(run_dir: &Path) -> Result<Option<LoadedInputs>, ExportError> {
    let path = run_dir.join(INDEX_FILE);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(None);
    };
    let index: InputIndex = serde_json::from_str(&text).map_err(|e| ExportError::BadIndex {
        path: path.display().to_string(),
        problem: e.to_string(),
    })?;
    let mut texts = Vec::with_capacity(index.inputs.len());
    for input in &index.inputs {
        let Some(copy) = &input.copy else {
            texts.push(None);
            continue;
        };
        let copy_path = run_dir.join(copy);
        // A copy deleted by hand: that input's findings are exported from findings.json.
        texts.push(std::fs::read_to_string(&copy_path).ok());
    }
    Ok(Some((index, texts)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_saved_at_start_are_read_back_for_the_export() -> Result<(), Box<dyn std::error::Error>>
    {
        let dir = tempfile::tempdir()?;
        let sarif = r#"{"version":"2.1.0","runs":[]}"#;
        save_inputs(
            dir.path(),
            &[
                InputToSave {
                    source: "codeql.sarif",
                    format: "sarif",
                    sarif_text: Some(sarif),
                    positions: &[[0, 3]],
                    findings: &[[0, 0]],
                    alerts: &[],
                },
                InputToSave {
                    source: "ruff.json",
                    format: "ruff",
                    sarif_text: None,
                    positions: &[],
                    findings: &[[1, 0], [0, 1]],
                    alerts: &[],
                },
                InputToSave {
                    source: "alerts.json",
                    format: "github-alerts",
                    sarif_text: None,
                    positions: &[],
                    findings: &[[2, 0], [1, 1]],
                    alerts: &[12, 10],
                },
            ],
        )?;
        let Some((index, texts)) = load_inputs(dir.path())? else {
            return Err("no index".into());
        };
        assert_eq!(index.inputs[0].copy.as_deref(), Some("inputs/1.sarif"));
        assert_eq!(index.inputs[0].results, vec![[0, 3]]);
        assert_eq!(index.inputs[1].copy, None);
        assert_eq!(index.inputs[1].findings, vec![[1, 0], [0, 1]]);
        assert_eq!(index.inputs[1].alerts, Vec::<u64>::new());
        assert_eq!(index.inputs[2].alerts, vec![12, 10]);
        assert_eq!(
            index.alert_numbers(),
            [([2, 0], 12), ([1, 1], 10)].into_iter().collect()
        );
        assert_eq!(texts, vec![Some(sarif.to_owned()), None, None]);
        Ok(())
    }

    #[test]
    fn merged_shares_keep_each_findings_alert_number() -> Result<(), Box<dyn std::error::Error>> {
        let shares = [tempfile::tempdir()?, tempfile::tempdir()?];
        for (dir, findings, alerts) in [
            (&shares[0], &[[0, 0], [1, 0]][..], &[12, 10][..]),
            (&shares[1], &[[0, 0]][..], &[7][..]),
        ] {
            save_inputs(
                dir.path(),
                &[InputToSave {
                    source: "alerts.json",
                    format: "github-alerts",
                    sarif_text: None,
                    positions: &[],
                    findings,
                    alerts,
                }],
            )?;
        }
        let merged = tempfile::tempdir()?;
        let first = |local: u32| Some(local * 2);
        let second = |local: u32| Some(local * 2 + 1);
        merge_inputs(
            merged.path(),
            &[(shares[0].path(), &first), (shares[1].path(), &second)],
        )?;
        let Some((index, _)) = load_inputs(merged.path())? else {
            return Err("no index".into());
        };
        assert_eq!(
            index.alert_numbers(),
            [([0, 0], 12), ([2, 0], 10), ([1, 0], 7)]
                .into_iter()
                .collect()
        );
        Ok(())
    }

    #[test]
    fn a_run_without_an_index_has_nothing_to_load() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        assert!(load_inputs(dir.path())?.is_none());
        std::fs::create_dir_all(dir.path().join("inputs"))?;
        std::fs::write(dir.path().join(INDEX_FILE), "{not json")?;
        let error = load_inputs(dir.path())
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(error.contains("inputs/index.json"), "{error}");
        Ok(())
    }
}
