//! A run's verdicts out to where teams keep findings: SARIF 2.1.0 that carries each dismissal
//! as a `suppression` and each real finding's task (the analyzer's own results copied through),
//! and the `gh api` calls that dismiss the matching GitHub code scanning alerts.

mod disposition;
mod export_error;
mod github_dismissals;
mod github_limits;
mod input_copies;
mod input_index;
mod raw_object;
mod result_entry;
mod run_categories;
mod sarif_export;

pub use export_error::ExportError;
pub use github_dismissals::{DismissalScript, dismissed_reason};
pub use github_limits::{
    FILE_BYTES, LOCATIONS_PER_RESULT, LimitNotice, RESULTS_PER_RUN, RUNS_PER_FILE,
};
pub use input_copies::{
    InputToSave, LoadedInputs, ShareInputs, load_inputs, merge_inputs, save_inputs,
};
pub use input_index::{INDEX_FILE, INDEX_SCHEMA_VERSION, IndexedInput, InputIndex};
pub use sarif_export::{
    ExportCounts, SarifExport, SarifSource, export_sarif, export_sarif_audited,
};

#[cfg(test)]
mod export_tests;
#[cfg(test)]
mod github_upload_checks_tests;
#[cfg(test)]
#[cfg(feature = "real-tools")]
mod multitool_tests;
#[cfg(test)]
mod mutation_gap_tests;
