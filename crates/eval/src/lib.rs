//! A run's verdicts scored against labels: labels files read (per finding or per test case,
//! JSONL or CSV), matched to the run's findings, and scored per route, per tier and in all with
//! what the verdicts cost; as text, JSON, a markdown section and one SVG (reference/eval.md).
//! The app fills a [`RunOutcome`] from a run folder: this crate never reads the store.

mod checked;
mod confusion;
mod ended;
mod eval_error;
mod eval_report;
mod figure_format;
mod label;
mod label_fields;
mod label_match;
mod label_set;
mod labels_csv;
mod labels_jsonl;
mod markdown_section;
mod protocol;
mod run_outcome;
mod score_row;
mod spend;
mod svg_picture;
mod text_table;

pub use checked::Checked;
pub use confusion::Confusion;
pub use ended::Ended;
pub use eval_error::EvalError;
pub use eval_report::{EVAL_SCHEMA_VERSION, EvalReport, LabelsUsed};
pub use label::{Label, LabelKey};
pub use label_set::{LabelFormat, LabelSet};
pub use protocol::Protocol;
pub use run_outcome::{FindingResult, ModelSource, RunOutcome};
pub use score_row::ScoreRow;
pub use spend::{Spend, SpendPer};

#[cfg(test)]
mod known_answer_tests;
#[cfg(test)]
mod label_tests;
#[cfg(test)]
mod match_tests;
#[cfg(test)]
mod render_tests;
#[cfg(test)]
mod synthetic_run;
