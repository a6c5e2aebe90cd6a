//! `vulture` text output → findings.
//!
//! Lines look like `py/mod.py:1: unused import 'os' (90% confidence)`, optionally with
//! `, 3 lines` after the confidence (`--sort-by-size`). The rule is the message without its
//! quoted parts (`unused-import`, `unreachable-code`, `unsatisfiable-condition`), the symbol is
//! the quoted name of `unused ...` messages, and the confidence (and size) go to `raw`.
//! vulture exits 3 when it finds something; that is not an error here.

use serde_json::{Map, Value};

use self_repair_engine::{Finding, Level};

use crate::format::Format;
use crate::formats::text_location::split_location;
use crate::ingest_error::IngestError;
use crate::path_resolver::PathResolver;
use crate::symbol_hint::first_quoted;

/// The shape of a line, for error messages.
pub(crate) const EXPECTED: &str =
    "lines like `src/a.py:12: unused function 'helper' (60% confidence)`";

/// Reads vulture's text output; blank lines are skipped, any other line must parse.
pub(crate) fn parse_vulture(text: &str, paths: &PathResolver) -> Result<Vec<Finding>, IngestError> {
    let mut findings = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        if line.trim().is_empty() {
            continue;
        }
        let bad = |problem: &str| IngestError::BadLine {
            input: paths.input().to_owned(),
            format: Format::Vulture,
            line: number,
            problem: problem.to_owned(),
            expected: EXPECTED,
        };
        let (file, line_number, rest) =
            split_location(line.trim_end(), ": ").ok_or_else(|| bad("no `path:line: ` prefix"))?;
        let (message, details) = split_details(rest);
        let mut raw = Map::new();
        if let Some(details) = details {
            for part in details.split(',').map(str::trim) {
                if let Some(percent) = part.strip_suffix("% confidence") {
                    let confidence: u64 = percent
                        .parse()
                        .map_err(|_| bad("confidence is not a whole percentage"))?;
                    raw.insert("confidence".to_owned(), Value::from(confidence));
                } else if let Some(size) = part
                    .strip_suffix(" lines")
                    .or_else(|| part.strip_suffix(" line"))
                    .and_then(|size| size.parse::<u64>().ok())
                {
                    raw.insert("size_lines".to_owned(), Value::from(size));
                }
            }
        }
        let path = paths.resolve_path(file, || format!("line {number}"))?;
        let symbol = message
            .starts_with("unused ")
            .then(|| first_quoted(message, '\''))
            .flatten();
        findings.push(Finding {
            fix: None,
            tool: "vulture".to_owned(),
            rule_id: rule_of(message),
            level: Level::Warning,
            message: message.to_owned(),
            path,
            line: Some(line_number),
            column: None,
            end_line: None,
            end_column: None,
            symbol,
            help_uri: None,
            raw: (!raw.is_empty()).then_some(Value::Object(raw)),
        });
    }
    Ok(findings)
}

/// `unused import 'os' (90% confidence)` → (`unused import 'os'`, `90% confidence`).
fn split_details(rest: &str) -> (&str, Option<&str>) {
    if let Some(open) = rest.rfind(" (")
        && rest.ends_with(')')
        && rest[open..].contains("% confidence")
    {
        return (&rest[..open], Some(&rest[open + 2..rest.len() - 1]));
    }
    (rest, None)
}

/// The message's words outside quotes, kebab-cased; a trailing `after` is dropped
/// (`unreachable code after 'return'` → `unreachable-code`).
fn rule_of(message: &str) -> String {
    let mut words = Vec::new();
    for (index, part) in message.split('\'').enumerate() {
        if index % 2 == 0 {
            words.extend(part.split_whitespace());
        }
    }
    if words.len() > 1 && words.last() == Some(&"after") {
        words.pop();
    }
    if words.is_empty() {
        "unknown".to_owned()
    } else {
        words.join("-")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_come_from_the_unquoted_words() {
        assert_eq!(rule_of("unused import 'os'"), "unused-import");
        assert_eq!(
            rule_of("unreachable code after 'return'"),
            "unreachable-code"
        );
        assert_eq!(
            rule_of("unsatisfiable 'while' condition"),
            "unsatisfiable-condition"
        );
        assert_eq!(rule_of("redundant if-condition"), "redundant-if-condition");
        // A lone `after` is the rule itself; no unquoted word at all is an unknown rule.
        assert_eq!(rule_of("after 'x'"), "after");
        assert_eq!(rule_of("'x'"), "unknown");
    }

    #[test]
    fn size_and_confidence_are_both_kept() {
        assert_eq!(
            split_details("unused function 'f' (60% confidence, 3 lines)"),
            ("unused function 'f'", Some("60% confidence, 3 lines"))
        );
    }
}
