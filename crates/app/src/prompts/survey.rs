//! The data of a rule survey's task (`rs-` items, design note 26): the rule, how many findings
//! it has and where, the analyzer's own fix, and the sample with its code, bounded however many
//! findings the rule has.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use self_repair_context::fenced_block;
use self_repair_engine::{FindingRecord, RunState, WorkItem};
use self_repair_store::RunDir;

use crate::app_error::AppError;
use crate::prompts::triage::{TaskFinding, triage_data};

/// Files named in the counts; the rest are counted in one "n more".
const FILES_NAMED: usize = 12;
/// Bytes of sampled findings (with their code) one task shows: past it, the rest of the sample
/// is named and left to `show --findings` and Read, so the task stays under 32 KB whatever the
/// rule's code looks like (invariant 7).
const SAMPLE_BYTES: usize = 14_000;

/// A template's variables, by name.
type TemplateVars = Vec<(&'static str, String)>;

/// The template and variables of survey `item`.
pub(crate) fn survey_vars(
    root: &Path,
    dir: &RunDir,
    state: &RunState,
    findings: &[FindingRecord],
    item: &WorkItem,
) -> Result<(String, TemplateVars), AppError> {
    let survey = state
        .surveys
        .iter()
        .find(|s| s.id == item.id)
        .ok_or_else(|| AppError::NotFound(format!("{}: no such rule survey", item.id)))?;
    let record_of = |id: &str| {
        state
            .item(id)
            .and_then(|i| findings.get(i.finding? as usize))
    };
    let mut by_file: BTreeMap<&str, usize> = BTreeMap::new();
    let mut fixes: BTreeMap<&str, usize> = BTreeMap::new();
    let mut fix_text: Option<&str> = None;
    for record in survey.members.iter().filter_map(|id| record_of(id)) {
        *by_file.entry(record.finding.path.as_str()).or_default() += 1;
        if let Some(fix) = &record.finding.fix {
            *fixes.entry(fix.applicability.as_str()).or_default() += 1;
            fix_text = fix_text.or(fix.description.as_deref());
        }
    }
    let (mut rules, mut shown, mut left) = (None, String::new(), Vec::new());
    for id in &survey.sample {
        let record = record_of(id).ok_or_else(|| {
            AppError::NotFound(format!("{id}: its finding is missing from findings.json"))
        })?;
        if shown.len() >= SAMPLE_BYTES {
            left.push(id.as_str());
            continue;
        }
        let data = triage_data(
            root,
            dir,
            &[TaskFinding {
                id,
                record,
                candidates: Vec::new(),
                test_code: None,
            }],
        );
        rules.get_or_insert(data.rules);
        shown.push_str(&data.findings);
    }
    if !left.is_empty() {
        let _ = writeln!(
            shown,
            "The rest of the sample, not shown for room: {} (their lines: `self-repair show {} \
             --run {} --findings`; their code: Read).\n",
            left.join(", "),
            item.id,
            state.run
        );
    }
    Ok((
        "rule-survey.md".to_owned(),
        vec![
            ("rule", survey.rule.clone()),
            ("count", survey.members.len().to_string()),
            ("sample_count", survey.sample.len().to_string()),
            ("files", fenced_block("text", &file_counts(&by_file))),
            ("fix", analyzer_fix(&fixes, fix_text, survey.members.len())),
            ("rules", rules.unwrap_or_default()),
            ("findings", shown),
        ],
    ))
}

/// `12 files: src/a.py 40, src/b.py 3, ... and 4 more files (9 findings)`, most findings first.
fn file_counts(by_file: &BTreeMap<&str, usize>) -> String {
    let mut files: Vec<(&str, usize)> = by_file.iter().map(|(f, n)| (*f, *n)).collect();
    files.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let mut text = format!("{} file(s):", files.len());
    for (file, n) in files.iter().take(FILES_NAMED) {
        let _ = write!(text, "\n{file} {n}");
    }
    if files.len() > FILES_NAMED {
        let rest: usize = files[FILES_NAMED..].iter().map(|(_, n)| n).sum();
        let _ = write!(
            text,
            "\n... and {} more files ({rest} findings)",
            files.len() - FILES_NAMED
        );
    }
    text
}

/// What the analyzer itself offers to fix, or that it offers nothing.
fn analyzer_fix(fixes: &BTreeMap<&str, usize>, text: Option<&str>, total: usize) -> String {
    if fixes.is_empty() {
        return "The analyzer offers no fix for these findings.".to_owned();
    }
    let counts: Vec<String> = fixes.iter().map(|(a, n)| format!("{n} {a}")).collect();
    let mut line = format!(
        "The analyzer offers a fix for {} of the {total} findings ({})",
        fixes.values().sum::<usize>(),
        counts.join(", ")
    );
    if let Some(text) = text {
        let _ = write!(line, ": \"{}\"", text.replace('\n', " "));
    }
    line.push('.');
    line
}
