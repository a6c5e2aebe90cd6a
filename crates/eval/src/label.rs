//! One label: what it points at (a finding or a test case) and whether that is a real problem.

use serde::Serialize;

/// What a label points at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum LabelKey {
    /// One finding, by its fingerprint (`report.json`'s `findings[].fingerprint`).
    Fingerprint { fingerprint: String },
    /// One finding, by where it is: a path (matched as a suffix at a `/`, either way round),
    /// and when given the line and the rule id.
    Location {
        path: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        line: Option<u32>,
        #[serde(skip_serializing_if = "Option::is_none")]
        rule: Option<String>,
    },
    /// Every finding whose path names this test case (a SAST benchmark's test name), of its
    /// CWE or rule when the label gives one.
    Case {
        name: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        rule: Option<String>,
    },
}

impl LabelKey {
    /// How specific the key is: a fingerprint beats a location, which beats a test case.
    pub(crate) fn rank(&self) -> u8 {
        match self {
            LabelKey::Fingerprint { .. } => 0,
            LabelKey::Location { .. } => 1,
            LabelKey::Case { .. } => 2,
        }
    }

    /// The key as a person reads it in a message.
    pub fn describe(&self) -> String {
        match self {
            LabelKey::Fingerprint { fingerprint } => format!("fingerprint {fingerprint}"),
            LabelKey::Location { path, line, rule } => {
                let line = line.map(|l| format!(":{l}")).unwrap_or_default();
                let rule = rule.as_deref().map(|r| format!(" {r}")).unwrap_or_default();
                format!("{path}{line}{rule}")
            }
            LabelKey::Case { name, .. } => format!("case {name}"),
        }
    }
}

/// One labelled finding or test case.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Label {
    pub key: LabelKey,
    /// True when the finding (or the test case) is a real problem.
    pub real: bool,
    /// The CWE it is about, when the labels say (a case label then matches only findings of
    /// that CWE, when the finding carries one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwe: Option<u32>,
    /// The benchmark's category (`sqli`, `pathtraver`), kept for messages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// Why it got this label, when the labels say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The line of the labels file it came from (1-based).
    pub source_line: usize,
}

/// Reads a label's truth: `true`/`false`, `real`/`false_positive`, `tp`/`fp`, `yes`/`no`,
/// `1`/`0`, `vulnerable`/`safe`, any case. `None` for anything else.
pub(crate) fn parse_truth(text: &str) -> Option<bool> {
    let text = text.trim().to_ascii_lowercase().replace(['-', ' '], "_");
    match text.as_str() {
        "true" | "real" | "tp" | "true_positive" | "yes" | "y" | "1" | "vulnerable" | "bad" => {
            Some(true)
        }
        "false" | "false_positive" | "fp" | "not_real" | "no" | "n" | "0" | "safe" | "good" => {
            Some(false)
        }
        _ => None,
    }
}

/// Reads a CWE: `78`, `CWE-78`, `cwe78`, `CWE-078`. `Ok(None)` for an empty field.
pub(crate) fn parse_cwe(text: &str) -> Result<Option<u32>, String> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Ok(None);
    }
    let digits = trimmed
        .trim_start_matches(|c: char| c.is_ascii_alphabetic())
        .trim_start_matches(['-', '_', ' ']);
    digits
        .parse::<u32>()
        .map(Some)
        .map_err(|_| format!("`{trimmed}` is not a CWE (write 78 or CWE-78)"))
}

/// The words `parse_truth` accepts, for messages.
pub(crate) const TRUTH_WORDS: &str = "true/false, real/false_positive, tp/fp, yes/no or 1/0";
