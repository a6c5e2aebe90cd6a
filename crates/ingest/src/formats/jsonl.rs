//! The generic form: JSON Lines, one `Finding` object a line, strictly checked.
//!
//! Strict on purpose: an unknown key (a typo such as `rule` for `rule_id`) or an unknown level
//! is an error naming it, because silently dropping it would mis-route the finding.

use serde::Deserialize;
use serde_json::{Map, Value};

use self_repair_engine::{AnalyzerFix, Finding, Level};

use crate::control_character::control_problem;
use crate::format::Format;
use crate::ingest_error::IngestError;
use crate::json_document::without_position;
use crate::path_resolver::PathResolver;

/// The shape of a line, for error messages.
pub(crate) const EXPECTED: &str = r#"one JSON object a line, e.g. {"tool":"ruff","rule_id":"F401","level":"warning","message":"`os` imported but unused","path":"src/a.py","line":3,"column":8,"symbol":"os"}; required: tool, rule_id, message, path (non-empty strings); level: error|warning|note|none (default warning); optional: line, column, end_line, end_column (1-based integers), symbol, help_uri (strings), raw (any JSON), fix ({"applicability":"safe|unsafe|display_only|unspecified","description":"..."})"#;

/// Every key a line may have.
const KNOWN_KEYS: &[&str] = &[
    "tool",
    "rule_id",
    "level",
    "message",
    "path",
    "line",
    "column",
    "end_line",
    "end_column",
    "symbol",
    "help_uri",
    "raw",
    "fix",
];

/// A line as written; checked before it becomes a `Finding`.
#[derive(Debug, Deserialize)]
struct WrittenFinding {
    tool: String,
    rule_id: String,
    #[serde(default)]
    level: Option<String>,
    message: String,
    path: String,
    #[serde(default)]
    line: Option<u32>,
    #[serde(default)]
    column: Option<u32>,
    #[serde(default)]
    end_line: Option<u32>,
    #[serde(default)]
    end_column: Option<u32>,
    #[serde(default)]
    symbol: Option<String>,
    #[serde(default)]
    help_uri: Option<String>,
    #[serde(default)]
    raw: Option<Value>,
    #[serde(default)]
    fix: Option<AnalyzerFix>,
}

/// Reads generic JSON Lines; blank lines are allowed, any bad line fails the whole input.
pub(crate) fn parse_jsonl(text: &str, paths: &PathResolver) -> Result<Vec<Finding>, IngestError> {
    let mut findings = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        if line.trim().is_empty() {
            continue;
        }
        let bad = |problem: String| IngestError::BadLine {
            input: paths.input().to_owned(),
            format: Format::Jsonl,
            line: number,
            problem,
            expected: EXPECTED,
        };
        let object: Map<String, Value> = serde_json::from_str(line)
            .map_err(|error| bad(format!("not a JSON object: {}", without_position(&error))))?;
        let unknown: Vec<&str> = object
            .keys()
            .map(String::as_str)
            .filter(|key| !KNOWN_KEYS.contains(key))
            .collect();
        if !unknown.is_empty() {
            return Err(bad(format!("unknown key(s) `{}`", unknown.join("`, `"))));
        }
        let parsed: WrittenFinding = serde_path_to_error::deserialize(Value::Object(object))
            .map_err(|error| {
                let field = error.path().to_string();
                let inner = without_position(error.inner());
                if field == "." {
                    bad(inner)
                } else {
                    bad(format!("field `{field}`: {inner}"))
                }
            })?;
        for (name, value) in [
            ("tool", &parsed.tool),
            ("rule_id", &parsed.rule_id),
            ("message", &parsed.message),
            ("path", &parsed.path),
        ] {
            if value.trim().is_empty() {
                return Err(bad(format!("field `{name}` is empty")));
            }
        }
        for (name, value) in [
            ("tool", Some(&parsed.tool)),
            ("rule_id", Some(&parsed.rule_id)),
            ("path", Some(&parsed.path)),
            ("symbol", parsed.symbol.as_ref()),
            ("help_uri", parsed.help_uri.as_ref()),
            ("level", parsed.level.as_ref()),
        ] {
            if let Some(problem) = value.and_then(|text| control_problem(name, text)) {
                return Err(bad(problem));
            }
        }
        let level = match parsed.level.as_deref() {
            None => Level::Warning,
            Some(text) => Level::parse(text).ok_or_else(|| {
                bad(format!(
                    "unknown level `{text}` (use error, warning, note or none)"
                ))
            })?,
        };
        let path = paths.resolve_path(&parsed.path, || format!("line {number}"))?;
        findings.push(Finding {
            tool: parsed.tool,
            rule_id: parsed.rule_id,
            level,
            message: parsed.message,
            path,
            line: parsed.line,
            column: parsed.column,
            end_line: parsed.end_line,
            end_column: parsed.end_column,
            symbol: parsed.symbol,
            help_uri: parsed.help_uri,
            raw: parsed.raw,
            // Edits are kept only as read from an analyzer's own output, against its file.
            fix: parsed.fix.map(|fix| AnalyzerFix {
                edits: Vec::new(),
                ..fix
            }),
        });
    }
    Ok(findings)
}

#[cfg(test)]
mod tests {
    use crate::{Format, IngestError, IngestOptions, parse};

    #[test]
    fn a_line_s_fix_keeps_its_applicability_but_never_edits_written_in_the_line()
    -> Result<(), IngestError> {
        let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(root.path().join("a.py"), "import os\n").unwrap_or_else(|e| panic!("{e}"));
        let line = r#"{"tool":"ruff","rule_id":"F401","message":"m","path":"a.py","line":1,"fix":{"applicability":"safe","description":"Remove it","edits":[{"line":1,"lines":"import os\n","start":0,"end":10,"replacement":""}]}}"#;
        let options = IngestOptions::new("findings.jsonl", root.path()).with_fix_edits();
        let parsed = parse(line, Format::Jsonl, &options)?;
        let fix = parsed.findings[0].fix.as_ref();
        assert!(parsed.findings[0].has_safe_fix());
        assert_eq!(
            fix.and_then(|f| f.description.as_deref()),
            Some("Remove it")
        );
        assert_eq!(fix.map(|f| f.edits.len()), Some(0));
        Ok(())
    }
}
