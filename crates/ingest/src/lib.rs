//! Turns what analyzers print (SARIF, clippy streams, Ruff, `ESLint`, knip, vulture, Bandit,
//! ts-prune, generic JSONL) and GitHub's code scanning alerts into `Finding`s with
//! project-relative paths, and fingerprints them so a finding is recognised again after
//! unrelated edits; chooses which findings a run takes (`--changed-since`, `--new-only`,
//! `--partition`).

mod changed_lines;
mod control_character;
mod edit_anchoring;
mod fingerprint;
mod format;
mod formats;
mod ingest_error;
mod ingest_options;
mod json_document;
mod parse;
mod parsed;
mod partition;
mod path_resolver;
mod project_files;
mod reported_edit;
mod scope_error;
mod sniff;
mod source_lines;
mod symbol_hint;

#[cfg(test)]
mod fix_edit_fixture_tests;
#[cfg(test)]
mod fixture_tests;
#[cfg(test)]
mod github_alerts_fixture_tests;

pub use changed_lines::ChangedLines;
pub use edit_anchoring::{MAX_FIX_EDIT_BYTES, MAX_FIX_EDITS};
pub use fingerprint::{fingerprint, fingerprint_all};
pub use format::Format;
pub use ingest_error::{IngestError, PathRefusal};
pub use ingest_options::IngestOptions;
pub use parse::parse;
pub use parsed::{Parsed, RULE_TEXT_CHARS, ResultPosition, RuleText};
pub use partition::{Partition, fingerprint_set_digest, whole_rules};
pub use scope_error::ScopeError;
pub use source_lines::SourceLines;
