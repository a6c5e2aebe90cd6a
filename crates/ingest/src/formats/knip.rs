//! `knip --reporter json` → findings, shaped like knip's own SARIF output.
//!
//! knip groups issues per file: `{"issues":[{"file":"src/a.ts","exports":[{"name":"x",
//! "line":2,"col":17}],"devDependencies":[{"name":"eslint"}],...}]}`. Each entry of each issue
//! type becomes a finding with rule `knip/<type>`, level `error`, the issue name as symbol and
//! the message knip's SARIF reporter uses ("Unused export: x"), so the JSON and SARIF reports
//! of one run fingerprint alike. Tolerated older shapes: a top-level `files` list of strings,
//! entries that are plain strings, member maps `{"Enum": [{"name":"A"}]}` (symbol `Enum.A`)
//! and `duplicates` as lists of lists. Unused files carry no symbol (the path says it all).

use serde_json::{Map, Value, json};

use self_repair_engine::{Finding, Level};

use crate::format::Format;
use crate::ingest_error::IngestError;
use crate::json_document::parse_document;
use crate::path_resolver::PathResolver;

/// The shape knip JSON must have, for error messages.
pub(crate) const EXPECTED: &str = r#"the output of `knip --reporter json`: {"issues":[{"file":"src/a.ts","files":[{"name":"src/a.ts"}],"exports":[{"name":"x","line":2,"col":17}],"dependencies":[{"name":"lodash"}]}]}"#;

/// Where knip documents its issue types.
const HELP_URI: &str = "https://knip.dev/reference/issue-types";

/// Issue types in knip's report order, with the singular title its SARIF messages use.
const ISSUE_TYPES: &[(&str, &str)] = &[
    ("files", "Unused file"),
    ("dependencies", "Unused dependency"),
    ("devDependencies", "Unused devDependency"),
    (
        "optionalPeerDependencies",
        "Referenced optional peerDependency",
    ),
    ("unlisted", "Unlisted dependency"),
    ("binaries", "Unlisted binary"),
    ("unresolved", "Unresolved import"),
    ("exports", "Unused export"),
    ("nsExports", "Export in used namespace"),
    ("types", "Unused exported type"),
    ("nsTypes", "Exported type in used namespace"),
    ("enumMembers", "Unused exported enum member"),
    ("classMembers", "Unused exported class member"),
    ("namespaceMembers", "Unused exported namespace member"),
    ("duplicates", "Duplicate export"),
    ("catalog", "Unused catalog entry"),
    ("catalogReferences", "Unresolved catalog reference"),
];

/// Keys of an issue object that are not issue types.
const NOT_ISSUE_TYPES: &[&str] = &["file", "owners"];

/// One reported name with its position.
struct Entry {
    name: String,
    line: Option<u32>,
    column: Option<u32>,
}

/// Reads knip's JSON output.
pub(crate) fn parse_knip(text: &str, paths: &PathResolver) -> Result<Vec<Finding>, IngestError> {
    let report: Map<String, Value> = parse_document(text, Format::Knip, paths.input(), EXPECTED)?;
    let mut findings = Vec::new();
    // knip < 5 listed unused files at the top level.
    if let Some(Value::Array(files)) = report.get("files") {
        for (index, file) in files.iter().enumerate() {
            if let Some(name) = entry_name(file) {
                let location = || format!("files[{index}]");
                findings.push(unused_file(&name, paths, location)?);
            }
        }
    }
    let Some(Value::Array(issues)) = report.get("issues") else {
        return Err(IngestError::BadDocument {
            input: paths.input().to_owned(),
            format: Format::Knip,
            location: "issues".to_owned(),
            problem: "missing or not an array".to_owned(),
            expected: EXPECTED,
        });
    };
    for (issue_index, issue) in issues.iter().enumerate() {
        let Some(issue) = issue.as_object() else {
            continue;
        };
        let file = issue.get("file").and_then(Value::as_str).unwrap_or(".");
        for (kind, title) in ordered_types(issue) {
            let Some(value) = issue.get(&kind) else {
                continue;
            };
            for entry in entries(value) {
                let location = || format!("issues[{issue_index}].{kind}");
                if kind == "files" {
                    findings.push(unused_file(&entry.name, paths, location)?);
                    continue;
                }
                let path = paths.resolve_path(file, location)?;
                findings.push(Finding {
                    fix: None,
                    tool: "knip".to_owned(),
                    rule_id: format!("knip/{kind}"),
                    level: Level::Error,
                    message: format!("{title}: {}", entry.name),
                    path,
                    line: entry.line,
                    column: entry.column,
                    end_line: None,
                    end_column: None,
                    symbol: Some(entry.name),
                    help_uri: Some(HELP_URI.to_owned()),
                    raw: Some(json!({ "type": kind })),
                });
            }
        }
    }
    Ok(findings)
}

/// The issue types present in `issue`: known ones in knip's order, then unknown ones sorted.
fn ordered_types(issue: &Map<String, Value>) -> Vec<(String, String)> {
    let mut types: Vec<(String, String)> = ISSUE_TYPES
        .iter()
        .filter(|(kind, _)| issue.contains_key(*kind))
        .map(|(kind, title)| ((*kind).to_owned(), (*title).to_owned()))
        .collect();
    let mut unknown: Vec<&String> = issue
        .keys()
        .filter(|key| {
            !NOT_ISSUE_TYPES.contains(&key.as_str())
                && !ISSUE_TYPES.iter().any(|(kind, _)| kind == key)
        })
        .collect();
    unknown.sort();
    types.extend(
        unknown
            .into_iter()
            .map(|kind| (kind.clone(), format!("knip issue ({kind})"))),
    );
    types
}

/// The entries of one issue type, whatever shape the knip version used.
fn entries(value: &Value) -> Vec<Entry> {
    match value {
        Value::Array(items) => items
            .iter()
            .filter_map(|item| match item {
                // `duplicates`: each item is a list of the names exported twice.
                Value::Array(group) => {
                    let names: Vec<String> = group.iter().filter_map(entry_name).collect();
                    let first = group.first();
                    (!names.is_empty()).then(|| Entry {
                        name: names.join(", "),
                        line: first.and_then(|f| number(f, "line")),
                        column: first.and_then(|f| number(f, "col")),
                    })
                }
                other => entry_name(other).map(|name| Entry {
                    name,
                    line: number(other, "line"),
                    column: number(other, "col"),
                }),
            })
            .collect(),
        // Older member maps: {"Parent": [{"name":"member",...}]}.
        Value::Object(parents) => parents
            .iter()
            .flat_map(|(parent, members)| {
                entries(members).into_iter().map(move |member| Entry {
                    name: format!("{parent}.{}", member.name),
                    ..member
                })
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn entry_name(value: &Value) -> Option<String> {
    match value {
        Value::String(name) => Some(name.clone()),
        Value::Object(object) => object.get("name")?.as_str().map(str::to_owned),
        _ => None,
    }
}

fn number(value: &Value, key: &str) -> Option<u32> {
    value.get(key)?.as_u64().and_then(|n| u32::try_from(n).ok())
}

fn unused_file(
    name: &str,
    paths: &PathResolver,
    location: impl FnOnce() -> String,
) -> Result<Finding, IngestError> {
    Ok(Finding {
        fix: None,
        tool: "knip".to_owned(),
        rule_id: "knip/files".to_owned(),
        level: Level::Error,
        message: format!("Unused file: {name}"),
        path: paths.resolve_path(name, location)?,
        line: None,
        column: None,
        end_line: None,
        end_column: None,
        symbol: None,
        help_uri: Some(HELP_URI.to_owned()),
        raw: Some(json!({ "type": "files" })),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest_options::IngestOptions;

    #[test]
    fn older_shapes_are_read() -> Result<(), IngestError> {
        let text = r#"{"files":["src/old.ts"],"issues":[{"file":"src/e.ts","owners":[],
            "enumMembers":{"Color":[{"name":"Red","line":3,"col":5}]},
            "duplicates":[[{"name":"a","line":1,"col":1},{"name":"b"}]],
            "dependencies":["left-pad"]}]}"#;
        let options = IngestOptions::new("knip.json", "/proj");
        let findings = parse_knip(text, &PathResolver::new(&options))?;
        let summary: Vec<(String, Option<String>)> = findings
            .iter()
            .map(|f| (f.rule_id.clone(), f.symbol.clone()))
            .collect();
        assert_eq!(
            summary,
            vec![
                ("knip/files".to_owned(), None),
                ("knip/dependencies".to_owned(), Some("left-pad".to_owned())),
                ("knip/enumMembers".to_owned(), Some("Color.Red".to_owned())),
                ("knip/duplicates".to_owned(), Some("a, b".to_owned())),
            ]
        );
        assert_eq!(findings[0].path, "src/old.ts");
        assert_eq!(findings[2].line, Some(3));
        Ok(())
    }

    /// Known issue types come in knip's order; a type knip added since comes after them,
    /// named by its key.
    #[test]
    fn an_unknown_issue_type_follows_the_known_ones() {
        let issue: Map<String, Value> = serde_json::from_str(
            r#"{"file":"a.ts","owners":[],"zNewKind":[{"name":"x"}],"exports":[{"name":"y"}]}"#,
        )
        .unwrap();
        let kinds: Vec<String> = ordered_types(&issue)
            .into_iter()
            .map(|(kind, _)| kind)
            .collect();
        assert_eq!(kinds, ["exports", "zNewKind"]);
        assert_eq!(ordered_types(&issue)[1].1, "knip issue (zNewKind)");
    }
}
