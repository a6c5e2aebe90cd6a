//! What code decides about a finding before any agent: the known registry first, then the
//! accepted rules in order.

use self_repair_engine::{Finding, Predecided};

use crate::{CompiledRule, KnownEntry, KnownRegistry};

/// The outcome for one finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Classified {
    /// Decided without an agent.
    Decided(Predecided),
    /// A rule chose this route.
    Route { route: String, rule: String },
    /// Nothing matched: the default route applies.
    Default,
}

/// The registry and the accepted rules.
pub struct Classifier<'a> {
    known: &'a KnownRegistry,
    rules: Vec<CompiledRule<'a>>,
}

impl<'a> Classifier<'a> {
    /// A classifier over a registry and compiled accepted rules.
    pub fn new(known: &'a KnownRegistry, rules: Vec<CompiledRule<'a>>) -> Classifier<'a> {
        Classifier { known, rules }
    }

    /// Decides a finding by fingerprint, then by rules. `code_unchanged` says whether the code
    /// a known entry was decided on is still there (an entry whose code changed decides
    /// nothing: the finding is triaged again).
    pub fn classify(
        &self,
        fingerprint: &str,
        finding: &Finding,
        code_unchanged: impl FnOnce(&KnownEntry) -> bool,
    ) -> Classified {
        if let Some(entry) = self
            .known
            .decision(fingerprint)
            .filter(|entry| code_unchanged(entry))
        {
            return Classified::Decided(Predecided {
                verdict: entry.verdict,
                by: "known".to_owned(),
                reason: format!("known.json ({}): {}", entry.source, entry.reason),
            });
        }
        for compiled in &self.rules {
            if !compiled.matches(finding) {
                continue;
            }
            let rule = compiled.rule;
            if let Some(verdict) = rule.verdict {
                return Classified::Decided(Predecided {
                    verdict,
                    by: "rule".to_owned(),
                    reason: format!("rule {} ({}): {}", rule.id, rule.name, rule.reason),
                });
            }
            if let Some(route) = &rule.route {
                return Classified::Route {
                    route: route.clone(),
                    rule: rule.id.clone(),
                };
            }
        }
        Classified::Default
    }
}
