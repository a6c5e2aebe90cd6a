//! What part of its input a run takes (`start --changed-since`, `--new-only`, `--partition`),
//! recorded in `state.json` so reports say it and `merge` can check a job's partitions.

use serde::{Deserialize, Serialize};

/// `intake.scope`: absent when the run takes all of its input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct RunScope {
    /// `--changed-since REF`: the revision as given (`origin/main`, `origin/main...`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changed_since: Option<String>,
    /// The commit REF named when the run started, when it names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changed_since_commit: Option<String>,
    /// `--new-only`: only SARIF results whose `baselineState` is `new`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub new_only: bool,
    /// Findings read but outside the scope (not on a changed line, not new): not in the run.
    #[serde(default)]
    pub out_of_scope: u32,
    /// `--partition hash:K/N`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition: Option<PartitionScope>,
}

/// One share of a job split across runs (design note 50).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartitionScope {
    /// K: this run's share, from 1.
    pub share: u32,
    /// N: the shares of the job.
    pub shares: u32,
    /// Rules with at least this many distinct findings in the input went whole to one share
    /// (the config's `survey_min`; 0 when surveys are off and every finding went by its
    /// fingerprint).
    pub whole_rule_from: u32,
    /// How many rules went whole to one share (this one or another).
    pub whole_rules: u32,
    /// Distinct findings in the job's whole input, every share's.
    pub input_unique: u32,
    /// The digest of the whole input's fingerprints: every share of one job has the same.
    pub input_digest: String,
    /// Distinct findings left to the other shares.
    pub other_shares: u32,
}

impl PartitionScope {
    /// `hash:K/N`.
    pub fn spec(&self) -> String {
        format!("hash:{}/{}", self.share, self.shares)
    }
}

impl RunScope {
    /// What the run left out and why, for `start`, `status` and `report.md` to put after
    /// their `scope:` label.
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        let mut kept = Vec::new();
        if let Some(reference) = &self.changed_since {
            let commit = self
                .changed_since_commit
                .as_deref()
                .map(|c| format!(" ({})", &c[..c.len().min(12)]))
                .unwrap_or_default();
            kept.push(format!("on lines changed since {reference}{commit}"));
        }
        if self.new_only {
            kept.push("new in the analyzer's baseline comparison".to_owned());
        }
        if !kept.is_empty() {
            parts.push(format!(
                "only findings {}: {} finding(s) out of scope, not in this run",
                kept.join(" and "),
                self.out_of_scope
            ));
        }
        if let Some(p) = &self.partition {
            parts.push(format!(
                "partition {}: {} of the job's {} distinct findings are in the other {} share(s)",
                p.spec(),
                p.other_shares,
                p.input_unique,
                p.shares - 1
            ));
        }
        parts.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_names_what_was_left_out_and_why() {
        let scope = RunScope {
            changed_since: Some("origin/main...".into()),
            changed_since_commit: None,
            new_only: true,
            out_of_scope: 40,
            partition: Some(PartitionScope {
                share: 2,
                shares: 4,
                whole_rule_from: 5,
                whole_rules: 3,
                input_unique: 100,
                input_digest: "0123456789abcdef".into(),
                other_shares: 75,
            }),
        };
        assert_eq!(
            scope.summary(),
            "only findings on lines changed since origin/main... and new in the analyzer's \
             baseline comparison: 40 finding(s) out of scope, not in this run; partition \
             hash:2/4: 75 of the job's 100 distinct findings are in the other 3 share(s)"
        );
        let commit = RunScope {
            changed_since: Some("main".into()),
            changed_since_commit: Some("0123456789abcdef0123456789abcdef01234567".into()),
            out_of_scope: 1,
            ..RunScope::default()
        };
        assert_eq!(
            commit.summary(),
            "only findings on lines changed since main (0123456789ab): 1 finding(s) out of \
             scope, not in this run"
        );
    }
}
