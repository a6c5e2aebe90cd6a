//! The result of reading one analyzer output.

use self_repair_engine::Finding;

use crate::format::Format;

/// Findings read from one input, with the format actually used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    /// The format used; for `Format::Auto` the one the sniffer chose (never `Auto`).
    pub format: Format,
    /// The findings, in input order, paths relative to the project root with `/`.
    pub findings: Vec<Finding>,
    /// The folder the analyzer ran in, when its absolute paths were outside the project and
    /// no `--base` was given: inferred from the project's files (`/home/runner/work/app/app`).
    pub inferred_base: Option<String>,
    /// What the analyzer says about each rule it reported (SARIF `help`, `fullDescription`,
    /// `shortDescription`): agents have no network, so a docs URL alone tells them nothing.
    pub rule_texts: Vec<RuleText>,
    /// With `IngestOptions::new_only`: results set aside because they are not new (SARIF
    /// `baselineState` other than `new`); they are not in `findings`.
    pub not_new: usize,
    /// For a SARIF log, where each finding's result sits (`findings[i]` came from
    /// `positions[i]`), so an export can write the analyzer's own result back with the verdict;
    /// empty for other formats.
    pub positions: Vec<ResultPosition>,
    /// For GitHub code scanning alerts, each finding's alert number (`findings[i]` came from
    /// alert `alerts[i]`), so an export dismisses the very alert; empty for other formats.
    pub alerts: Vec<u64>,
    /// For GitHub code scanning alerts, those left out because they are not open (dismissed
    /// or fixed): counted so `start` can say so; 0 for other formats.
    pub not_open: usize,
}

/// Where a finding's result sits in a SARIF log: `runs[run].results[result]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct ResultPosition {
    pub run: u32,
    pub result: u32,
}

/// The analyzer's own description of one rule.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RuleText {
    pub tool: String,
    pub rule_id: String,
    /// Markdown or plain text, at most [`RULE_TEXT_CHARS`] characters.
    pub text: String,
}

/// The longest rule description kept (a rule's whole documentation page is not needed).
pub const RULE_TEXT_CHARS: usize = 2_000;
