//! Which of the findings `start` read its run takes: `--changed-since REF` (the lines changed
//! since REF), `--new-only` (SARIF `baselineState: new`, applied by the reader) and
//! `--partition hash:K/N` (one share of a job split across runs, design note 50).

use std::path::Path;

use self_repair_engine::{Finding, FindingRecord, PartitionScope, RunScope};
use self_repair_ingest::{ChangedLines, Partition, fingerprint_set_digest, whole_rules};
use self_repair_process::Git;

use crate::app_error::AppError;

/// What `start` was asked to keep; the default keeps everything.
#[derive(Debug, Clone, Default)]
pub struct InputScope {
    /// `--changed-since REF`.
    pub changed_since: Option<String>,
    /// `--new-only`.
    pub new_only: bool,
    /// `--partition hash:K/N`, as given.
    pub partition: Option<String>,
}

/// The scope being applied: what was asked, read and counted so far.
#[derive(Debug)]
pub struct ScopeSelection {
    changed: Option<ChangedLines>,
    partition: Option<Partition>,
    record: RunScope,
}

impl InputScope {
    /// Checks the options and reads what they need (`git diff`), before any input is read:
    /// a bad option creates nothing.
    pub fn begin(&self, root: &Path) -> Result<ScopeSelection, AppError> {
        let partition = self
            .partition
            .as_deref()
            .map(Partition::parse)
            .transpose()
            .map_err(|e| AppError::Usage(e.to_string()))?;
        let changed = self
            .changed_since
            .as_deref()
            .map(|reference| ChangedLines::since(root, reference))
            .transpose()
            .map_err(|e| AppError::Usage(e.to_string()))?;
        let commit = self.changed_since.as_deref().and_then(|reference| {
            Git::at(root)
                .text(&[
                    "rev-parse",
                    "--verify",
                    "--quiet",
                    &format!("{reference}^{{commit}}"),
                ])
                .ok()
                .filter(|c| !c.is_empty())
        });
        Ok(ScopeSelection {
            changed,
            partition,
            record: RunScope {
                changed_since: self.changed_since.clone(),
                changed_since_commit: commit,
                new_only: self.new_only,
                out_of_scope: 0,
                partition: None,
            },
        })
    }
}

impl ScopeSelection {
    /// Counts the findings a reader set aside as not new.
    pub fn count_not_new(&mut self, not_new: usize) {
        self.record.out_of_scope += not_new as u32;
    }

    /// Keeps the findings on changed lines (all of them without `--changed-since`); with it,
    /// returns which of the findings given were kept.
    pub fn keep_changed(&mut self, findings: &mut Vec<Finding>) -> Option<Vec<bool>> {
        let changed = self.changed.as_ref()?;
        let kept: Vec<bool> = findings.iter().map(|f| changed.contains(f)).collect();
        let mut keep = kept.iter();
        findings.retain(|_| keep.next().copied().unwrap_or(false));
        self.record.out_of_scope += kept.iter().filter(|k| !**k).count() as u32;
        Some(kept)
    }

    /// Keeps this share's records (all of them without `--partition`). Rules with at least
    /// `survey_min` distinct findings in the input go whole to one share: a survey must see
    /// every finding of its rule, or two shares could decide one rule two ways.
    /// With `--partition`, returns which of the records given were kept.
    pub fn keep_share(
        &mut self,
        records: &mut Vec<FindingRecord>,
        survey_min: u32,
    ) -> Option<Vec<bool>> {
        let partition = self.partition?;
        let whole_rule_from = if survey_min >= 2 { survey_min } else { 0 };
        let input_unique = records.len() as u32;
        let input_digest = fingerprint_set_digest(records);
        let whole = whole_rules(records, whole_rule_from).len() as u32;
        let taken = partition.takes(records, whole_rule_from);
        for (index, record) in records.iter_mut().enumerate() {
            record.job_index = Some(index as u32);
        }
        let mut in_share = taken.iter();
        records.retain(|_| in_share.next().copied().unwrap_or(false));
        self.record.partition = Some(PartitionScope {
            share: partition.share(),
            shares: partition.shares(),
            whole_rule_from,
            whole_rules: whole,
            input_unique,
            input_digest,
            other_shares: input_unique - records.len() as u32,
        });
        Some(taken)
    }

    /// What the run records in `state.json` (`scope`): none when it takes all of its input.
    pub fn finish(self) -> Option<RunScope> {
        let whole = self.record.changed_since.is_none()
            && !self.record.new_only
            && self.record.partition.is_none();
        (!whole).then_some(self.record)
    }
}
