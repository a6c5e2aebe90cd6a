//! `ruff check --output-format json` → findings.
//!
//! Ruff prints absolute file names (strip them with the project root or `--base`), 1-based
//! rows and columns with an exclusive end column, `code: null` for syntax errors, and since
//! 0.15 a `severity`; older versions have none and report everything as an error (as their
//! SARIF does). The symbol comes from the message for rules that name one (`F401` → `os`), the
//! same way as for Ruff's SARIF, so both outputs of one run fingerprint alike. A `fix` keeps
//! its `applicability` (`safe`, `unsafe`, `displayonly`) and `message`; a safe fix's `edits`
//! (rows and character columns, the end exclusive) are reported for `apply-fixes`.

use serde::Deserialize;
use serde_json::{Value, json};

use self_repair_engine::{AnalyzerFix, Finding, FixApplicability, Level};

use crate::format::Format;
use crate::formats::borrowed_text::Text;
use crate::ingest_error::IngestError;
use crate::json_document::parse_document;
use crate::path_resolver::PathResolver;
use crate::reported_edit::{FindingsWithEdits, ReportedEdit, ReportedRange, TextUnit};
use crate::symbol_hint::infer_symbol;

/// The shape Ruff JSON must have, for error messages.
pub(crate) const EXPECTED: &str = r#"the output of `ruff check --output-format json`: an array of {"code":"F401","message":"...","filename":"/abs/src/a.py","location":{"row":1,"column":8},"end_location":{"row":1,"column":10},"url":"...","severity":"error"}"#;

/// One Ruff diagnostic.
#[derive(Debug, Deserialize)]
struct RuffDiagnostic<'a> {
    #[serde(default, borrow)]
    code: Option<Text<'a>>,
    #[serde(borrow)]
    message: Text<'a>,
    #[serde(borrow)]
    filename: Text<'a>,
    #[serde(default)]
    location: Option<RuffLocation>,
    #[serde(default)]
    end_location: Option<RuffLocation>,
    #[serde(default, borrow)]
    url: Option<Text<'a>>,
    #[serde(default, borrow)]
    name: Option<Text<'a>>,
    #[serde(default, borrow)]
    severity: Option<Text<'a>>,
    #[serde(default, borrow)]
    fix: Option<RuffFix<'a>>,
}

/// A diagnostic's `fix`.
#[derive(Debug, Deserialize)]
struct RuffFix<'a> {
    #[serde(default, borrow)]
    applicability: Option<Text<'a>>,
    #[serde(default, borrow)]
    message: Option<Text<'a>>,
    #[serde(default, borrow)]
    edits: Vec<RuffEdit<'a>>,
}

/// One edit of a fix: `location` to `end_location` becomes `content` (each optional, so an
/// edit of another shape drops the fix's edits, never the input).
#[derive(Debug, Deserialize)]
struct RuffEdit<'a> {
    #[serde(default, borrow)]
    content: Option<Text<'a>>,
    #[serde(default)]
    location: Option<RuffLocation>,
    #[serde(default)]
    end_location: Option<RuffLocation>,
}

impl RuffEdit<'_> {
    fn reported(&self) -> Option<ReportedEdit> {
        let (start, end) = (self.location.as_ref()?, self.end_location.as_ref()?);
        Some(ReportedEdit {
            range: ReportedRange::LineColumn {
                start_line: start.row,
                start_column: start.column,
                end_line: end.row,
                end_column: end.column,
                unit: TextUnit::Chars,
            },
            replacement: self.content.as_deref()?.to_owned(),
        })
    }
}

/// A 1-based row and column.
#[derive(Debug, Deserialize)]
struct RuffLocation {
    row: u32,
    column: u32,
}

/// Reads Ruff's JSON output: the findings, and each one's safe fix's edits.
pub(crate) fn parse_ruff(
    text: &str,
    paths: &PathResolver,
) -> Result<FindingsWithEdits, IngestError> {
    let diagnostics: Vec<RuffDiagnostic<'_>> =
        parse_document(text, Format::Ruff, paths.input(), EXPECTED)?;
    let mut findings = Vec::with_capacity(diagnostics.len());
    let mut edits = Vec::with_capacity(diagnostics.len());
    for (index, diagnostic) in diagnostics.into_iter().enumerate() {
        let path = paths.resolve_path(&diagnostic.filename, || format!("[{index}].filename"))?;
        let rule_id = diagnostic
            .code
            .as_deref()
            .unwrap_or("syntax-error")
            .to_owned();
        let level = match diagnostic.severity.as_deref() {
            Some("warning") => Level::Warning,
            Some("info" | "note") => Level::Note,
            _ => Level::Error,
        };
        let mut raw = serde_json::Map::new();
        if let Some(name) = &diagnostic.name {
            raw.insert("name".to_owned(), json!(&**name));
        }
        // An applicability this reader does not know is not taken for safe.
        let mut reported = Vec::new();
        let fix = diagnostic.fix.map(|fix| {
            let applicability = fix
                .applicability
                .as_deref()
                .and_then(FixApplicability::parse)
                .unwrap_or(FixApplicability::Unspecified);
            if applicability == FixApplicability::Safe {
                reported = fix
                    .edits
                    .iter()
                    .map(RuffEdit::reported)
                    .collect::<Option<_>>()
                    .unwrap_or_default();
            }
            AnalyzerFix {
                applicability,
                description: fix.message.map(|m| m.0.into_owned()),
                edits: Vec::new(),
            }
        });
        let message = diagnostic.message.0.into_owned();
        findings.push(Finding {
            tool: "ruff".to_owned(),
            symbol: infer_symbol("ruff", &rule_id, &message),
            level,
            line: diagnostic.location.as_ref().map(|l| l.row),
            column: diagnostic.location.as_ref().map(|l| l.column),
            end_line: diagnostic.end_location.as_ref().map(|l| l.row),
            end_column: diagnostic.end_location.as_ref().map(|l| l.column),
            help_uri: diagnostic.url.map(|url| url.0.into_owned()),
            raw: (!raw.is_empty()).then_some(Value::Object(raw)),
            fix,
            rule_id,
            message,
            path,
        });
        edits.push(reported);
    }
    Ok((findings, edits))
}

#[cfg(test)]
mod tests {
    use self_repair_engine::Level;

    use crate::{Format, IngestOptions, parse};

    /// Ruff 0.15's severities; older versions say none and mean an error.
    #[test]
    fn each_severity_has_its_level() {
        let diagnostic = |severity: &str| {
            format!(
                r#"{{"code":"F401","message":"m","filename":"a.py","location":{{"row":1,"column":1}}{severity}}}"#
            )
        };
        let input = format!(
            "[{},{},{},{},{}]",
            diagnostic(r#","severity":"error""#),
            diagnostic(r#","severity":"warning""#),
            diagnostic(r#","severity":"info""#),
            diagnostic(r#","severity":"note""#),
            diagnostic(""),
        );
        let parsed = parse(
            &input,
            Format::Ruff,
            &IngestOptions::new("ruff.json", "/project"),
        )
        .expect("parse");
        let levels: Vec<Level> = parsed.findings.iter().map(|f| f.level).collect();
        assert_eq!(
            levels,
            [
                Level::Error,
                Level::Warning,
                Level::Note,
                Level::Note,
                Level::Error
            ]
        );
    }
}
