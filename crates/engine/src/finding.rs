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
    /// The analyzer's own fix for it, when its output carries one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix: Option<AnalyzerFix>,
}

impl Finding {
    /// True when the analyzer itself can fix it safely (its fix applies by default).
    pub fn has_safe_fix(&self) -> bool {
        self.fix
            .as_ref()
            .is_some_and(|f| f.applicability == FixApplicability::Safe)
    }
}

/// How an analyzer rates its own fix. Only `safe` fixes are applied without review: they are
/// what `ruff check --fix`, `cargo clippy --fix` and `eslint --fix` apply by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FixApplicability {
    /// Applied by default: Ruff `safe`, rustc/clippy `MachineApplicable`, an `ESLint` `fix`.
    Safe,
    /// May change behaviour, applied only on request: Ruff `unsafe`, rustc/clippy
    /// `MaybeIncorrect`, `ESLint` `suggestions`.
    Unsafe,
    /// Shown, never applied: Ruff `display-only`, rustc/clippy `HasPlaceholders`.
    DisplayOnly,
    /// The output does not say: SARIF `fixes` (SARIF has no applicability; Ruff's SARIF lists
    /// its safe and unsafe fixes alike), rustc/clippy `Unspecified`.
    Unspecified,
}

impl FixApplicability {
    /// The spelling used in files and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            FixApplicability::Safe => "safe",
            FixApplicability::Unsafe => "unsafe",
            FixApplicability::DisplayOnly => "display_only",
            FixApplicability::Unspecified => "unspecified",
        }
    }

    /// Reads the analyzers' spellings: Ruff's `safe`/`unsafe`/`displayonly` (and
    /// `display-only`), rustc's `MachineApplicable`/`MaybeIncorrect`/`HasPlaceholders`/
    /// `Unspecified`, and ours.
    pub fn parse(text: &str) -> Option<FixApplicability> {
        match text {
            "safe" | "MachineApplicable" => Some(FixApplicability::Safe),
            "unsafe" | "MaybeIncorrect" => Some(FixApplicability::Unsafe),
            "displayonly" | "display-only" | "display_only" | "HasPlaceholders" => {
                Some(FixApplicability::DisplayOnly)
            }
            "unspecified" | "Unspecified" => Some(FixApplicability::Unspecified),
            _ => None,
        }
    }
}

/// The analyzer's own fix for a finding: how safe it says it is, its one-line description, and
/// for a safe fix read with its file at hand, the edits themselves (`self-repair apply-fixes`
/// applies them; none when the analyzer gave none, or too many, reference/fix.md).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnalyzerFix {
    pub applicability: FixApplicability,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub edits: Vec<FixEdit>,
}

/// One replacement of an analyzer's fix, anchored to the text it expects: the whole lines it
/// touches as the file held them when the findings were read, so it applies only to that text
/// (found at `line`, or once anywhere in the file when lines above it moved).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FixEdit {
    /// The 1-based line where `lines` started.
    pub line: u32,
    /// Every line the edit touches, whole, line endings included.
    pub lines: String,
    /// Where the replaced text starts in `lines` (a byte offset).
    pub start: u32,
    /// Where it ends in `lines` (exclusive; `start` for an insertion).
    pub end: u32,
    /// What replaces it.
    pub replacement: String,
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
    /// A partition's record (`start --partition`): its place among the job's distinct
    /// findings, in the order a single run over the whole input has them. `merge` puts the
    /// shares' records back in that order, so the merged run numbers its items as that run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_index: Option<u32>,
}

impl FindingRecord {
    /// A record of `finding` with `fingerprint`, reported once, investigated by no item yet.
    pub fn new(fingerprint: impl Into<String>, finding: Finding) -> FindingRecord {
        FindingRecord {
            fingerprint: fingerprint.into(),
            finding,
            occurrences: Vec::new(),
            item: None,
            predecided: None,
            job_index: None,
        }
    }
}
