//! `ts-prune` text output → findings.
//!
//! Lines look like `src/util.ts:2 - unusedExport`, with ` (used in module)` appended when the
//! export is used inside its own file (then the fix is dropping `export`, not the code; that
//! gets its own rule, `used-in-module`, instead of `unused-export`).

use serde_json::json;

use self_repair_engine::{Finding, Level};

use crate::format::Format;
use crate::formats::text_location::split_location;
use crate::ingest_error::IngestError;
use crate::path_resolver::PathResolver;

/// The shape of a line, for error messages.
pub(crate) const EXPECTED: &str =
    "lines like `src/util.ts:2 - unusedExport` or `src/a.ts:5 - helper (used in module)`";

/// The suffix ts-prune adds for exports used only inside their own module.
const USED_IN_MODULE: &str = " (used in module)";

/// Reads ts-prune's text output; blank lines are skipped, any other line must parse.
pub(crate) fn parse_ts_prune(
    text: &str,
    paths: &PathResolver,
) -> Result<Vec<Finding>, IngestError> {
    let mut findings = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        if line.trim().is_empty() {
            continue;
        }
        let Some((file, line_number, rest)) = split_location(line.trim_end(), " - ") else {
            return Err(IngestError::BadLine {
                input: paths.input().to_owned(),
                format: Format::TsPrune,
                line: number,
                problem: "no `path:line - ` prefix".to_owned(),
                expected: EXPECTED,
            });
        };
        let (symbol, used_in_module) = match rest.strip_suffix(USED_IN_MODULE) {
            Some(symbol) => (symbol.trim(), true),
            None => (rest.trim(), false),
        };
        let (rule_id, message) = if used_in_module {
            (
                "used-in-module",
                format!("Export `{symbol}` is used only inside its own module"),
            )
        } else {
            ("unused-export", format!("Unused export: {symbol}"))
        };
        findings.push(Finding {
            fix: None,
            tool: "ts-prune".to_owned(),
            rule_id: rule_id.to_owned(),
            level: Level::Warning,
            message,
            path: paths.resolve_path(file, || format!("line {number}"))?,
            line: Some(line_number),
            column: None,
            end_line: None,
            end_column: None,
            symbol: Some(symbol.to_owned()),
            help_uri: None,
            raw: used_in_module.then(|| json!({ "used_in_module": true })),
        });
    }
    Ok(findings)
}
