//! SARIF 2.1.0 → findings, for any tool that writes SARIF.
//!
//! Quirks handled: `level` missing on a result (the rule's `defaultConfiguration.level`
//! applies, else `warning`; a non-`fail` `kind` means `none`), rules found by `ruleIndex`,
//! `rule.index`/`rule.id` (also in extensions) or `ruleId`, messages given as `message.id` +
//! the rule's `messageStrings` with `{0}` arguments, `file://` URIs and `uriBaseId` bases
//! from `originalUriBaseIds`, `artifactLocation.index` into `run.artifacts`. Results that
//! are suppressed (accepted suppression), `pass`/`notApplicable`, or `baselineState: absent`
//! are not findings and are skipped; with `new_only` (`start --new-only`) so is every result
//! whose `baselineState` is not `new`, counted. A result without any location gets the path `.`. A fix
//! marked safe in its property bag (design note 21) has its first fix's replacements reported
//! for `apply-fixes`: `deletedRegion` (lines and columns, or offsets, counted as the run's
//! `columnKind` says: UTF-16 code units unless `unicodeCodePoints`) becomes `insertedContent`.
//!
//! Lean on purpose (100,000 results must ingest in well under a second): typed borrowed
//! structs, never a `serde_json::Value` of the document, results streamed one at a time.

use std::collections::HashMap;

use self_repair_engine::{AnalyzerFix, Finding, FixApplicability, Level};

use crate::format::Format;
use crate::formats::borrowed_text::Text;
use crate::formats::sarif_log::{
    ArtifactLocation, Multiformat, Region, ReportingDescriptor, Run, SarifLog, SarifResult, Tool,
};
use crate::formats::sarif_stream::for_each_result;
use crate::ingest_error::IngestError;
use crate::json_document::{parse_document, without_position};
use crate::parsed::{RULE_TEXT_CHARS, ResultPosition, RuleText};
use crate::path_resolver::PathResolver;
use crate::reported_edit::{FindingsWithEdits, ReportedEdit, ReportedRange, TextUnit};
use crate::symbol_hint::infer_symbol;

/// The shape a SARIF input must have, for error messages.
pub(crate) const EXPECTED: &str = r#"a SARIF 2.1.0 log such as {"version":"2.1.0","runs":[{"tool":{"driver":{"name":"ruff","rules":[{"id":"F401"}]}},"results":[{"ruleId":"F401","level":"error","message":{"text":"..."},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"src/a.py"},"region":{"startLine":3,"startColumn":1}}}]}]}]}"#;

/// How deep `uriBaseId` chains are followed before giving up (they may be cyclic).
const MAX_BASE_DEPTH: usize = 8;

/// What one SARIF log gave.
pub(crate) struct SarifRead {
    pub(crate) findings: FindingsWithEdits,
    pub(crate) rule_texts: Vec<RuleText>,
    /// Where each finding's result sits (`findings[i]` came from `positions[i]`).
    pub(crate) positions: Vec<ResultPosition>,
    /// With `new_only`: the results that report a problem but not a new one
    /// (`baselineState` `unchanged`, `updated`, or none).
    pub(crate) not_new: usize,
    /// Results that carry a `baselineState` at all.
    pub(crate) with_baseline_state: usize,
}

/// Reads a SARIF log in two passes: run headers (tool, rules, base URIs) first, skipping the
/// results; then the results streamed one by one straight into findings. With `new_only`,
/// only results whose `baselineState` is `new` become findings; the others are counted.
pub(crate) fn parse_sarif(
    text: &str,
    paths: &PathResolver,
    new_only: bool,
) -> Result<SarifRead, IngestError> {
    let log: SarifLog<'_> = parse_document(text, Format::Sarif, paths.input(), EXPECTED)?;
    let runs: Vec<RunContext<'_, '_>> = log.runs.iter().map(RunContext::new).collect();
    let rule_texts: Vec<RuleText> = runs.iter().flat_map(RunContext::rule_texts).collect();
    let mut findings = Vec::new();
    let mut edits = Vec::new();
    let mut positions = Vec::new();
    let mut failure = None;
    let (mut not_new, mut with_baseline_state) = (0, 0);
    let mut on_result = |run: usize, index: usize, result: SarifResult<'_>| {
        let Some(context) = runs.get(run) else {
            return Ok(());
        };
        with_baseline_state += usize::from(result.baseline_state.is_some());
        if new_only && result.baseline_state.as_deref() != Some("new") {
            not_new += usize::from(is_reportable(&result));
            return Ok(());
        }
        match context.finding(run, index, &result, paths) {
            Ok(Some((finding, reported))) => {
                findings.push(finding);
                edits.push(reported);
                positions.push(ResultPosition {
                    run: run as u32,
                    result: index as u32,
                });
            }
            Ok(None) => {}
            Err(error) => {
                failure = Some(error);
                return Err(());
            }
        }
        Ok(())
    };
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let streamed = for_each_result(&mut deserializer, &mut on_result);
    if let Some(error) = failure {
        return Err(error);
    }
    if let Err(error) = streamed {
        return Err(located_stream_error(text, &error, paths.input()));
    }
    findings.shrink_to_fit();
    Ok(SarifRead {
        findings: (findings, edits),
        rule_texts,
        positions,
        not_new,
        with_baseline_state,
    })
}

/// A result that failed to deserialize, located by walking the log again with path tracking.
fn located_stream_error(text: &str, error: &serde_json::Error, input: &str) -> IngestError {
    let mut track = serde_path_to_error::Track::new();
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let tracked = serde_path_to_error::Deserializer::new(&mut deserializer, &mut track);
    let _ = for_each_result(tracked, &mut |_, _, _| Ok(()));
    IngestError::BadDocument {
        input: input.to_owned(),
        format: Format::Sarif,
        location: format!(
            "{}, line {} column {}",
            track.path(),
            error.line(),
            error.column()
        ),
        problem: without_position(error),
        expected: EXPECTED,
    }
}

/// The result's `properties`, plus its rule's `tags` and `security-severity` where the result
/// does not set them: routing reads them (a `CodeQL` or Semgrep quality rule is not a security
/// finding because of its tool's name).
fn with_rule_properties(
    result: Option<serde_json::Value>,
    rule: Option<&ReportingDescriptor<'_>>,
) -> Option<serde_json::Value> {
    let from_rule = rule.and_then(|r| r.properties.as_ref());
    let mut merged = match result {
        Some(serde_json::Value::Object(map)) => map,
        Some(other) => return Some(other),
        None => serde_json::Map::new(),
    };
    for key in ["tags", "security-severity"] {
        if let Some(value) = from_rule.and_then(|p| p.get(key)) {
            merged.entry(key).or_insert_with(|| value.clone());
        }
    }
    (!merged.is_empty()).then_some(serde_json::Value::Object(merged))
}

/// A message's markdown, else its text, trimmed; `None` when empty.
fn pick<'m>(message: Option<&'m Multiformat<'_>>) -> Option<&'m str> {
    message.and_then(|m| {
        m.markdown
            .as_deref()
            .or(m.text.as_deref())
            .map(str::trim)
            .filter(|t| !t.is_empty())
    })
}

/// What converting a run's results needs from its header.
struct RunContext<'r, 'a> {
    run: &'r Run<'a>,
    tool: String,
    rules: RuleTable<'r, 'a>,
}

impl<'r, 'a> RunContext<'r, 'a> {
    fn new(run: &'r Run<'a>) -> RunContext<'r, 'a> {
        let tool = run
            .tool
            .driver
            .name
            .as_deref()
            .map_or_else(|| "sarif".to_owned(), str::to_lowercase);
        RunContext {
            run,
            tool,
            rules: RuleTable::new(&run.tool),
        }
    }

    /// Each rule's own description: `help` (markdown first), else `fullDescription`, else
    /// `shortDescription`; cut to [`RULE_TEXT_CHARS`] characters.
    fn rule_texts(&self) -> Vec<RuleText> {
        self.rules
            .components
            .iter()
            .flat_map(|rules| rules.iter())
            .filter_map(|rule| {
                let id = rule.id.as_deref()?;
                let help = pick(rule.help.as_ref());
                let text = help
                    .filter(|h| h.len() > 80)
                    .or_else(|| pick(rule.full_description.as_ref()))
                    .or(help)
                    .or_else(|| pick(rule.short_description.as_ref()))?;
                let mut kept: String = text.chars().take(RULE_TEXT_CHARS).collect();
                if kept.len() < text.len() {
                    kept.push('…');
                }
                Some(RuleText {
                    tool: self.tool.clone(),
                    rule_id: id.to_owned(),
                    text: kept,
                })
            })
            .collect()
    }

    /// The finding for `runs[run_index].results[result_index]` with its safe fix's edits, or
    /// `None` when the result is not a problem report (suppressed, passed, absent).
    fn finding(
        &self,
        run_index: usize,
        result_index: usize,
        result: &SarifResult<'_>,
        paths: &PathResolver,
    ) -> Result<Option<(Finding, Vec<ReportedEdit>)>, IngestError> {
        if !is_reportable(result) {
            return Ok(None);
        }
        let rule = self.rules.find(result);
        let rule_id = result
            .rule_id
            .as_deref()
            .or_else(|| result.rule.as_ref().and_then(|r| r.id.as_deref()))
            .or_else(|| rule.and_then(|r| r.id.as_deref()))
            .unwrap_or("unknown")
            .to_owned();
        let message = message_text(result, rule).unwrap_or_else(|| rule_id.clone());
        let physical = result
            .locations
            .as_ref()
            .and_then(|locations| locations.iter().find_map(|l| l.physical_location.as_ref()));
        let artifact = physical
            .and_then(|p| p.artifact_location.as_ref())
            .map(|artifact| with_artifact_table(artifact, self.run));
        let path = match artifact.and_then(|(uri, base)| uri.map(|uri| (uri, base))) {
            Some((uri, base)) => {
                let full = absolute_uri(uri, base, self.run);
                paths.resolve_uri(&full, || {
                    format!("runs[{run_index}].results[{result_index}].locations[0]")
                })?
            }
            None => ".".to_owned(),
        };
        let region = physical.and_then(|p| p.region.as_ref());
        let symbol = infer_symbol(&self.tool, &rule_id, &message);
        let fix = fix_of(result);
        let edits = if fix
            .as_ref()
            .is_some_and(|f| f.applicability == FixApplicability::Safe)
        {
            self.safe_edits(result, &path, paths)
        } else {
            Vec::new()
        };
        let finding = Finding {
            tool: self.tool.clone(),
            level: level_of(result, rule),
            help_uri: rule.and_then(|r| r.help_uri.as_deref()).map(str::to_owned),
            line: region.and_then(|r| r.start_line),
            column: region.and_then(|r| r.start_column),
            end_line: region.and_then(|r| r.end_line),
            end_column: region.and_then(|r| r.end_column),
            raw: with_rule_properties(result.properties.clone(), rule),
            fix,
            rule_id,
            message,
            path,
            symbol,
        };
        Ok(Some((finding, edits)))
    }

    /// The replacements of the result's first fix, when every one is in the finding's own
    /// file and has a region this reader places (lines and columns, or offsets); else none.
    fn safe_edits(
        &self,
        result: &SarifResult<'_>,
        path: &str,
        paths: &PathResolver,
    ) -> Vec<ReportedEdit> {
        let unit = match self.run.column_kind.as_deref() {
            Some("unicodeCodePoints") => TextUnit::Chars,
            _ => TextUnit::Utf16,
        };
        let Some(fix) = result.fixes.as_ref().and_then(|fixes| fixes.first()) else {
            return Vec::new();
        };
        let mut edits = Vec::new();
        for change in &fix.artifact_changes {
            let same_file = change
                .artifact_location
                .as_ref()
                .map(|artifact| with_artifact_table(artifact, self.run))
                .and_then(|(uri, base)| {
                    let full = absolute_uri(uri?, base, self.run);
                    paths.resolve_uri(&full, String::new).ok()
                })
                .is_some_and(|changed| changed == path);
            if !same_file {
                return Vec::new();
            }
            for replacement in &change.replacements {
                let range = replacement
                    .deleted_region
                    .as_ref()
                    .and_then(|region| region_range(region, unit));
                let Some(range) = range else {
                    return Vec::new();
                };
                let text = replacement
                    .inserted_content
                    .as_ref()
                    .and_then(|content| content.text.as_deref())
                    .unwrap_or_default();
                edits.push(ReportedEdit {
                    range,
                    replacement: text.to_owned(),
                });
            }
        }
        edits
    }
}

/// Where a `deletedRegion` lies: its lines and columns (all four given), else its
/// `charOffset`/`charLength`, else its `byteOffset`/`byteLength`.
fn region_range(region: &Region, unit: TextUnit) -> Option<ReportedRange> {
    if let (Some(start_line), Some(end_line), Some(start_column), Some(end_column)) = (
        region.start_line,
        region.end_line,
        region.start_column,
        region.end_column,
    ) {
        return Some(ReportedRange::LineColumn {
            start_line,
            start_column,
            end_line,
            end_column,
            unit,
        });
    }
    if let Some(start) = region.char_offset {
        let end = start.checked_add(region.char_length.unwrap_or(0))?;
        return Some(ReportedRange::Offsets { start, end, unit });
    }
    let start = region.byte_offset?;
    let end = start.checked_add(region.byte_length.unwrap_or(0))?;
    Some(ReportedRange::Offsets {
        start,
        end,
        unit: TextUnit::Bytes,
    })
}

/// The result's first fix. SARIF states no applicability (Ruff's SARIF lists its safe and
/// unsafe fixes alike), so a fix is `unspecified`, never safe, unless its property bag says
/// `"applicability": "safe"` (or another known spelling).
fn fix_of(result: &SarifResult<'_>) -> Option<AnalyzerFix> {
    let fix = result.fixes.as_ref()?.first()?;
    let applicability = fix
        .properties
        .as_ref()
        .and_then(|p| p.get("applicability"))
        .and_then(serde_json::Value::as_str)
        .and_then(FixApplicability::parse)
        .unwrap_or(FixApplicability::Unspecified);
    let description = fix
        .description
        .as_ref()
        .and_then(|d| d.text.as_deref().or(d.markdown.as_deref()))
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_owned);
    Some(AnalyzerFix {
        applicability,
        description,
        edits: Vec::new(),
    })
}

/// Whether a result reports a problem (not suppressed, not a pass, not gone from the baseline).
fn is_reportable(result: &SarifResult<'_>) -> bool {
    let kind_ok = !matches!(result.kind.as_deref(), Some("pass" | "notApplicable"));
    let suppressed = result.suppressions.as_ref().is_some_and(|list| {
        list.iter()
            .any(|s| matches!(s.status.as_deref(), None | Some("accepted")))
    });
    let absent = result.baseline_state.as_deref() == Some("absent");
    kind_ok && !suppressed && !absent
}

/// The result's level, else `none` for non-`fail` kinds, else the rule's default, else warning.
fn level_of(result: &SarifResult<'_>, rule: Option<&ReportingDescriptor<'_>>) -> Level {
    if let Some(level) = result.level.as_deref() {
        return Level::parse(level).unwrap_or(Level::Warning);
    }
    if result.kind.as_deref().is_some_and(|kind| kind != "fail") {
        return Level::None;
    }
    rule.and_then(|r| r.default_configuration.as_ref())
        .and_then(|c| c.level.as_deref())
        .and_then(Level::parse)
        .unwrap_or(Level::Warning)
}

/// `message.text` (or markdown), else the rule's `messageStrings[message.id]`, with `{n}`
/// placeholders replaced by `message.arguments[n]`.
fn message_text(
    result: &SarifResult<'_>,
    rule: Option<&ReportingDescriptor<'_>>,
) -> Option<String> {
    let message = result.message.as_ref()?;
    let template = message
        .text
        .as_deref()
        .or(message.markdown.as_deref())
        .or_else(|| {
            let id = message.id.as_deref()?;
            let strings = rule?.message_strings.as_ref()?;
            strings.get(id).and_then(|value| value.text.as_deref())
        })?;
    Some(match &message.arguments {
        Some(arguments) if !arguments.is_empty() => fill_placeholders(template, arguments),
        _ => template.to_owned(),
    })
}

/// Replaces `{n}` with `arguments[n]`; `{{`/`}}` stand for literal braces.
fn fill_placeholders(template: &str, arguments: &[Text<'_>]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find(['{', '}']) {
        out.push_str(&rest[..open]);
        let after = &rest[open..];
        if after.starts_with("{{") || after.starts_with("}}") {
            out.push_str(&after[..1]);
            rest = &after[2..];
            continue;
        }
        let replaced = after.strip_prefix('{').and_then(|inner| {
            let close = inner.find('}')?;
            let index: usize = inner[..close].parse().ok()?;
            Some((arguments.get(index)?, &inner[close + 1..]))
        });
        if let Some((argument, remaining)) = replaced {
            out.push_str(argument);
            rest = remaining;
        } else {
            out.push_str(&after[..1]);
            rest = &after[1..];
        }
    }
    out.push_str(rest);
    out
}

/// The artifact's URI and base id, taken from `run.artifacts[index]` when it has no URI.
fn with_artifact_table<'r>(
    artifact: &'r ArtifactLocation<'r>,
    run: &'r Run<'r>,
) -> (Option<&'r str>, Option<&'r str>) {
    if let Some(uri) = artifact.uri.as_deref() {
        return (Some(uri), artifact.uri_base_id.as_deref());
    }
    let listed = artifact
        .index
        .and_then(|index| usize::try_from(index).ok())
        .and_then(|index| run.artifacts.as_ref()?.get(index))
        .and_then(|entry| entry.location.as_ref());
    match listed {
        Some(location) => (
            location.uri.as_deref(),
            location
                .uri_base_id
                .as_deref()
                .or(artifact.uri_base_id.as_deref()),
        ),
        None => (None, artifact.uri_base_id.as_deref()),
    }
}

/// `uri` prefixed with what its `uriBaseId` chain stands for; unknown bases leave the URI
/// relative (to the project root).
fn absolute_uri(uri: &str, base_id: Option<&str>, run: &Run<'_>) -> String {
    if base_id.is_none() || uri.starts_with('/') || uri.contains("://") {
        return uri.to_owned();
    }
    let mut prefix = String::new();
    let mut next = base_id;
    let mut depth = 0;
    while let (Some(id), true) = (next, depth < MAX_BASE_DEPTH) {
        depth += 1;
        let Some(base) = run
            .original_uri_base_ids
            .as_ref()
            .and_then(|bases| bases.get(id))
        else {
            break;
        };
        let Some(base_uri) = base.uri.as_deref() else {
            break;
        };
        let separator = if base_uri.is_empty() || base_uri.ends_with('/') {
            ""
        } else {
            "/"
        };
        prefix = format!("{base_uri}{separator}{prefix}");
        if base_uri.starts_with('/') || base_uri.contains(':') {
            break;
        }
        next = base.uri_base_id.as_deref();
    }
    format!("{prefix}{uri}")
}

/// The rules of a run's driver and extensions, by index and by id.
struct RuleTable<'r, 'a> {
    components: Vec<&'r [ReportingDescriptor<'a>]>,
    by_id: HashMap<&'r str, &'r ReportingDescriptor<'a>>,
}

impl<'r, 'a> RuleTable<'r, 'a> {
    fn new(tool: &'r Tool<'a>) -> RuleTable<'r, 'a> {
        let mut components: Vec<&'r [ReportingDescriptor<'a>]> =
            vec![tool.driver.rules.as_deref().unwrap_or_default()];
        for extension in tool.extensions.iter().flatten() {
            components.push(extension.rules.as_deref().unwrap_or_default());
        }
        let mut by_id = HashMap::new();
        for rule in components.iter().flat_map(|rules| rules.iter()) {
            if let Some(id) = rule.id.as_deref() {
                by_id.entry(id).or_insert(rule);
            }
        }
        RuleTable { components, by_id }
    }

    /// The rule a result refers to, by index first, then by id (then by the id's prefix
    /// before the last `/`, for hierarchical ids such as `CA2000/1`).
    fn find(&self, result: &SarifResult<'_>) -> Option<&'r ReportingDescriptor<'a>> {
        let reference = result.rule.as_ref();
        let component = reference
            .and_then(|r| r.tool_component.as_ref())
            .and_then(|c| c.index)
            .and_then(|index| usize::try_from(index).ok())
            .map_or(0, |index| index + 1);
        let by_index = result
            .rule_index
            .or_else(|| reference.and_then(|r| r.index))
            .and_then(|index| usize::try_from(index).ok())
            .and_then(|index| self.components.get(component)?.get(index));
        if by_index.is_some() {
            return by_index;
        }
        let id = result
            .rule_id
            .as_deref()
            .or_else(|| reference.and_then(|r| r.id.as_deref()))?;
        self.by_id.get(id).copied().or_else(|| {
            let (parent, _) = id.rsplit_once('/')?;
            self.by_id.get(parent).copied()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest_options::IngestOptions;

    #[test]
    fn a_rules_help_or_description_is_kept_for_the_investigator() -> Result<(), IngestError> {
        let log = r###"{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"Ruff","rules":[
            {"id":"A001","help":{"text":"Variable is shadowing a builtin"},
             "fullDescription":{"text":"## What it does\nChecks for assignments that shadow builtins."}},
            {"id":"B002","shortDescription":{"text":"short only"}},
            {"id":"C003","help":{"text":"plain help that is long enough to be the whole story of this rule, more than eighty characters"}},
            {"id":"D004"}]}},"results":[]}]}"###;
        let options = IngestOptions::new("t.sarif", "/proj");
        let texts = parse_sarif(log, &PathResolver::new(&options), false)?.rule_texts;
        let text = |id: &str| {
            texts
                .iter()
                .find(|t| t.rule_id == id)
                .map(|t| t.text.as_str())
        };
        assert_eq!(
            text("A001"),
            Some("## What it does\nChecks for assignments that shadow builtins.")
        );
        assert_eq!(text("B002"), Some("short only"));
        assert!(text("C003").is_some_and(|t| t.starts_with("plain help")));
        assert_eq!(text("D004"), None);
        assert!(texts.iter().all(|t| t.tool == "ruff"));
        Ok(())
    }

    fn parse(text: &str) -> Result<Vec<Finding>, IngestError> {
        let options = IngestOptions::new("t.sarif", "/proj").with_base("/elsewhere");
        parse_sarif(text, &PathResolver::new(&options), false).map(|read| read.findings.0)
    }

    /// A rule's `tags` and `security-severity` reach each of its results that does not set
    /// them (routing reads them); a result's own properties stay, and a rule's other ones stay
    /// out.
    #[test]
    fn a_rule_s_tags_and_security_severity_reach_its_results() -> Result<(), IngestError> {
        let text = r#"{"runs":[{
            "tool":{"driver":{"name":"Semgrep","rules":[
                {"id":"r1","properties":{"tags":["security"],"security-severity":"8.1","precision":"high"}},
                {"id":"r2"}]}},
            "results":[
              {"ruleId":"r1","message":{"text":"a"},
               "locations":[{"physicalLocation":{"artifactLocation":{"uri":"a.py"},"region":{"startLine":1}}}]},
              {"ruleId":"r1","message":{"text":"b"},"properties":{"tags":["mine"],"p":1},
               "locations":[{"physicalLocation":{"artifactLocation":{"uri":"a.py"},"region":{"startLine":2}}}]},
              {"ruleId":"r2","message":{"text":"c"},
               "locations":[{"physicalLocation":{"artifactLocation":{"uri":"a.py"},"region":{"startLine":3}}}]}
            ]}]}"#;
        let raws: Vec<Option<serde_json::Value>> = parse(text)?
            .into_iter()
            .map(|finding| finding.raw)
            .collect();
        assert_eq!(
            raws,
            [
                Some(serde_json::json!({"tags": ["security"], "security-severity": "8.1"})),
                Some(serde_json::json!({"tags": ["mine"], "p": 1, "security-severity": "8.1"})),
                None,
            ]
        );
        Ok(())
    }

    /// A log written as an array (which serde reads as the log's one field, `runs`) is
    /// refused by the stream of results, saying what it expected.
    #[test]
    fn a_log_written_as_an_array_says_a_sarif_log_was_expected() {
        let error = parse("[[]]").map(|_| ()).expect_err("an array").to_string();
        assert!(error.contains("expected a SARIF log object"), "{error}");
    }

    #[test]
    fn placeholders_are_filled() {
        let arguments = [Text("x".into()), Text("y".into())];
        assert_eq!(
            fill_placeholders("{0} and {1} {{literal}} {7}", &arguments),
            "x and y {literal} {7}"
        );
    }

    /// A `uriBaseId` chain that loops is followed [`MAX_BASE_DEPTH`] links, no more.
    #[test]
    fn a_looping_base_chain_is_followed_to_its_depth_bound() -> Result<(), IngestError> {
        let text = r#"{"runs":[{"tool":{"driver":{"name":"T"}},
            "originalUriBaseIds":{"LOOP":{"uri":"d/","uriBaseId":"LOOP"}},
            "results":[{"ruleId":"r","message":{"text":"m"},
              "locations":[{"physicalLocation":{"artifactLocation":{"uri":"a.py","uriBaseId":"LOOP"}}}]}]}]}"#;
        let findings = parse(text)?;
        assert_eq!(
            findings[0].path,
            format!("{}a.py", "d/".repeat(MAX_BASE_DEPTH))
        );
        Ok(())
    }

    /// An absolute URI, or one with a scheme, is taken as it is whatever `uriBaseId` it names.
    #[test]
    fn an_absolute_uri_ignores_its_base_id() -> Result<(), IngestError> {
        let text = r#"{"runs":[{"tool":{"driver":{"name":"T"}},
            "originalUriBaseIds":{"SRC":{"uri":"src/"}},
            "results":[{"ruleId":"r","message":{"text":"m"},
              "locations":[{"physicalLocation":{"artifactLocation":{"uri":"/elsewhere/a.py","uriBaseId":"SRC"}}}]},
              {"ruleId":"r","message":{"text":"m"},
              "locations":[{"physicalLocation":{"artifactLocation":{"uri":"file:///elsewhere/b.py","uriBaseId":"SRC"}}}]},
              {"ruleId":"r","message":{"text":"m"},
              "locations":[{"physicalLocation":{"artifactLocation":{"uri":"c.py","uriBaseId":"SRC"}}}]}]}]}"#;
        let paths: Vec<String> = parse(text)?.into_iter().map(|f| f.path).collect();
        assert_eq!(paths, ["a.py", "b.py", "src/c.py"]);
        Ok(())
    }

    #[test]
    fn rule_level_message_strings_base_ids_and_artifact_index() -> Result<(), IngestError> {
        let text = r#"{"runs":[{
            "tool":{"driver":{"name":"CodeQL","rules":[
                {"id":"py/a","defaultConfiguration":{"level":"note"},
                 "messageStrings":{"default":{"text":"Variable {0} is unused."}},
                 "helpUri":"https://example.org/a"}]}},
            "originalUriBaseIds":{"SRC":{"uri":"src/","uriBaseId":"ROOT"},
                                  "ROOT":{"uri":"file:///elsewhere/"}},
            "artifacts":[{"location":{"uri":"lib/m%20n.py","uriBaseId":"SRC"}}],
            "results":[
              {"ruleIndex":0,"message":{"id":"default","arguments":["v"]},
               "locations":[{"physicalLocation":{"artifactLocation":{"index":0},
                  "region":{"startLine":4}}}]},
              {"ruleId":"py/a","kind":"review","message":{"text":"t"},
               "locations":[{"physicalLocation":{"artifactLocation":{"uri":"b.py","uriBaseId":"UNKNOWN"}}}]},
              {"ruleId":"py/a","message":{"text":"suppressed"},"suppressions":[{"kind":"inSource"}]},
              {"ruleId":"py/a","kind":"pass","message":{"text":"passed"}},
              {"ruleId":"py/b","message":{"text":"nowhere"}}
            ]}]}"#;
        let findings = parse(text)?;
        assert_eq!(findings.len(), 3);
        assert_eq!(findings[0].tool, "codeql");
        assert_eq!(findings[0].rule_id, "py/a");
        assert_eq!(findings[0].level, Level::Note);
        assert_eq!(findings[0].message, "Variable v is unused.");
        assert_eq!(findings[0].path, "src/lib/m n.py");
        assert_eq!(findings[0].line, Some(4));
        assert_eq!(
            findings[0].help_uri.as_deref(),
            Some("https://example.org/a")
        );
        assert_eq!(findings[1].level, Level::None);
        assert_eq!(findings[1].path, "b.py");
        assert_eq!(findings[2].path, ".");
        assert_eq!(findings[2].level, Level::Warning);
        Ok(())
    }

    #[test]
    fn several_runs_null_results_and_results_before_tool() -> Result<(), IngestError> {
        let text = r#"{"runs":[
            {"results":[{"ruleId":"A","message":{"text":"a"}}],"tool":{"driver":{"name":"First"}}},
            {"tool":{"driver":{"name":"Second"}},"results":null},
            {"tool":{"driver":{"name":"Third","rules":[{"id":"C","defaultConfiguration":{"level":"error"}}]}},
             "results":[{"ruleId":"C","message":{"text":"c"}}]}]}"#;
        let findings = parse(text)?;
        let seen: Vec<(&str, &str, Level)> = findings
            .iter()
            .map(|f| (f.tool.as_str(), f.rule_id.as_str(), f.level))
            .collect();
        assert_eq!(
            seen,
            vec![("first", "A", Level::Warning), ("third", "C", Level::Error)]
        );
        Ok(())
    }

    #[test]
    fn each_finding_knows_the_result_it_came_from() -> Result<(), IngestError> {
        let text = r#"{"runs":[
            {"tool":{"driver":{"name":"First"}},"results":[
                {"ruleId":"A","message":{"text":"suppressed"},"suppressions":[{"kind":"inSource"}]},
                {"ruleId":"A","message":{"text":"kept"}}]},
            {"tool":{"driver":{"name":"Second"}},"results":[
                {"ruleId":"B","kind":"pass","message":{"text":"passed"}},
                {"ruleId":"B","baselineState":"absent","message":{"text":"gone"}},
                {"ruleId":"B","message":{"text":"kept too"}}]}]}"#;
        let options = IngestOptions::new("t.sarif", "/proj");
        let read = parse_sarif(text, &PathResolver::new(&options), false)?;
        let (findings, positions) = (read.findings.0, read.positions);
        assert_eq!(findings.len(), positions.len());
        assert_eq!(
            positions,
            vec![
                ResultPosition { run: 0, result: 1 },
                ResultPosition { run: 1, result: 2 }
            ]
        );
        Ok(())
    }

    #[test]
    fn a_bad_path_in_a_later_result_fails_the_whole_log() {
        let text = r#"{"runs":[{"tool":{"driver":{"name":"x"}},"results":[
            {"message":{"text":"ok"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"a.py"}}}]},
            {"message":{"text":"bad"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"file:///etc/passwd"}}}]}]}]}"#;
        let error = parse(text).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(error.contains("runs[0].results[1].locations[0]"), "{error}");
    }

    #[test]
    fn extension_rules_are_found_through_the_tool_component() -> Result<(), IngestError> {
        let text = r#"{"runs":[{"tool":{"driver":{"name":"d"},
            "extensions":[{"name":"e","rules":[{"id":"E1","defaultConfiguration":{"level":"error"}}]}]},
            "results":[{"rule":{"index":0,"toolComponent":{"index":0}},"message":{"text":"m"},
                "locations":[{"physicalLocation":{"artifactLocation":{"uri":"a.c"}}}]}]}]}"#;
        let findings = parse(text)?;
        assert_eq!(findings[0].rule_id, "E1");
        assert_eq!(findings[0].level, Level::Error);
        Ok(())
    }

    /// A log with one result per `baselineState` (and one without), plus a suppressed new one.
    const BASELINED: &str = r#"{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"CodeQL"}},"results":[
        {"ruleId":"A","message":{"text":"new"},"baselineState":"new","locations":[{"physicalLocation":{"artifactLocation":{"uri":"a.py"},"region":{"startLine":1}}}]},
        {"ruleId":"B","message":{"text":"unchanged"},"baselineState":"unchanged","locations":[{"physicalLocation":{"artifactLocation":{"uri":"a.py"},"region":{"startLine":2}}}]},
        {"ruleId":"C","message":{"text":"updated"},"baselineState":"updated","locations":[{"physicalLocation":{"artifactLocation":{"uri":"a.py"},"region":{"startLine":3}}}]},
        {"ruleId":"D","message":{"text":"absent"},"baselineState":"absent","locations":[{"physicalLocation":{"artifactLocation":{"uri":"a.py"},"region":{"startLine":4}}}]},
        {"ruleId":"E","message":{"text":"no state"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"a.py"},"region":{"startLine":5}}}]},
        {"ruleId":"F","message":{"text":"new, suppressed"},"baselineState":"new","suppressions":[{"kind":"external"}],"locations":[{"physicalLocation":{"artifactLocation":{"uri":"a.py"},"region":{"startLine":6}}}]}
    ]}]}"#;

    #[test]
    fn new_only_keeps_the_new_results_and_counts_the_other_problems() {
        let options = IngestOptions::new("pr.sarif", "/proj").with_new_only();
        let parsed = crate::parse(BASELINED, crate::Format::Auto, &options).unwrap();
        let rules: Vec<&str> = parsed.findings.iter().map(|f| f.rule_id.as_str()).collect();
        assert_eq!(rules, ["A"]);
        // unchanged, updated and the one without a state; not the absent or suppressed ones.
        assert_eq!(parsed.not_new, 3);
        let everything = crate::parse(
            BASELINED,
            crate::Format::Auto,
            &IngestOptions::new("pr.sarif", "/proj"),
        )
        .unwrap();
        assert_eq!(everything.findings.len(), 4);
        assert_eq!(everything.not_new, 0);
    }

    #[test]
    fn new_only_refuses_a_log_without_any_baseline_state_and_says_what_to_give() {
        let log = r#"{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"Ruff"}},"results":[
            {"ruleId":"F401","message":{"text":"m"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"a.py"},"region":{"startLine":1}}}]}]}]}"#;
        let options = IngestOptions::new("ruff.sarif", "/proj").with_new_only();
        let error = crate::parse(log, crate::Format::Auto, &options)
            .unwrap_err()
            .to_string();
        assert!(error.contains("ruff.sarif"), "{error}");
        assert!(error.contains("none of its 1 results"), "{error}");
        assert!(error.contains("--changed-since"), "{error}");
    }

    #[test]
    fn new_only_refuses_a_format_without_baseline_state() {
        let options = IngestOptions::new("ruff.json", "/proj").with_new_only();
        let error = crate::parse("[]", crate::Format::Ruff, &options)
            .unwrap_err()
            .to_string();
        assert!(error.contains("ruff.json (read as ruff)"), "{error}");
        assert!(error.contains("carries no baseline state"), "{error}");
    }
}
