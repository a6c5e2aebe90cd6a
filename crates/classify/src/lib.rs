//! Deterministic classification before any agent: the known registry (`known.json`), rules
//! (`rules.json`), and the measurement of rules proposed by the rule-review phase.

mod classifier;
mod classify_error;
mod known_registry;
mod measure;
mod rule;
mod rule_book;

pub use classifier::{Classified, Classifier};
pub use classify_error::ClassifyError;
pub use known_registry::{KnownEntry, KnownFix, KnownRegistry};
pub use measure::{AgentVerdict, measure};
pub use rule::{CompiledRule, Measured, Rule, RuleStatus, When};
pub use rule_book::RuleBook;
