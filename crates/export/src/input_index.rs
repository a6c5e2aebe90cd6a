//! `inputs/index.json` in a run's folder: where each finding came from in its input (a SARIF
//! result, a GitHub alert), and a verbatim copy of each SARIF input, so an export writes the
//! analyzer's own results back and dismisses the very alerts it read.

use serde::{Deserialize, Serialize};

/// The index file, relative to the run's folder.
pub const INDEX_FILE: &str = "inputs/index.json";

/// Version of the `inputs/index.json` layout.
pub const INDEX_SCHEMA_VERSION: u32 = 1;

/// Every input of a run, in the order `start` read them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputIndex {
    pub schema_version: u32,
    pub inputs: Vec<IndexedInput>,
}

/// One input: its name, its format, its copy (SARIF only) and where its findings went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexedInput {
    /// The file as given to `start` (`stdin` for standard input).
    pub source: String,
    /// The format it was read as (`sarif`, `ruff`, ...).
    pub format: String,
    /// The verbatim copy, relative to the run's folder (`inputs/1.sarif`); SARIF inputs only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copy: Option<String>,
    /// For each finding of this input, in input order: `[record, occurrence]`, its entry in
    /// `findings.json` and which of that entry's occurrences it is.
    pub findings: Vec<[u32; 2]>,
    /// For a SARIF input, `[run, result]` of each finding (parallel to `findings`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub results: Vec<[u32; 2]>,
    /// For GitHub code scanning alerts, the alert number of each finding (parallel to
    /// `findings`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alerts: Vec<u64>,
}

impl IndexedInput {
    /// The name of the `number`-th input's copy (1-based), relative to the run's folder.
    pub fn copy_name(number: usize) -> String {
        format!("inputs/{number}.sarif")
    }
}

impl InputIndex {
    /// The GitHub alert number of each `[record, occurrence]` read from code scanning alerts.
    pub fn alert_numbers(&self) -> std::collections::HashMap<[u32; 2], u64> {
        self.inputs
            .iter()
            .filter(|input| input.alerts.len() == input.findings.len())
            .flat_map(|input| {
                input
                    .findings
                    .iter()
                    .copied()
                    .zip(input.alerts.iter().copied())
            })
            .collect()
    }

    /// An index of `inputs`.
    pub fn new(inputs: Vec<IndexedInput>) -> InputIndex {
        InputIndex {
            schema_version: INDEX_SCHEMA_VERSION,
            inputs,
        }
    }
}
