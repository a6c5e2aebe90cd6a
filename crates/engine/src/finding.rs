//! The one normalized report every input format converges on.

use serde::{Deserialize, Serialize};

/// Severity of a finding, as the detector reported it (SARIF's four levels).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Default,
)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    Error,
    #[default]
    Warning,
    Note,
    None,
}

impl Level {
    /// The spelling used in files and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Note => "note",
            Level::None => "none",
        }
    }

    /// Parses the four accepted spellings.
    pub fn parse(text: &str) -> Option<Level> {
        match text {
            "error" => Some(Level::Error),
            "warning" => Some(Level::Warning),
            "note" => Some(Level::Note),
            "none" => Some(Level::None),
            _ => None,
        }
    }
}

/// One normalized report from a detector. `path` is relative to the project root and uses `/`.
///
/// Nothing in a finding is ever used as a file-system path component by this project except
/// `path`, and only after the store checked it stays inside the project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    pub tool: String,
    pub rule_id: String,
    #[serde(default)]
    pub level: Level,
    pub message: String,
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_column: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub help_uri: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<serde_json::Value>,
}

/// Where else an identical finding (same fingerprint) was reported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Occurrence {
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
}

/// How a finding was decided before any agent ran.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Predecided {
    pub verdict: crate::Verdict,
    /// `known` (registry) or `rule`.
    pub by: String,
    /// Why: the registry entry's reason, or the rule's name.
    pub reason: String,
}

/// One entry of a run's `findings.json`: a unique finding, its fingerprint and every place it
/// was reported, and what happens to it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FindingRecord {
    pub fingerprint: String,
    pub finding: Finding,
    /// Every report of it, the first one included.
    pub occurrences: Vec<Occurrence>,
    /// The triage item investigating it, when one does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predecided: Option<Predecided>,
}
