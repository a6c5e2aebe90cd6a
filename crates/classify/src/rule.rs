//! A deterministic classification rule: predicates over a finding's fields that decide a
//! verdict or choose a diagnosis route.

use globset::{Glob, GlobMatcher};
use regex::Regex;
use self_repair_engine::{Finding, Level, Verdict};
use serde::{Deserialize, Serialize};

use crate::ClassifyError;

/// Conditions; all given ones must hold, and at least one must be given.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct When {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<Level>,
    /// Glob over the project-relative path (`tests/**`, `**/*.pb.go`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path_glob: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_regex: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol_regex: Option<String>,
}

/// Where a rule stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleStatus {
    /// Proposed by a rule-review agent, measured by code; not applied until accepted.
    Proposed,
    /// Applied by `start`.
    #[default]
    Accepted,
    Rejected,
}

impl RuleStatus {
    /// The spelling used in files and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            RuleStatus::Proposed => "proposed",
            RuleStatus::Accepted => "accepted",
            RuleStatus::Rejected => "rejected",
        }
    }
}

/// How a rule did against a run's agent verdicts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    pub run: String,
    /// Findings of that run the rule matches (among those agents decided).
    pub matches: u32,
    /// Of those, how many got the rule's verdict from the agent.
    pub agreed: u32,
    /// `agreed / matches` (0 when nothing matched).
    pub accuracy: f64,
    /// Matching items whose agent verdict differed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disagreements: Vec<String>,
}

/// One rule of `rules.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    pub id: String,
    pub name: String,
    pub when: When,
    /// The verdict it decides; or
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
    /// the diagnosis route it chooses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub route: Option<String>,
    #[serde(default)]
    pub reason: String,
    #[serde(default)]
    pub status: RuleStatus,
    /// `manual`, or the run whose rule review proposed it.
    #[serde(default = "manual")]
    pub source: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured: Option<Measured>,
}

fn manual() -> String {
    "manual".to_owned()
}

/// A rule with its patterns compiled.
#[derive(Debug, Clone)]
pub struct CompiledRule<'a> {
    pub rule: &'a Rule,
    glob: Option<GlobMatcher>,
    message: Option<Regex>,
    symbol: Option<Regex>,
}

impl<'a> CompiledRule<'a> {
    /// Checks the rule and compiles its patterns.
    pub fn compile(rule: &'a Rule) -> Result<CompiledRule<'a>, ClassifyError> {
        let bad = |message: String| ClassifyError::BadRule {
            rule: rule.id.clone(),
            message,
        };
        let w = &rule.when;
        if w == &When::default() {
            return Err(bad("`when` needs at least one condition".to_owned()));
        }
        if rule.verdict.is_some() == rule.route.is_some() {
            return Err(bad("give exactly one of `verdict` and `route`".to_owned()));
        }
        let glob = w
            .path_glob
            .as_deref()
            .map(|g| Glob::new(g).map(|g| g.compile_matcher()))
            .transpose()
            .map_err(|e| bad(format!("path_glob: {e}")))?;
        let regex = |field: &str, p: Option<&str>| {
            p.map(Regex::new)
                .transpose()
                .map_err(|e| bad(format!("{field}: {e}")))
        };
        Ok(CompiledRule {
            rule,
            glob,
            message: regex("message_regex", w.message_regex.as_deref())?,
            symbol: regex("symbol_regex", w.symbol_regex.as_deref())?,
        })
    }

    /// True when every condition holds for the finding.
    pub fn matches(&self, f: &Finding) -> bool {
        let w = &self.rule.when;
        w.tool
            .as_ref()
            .is_none_or(|t| t.eq_ignore_ascii_case(&f.tool))
            && w.rule_id.as_ref().is_none_or(|r| *r == f.rule_id)
            && w.level.is_none_or(|l| l == f.level)
            && self.glob.as_ref().is_none_or(|g| g.is_match(&f.path))
            && self.message.as_ref().is_none_or(|r| r.is_match(&f.message))
            && self
                .symbol
                .as_ref()
                .is_none_or(|r| f.symbol.as_deref().is_some_and(|s| r.is_match(s)))
    }
}
