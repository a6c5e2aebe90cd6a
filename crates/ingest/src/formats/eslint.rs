//! `eslint -f json` → findings.
//!
//! `ESLint` prints absolute `filePath`s and `severity` 1 (warn) or 2 (error); a file that failed
//! to parse has a message with `ruleId: null` and `fatal: true` (rule id `parse-error` here).
//! Core rules (ids without `/` or `@`) get their documentation link. A message with a `fix`
//! has a safe fix (`eslint --fix` applies it); one with `suggestions` only has an unsafe one
//! (editors offer them, `--fix` never applies them). A `fix` is one edit: `range` (offsets into
//! the file's text in UTF-16 code units, as JavaScript counts) becomes `text`.

use serde::Deserialize;
use serde_json::json;

use self_repair_engine::{AnalyzerFix, Finding, FixApplicability, Level};

use crate::format::Format;
use crate::formats::borrowed_text::Text;
use crate::ingest_error::IngestError;
use crate::json_document::parse_document;
use crate::path_resolver::PathResolver;
use crate::reported_edit::{FindingsWithEdits, ReportedEdit, ReportedRange, TextUnit};
use crate::symbol_hint::infer_symbol;

/// The shape `ESLint` JSON must have, for error messages.
pub(crate) const EXPECTED: &str = r#"the output of `eslint -f json`: an array of {"filePath":"/abs/src/a.js","messages":[{"ruleId":"no-var","severity":1,"message":"...","line":1,"column":1,"endLine":1,"endColumn":11}]}"#;

/// One file's results.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct FileResult<'a> {
    #[serde(borrow)]
    file_path: Text<'a>,
    #[serde(default, borrow)]
    messages: Vec<LintMessage<'a>>,
}

/// One `ESLint` message.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct LintMessage<'a> {
    #[serde(default, borrow)]
    rule_id: Option<Text<'a>>,
    #[serde(default)]
    severity: u8,
    #[serde(borrow)]
    message: Text<'a>,
    #[serde(default)]
    line: Option<u32>,
    #[serde(default)]
    column: Option<u32>,
    #[serde(default)]
    end_line: Option<u32>,
    #[serde(default)]
    end_column: Option<u32>,
    #[serde(default)]
    fatal: bool,
    #[serde(default, borrow)]
    message_id: Option<Text<'a>>,
    #[serde(default, borrow)]
    fix: Option<LintFix<'a>>,
    #[serde(default, borrow)]
    suggestions: Option<Vec<Suggestion<'a>>>,
}

/// A message's `fix`; either field missing drops its edit, never the input.
#[derive(Debug, Deserialize)]
struct LintFix<'a> {
    #[serde(default)]
    range: Option<[u64; 2]>,
    #[serde(default, borrow)]
    text: Option<Text<'a>>,
}

impl LintFix<'_> {
    fn reported(&self) -> Option<ReportedEdit> {
        let [start, end] = self.range?;
        Some(ReportedEdit {
            range: ReportedRange::Offsets {
                start,
                end,
                unit: TextUnit::Utf16,
            },
            replacement: self.text.as_deref()?.to_owned(),
        })
    }
}

/// One of a message's `suggestions`: only its description is read.
#[derive(Debug, Deserialize)]
struct Suggestion<'a> {
    #[serde(default, borrow)]
    desc: Option<Text<'a>>,
}

/// What `ESLint` says it can fix for a message.
fn fix_of(message: &LintMessage<'_>) -> Option<AnalyzerFix> {
    if message.fix.is_some() {
        return Some(AnalyzerFix {
            applicability: FixApplicability::Safe,
            description: None,
            edits: Vec::new(),
        });
    }
    let first = message.suggestions.as_ref()?.first()?;
    Some(AnalyzerFix {
        applicability: FixApplicability::Unsafe,
        description: first.desc.as_ref().map(|d| d.to_string()),
        edits: Vec::new(),
    })
}

/// Reads `ESLint`'s JSON output.
pub(crate) fn parse_eslint(
    text: &str,
    paths: &PathResolver,
) -> Result<FindingsWithEdits, IngestError> {
    let files: Vec<FileResult<'_>> = parse_document(text, Format::Eslint, paths.input(), EXPECTED)?;
    let mut findings = Vec::new();
    let mut edits = Vec::new();
    for (file_index, file) in files.iter().enumerate() {
        if file.messages.is_empty() {
            continue;
        }
        let path = paths.resolve_path(&file.file_path, || format!("[{file_index}].filePath"))?;
        for message in &file.messages {
            let rule_id = match (&message.rule_id, message.fatal) {
                (Some(rule), _) => rule.to_string(),
                (None, true) => "parse-error".to_owned(),
                (None, false) => "unknown".to_owned(),
            };
            let level = match message.severity {
                2 => Level::Error,
                1 => Level::Warning,
                _ => Level::Note,
            };
            let help_uri =
                (message.rule_id.is_some() && !rule_id.contains('/') && !rule_id.starts_with('@'))
                    .then(|| format!("https://eslint.org/docs/latest/rules/{rule_id}"));
            edits.push(
                message
                    .fix
                    .as_ref()
                    .and_then(LintFix::reported)
                    .into_iter()
                    .collect(),
            );
            findings.push(Finding {
                fix: fix_of(message),
                tool: "eslint".to_owned(),
                symbol: infer_symbol("eslint", &rule_id, &message.message),
                level,
                message: message.message.to_string(),
                path: path.clone(),
                line: message.line,
                column: message.column,
                end_line: message.end_line,
                end_column: message.end_column,
                help_uri,
                raw: message
                    .message_id
                    .as_ref()
                    .map(|id| json!({ "messageId": &**id })),
                rule_id,
            });
        }
    }
    Ok((findings, edits))
}

#[cfg(test)]
mod tests {
    use crate::{Format, IngestOptions, parse};

    /// Core rules link to their page on eslint.org; a plugin's rule (`plugin/rule`, `@scope`)
    /// and a message without a rule (a parse error) have no link. Rules and levels read as said.
    #[test]
    fn only_core_rules_link_to_eslint_org() {
        let message = |rule: &str, severity: u8| {
            format!(r#"{{{rule}"severity":{severity},"message":"m","line":1,"column":1}}"#)
        };
        let input = format!(
            r#"[{{"filePath":"a.js","messages":[{},{},{},{},{},{}]}}]"#,
            message(r#""ruleId":"no-undef","#, 2),
            message(r#""ruleId":"react/jsx-key","#, 1),
            message(r#""ruleId":"@scoped","#, 0),
            message(r#""ruleId":"@scope/rule","#, 1),
            message(r#""ruleId":null,"fatal":true,"#, 2),
            message("", 1),
        );
        let parsed = parse(
            &input,
            Format::Eslint,
            &IngestOptions::new("eslint.json", "/project"),
        )
        .expect("parse");
        let seen: Vec<(&str, &str, Option<&str>)> = parsed
            .findings
            .iter()
            .map(|f| (f.rule_id.as_str(), f.level.as_str(), f.help_uri.as_deref()))
            .collect();
        assert_eq!(
            seen,
            [
                (
                    "no-undef",
                    "error",
                    Some("https://eslint.org/docs/latest/rules/no-undef")
                ),
                ("react/jsx-key", "warning", None),
                ("@scoped", "note", None),
                ("@scope/rule", "warning", None),
                ("parse-error", "error", None),
                ("unknown", "warning", None),
            ]
        );
    }
}
