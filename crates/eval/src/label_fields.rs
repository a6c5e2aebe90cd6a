//! The fields a label may carry, whatever the file calls them: both readers (JSONL, CSV) fill
//! one of these and build the [`Label`] the same way.

use crate::label::{TRUTH_WORDS, parse_cwe, parse_truth};
use crate::{Label, LabelKey};

/// Which field of a label a column or key name stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Field {
    Fingerprint,
    Path,
    Line,
    Rule,
    Case,
    Category,
    Cwe,
    Truth,
    Note,
}

impl Field {
    /// The field a column header or JSON key names (case, spaces, dashes and a leading `#`
    /// ignored); `None` for a name no label uses (ignored by the readers).
    pub(crate) fn named(name: &str) -> Option<Field> {
        let name = name
            .trim()
            .trim_start_matches('#')
            .trim()
            .to_ascii_lowercase()
            .replace([' ', '-'], "_");
        Some(match name.as_str() {
            "fingerprint" | "finding_fingerprint" => Field::Fingerprint,
            "path" | "file" | "filename" | "file_path" | "filepath" | "uri" => Field::Path,
            "line" | "line_number" | "start_line" | "startline" | "lineno" => Field::Line,
            "rule" | "rule_id" | "ruleid" | "test_id" | "check" | "check_id" | "code" => {
                Field::Rule
            }
            "case" | "test_name" | "testname" | "test_case" | "testcase" | "name" => Field::Case,
            "category" => Field::Category,
            "cwe" | "cwe_id" | "issue_cwe" => Field::Cwe,
            "label" | "real" | "is_real" | "real_vulnerability" | "truth" | "expected"
            | "verdict" | "vulnerable" => Field::Truth,
            "note" | "notes" | "reason" | "comment" | "why" => Field::Note,
            _ => return None,
        })
    }
}

/// A label's fields as text, before they are checked.
#[derive(Debug, Default)]
pub(crate) struct LabelFields {
    fingerprint: Option<String>,
    path: Option<String>,
    line: Option<String>,
    rule: Option<String>,
    case: Option<String>,
    category: Option<String>,
    cwe: Option<String>,
    truth: Option<String>,
    note: Option<String>,
}

impl LabelFields {
    /// Sets `field` to `value`; an empty value counts as absent.
    pub(crate) fn set(&mut self, field: Field, value: &str) {
        let value = value.trim();
        if value.is_empty() {
            return;
        }
        let slot = match field {
            Field::Fingerprint => &mut self.fingerprint,
            Field::Path => &mut self.path,
            Field::Line => &mut self.line,
            Field::Rule => &mut self.rule,
            Field::Case => &mut self.case,
            Field::Category => &mut self.category,
            Field::Cwe => &mut self.cwe,
            Field::Truth => &mut self.truth,
            Field::Note => &mut self.note,
        };
        *slot = Some(value.to_owned());
    }

    /// The label, or what is wrong with it (the caller adds the line number).
    pub(crate) fn into_label(self, source_line: usize) -> Result<Label, String> {
        let truth = self
            .truth
            .ok_or_else(|| format!("no label value (a `label` or `real` field: {TRUTH_WORDS})"))?;
        let real = parse_truth(&truth)
            .ok_or_else(|| format!("`{truth}` is not a label value ({TRUTH_WORDS})"))?;
        let cwe = match &self.cwe {
            Some(text) => parse_cwe(text)?,
            None => None,
        };
        let line = match &self.line {
            Some(text) => Some(
                text.parse::<u32>()
                    .map_err(|_| format!("`{text}` is not a line number"))?,
            ),
            None => None,
        };
        let key = if let Some(fingerprint) = self.fingerprint {
            LabelKey::Fingerprint { fingerprint }
        } else if let Some(path) = self.path {
            LabelKey::Location {
                path,
                line,
                rule: self.rule,
            }
        } else if let Some(name) = self.case {
            LabelKey::Case {
                name,
                rule: self.rule,
            }
        } else {
            return Err(
                "a label needs a fingerprint, a path (with line and rule) or a test case name"
                    .to_owned(),
            );
        };
        Ok(Label {
            key,
            real,
            cwe,
            category: self.category,
            note: self.note,
            source_line,
        })
    }
}
