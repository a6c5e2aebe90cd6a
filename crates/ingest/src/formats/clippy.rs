//! `cargo clippy --message-format=json` (and `cargo build`/`check`) streams → findings.
//!
//! The stream mixes `compiler-artifact`, `build-script-executed`, `build-finished` and
//! `compiler-message` lines; only diagnostics in `compiler-message` lines are findings, and of
//! those not the ones without a primary span (summaries such as "3 warnings emitted" have no
//! code and no spans). The primary span gives
//! the location (following macro expansions back to the call site when the span is inside a
//! macro); `message.code.code` is the rule (`clippy::len_zero`, `dead_code`, `E0425`).
//! `tool` is `clippy` for `clippy::` lints and `rustc` for the compiler's own. cargo repeats a
//! diagnostic once per target that compiles the file; exact repeats are dropped. A suggestion
//! (a span with `suggested_replacement`, in the diagnostic or its children) is the analyzer's
//! fix, rated by its `suggestion_applicability`: `MachineApplicable` is what `cargo clippy
//! --fix` applies. Its edits (every span of that message with a replacement, by line and
//! character column: rustc's byte offsets are into the text after it dropped a BOM and `\r`s)
//! are reported when they all lie in the finding's file.

use std::collections::HashSet;

use serde::Deserialize;
use serde_json::json;

use self_repair_engine::{AnalyzerFix, Finding, FixApplicability, Level};

use crate::format::Format;
use crate::ingest_error::IngestError;
use crate::json_document::without_position;
use crate::path_resolver::PathResolver;
use crate::reported_edit::{FindingsWithEdits, ReportedEdit, ReportedRange, TextUnit};
use crate::symbol_hint::infer_symbol;

/// The shape of a line, for error messages.
pub(crate) const EXPECTED: &str = r#"the stdout of `cargo clippy --message-format=json`: one JSON object a line, each with a "reason" ("compiler-message" lines carry a rustc diagnostic in "message"); capture stdout only, not stderr"#;

/// Prefix of the child note that carries a lint's documentation link.
const MORE_INFO: &str = "for further information visit ";

/// One line of the stream; only what findings need.
#[derive(Debug, Deserialize)]
struct StreamLine {
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    message: Option<Diagnostic>,
}

/// A rustc diagnostic.
#[derive(Debug, Deserialize)]
struct Diagnostic {
    message: String,
    #[serde(default)]
    code: Option<DiagnosticCode>,
    #[serde(default)]
    level: String,
    #[serde(default)]
    spans: Vec<Span>,
    #[serde(default)]
    children: Vec<Diagnostic>,
    #[serde(default)]
    rendered: Option<String>,
}

/// `message.code`.
#[derive(Debug, Deserialize)]
struct DiagnosticCode {
    code: String,
}

/// A source span (1-based lines and columns, `column_end` exclusive).
#[derive(Debug, Deserialize)]
struct Span {
    file_name: String,
    line_start: u32,
    line_end: u32,
    column_start: u32,
    column_end: u32,
    #[serde(default)]
    is_primary: bool,
    #[serde(default)]
    expansion: Option<Box<Expansion>>,
    #[serde(default)]
    suggested_replacement: Option<String>,
    #[serde(default)]
    suggestion_applicability: Option<String>,
}

/// Where a macro-generated span came from.
#[derive(Debug, Deserialize)]
struct Expansion {
    span: Span,
}

/// Reads a cargo JSON message stream.
pub(crate) fn parse_clippy(
    text: &str,
    paths: &PathResolver,
) -> Result<FindingsWithEdits, IngestError> {
    let mut findings = Vec::new();
    let mut edits = Vec::new();
    let mut seen = HashSet::new();
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        if line.trim().is_empty() {
            continue;
        }
        let bad = |problem: String| IngestError::BadLine {
            input: paths.input().to_owned(),
            format: Format::Clippy,
            line: number,
            problem,
            expected: EXPECTED,
        };
        let parsed: StreamLine =
            serde_json::from_str(line).map_err(|error| bad(without_position(&error)))?;
        if parsed.reason.as_deref() != Some("compiler-message") {
            continue;
        }
        let Some(diagnostic) = parsed.message else {
            return Err(bad("a compiler-message line without `message`".to_owned()));
        };
        // Summaries ("3 warnings emitted", "aborting due to ...") have no primary span.
        let Some(span) = primary_span(&diagnostic.spans) else {
            continue;
        };
        let rule_id = diagnostic
            .code
            .as_ref()
            .map_or_else(|| "unknown".to_owned(), |code| code.code.clone());
        let tool = if rule_id.starts_with("clippy::") {
            "clippy"
        } else {
            "rustc"
        };
        let path = paths.resolve_path(&span.file_name, || format!("line {number}"))?;
        let key = (
            path.clone(),
            span.line_start,
            span.column_start,
            rule_id.clone(),
            diagnostic.message.clone(),
        );
        if !seen.insert(key) {
            continue;
        }
        let symbol = infer_symbol(tool, &rule_id, &diagnostic.message);
        let fix = fix_of(&diagnostic);
        edits.push(
            if fix
                .as_ref()
                .is_some_and(|f| f.applicability == FixApplicability::Safe)
            {
                safe_edits(&diagnostic, &span.file_name)
            } else {
                Vec::new()
            },
        );
        findings.push(Finding {
            fix,
            tool: tool.to_owned(),
            level: level_of(&diagnostic.level),
            help_uri: help_uri(&diagnostic),
            line: Some(span.line_start),
            column: Some(span.column_start),
            end_line: Some(span.line_end),
            end_column: Some(span.column_end),
            raw: diagnostic
                .rendered
                .as_ref()
                .map(|rendered| json!({ "rendered": rendered })),
            message: diagnostic.message,
            rule_id,
            path,
            symbol,
        });
    }
    Ok((findings, edits))
}

/// The diagnostic's best suggestion: a machine-applicable one when there is one (what `cargo
/// fix` applies), else the first; described by the message that carries it.
fn fix_of(diagnostic: &Diagnostic) -> Option<AnalyzerFix> {
    let mut best: Option<AnalyzerFix> = None;
    let carriers = std::iter::once(diagnostic).chain(&diagnostic.children);
    for carrier in carriers {
        for span in carrier
            .spans
            .iter()
            .filter(|s| s.suggested_replacement.is_some())
        {
            let applicability = span
                .suggestion_applicability
                .as_deref()
                .and_then(FixApplicability::parse)
                .unwrap_or(FixApplicability::Unspecified);
            if best.is_none() || applicability == FixApplicability::Safe {
                best = Some(AnalyzerFix {
                    applicability,
                    description: Some(carrier.message.clone()),
                    edits: Vec::new(),
                });
            }
            if applicability == FixApplicability::Safe {
                return best;
            }
        }
    }
    best
}

/// The edits of the first machine-applicable suggestion: every span of its message that has a
/// replacement (a suggestion may change several places). None when one lies in another file
/// than the finding's.
fn safe_edits(diagnostic: &Diagnostic, file_name: &str) -> Vec<ReportedEdit> {
    let is_safe = |span: &Span| {
        span.suggested_replacement.is_some()
            && span.suggestion_applicability.as_deref() == Some("MachineApplicable")
    };
    let carriers = std::iter::once(diagnostic).chain(&diagnostic.children);
    let Some(carrier) = carriers
        .into_iter()
        .find(|carrier| carrier.spans.iter().any(is_safe))
    else {
        return Vec::new();
    };
    let spans: Vec<&Span> = carrier.spans.iter().filter(|s| is_safe(s)).collect();
    if spans.iter().any(|span| span.file_name != file_name) {
        return Vec::new();
    }
    spans
        .into_iter()
        .map(|span| ReportedEdit {
            range: ReportedRange::LineColumn {
                start_line: span.line_start,
                start_column: span.column_start,
                end_line: span.line_end,
                end_column: span.column_end,
                unit: TextUnit::Chars,
            },
            replacement: span.suggested_replacement.clone().unwrap_or_default(),
        })
        .collect()
}

/// The primary span, moved out of macro internals (`<...>` file names) to the call site.
fn primary_span(spans: &[Span]) -> Option<&Span> {
    let mut span = spans.iter().find(|span| span.is_primary)?;
    while span.file_name.starts_with('<') {
        span = &span.expansion.as_ref()?.span;
    }
    Some(span)
}

fn level_of(level: &str) -> Level {
    match level {
        "error" | "error: internal compiler error" => Level::Error,
        "warning" => Level::Warning,
        _ => Level::Note,
    }
}

/// The lint's documentation link from a "for further information visit URL" child.
fn help_uri(diagnostic: &Diagnostic) -> Option<String> {
    diagnostic.children.iter().find_map(|child| {
        let url = child.message.strip_prefix(MORE_INFO)?;
        Some(url.trim().to_owned())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest_options::IngestOptions;

    #[test]
    fn spans_inside_macros_move_to_the_call_site() -> Result<(), IngestError> {
        let line = r#"{"reason":"compiler-message","message":{"message":"m","level":"warning","code":{"code":"unused_must_use"},"spans":[{"file_name":"<macros>","line_start":1,"line_end":1,"column_start":1,"column_end":2,"is_primary":true,"expansion":{"span":{"file_name":"src/lib.rs","line_start":7,"line_end":7,"column_start":5,"column_end":9,"is_primary":false}}}]}}"#;
        let options = IngestOptions::new("c.jsonl", "/proj");
        let (findings, _) = parse_clippy(line, &PathResolver::new(&options))?;
        assert_eq!(findings.len(), 1);
        assert_eq!(findings[0].path, "src/lib.rs");
        assert_eq!(findings[0].line, Some(7));
        assert_eq!(findings[0].tool, "rustc");
        Ok(())
    }

    #[test]
    fn repeated_diagnostics_from_several_targets_count_once() -> Result<(), IngestError> {
        let line = r#"{"reason":"compiler-message","message":{"message":"m","level":"warning","code":{"code":"clippy::x"},"spans":[{"file_name":"src/lib.rs","line_start":1,"line_end":1,"column_start":1,"column_end":2,"is_primary":true}]}}"#;
        let text = format!("{line}\n{line}\n");
        let options = IngestOptions::new("c.jsonl", "/proj");
        let (findings, _) = parse_clippy(&text, &PathResolver::new(&options))?;
        assert_eq!(findings.len(), 1);
        Ok(())
    }

    /// A diagnostic with two suggestions, `first` and `second` (applicabilities), each in a
    /// child of its own, on line 3 of `src/lib.rs`.
    fn two_suggestions(first: &str, second: &str) -> String {
        let span = |column: u32, replacement: &str, applicability: &str| {
            format!(
                r#"{{"file_name":"src/lib.rs","line_start":3,"line_end":3,"column_start":{column},"column_end":{},"is_primary":true,"suggested_replacement":"{replacement}","suggestion_applicability":"{applicability}"}}"#,
                column + 1
            )
        };
        format!(
            r#"{{"reason":"compiler-message","message":{{"message":"m","level":"warning","code":{{"code":"clippy::x"}},"spans":[{{"file_name":"src/lib.rs","line_start":3,"line_end":3,"column_start":1,"column_end":9,"is_primary":true}}],"children":[{{"message":"consider a","level":"help","spans":[{}]}},{{"message":"use b","level":"help","spans":[{}]}}]}}}}"#,
            span(1, "a", first),
            span(5, "b", second)
        )
    }

    /// The fix is the first machine-applicable suggestion, else the first one; only a
    /// machine-applicable suggestion's spans are edits.
    #[test]
    fn the_safe_suggestion_wins_over_an_earlier_one_and_only_it_gives_edits() {
        let options = IngestOptions::new("c.jsonl", "/proj");
        let paths = PathResolver::new(&options);
        for (first, second, applicability, description, replacements) in [
            (
                "MaybeIncorrect",
                "MachineApplicable",
                FixApplicability::Safe,
                "use b",
                vec!["b"],
            ),
            (
                "MachineApplicable",
                "MaybeIncorrect",
                FixApplicability::Safe,
                "consider a",
                vec!["a"],
            ),
            (
                "MaybeIncorrect",
                "HasPlaceholders",
                FixApplicability::Unsafe,
                "consider a",
                vec![],
            ),
        ] {
            let line = two_suggestions(first, second);
            let (findings, edits) = parse_clippy(&line, &paths).expect("parse");
            let fix = findings[0].fix.as_ref().expect("a fix");
            assert_eq!(
                (fix.applicability, fix.description.as_deref()),
                (applicability, Some(description)),
                "{first}, {second}"
            );
            let got: Vec<&str> = edits[0].iter().map(|e| e.replacement.as_str()).collect();
            assert_eq!(got, replacements, "{first}, {second}");
        }
    }

    #[test]
    fn each_compiler_level_has_its_level() {
        for (level, expected) in [
            ("error", Level::Error),
            ("error: internal compiler error", Level::Error),
            ("warning", Level::Warning),
            ("note", Level::Note),
            ("help", Level::Note),
            ("failure-note", Level::Note),
        ] {
            assert_eq!(level_of(level), expected, "{level}");
        }
    }

    /// A bad line is named by its 1-based number, blank lines counted.
    #[test]
    fn a_bad_line_is_named_by_its_number() {
        let good = r#"{"reason":"build-finished","success":true}"#;
        let options = IngestOptions::new("c.jsonl", "/proj");
        for (text, number) in [
            ("{".to_owned(), 1),
            (format!("{good}\n{{"), 2),
            (format!("{good}\n\n{good}\n{{"), 4),
        ] {
            let error = parse_clippy(&text, &PathResolver::new(&options));
            assert!(
                matches!(error, Err(IngestError::BadLine { line, .. }) if line == number),
                "{text:?}: {error:?}"
            );
        }
    }
}
