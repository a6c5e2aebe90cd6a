//! `.self-repair/rules.json`: hand-written rules and measured proposals.

use std::path::{Path, PathBuf};

use self_repair_store::write_json;
use serde::{Deserialize, Serialize};

use crate::{ClassifyError, CompiledRule, Rule, RuleStatus};

/// The rule file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleBook {
    #[serde(default = "one")]
    pub schema_version: u32,
    #[serde(default)]
    pub rules: Vec<Rule>,
}

fn one() -> u32 {
    1
}

impl Default for RuleBook {
    fn default() -> Self {
        RuleBook {
            schema_version: 1,
            rules: Vec::new(),
        }
    }
}

impl RuleBook {
    /// `<store>/rules.json`.
    pub fn path(store_dir: &Path) -> PathBuf {
        store_dir.join("rules.json")
    }

    /// Reads the rules; a missing file has none. Every rule is checked (patterns compile).
    pub fn load(store_dir: &Path) -> Result<RuleBook, ClassifyError> {
        let path = RuleBook::path(store_dir);
        let book: RuleBook = match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| ClassifyError::BadFile {
                path: path.clone(),
                message: e.to_string(),
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(RuleBook::default()),
            Err(e) => {
                return Err(ClassifyError::BadFile {
                    path,
                    message: e.to_string(),
                });
            }
        };
        for rule in &book.rules {
            CompiledRule::compile(rule).map_err(|e| ClassifyError::BadFile {
                path: path.clone(),
                message: e.to_string(),
            })?;
        }
        Ok(book)
    }

    /// Writes the file atomically.
    pub fn save(&self, store_dir: &Path) -> Result<(), ClassifyError> {
        Ok(write_json(&RuleBook::path(store_dir), self)?)
    }

    /// The accepted rules, compiled, in file order (the first match wins).
    pub fn accepted(&self) -> Vec<CompiledRule<'_>> {
        self.rules
            .iter()
            .filter(|r| r.status == RuleStatus::Accepted)
            .filter_map(|r| CompiledRule::compile(r).ok())
            .collect()
    }

    /// Adds measured proposals; one equal to an existing rule (same conditions and outcome)
    /// only refreshes that rule's measurement. Returns the ids added.
    pub fn add_proposals(&mut self, proposals: Vec<Rule>) -> Vec<String> {
        let mut added = Vec::new();
        for proposal in proposals {
            if let Some(existing) = self.rules.iter_mut().find(|r| {
                r.when == proposal.when
                    && r.verdict == proposal.verdict
                    && r.route == proposal.route
            }) {
                existing.measured = proposal.measured;
                continue;
            }
            added.push(proposal.id.clone());
            self.rules.push(proposal);
        }
        added
    }

    /// Sets a rule's status.
    pub fn set_status(&mut self, id: &str, status: RuleStatus) -> Result<&Rule, ClassifyError> {
        let rule = self
            .rules
            .iter_mut()
            .find(|r| r.id == id)
            .ok_or_else(|| ClassifyError::NoSuchRule(id.to_owned()))?;
        rule.status = status;
        Ok(rule)
    }
}
