//! `.self-repair/rules.json`: hand-written rules and measured proposals, one rule a line
//! (`crate::registry_text`) so a team shares them in git.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use self_repair_engine::timestamp::rfc3339;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::known_registry::now_secs;
use crate::registry_text::{
    LINE_SCHEMA_VERSION, RegistryText, bad_line, header, read_registry, split, write_lines,
};
use crate::{ClassifyError, CompiledRule, Rule, RuleStatus};

/// The rule file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleBook {
    #[serde(default = "one")]
    pub schema_version: u32,
    #[serde(default)]
    pub rules: Vec<Rule>,
    /// When each rule was last decided (added, accepted, rejected), by id, RFC 3339: a merge
    /// keeps the later decision. Hand-written rules have none and count as the oldest.
    #[serde(skip)]
    decided_at: BTreeMap<String, String>,
}

fn one() -> u32 {
    1
}

impl Default for RuleBook {
    fn default() -> Self {
        RuleBook {
            schema_version: LINE_SCHEMA_VERSION,
            rules: Vec::new(),
            decided_at: BTreeMap::new(),
        }
    }
}

/// What the header line of `rules.json` says to a person opening it.
const ABOUT: &str =
    "self-repair rules: one rule a line, the first accepted match wins (reference/config.md)";

/// The field a rule's line carries beside the rule's own.
const DECIDED_AT: &str = "decided_at";

impl RuleBook {
    /// `<store>/rules.json`.
    pub fn path(store_dir: &Path) -> PathBuf {
        store_dir.join("rules.json")
    }

    /// Reads the rules; a missing file has none. Every rule is checked (patterns compile).
    pub fn load(store_dir: &Path) -> Result<RuleBook, ClassifyError> {
        RuleBook::load_file(&RuleBook::path(store_dir))
    }

    /// Reads a rule file in either form: one rule a line, or one document
    /// (`{"schema_version": 1, "rules": [...]}`, what older versions wrote and what a person
    /// may write by hand). One id on two lines (git's union merge of two branches that both
    /// changed it) keeps the later decision, and of two equally old ones the later line, in
    /// the place of the first.
    pub fn load_file(path: &Path) -> Result<RuleBook, ClassifyError> {
        let Some(text) = read_registry(path)? else {
            return Ok(RuleBook::default());
        };
        RuleBook::parse(&text, path)
    }

    /// [`RuleBook::load_file`] on text already read; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<RuleBook, ClassifyError> {
        let mut book = RuleBook::default();
        match split(text, path, &["rules"])? {
            RegistryText::Document(value) => {
                let document: RuleBook =
                    serde_json::from_value(value).map_err(|e| ClassifyError::BadFile {
                        path: path.to_path_buf(),
                        message: e.to_string(),
                    })?;
                book.rules = document.rules;
            }
            RegistryText::Lines(lines) => {
                for (number, line) in lines {
                    let mut value: Value = serde_json::from_str(line)
                        .map_err(|e| bad_line(path, number, &e.to_string()))?;
                    let decided_at = value
                        .as_object_mut()
                        .and_then(|map| map.remove(DECIDED_AT))
                        .and_then(|at| at.as_str().map(str::to_owned));
                    let rule: Rule = serde_json::from_value(value)
                        .map_err(|e| bad_line(path, number, &e.to_string()))?;
                    CompiledRule::compile(&rule)
                        .map_err(|e| bad_line(path, number, &e.to_string()))?;
                    book.keep_later(rule, decided_at);
                }
            }
        }
        for rule in &book.rules {
            CompiledRule::compile(rule).map_err(|e| ClassifyError::BadFile {
                path: path.to_path_buf(),
                message: e.to_string(),
            })?;
        }
        Ok(book)
    }

    /// Adds a rule read from a file unless one with its id was decided later.
    fn keep_later(&mut self, rule: Rule, decided_at: Option<String>) {
        if let Some(at) = self.rules.iter().position(|r| r.id == rule.id) {
            if self.decided_at.get(&rule.id) > decided_at.as_ref() {
                return;
            }
            self.rules.remove(at);
            self.put_at(at, rule, decided_at);
        } else {
            self.put_at(self.rules.len(), rule, decided_at);
        }
    }

    /// Places a rule at `index` with its decision time as read from a file (a merge).
    pub(crate) fn put_at(&mut self, index: usize, rule: Rule, decided_at: Option<String>) {
        match decided_at {
            Some(at) => self.decided_at.insert(rule.id.clone(), at),
            None => self.decided_at.remove(&rule.id),
        };
        self.rules.insert(index, rule);
    }

    /// Writes the file atomically, one rule a line, in order.
    pub fn save(&self, store_dir: &Path) -> Result<(), ClassifyError> {
        self.save_file(&RuleBook::path(store_dir))
    }

    /// [`RuleBook::save`] to any path (the merge driver writes git's `%A`).
    pub fn save_file(&self, path: &Path) -> Result<(), ClassifyError> {
        let lines = self.rules.iter().map(|rule| {
            let mut value = serde_json::to_value(rule)?;
            if let (Some(map), Some(at)) = (value.as_object_mut(), self.decided_at(&rule.id)) {
                map.insert(DECIDED_AT.to_owned(), Value::from(at));
            }
            Ok(value)
        });
        write_lines(path, &header(ABOUT), lines)
    }

    /// When the rule `id` was last decided (RFC 3339), when it says.
    pub fn decided_at(&self, id: &str) -> Option<&str> {
        self.decided_at.get(id).map(String::as_str)
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
            self.decided_at
                .insert(proposal.id.clone(), rfc3339(now_secs()));
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
        self.decided_at.insert(id.to_owned(), rfc3339(now_secs()));
        Ok(rule)
    }
}
