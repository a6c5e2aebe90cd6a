//! Judges the analyzer's output after a fix: the group's findings gone, nothing new in the files
//! the fix touched.

use std::collections::{BTreeSet, HashSet};

use self_repair_engine::{Finding, FindingRecord};

use crate::finding_key;

/// What the analyzer's re-run says about a task.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AnalyzerVerdict {
    /// How many of the group's findings the analyzer no longer reports.
    pub gone: usize,
    /// The group's findings the analyzer still reports.
    pub remaining: Vec<Finding>,
    /// Findings in the touched files that the triage run's baseline did not hold.
    pub new_in_touched: Vec<Finding>,
}

impl AnalyzerVerdict {
    /// Compares `current` (the re-run's findings) with the group's findings and the run's
    /// `baseline` (every finding the triage run read). Only findings of the group's tools count:
    /// a detector run may report for several tools.
    pub fn judge(
        group: &[FindingRecord],
        baseline: &[FindingRecord],
        current: &[Finding],
        touched: &BTreeSet<String>,
    ) -> AnalyzerVerdict {
        let tools: BTreeSet<&str> = group.iter().map(|r| r.finding.tool.as_str()).collect();
        let current: Vec<&Finding> = current
            .iter()
            .filter(|f| tools.contains(f.tool.as_str()))
            .collect();
        let now: HashSet<String> = current.iter().map(|f| finding_key(f)).collect();
        let mut verdict = AnalyzerVerdict::default();
        let mut seen = HashSet::new();
        for record in group {
            let key = finding_key(&record.finding);
            if !seen.insert(key.clone()) {
                continue;
            }
            if now.contains(&key) {
                verdict.remaining.push(record.finding.clone());
            } else {
                verdict.gone += 1;
            }
        }
        let before: HashSet<String> = baseline.iter().map(|r| finding_key(&r.finding)).collect();
        verdict.new_in_touched = current
            .into_iter()
            .filter(|f| touched.contains(&f.path) && !before.contains(&finding_key(f)))
            .cloned()
            .collect();
        verdict
    }

    /// True when the group is gone and nothing new appeared.
    pub fn passed(&self) -> bool {
        self.remaining.is_empty() && self.new_in_touched.is_empty()
    }
}
