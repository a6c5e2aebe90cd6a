//! `bandit -r -f json` → findings.
//!
//! Bandit prints paths as it walked them (`./mod.py`), 0-based column offsets (made 1-based
//! here, end exclusive as in SARIF), and a severity and a confidence of LOW/MEDIUM/HIGH.
//! Severity maps as in Bandit's own SARIF output (HIGH error, MEDIUM warning, LOW note);
//! confidence, severity, CWE and test name are kept in `raw`. Files Bandit could not scan
//! (`errors`) are not findings.

use serde::Deserialize;
use serde_json::{Value, json};

use self_repair_engine::{Finding, Level};

use crate::format::Format;
use crate::formats::borrowed_text::Text;
use crate::ingest_error::IngestError;
use crate::json_document::parse_document;
use crate::path_resolver::PathResolver;

/// The shape Bandit JSON must have, for error messages.
pub(crate) const EXPECTED: &str = r#"the output of `bandit -f json`: {"results":[{"filename":"./a.py","test_id":"B602","issue_text":"...","issue_severity":"LOW","issue_confidence":"HIGH","line_number":10,"col_offset":4}]}"#;

/// The report: only `results` matters.
#[derive(Debug, Deserialize)]
struct BanditReport<'a> {
    #[serde(borrow)]
    results: Vec<BanditIssue<'a>>,
}

/// One issue.
#[derive(Debug, Deserialize)]
struct BanditIssue<'a> {
    #[serde(borrow)]
    filename: Text<'a>,
    #[serde(borrow)]
    test_id: Text<'a>,
    #[serde(default, borrow)]
    test_name: Option<Text<'a>>,
    #[serde(borrow)]
    issue_text: Text<'a>,
    #[serde(default, borrow)]
    issue_severity: Option<Text<'a>>,
    #[serde(default, borrow)]
    issue_confidence: Option<Text<'a>>,
    #[serde(default)]
    issue_cwe: Option<Value>,
    #[serde(default)]
    line_number: Option<u32>,
    #[serde(default)]
    line_range: Vec<u32>,
    #[serde(default)]
    col_offset: Option<u32>,
    #[serde(default)]
    end_col_offset: Option<u32>,
    #[serde(default, borrow)]
    more_info: Option<Text<'a>>,
}

/// Reads Bandit's JSON output.
pub(crate) fn parse_bandit(text: &str, paths: &PathResolver) -> Result<Vec<Finding>, IngestError> {
    let report: BanditReport<'_> = parse_document(text, Format::Bandit, paths.input(), EXPECTED)?;
    let mut findings = Vec::with_capacity(report.results.len());
    for (index, issue) in report.results.iter().enumerate() {
        let path = paths.resolve_path(&issue.filename, || format!("results[{index}].filename"))?;
        let severity = issue.issue_severity.as_deref().unwrap_or("UNDEFINED");
        let level = match severity {
            "HIGH" => Level::Error,
            "LOW" => Level::Note,
            _ => Level::Warning,
        };
        findings.push(Finding {
            fix: None,
            tool: "bandit".to_owned(),
            rule_id: issue.test_id.to_string(),
            level,
            message: issue.issue_text.to_string(),
            path,
            line: issue.line_number,
            column: issue.col_offset.map(|offset| offset + 1),
            end_line: issue.line_range.last().copied().or(issue.line_number),
            end_column: issue.end_col_offset.map(|offset| offset + 1),
            symbol: None,
            help_uri: issue.more_info.as_deref().map(str::to_owned),
            raw: Some(json!({
                "test_name": issue.test_name.as_deref(),
                "severity": severity,
                "confidence": issue.issue_confidence.as_deref(),
                "cwe": issue.issue_cwe,
            })),
        });
    }
    Ok(findings)
}

#[cfg(test)]
mod tests {
    use self_repair_engine::Level;

    use crate::{Format, IngestOptions, parse};

    /// Severity maps as in Bandit's SARIF: HIGH an error, LOW a note, MEDIUM, anything else
    /// or none a warning.
    #[test]
    fn each_severity_has_its_level() {
        let issue = |severity: &str| {
            format!(
                r#"{{"filename":"./a.py","test_id":"B602","issue_text":"t","line_number":1{severity}}}"#
            )
        };
        let input = format!(
            r#"{{"results":[{},{},{},{},{}]}}"#,
            issue(r#","issue_severity":"HIGH""#),
            issue(r#","issue_severity":"MEDIUM""#),
            issue(r#","issue_severity":"LOW""#),
            issue(r#","issue_severity":"UNDEFINED""#),
            issue(""),
        );
        let parsed = parse(
            &input,
            Format::Bandit,
            &IngestOptions::new("bandit.json", "/project"),
        )
        .expect("parse");
        let levels: Vec<Level> = parsed.findings.iter().map(|f| f.level).collect();
        assert_eq!(
            levels,
            [
                Level::Error,
                Level::Warning,
                Level::Note,
                Level::Warning,
                Level::Warning
            ]
        );
    }
}
