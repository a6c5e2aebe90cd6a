//! A run scored against a labels file: per route, per tier and in all, naming its corpus, its
//! labels and its model. `eval --json` prints it.

use std::collections::BTreeSet;

use serde::Serialize;

use crate::label_match::match_labels;
use crate::{
    Checked, Confusion, EvalError, FindingResult, LabelFormat, LabelSet, ModelSource, RunOutcome,
    ScoreRow, Spend,
};

/// Version of the `eval --json` layout.
pub const EVAL_SCHEMA_VERSION: u32 = 1;

/// The labels a report was scored against, and how well they fit the run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LabelsUsed {
    /// The labels file as given.
    pub source: String,
    pub format: LabelFormat,
    /// Labels in the file.
    pub labels: usize,
    /// Labels that hold for at least one finding.
    pub matched_labels: usize,
    /// Findings a label holds for.
    pub labelled_findings: usize,
    /// Findings no label holds for (in no figure but spend and findings counts).
    pub unlabelled_findings: usize,
    /// Findings whose most specific labels disagree (left unlabelled).
    pub conflicts: usize,
}

/// The whole evaluation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvalReport {
    pub schema_version: u32,
    pub run: String,
    pub corpus: String,
    pub labels: LabelsUsed,
    pub model: ModelSource,
    /// True when tokens and dollars were read from the transcripts; false: agents only.
    pub priced: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wall_seconds: Option<u64>,
    /// How the main session followed the dispatches (reference/eval.md, "Protocol fidelity").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol: Option<crate::Protocol>,
    pub all: ScoreRow,
    /// By diagnosis route, by name (`none` last).
    pub routes: Vec<ScoreRow>,
    /// By the tier whose answer stood, cheapest first (`none` last).
    pub tiers: Vec<ScoreRow>,
    /// The findings a second look checked, by what their first look said (`real`,
    /// `dismissal`, `unsure`): the second looks of reals apart (issue 48). None without any.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub checked: Vec<ScoreRow>,
}

impl EvalReport {
    /// Scores `run` against `labels`; refuses labels that match none of its findings.
    pub fn of(run: &RunOutcome, labels: &LabelSet) -> Result<EvalReport, EvalError> {
        let matching = match_labels(labels, run)?;
        let rows_by = |key: fn(&FindingResult) -> Option<&str>| -> Vec<ScoreRow> {
            let mut names: BTreeSet<&str> = BTreeSet::new();
            names.extend(run.findings.iter().map(|f| key(f).unwrap_or("none")));
            let mut names: Vec<&str> = names.into_iter().collect();
            names.sort_by_key(|n| (order(n), *n));
            names
                .into_iter()
                .map(|name| {
                    let members = (0..run.findings.len())
                        .filter(|&i| key(&run.findings[i]).unwrap_or("none") == name);
                    row(name, run, &matching.truth, members, Spend::default())
                })
                .collect()
        };
        let routes = rows_by(|f| f.route.as_deref());
        let tiers = rows_by(|f| f.tier.as_deref());
        let checked = [Checked::Real, Checked::Dismissal, Checked::Unsure]
            .into_iter()
            .filter_map(|kind| {
                let members: Vec<usize> = (0..run.findings.len())
                    .filter(|&i| run.findings[i].checked == Some(kind))
                    .collect();
                (!members.is_empty()).then(|| {
                    row(
                        kind.as_str(),
                        run,
                        &matching.truth,
                        members.into_iter(),
                        Spend::default(),
                    )
                })
            })
            .collect();
        let mut all = row(
            "all",
            run,
            &matching.truth,
            0..run.findings.len(),
            run.overhead,
        );
        // The whole run's spend is every item's, whether a finding names it or not.
        all.spend = run.items.values().fold(run.overhead, |mut sum, s| {
            sum += *s;
            sum
        });
        all.per_finding = all.spend.per(all.findings);
        let labelled_findings = matching.truth.iter().filter(|t| t.is_some()).count();
        Ok(EvalReport {
            schema_version: EVAL_SCHEMA_VERSION,
            run: run.run.clone(),
            corpus: run.corpus.clone(),
            labels: LabelsUsed {
                source: labels.source.clone(),
                format: labels.format,
                labels: labels.labels.len(),
                matched_labels: matching.matched_labels,
                labelled_findings,
                unlabelled_findings: run.findings.len() - labelled_findings,
                conflicts: matching.conflicts,
            },
            model: run.model.clone(),
            priced: run.priced,
            wall_seconds: run.wall_seconds,
            protocol: run.protocol.clone(),
            all,
            routes,
            tiers,
            checked,
        })
    }
}

/// Tiers cheapest first, then other names, `none` last.
fn order(name: &str) -> u8 {
    match name {
        "haiku" => 0,
        "sonnet" => 1,
        "opus" => 2,
        "none" => 4,
        _ => 3,
    }
}

fn row(
    name: &str,
    run: &RunOutcome,
    truth: &[Option<bool>],
    members: impl Iterator<Item = usize>,
    extra: Spend,
) -> ScoreRow {
    let mut confusion = Confusion::default();
    let mut findings = 0;
    // Each item once, in order: gathered, then sorted (a tree of 100,000 ids built one insert
    // at a time was a fifth of `eval` on a large run).
    let mut items: Vec<&str> = Vec::new();
    let mut labelled_items: Vec<&str> = Vec::new();
    for i in members {
        let finding = &run.findings[i];
        findings += 1;
        items.extend(finding.items.iter().map(String::as_str));
        if let Some(real) = truth[i] {
            confusion.add(real, finding.ended);
            labelled_items.extend(finding.items.iter().map(String::as_str));
        }
    }
    for ids in [&mut items, &mut labelled_items] {
        ids.sort_unstable();
        ids.dedup();
    }
    let spend_of = |ids: &[&str]| {
        ids.iter()
            .filter_map(|id| run.items.get(*id))
            .fold(extra, |mut sum, s| {
                sum += *s;
                sum
            })
    };
    let labelled_spend = spend_of(&labelled_items);
    let spend = spend_of(&items);
    ScoreRow::of(name, findings, confusion, spend, labelled_spend)
}

#[cfg(test)]
mod tests {
    use super::order;

    /// The tiers' rows: cheapest first, any other name after `opus` by name, `none` last.
    #[test]
    fn tiers_are_ordered_cheapest_first_and_none_last() {
        let mut names = ["none", "zeta", "opus", "custom", "sonnet", "haiku"];
        names.sort_by_key(|n| (order(n), *n));
        assert_eq!(names, ["haiku", "sonnet", "opus", "custom", "zeta", "none"]);
    }
}
