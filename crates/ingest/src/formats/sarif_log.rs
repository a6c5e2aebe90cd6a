//! The subset of SARIF 2.1.0 the SARIF adapter reads: tolerant, borrowed where possible.
//!
//! Unknown fields are ignored and almost everything is optional, because producers differ
//! widely; strings are `Text` so unescaped text borrows from the input instead of allocating.

use std::collections::HashMap;

use serde::Deserialize;

use crate::formats::borrowed_text::Text;

/// A SARIF log: only `runs` is required.
#[derive(Debug, Deserialize)]
pub(crate) struct SarifLog<'a> {
    #[serde(borrow)]
    pub(crate) runs: Vec<Run<'a>>,
}

/// One run of one tool, without its results (those are streamed by `sarif_stream`).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Run<'a> {
    #[serde(borrow)]
    pub(crate) tool: Tool<'a>,
    #[serde(default, borrow)]
    pub(crate) original_uri_base_ids: Option<HashMap<Text<'a>, ArtifactLocation<'a>>>,
    #[serde(default, borrow)]
    pub(crate) artifacts: Option<Vec<Artifact<'a>>>,
    /// How columns and `charOffset`s count: `utf16CodeUnits` (SARIF's default) or
    /// `unicodeCodePoints`.
    #[serde(default, borrow)]
    pub(crate) column_kind: Option<Text<'a>>,
}

/// The tool: its driver and any extensions (plugins) that also carry rules.
#[derive(Debug, Deserialize)]
pub(crate) struct Tool<'a> {
    #[serde(borrow)]
    pub(crate) driver: ToolComponent<'a>,
    #[serde(default, borrow)]
    pub(crate) extensions: Option<Vec<ToolComponent<'a>>>,
}

/// A driver or extension.
#[derive(Debug, Deserialize)]
pub(crate) struct ToolComponent<'a> {
    #[serde(default, borrow)]
    pub(crate) name: Option<Text<'a>>,
    #[serde(default, borrow)]
    pub(crate) rules: Option<Vec<ReportingDescriptor<'a>>>,
}

/// A rule's metadata.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ReportingDescriptor<'a> {
    #[serde(default, borrow)]
    pub(crate) id: Option<Text<'a>>,
    #[serde(default, borrow)]
    pub(crate) help_uri: Option<Text<'a>>,
    #[serde(default, borrow)]
    pub(crate) default_configuration: Option<ReportingConfiguration<'a>>,
    #[serde(default, borrow)]
    pub(crate) message_strings: Option<HashMap<Text<'a>, MessageString<'a>>>,
    #[serde(default, borrow)]
    pub(crate) short_description: Option<Multiformat<'a>>,
    #[serde(default, borrow)]
    pub(crate) full_description: Option<Multiformat<'a>>,
    #[serde(default, borrow)]
    pub(crate) help: Option<Multiformat<'a>>,
    /// `tags` and `security-severity` (`CodeQL`, Semgrep) decide the route.
    #[serde(default)]
    pub(crate) properties: Option<serde_json::Value>,
}

/// A `multiformatMessageString`: plain text and, optionally, markdown.
#[derive(Debug, Deserialize)]
pub(crate) struct Multiformat<'a> {
    #[serde(default, borrow)]
    pub(crate) text: Option<Text<'a>>,
    #[serde(default, borrow)]
    pub(crate) markdown: Option<Text<'a>>,
}

/// A rule's default configuration; only the level matters here.
#[derive(Debug, Deserialize)]
pub(crate) struct ReportingConfiguration<'a> {
    #[serde(default, borrow)]
    pub(crate) level: Option<Text<'a>>,
}

/// A message template in a rule's `messageStrings`.
#[derive(Debug, Deserialize)]
pub(crate) struct MessageString<'a> {
    #[serde(default, borrow)]
    pub(crate) text: Option<Text<'a>>,
}

/// One result (finding).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SarifResult<'a> {
    #[serde(default, borrow)]
    pub(crate) rule_id: Option<Text<'a>>,
    #[serde(default)]
    pub(crate) rule_index: Option<i64>,
    #[serde(default, borrow)]
    pub(crate) rule: Option<RuleReference<'a>>,
    #[serde(default, borrow)]
    pub(crate) level: Option<Text<'a>>,
    #[serde(default, borrow)]
    pub(crate) kind: Option<Text<'a>>,
    #[serde(default, borrow)]
    pub(crate) message: Option<Message<'a>>,
    #[serde(default, borrow)]
    pub(crate) locations: Option<Vec<Location<'a>>>,
    #[serde(default, borrow)]
    pub(crate) suppressions: Option<Vec<Suppression<'a>>>,
    #[serde(default, borrow)]
    pub(crate) baseline_state: Option<Text<'a>>,
    #[serde(default)]
    pub(crate) properties: Option<serde_json::Value>,
    #[serde(default, borrow)]
    pub(crate) fixes: Option<Vec<Fix<'a>>>,
}

/// One of `result.fixes`: its description, property bag and changes.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Fix<'a> {
    #[serde(default, borrow)]
    pub(crate) description: Option<Message<'a>>,
    #[serde(default)]
    pub(crate) properties: Option<serde_json::Value>,
    #[serde(default, borrow)]
    pub(crate) artifact_changes: Vec<ArtifactChange<'a>>,
}

/// The replacements a fix makes in one file.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ArtifactChange<'a> {
    #[serde(default, borrow)]
    pub(crate) artifact_location: Option<ArtifactLocation<'a>>,
    #[serde(default, borrow)]
    pub(crate) replacements: Vec<Replacement<'a>>,
}

/// `deletedRegion` becomes `insertedContent.text` (nothing when absent).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Replacement<'a> {
    #[serde(default)]
    pub(crate) deleted_region: Option<Region>,
    #[serde(default, borrow)]
    pub(crate) inserted_content: Option<ArtifactContent<'a>>,
}

/// Inserted text; only `text` is read (`binary` content is not applied).
#[derive(Debug, Deserialize)]
pub(crate) struct ArtifactContent<'a> {
    #[serde(default, borrow)]
    pub(crate) text: Option<Text<'a>>,
}

/// `result.rule`: a reference by id and/or index, possibly into an extension.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RuleReference<'a> {
    #[serde(default, borrow)]
    pub(crate) id: Option<Text<'a>>,
    #[serde(default)]
    pub(crate) index: Option<i64>,
    #[serde(default)]
    pub(crate) tool_component: Option<ToolComponentReference>,
}

/// Which tool component (`-1`/absent: the driver; `n`: `extensions[n]`).
#[derive(Debug, Deserialize)]
pub(crate) struct ToolComponentReference {
    #[serde(default)]
    pub(crate) index: Option<i64>,
}

/// A result message: literal text, or an id into the rule's `messageStrings` plus arguments.
#[derive(Debug, Deserialize)]
pub(crate) struct Message<'a> {
    #[serde(default, borrow)]
    pub(crate) text: Option<Text<'a>>,
    #[serde(default, borrow)]
    pub(crate) markdown: Option<Text<'a>>,
    #[serde(default, borrow)]
    pub(crate) id: Option<Text<'a>>,
    #[serde(default, borrow)]
    pub(crate) arguments: Option<Vec<Text<'a>>>,
}

/// A location; only the physical part is read.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Location<'a> {
    #[serde(default, borrow)]
    pub(crate) physical_location: Option<PhysicalLocation<'a>>,
}

/// A file and a region in it.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PhysicalLocation<'a> {
    #[serde(default, borrow)]
    pub(crate) artifact_location: Option<ArtifactLocation<'a>>,
    #[serde(default)]
    pub(crate) region: Option<Region>,
}

/// A URI, possibly relative to a named base (`uriBaseId`) or given via `run.artifacts[index]`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ArtifactLocation<'a> {
    #[serde(default, borrow)]
    pub(crate) uri: Option<Text<'a>>,
    #[serde(default, borrow)]
    pub(crate) uri_base_id: Option<Text<'a>>,
    #[serde(default)]
    pub(crate) index: Option<i64>,
}

/// An entry of `run.artifacts`.
#[derive(Debug, Deserialize)]
pub(crate) struct Artifact<'a> {
    #[serde(default, borrow)]
    pub(crate) location: Option<ArtifactLocation<'a>>,
}

/// Line/column region (1-based; `endColumn` exclusive), or offsets into the file (0-based).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Region {
    #[serde(default)]
    pub(crate) char_offset: Option<u64>,
    #[serde(default)]
    pub(crate) char_length: Option<u64>,
    #[serde(default)]
    pub(crate) byte_offset: Option<u64>,
    #[serde(default)]
    pub(crate) byte_length: Option<u64>,
    #[serde(default)]
    pub(crate) start_line: Option<u32>,
    #[serde(default)]
    pub(crate) start_column: Option<u32>,
    #[serde(default)]
    pub(crate) end_line: Option<u32>,
    #[serde(default)]
    pub(crate) end_column: Option<u32>,
}

/// A suppression (e.g. an in-source `noqa`); `status` absent means accepted.
#[derive(Debug, Deserialize)]
pub(crate) struct Suppression<'a> {
    #[serde(default, borrow)]
    pub(crate) status: Option<Text<'a>>,
}
