//! What several commands and hooks share about one run: the project's configuration, the run's
//! inputs and the part of them it takes, its cost and progress, the bill and its confirmation,
//! the registry proposals, and the reports written when it ends.

pub(crate) mod audit_candidates;
pub(crate) mod audit_store;
pub mod confirm;
pub mod cost;
pub mod detection;
pub mod eval_outcome;
pub mod finalize;
pub mod fix_queue;
pub mod handle;
pub mod in_progress;
pub mod input_scope;
pub mod inputs;
pub(crate) mod item_files;
pub(crate) mod journal_answers;
pub mod kept_verdicts;
pub mod load;
pub(crate) mod next_step;
pub mod partitions;
pub mod preflight;
pub mod progress;
pub mod project_config;
pub mod proposals;
pub(crate) mod queue_drive;
pub mod run_history;
pub mod settled_answers;
pub(crate) mod start_recipe;
pub mod status_line;
pub mod status_report;
pub mod steering;
pub mod test_code_claim;
