//! A labels file read whole: its format sniffed (JSONL or CSV), every label checked, with the
//! line of the first bad one.

use std::path::Path;

use serde::Serialize;

use crate::labels_csv::parse_csv;
use crate::labels_jsonl::parse_jsonl;
use crate::{EvalError, Label};

/// How a labels file was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LabelFormat {
    Jsonl,
    Csv,
}

impl LabelFormat {
    /// The spelling used in outputs.
    pub fn as_str(self) -> &'static str {
        match self {
            LabelFormat::Jsonl => "jsonl",
            LabelFormat::Csv => "csv",
        }
    }
}

/// Every label of one file.
#[derive(Debug, Clone, Serialize)]
pub struct LabelSet {
    /// The file's name as given (shown with every figure).
    pub source: String,
    pub format: LabelFormat,
    pub labels: Vec<Label>,
}

impl LabelSet {
    /// Reads and parses the labels file at `path`.
    pub fn read(path: &Path) -> Result<LabelSet, EvalError> {
        let text = std::fs::read_to_string(path).map_err(|source| EvalError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        LabelSet::parse(&path.display().to_string(), &text)
    }

    /// Parses `text`: JSONL when its first line that is not blank or a `#` comment opens an
    /// object, else CSV with a header. `source` names the file in messages.
    pub fn parse(source: &str, text: &str) -> Result<LabelSet, EvalError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let first = text
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty() && !l.starts_with("//") && !l.starts_with("# "));
        let format = match first {
            Some(line) if line.starts_with('{') => LabelFormat::Jsonl,
            _ => LabelFormat::Csv,
        };
        let parsed = match format {
            LabelFormat::Jsonl => parse_jsonl(text),
            LabelFormat::Csv => parse_csv(text),
        };
        let labels = parsed.map_err(|(line, problem)| EvalError::Parse {
            source_name: source.to_owned(),
            line,
            problem,
        })?;
        if labels.is_empty() {
            return Err(EvalError::Empty {
                source_name: source.to_owned(),
            });
        }
        Ok(LabelSet {
            source: source.to_owned(),
            format,
            labels,
        })
    }
}
