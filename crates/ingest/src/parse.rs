//! The entry point: text + format + options → findings.

use crate::control_character::finding_control_problem;
use crate::edit_anchoring::anchor_edits;
use crate::format::Format;
use crate::formats::{
    bandit, clippy, eslint, github_alerts, jsonl, knip, ruff, sarif, ts_prune, vulture,
};
use crate::ingest_error::IngestError;
use crate::ingest_options::IngestOptions;
use crate::parsed::Parsed;
use crate::path_resolver::PathResolver;
use crate::sniff::sniff;

/// What identifier fields must be, for the message refusing one.
const IDENTIFIERS: &str =
    "tool, rule id, path, symbol and help URI each on one line, without control characters";

/// Reads one analyzer output. With `Format::Auto` the format is sniffed from
/// `options.source` and the content, and `Parsed::format` names the one chosen.
///
/// All or nothing: any malformed line, entry or path fails the whole input with an error that
/// names the input, the line or JSON path, and the expected shape.
pub fn parse(input: &str, format: Format, options: &IngestOptions) -> Result<Parsed, IngestError> {
    let input = input.strip_prefix('\u{feff}').unwrap_or(input);
    // Only on the way out with an error is the text checked for being cut short: a truncated
    // report is said as such, not as a wrong format or a wrong shape.
    parse_whole(input, format, options).map_err(|error| match &error {
        IngestError::Unrecognized { .. } | IngestError::BadDocument { .. } => {
            truncated(input, &options.source).unwrap_or(error)
        }
        _ => error,
    })
}

/// [`IngestError::Truncated`] when `text` is JSON that ends before its value does.
fn truncated(text: &str, source: &str) -> Option<IngestError> {
    let trimmed = text.trim_start();
    if !trimmed.starts_with(['{', '[']) {
        return None;
    }
    let stream = serde_json::Deserializer::from_str(text).into_iter::<serde::de::IgnoredAny>();
    for value in stream {
        match value {
            Ok(_) => {}
            Err(error) if error.is_eof() => {
                return Some(IngestError::Truncated {
                    input: source.to_owned(),
                    location: format!("line {} column {}", error.line(), error.column()),
                });
            }
            Err(_) => return None,
        }
    }
    None
}

fn parse_whole(
    input: &str,
    format: Format,
    options: &IngestOptions,
) -> Result<Parsed, IngestError> {
    let format = match format {
        Format::Auto => sniff(input, &options.source)?,
        chosen => chosen,
    };
    if options.new_only && format != Format::Sarif {
        return Err(IngestError::NoBaselineState {
            input: options.source.clone(),
            format,
            detail: "this format carries no baseline state".to_owned(),
        });
    }
    let paths = PathResolver::new(options);
    let mut rule_texts = Vec::new();
    let mut not_new = 0;
    let mut positions = Vec::new();
    let mut alerts = Vec::new();
    let mut not_open = 0;
    let (mut findings, edits) = match format {
        Format::Auto | Format::Jsonl => (jsonl::parse_jsonl(input, &paths)?, Vec::new()),
        Format::Sarif => {
            let read = sarif::parse_sarif(input, &paths, options.new_only)?;
            if options.new_only && read.with_baseline_state == 0 && read.not_new > 0 {
                return Err(IngestError::NoBaselineState {
                    input: options.source.clone(),
                    format,
                    detail: format!(
                        "none of its {} results has a `baselineState`: the analyzer did not compare them with a baseline",
                        read.not_new
                    ),
                });
            }
            rule_texts = read.rule_texts;
            not_new = read.not_new;
            positions = read.positions;
            read.findings
        }
        Format::Clippy => clippy::parse_clippy(input, &paths)?,
        Format::Ruff => ruff::parse_ruff(input, &paths)?,
        Format::Eslint => eslint::parse_eslint(input, &paths)?,
        Format::Knip => (knip::parse_knip(input, &paths)?, Vec::new()),
        Format::Vulture => (vulture::parse_vulture(input, &paths)?, Vec::new()),
        Format::Bandit => (bandit::parse_bandit(input, &paths)?, Vec::new()),
        Format::TsPrune => (ts_prune::parse_ts_prune(input, &paths)?, Vec::new()),
        Format::GithubAlerts => {
            let read = github_alerts::parse_github_alerts(input, &paths)?;
            rule_texts = read.rule_texts;
            alerts = read.alerts;
            not_open = read.not_open;
            (read.findings, Vec::new())
        }
    };
    if options.fix_edits {
        anchor_edits(&mut findings, &edits, &options.project_root);
    }
    // Every format, whatever its parser checked: identifiers stay one line (JSONL names the
    // line itself, above).
    for (index, finding) in findings.iter().enumerate() {
        if let Some(problem) = finding_control_problem(finding) {
            return Err(IngestError::BadDocument {
                input: options.source.clone(),
                format,
                location: format!(
                    "finding {} ({}{})",
                    index + 1,
                    finding.path.escape_debug(),
                    finding.line.map_or(String::new(), |l| format!(":{l}"))
                ),
                problem,
                expected: IDENTIFIERS,
            });
        }
    }
    Ok(Parsed {
        format,
        findings,
        inferred_base: paths.inferred_base(),
        rule_texts,
        positions,
        alerts,
        not_new,
        not_open,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only JSON that stops before its value ends is "truncated"; a syntax error in the middle
    /// is another problem, reported as the parser's own error (a mutation run found no test
    /// telling the two apart).
    #[test]
    fn only_json_that_ends_early_is_truncated() {
        for cut in ["{\"runs\": [", "[{\"a\": 1", "{\"a\": \"b"] {
            assert!(
                matches!(
                    truncated(cut, "x.json"),
                    Some(IngestError::Truncated { .. })
                ),
                "{cut}"
            );
        }
        for not_cut in [
            "{\"a\": x}",
            "[1, 2,, 3]",
            "{\"a\" 1}",
            "plain text",
            "{\"a\": 1}",
        ] {
            assert!(truncated(not_cut, "x.json").is_none(), "{not_cut}");
        }
    }

    /// A report cut short is said to be cut short whether its format was sniffed (the cut
    /// text fits none) or named (the cut text is a bad document of it).
    #[test]
    fn a_cut_report_is_truncated_whether_its_format_is_sniffed_or_named() {
        let options = crate::ingest_options::IngestOptions::new("x.json", "/proj");
        for (text, format) in [
            ("[{\"filePath\": \"a.js\", \"messages\": [", Format::Auto),
            ("{\"runs\": [{\"results\": [", Format::Sarif),
            ("[{\"filename\": \"a.py\"", Format::Ruff),
        ] {
            let error = parse(text, format, &options).map(|_| ()).unwrap_err();
            assert!(
                matches!(error, IngestError::Truncated { .. }),
                "{text}: {error}"
            );
        }
    }
}
