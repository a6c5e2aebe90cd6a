//! A run's inputs: each one `start` reads ([`InputSpec`]), and `inputs.json` in the run's
//! folder, the findings files `start` read, as project-relative paths. The reference search
//! never counts them: an analyzer's report names every symbol it flags, and a dead-code
//! investigator must not read that as a use (issue 14).

use std::path::Path;

use self_repair_ingest::Format;
use self_repair_store::RunDir;
use serde::{Deserialize, Serialize};

use crate::app_error::AppError;

const FILE: &str = "inputs.json";

#[derive(Debug, Default, Serialize, Deserialize)]
struct RunInputs {
    schema_version: u32,
    /// Project-relative paths of the input files inside the project.
    inputs: Vec<String>,
}

/// Records which of `sources` (paths as given to `start`, relative to `cwd`) lie inside the
/// project `root`. Standard input and files outside the project are not recorded.
pub(crate) fn record_inputs(
    root: &Path,
    cwd: &Path,
    dir: &RunDir,
    sources: &[String],
) -> Result<(), AppError> {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let inputs: Vec<String> = sources
        .iter()
        .filter(|s| *s != "-")
        .filter_map(|s| cwd.join(s).canonicalize().ok())
        .filter_map(|p| {
            p.strip_prefix(&root)
                .ok()
                .map(|r| r.to_string_lossy().replace('\\', "/"))
        })
        .collect();
    let text = serde_json::to_string_pretty(&RunInputs {
        schema_version: 1,
        inputs,
    })
    .unwrap_or_default();
    let path = dir.path().join(FILE);
    std::fs::write(&path, text + "\n").map_err(AppError::io("write", &path))
}

/// The run's input files the reference search must skip (on top of `RefOptions`' defaults,
/// `backlog/` among them). A missing or unreadable `inputs.json` (a run made before it
/// existed) skips nothing more.
pub fn run_input_paths(dir: Option<&RunDir>) -> Vec<String> {
    dir.and_then(|d| std::fs::read_to_string(d.path().join(FILE)).ok())
        .and_then(|text| serde_json::from_str::<RunInputs>(&text).ok())
        .map(|recorded| recorded.inputs)
        .unwrap_or_default()
}

const RULE_TEXTS: &str = "rule-texts.json";

/// Records the analyzers' own descriptions of the rules this run's findings name (SARIF
/// `help`/`fullDescription`/`shortDescription`), one per (tool, rule), so `show` can give them to
/// the investigator. Rules without a finding are left out: a `CodeQL` log lists hundreds.
pub(crate) fn record_rule_texts(
    dir: &RunDir,
    texts: Vec<self_repair_ingest::RuleText>,
    records: &[self_repair_engine::FindingRecord],
) -> Result<(), AppError> {
    let named: std::collections::HashSet<(&str, &str)> = records
        .iter()
        .map(|r| (r.finding.tool.as_str(), r.finding.rule_id.as_str()))
        .collect();
    let mut kept: Vec<self_repair_ingest::RuleText> = Vec::new();
    for text in texts {
        let wanted = named.contains(&(text.tool.as_str(), text.rule_id.as_str()));
        let seen = kept
            .iter()
            .any(|k| k.tool == text.tool && k.rule_id == text.rule_id);
        if wanted && !seen {
            kept.push(text);
        }
    }
    if kept.is_empty() {
        return Ok(());
    }
    let path = dir.path().join(RULE_TEXTS);
    let text = serde_json::to_string_pretty(&kept).unwrap_or_default();
    std::fs::write(&path, text + "\n").map_err(AppError::io("write", &path))
}

/// The rule texts of a run `merge` made: every partition's (each kept those of its own
/// findings), once per (tool, rule); and the first partition's `inputs.json` (every share read
/// the same inputs).
pub(crate) fn merge_rule_texts(
    dir: &RunDir,
    partitions: &[std::path::PathBuf],
) -> Result<(), AppError> {
    let mut kept: Vec<self_repair_ingest::RuleText> = Vec::new();
    for folder in partitions {
        let Some(texts) = std::fs::read_to_string(folder.join(RULE_TEXTS))
            .ok()
            .and_then(|t| serde_json::from_str::<Vec<self_repair_ingest::RuleText>>(&t).ok())
        else {
            continue;
        };
        for text in texts {
            if !kept
                .iter()
                .any(|k| k.tool == text.tool && k.rule_id == text.rule_id)
            {
                kept.push(text);
            }
        }
    }
    if let Some(first) = partitions
        .iter()
        .map(|p| p.join(FILE))
        .find(|p| p.is_file())
    {
        let path = dir.path().join(FILE);
        std::fs::copy(&first, &path).map_err(AppError::io("write", &path))?;
    }
    if kept.is_empty() {
        return Ok(());
    }
    let path = dir.path().join(RULE_TEXTS);
    let text = serde_json::to_string_pretty(&kept).unwrap_or_default();
    std::fs::write(&path, text + "\n").map_err(AppError::io("write", &path))
}

/// The analyzer's description of `tool`'s `rule_id` in this run, if it gave one.
pub(crate) fn rule_text(dir: &RunDir, tool: &str, rule_id: &str) -> Option<String> {
    let text = std::fs::read_to_string(dir.path().join(RULE_TEXTS)).ok()?;
    let texts: Vec<self_repair_ingest::RuleText> = serde_json::from_str(&text).ok()?;
    texts
        .into_iter()
        .find(|t| t.tool == tool && t.rule_id == rule_id)
        .map(|t| t.text)
}

/// One input already read: its name, text, and how to read it.
#[derive(Debug, Clone, Default)]
pub struct InputSpec {
    pub source: String,
    pub text: String,
    pub format: Option<Format>,
    pub relative_to: Option<String>,
}
