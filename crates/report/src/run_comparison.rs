//! Run over run by finding (`self-repair runs --compare`): each fingerprint of two runs of a
//! project as new, persisting, resolved or reappeared, with its verdict in each run.

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;

use crate::run_report::RunReport;

/// Version of the `runs --compare --json` layout.
pub const COMPARISON_SCHEMA_VERSION: u32 = 1;

/// What became of a finding from the earlier run to the later one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingChange {
    /// In the later run only, and in no run before it.
    New,
    /// In the later run only, and in a run before the earlier one: fixed once, back again.
    Reappeared,
    /// In both runs.
    Persisting,
    /// In the earlier run only.
    Resolved,
}

impl FindingChange {
    /// The word tables print.
    pub fn as_str(self) -> &'static str {
        match self {
            FindingChange::New => "new",
            FindingChange::Reappeared => "reappeared",
            FindingChange::Persisting => "persisting",
            FindingChange::Resolved => "resolved",
        }
    }
}

/// One fingerprint of the comparison.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ComparedFinding {
    pub fingerprint: String,
    pub change: FindingChange,
    pub tool: String,
    pub rule_id: String,
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// Its verdict in the earlier run (`None`: not in it, or not decided there).
    pub verdict_before: Option<String>,
    /// Its verdict in the later run.
    pub verdict_after: Option<String>,
    /// Both runs hold it and decided it differently.
    pub verdict_changed: bool,
}

/// How many findings of each kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ChangeCounts {
    pub new: usize,
    pub persisting: usize,
    pub resolved: usize,
    pub reappeared: usize,
}

/// What a run's report says of the project's previous triage run: which one, and how many of
/// the findings are new, persisting, resolved and reappeared since it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SincePrevious {
    /// The previous run's id.
    pub run: String,
    pub counts: ChangeCounts,
}

/// One run's findings as a comparison reads them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunFindings {
    pub run: String,
    pub findings: Vec<SeenFinding>,
}

/// A finding of a run: its fingerprint, where it is and its verdict there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeenFinding {
    pub fingerprint: String,
    pub tool: String,
    pub rule_id: String,
    pub path: String,
    pub line: Option<u32>,
    /// `None` while undecided.
    pub verdict: Option<String>,
}

impl RunFindings {
    /// The findings of `records` without their verdicts: enough to count what changed.
    pub fn unjudged(run: &str, records: &[self_repair_engine::FindingRecord]) -> RunFindings {
        RunFindings {
            run: run.to_owned(),
            findings: records
                .iter()
                .map(|r| SeenFinding {
                    fingerprint: r.fingerprint.clone(),
                    tool: r.finding.tool.clone(),
                    rule_id: r.finding.rule_id.clone(),
                    path: r.finding.path.clone(),
                    line: r.finding.line,
                    verdict: None,
                })
                .collect(),
        }
    }

    /// The findings of `report`, with the verdicts it has so far.
    pub fn of(report: &RunReport) -> RunFindings {
        RunFindings {
            run: report.run.clone(),
            findings: report
                .findings
                .iter()
                .map(|f| SeenFinding {
                    fingerprint: f.fingerprint.to_string(),
                    tool: f.tool.to_string(),
                    rule_id: f.rule_id.to_string(),
                    path: f.path.to_string(),
                    line: f.line,
                    verdict: f.verdict.as_deref().map(str::to_owned),
                })
                .collect(),
        }
    }
}

/// Two runs compared finding by finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RunComparison {
    pub schema_version: u32,
    /// The earlier run.
    pub from: String,
    /// The later run.
    pub to: String,
    pub counts: ChangeCounts,
    /// Every fingerprint of either run: new, reappeared, persisting, resolved; then by path.
    pub findings: Vec<ComparedFinding>,
}

impl RunComparison {
    /// Compares `earlier` with `later`; `seen_before` holds the fingerprints of every run of
    /// the project older than `earlier` (what tells a reappeared finding from a new one).
    pub fn compare(
        earlier: &RunFindings,
        later: &RunFindings,
        seen_before: &HashSet<String>,
    ) -> RunComparison {
        let before: BTreeMap<&str, &SeenFinding> = earlier
            .findings
            .iter()
            .map(|f| (f.fingerprint.as_str(), f))
            .collect();
        let after: BTreeMap<&str, &SeenFinding> = later
            .findings
            .iter()
            .map(|f| (f.fingerprint.as_str(), f))
            .collect();
        let mut findings = Vec::with_capacity(before.len().max(after.len()));
        let mut counts = ChangeCounts::default();
        for (&fingerprint, &outcome) in &after {
            let was = before.get(fingerprint).copied();
            let change = match was {
                Some(_) => FindingChange::Persisting,
                None if seen_before.contains(fingerprint) => FindingChange::Reappeared,
                None => FindingChange::New,
            };
            findings.push(compared(outcome, change, was, Some(outcome)));
        }
        for (&fingerprint, &outcome) in &before {
            if !after.contains_key(fingerprint) {
                findings.push(compared(
                    outcome,
                    FindingChange::Resolved,
                    Some(outcome),
                    None,
                ));
            }
        }
        for finding in &findings {
            match finding.change {
                FindingChange::New => counts.new += 1,
                FindingChange::Reappeared => counts.reappeared += 1,
                FindingChange::Persisting => counts.persisting += 1,
                FindingChange::Resolved => counts.resolved += 1,
            }
        }
        findings.sort_by(|a, b| {
            (a.change, &a.path, a.line, &a.rule_id, &a.fingerprint).cmp(&(
                b.change,
                &b.path,
                b.line,
                &b.rule_id,
                &b.fingerprint,
            ))
        });
        RunComparison {
            schema_version: COMPARISON_SCHEMA_VERSION,
            from: earlier.run.clone(),
            to: later.run.clone(),
            counts,
            findings,
        }
    }

    /// The counts a report names, against the earlier run.
    pub fn since_previous(&self) -> SincePrevious {
        SincePrevious {
            run: self.from.clone(),
            counts: self.counts,
        }
    }

    /// The table `runs --compare` prints: the counts, then one line a finding.
    pub fn render_text(&self) -> String {
        let c = &self.counts;
        let mut out = format!(
            "{} -> {}: {} new, {} persisting, {} resolved, {} reappeared\n",
            self.from, self.to, c.new, c.persisting, c.resolved, c.reappeared
        );
        if self.findings.is_empty() {
            out.push_str("neither run has a finding\n");
            return out;
        }
        out.push_str(&format!(
            "{:<11} {:<34} finding\n",
            "change",
            format!("verdict {} -> {}", self.from, self.to)
        ));
        for f in &self.findings {
            let verdict = |v: &Option<String>, present: bool| match (v, present) {
                (Some(v), _) => v.clone(),
                (None, true) => "undecided".to_owned(),
                (None, false) => "-".to_owned(),
            };
            let in_before =
                f.change == FindingChange::Persisting || f.change == FindingChange::Resolved;
            let in_after = f.change != FindingChange::Resolved;
            let mut verdicts = format!(
                "{} -> {}",
                verdict(&f.verdict_before, in_before),
                verdict(&f.verdict_after, in_after)
            );
            if f.verdict_changed {
                verdicts.push_str(" (changed)");
            }
            let place = f
                .line
                .map_or_else(|| f.path.clone(), |l| format!("{}:{l}", f.path));
            out.push_str(&format!(
                "{:<11} {verdicts:<34} {} {} {place} [{}]\n",
                f.change.as_str(),
                f.tool,
                f.rule_id,
                f.fingerprint
            ));
        }
        out
    }
}

fn compared(
    outcome: &SeenFinding,
    change: FindingChange,
    before: Option<&SeenFinding>,
    after: Option<&SeenFinding>,
) -> ComparedFinding {
    let verdict_before = before.and_then(|o| o.verdict.clone());
    let verdict_after = after.and_then(|o| o.verdict.clone());
    ComparedFinding {
        fingerprint: outcome.fingerprint.clone(),
        change,
        tool: outcome.tool.clone(),
        rule_id: outcome.rule_id.clone(),
        path: outcome.path.clone(),
        line: outcome.line,
        // A run that has not decided a finding yet changed nothing: it reads `undecided`.
        verdict_changed: verdict_before.is_some()
            && verdict_after.is_some()
            && verdict_before != verdict_after,
        verdict_before,
        verdict_after,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(fingerprint: &str, line: u32, verdict: Option<&str>) -> SeenFinding {
        SeenFinding {
            fingerprint: fingerprint.to_owned(),
            tool: "ruff".to_owned(),
            rule_id: "F401".to_owned(),
            path: "a.py".to_owned(),
            line: Some(line),
            verdict: verdict.map(str::to_owned),
        }
    }

    fn run(id: &str, findings: Vec<SeenFinding>) -> RunFindings {
        RunFindings {
            run: id.to_owned(),
            findings,
        }
    }

    #[test]
    fn each_fingerprint_is_new_persisting_resolved_or_reappeared() {
        let earlier = run(
            "r-2",
            vec![seen("b", 2, Some("real")), seen("c", 3, Some("intended"))],
        );
        let later = run(
            "r-3",
            vec![
                seen("a", 1, None),
                seen("b", 2, Some("false_positive")),
                seen("d", 4, Some("real")),
            ],
        );
        // `a` was in r-1, gone in r-2: it came back.
        let seen_before: HashSet<String> = ["a".to_owned(), "b".to_owned()].into();
        let comparison = RunComparison::compare(&earlier, &later, &seen_before);
        assert_eq!(
            comparison.counts,
            ChangeCounts {
                new: 1,
                persisting: 1,
                resolved: 1,
                reappeared: 1
            }
        );
        let changes: Vec<(&str, FindingChange, bool)> = comparison
            .findings
            .iter()
            .map(|f| (f.fingerprint.as_str(), f.change, f.verdict_changed))
            .collect();
        assert_eq!(
            changes,
            [
                ("d", FindingChange::New, false),
                ("a", FindingChange::Reappeared, false),
                ("b", FindingChange::Persisting, true),
                ("c", FindingChange::Resolved, false),
            ]
        );
    }

    /// After `start --replace` over 8 verdicts, `runs --compare` printed `intended -> undecided
    /// (changed)`: the later run had simply not decided them yet.
    #[test]
    fn a_finding_the_later_run_has_not_decided_reads_undecided_not_changed() {
        let earlier = run(
            "r-1",
            vec![seen("a", 1, Some("intended")), seen("b", 2, Some("real"))],
        );
        let later = run(
            "r-2",
            vec![seen("a", 1, None), seen("b", 2, Some("false_positive"))],
        );
        let comparison = RunComparison::compare(&earlier, &later, &HashSet::new());
        let text = comparison.render_text();
        assert!(text.contains("intended -> undecided "), "{text}");
        assert!(!text.contains("undecided (changed)"), "{text}");
        assert!(text.contains("real -> false_positive (changed)"), "{text}");
        let a = comparison
            .findings
            .iter()
            .find(|f| f.fingerprint == "a")
            .unwrap();
        assert!(!a.verdict_changed);
    }

    #[test]
    fn the_table_says_undecided_only_for_a_run_that_holds_the_finding() {
        let earlier = run("r-1", vec![seen("p", 1, None), seen("r", 3, None)]);
        let later = run("r-2", vec![seen("p", 1, None), seen("n", 2, None)]);
        let comparison = RunComparison::compare(&earlier, &later, &HashSet::new());
        let text = comparison.render_text();
        let line = |fingerprint: &str| {
            text.lines()
                .find(|l| l.ends_with(&format!("[{fingerprint}]")))
                .unwrap()
                .split_whitespace()
                .take(4)
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(line("n"), "new - -> undecided");
        assert_eq!(line("p"), "persisting undecided -> undecided");
        assert_eq!(line("r"), "resolved undecided -> -");
        let empty =
            RunComparison::compare(&run("r-1", vec![]), &run("r-2", vec![]), &HashSet::new());
        assert_eq!(
            empty.render_text(),
            "r-1 -> r-2: 0 new, 0 persisting, 0 resolved, 0 reappeared\nneither run has a finding\n"
        );
    }

    #[test]
    fn each_change_has_its_word() {
        for (change, word) in [
            (FindingChange::New, "new"),
            (FindingChange::Reappeared, "reappeared"),
            (FindingChange::Persisting, "persisting"),
            (FindingChange::Resolved, "resolved"),
        ] {
            assert_eq!(change.as_str(), word);
            assert_eq!(serde_json::to_value(change).unwrap(), word);
        }
    }
}
