//! Deterministic classification before any agent: the known registry (`known.json`), rules
//! (`rules.json`), and the measurement of rules proposed by the rule-review phase.

mod classifier;
mod classify_error;
#[cfg(test)]
mod classify_tests;
mod known_baseline;
mod known_proposals;
mod known_prune;
mod known_registry;
mod measure;
#[cfg(test)]
mod registry_file_tests;
mod registry_merge;
mod registry_text;
mod rule;
mod rule_book;

pub use classifier::{Classified, Classifier};
pub use classify_error::ClassifyError;
pub use known_baseline::{BASELINE_SOURCE, Baseline, BaselineCount, summary};
pub use known_prune::{PruneOutcome, PruneWindow};
pub use known_registry::{DecisionTime, KnownEntry, KnownFix, KnownRegistry};
pub use measure::{AgentVerdict, measure};
pub use registry_merge::{
    MergeConflict, MergeSide, RegistryKind, merge_known, merge_registry_files, merge_rules,
};
pub use registry_text::LINE_SCHEMA_VERSION;
pub use rule::{CompiledRule, Measured, Rule, RuleStatus, When};
pub use rule_book::RuleBook;
