//! `self-repair known baseline`: accept today's findings in one step (`SonarQube`'s new-code
//! period, Ruff's `--add-noqa`): every finding of a report goes into `known.json` with one
//! verdict and reason, no agent involved. A finding already decided keeps its decision.

use self_repair_engine::{Finding, Verdict};

use crate::{ClassifyError, KnownEntry, KnownRegistry};

/// The `source` of an entry a baseline recorded.
pub const BASELINE_SOURCE: &str = "baseline";

/// What a baseline records for each finding.
#[derive(Debug, Clone)]
pub struct Baseline {
    verdict: Verdict,
    reason: String,
    /// Unix seconds: the entries' decision time.
    now: u64,
}

/// What a baseline did to the registry.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BaselineCount {
    /// Findings recorded now.
    pub added: usize,
    /// Findings the registry had decided before (their decision stands), repeats included.
    pub kept: usize,
}

impl Baseline {
    /// A baseline deciding `verdict` for `reason`: only the dismissals `intended` and
    /// `false_positive` (a baseline accepts debt; it does not call findings real).
    pub fn new(verdict: Verdict, reason: &str, now: u64) -> Result<Baseline, ClassifyError> {
        if !matches!(verdict, Verdict::Intended | Verdict::FalsePositive) {
            return Err(ClassifyError::BaselineVerdict(verdict.as_str().to_owned()));
        }
        if reason.trim().is_empty() {
            return Err(ClassifyError::BaselineReason);
        }
        Ok(Baseline {
            verdict,
            reason: reason.trim().to_owned(),
            now,
        })
    }

    /// Records each finding (with its fingerprint) the registry has no entry for. The entries
    /// decide by fingerprint alone (no `code` hash): the finding stays accepted however the code
    /// around it changes, until `known remove` or `known prune`.
    pub fn record<'f>(
        &self,
        known: &mut KnownRegistry,
        findings: impl IntoIterator<Item = (&'f str, &'f Finding)>,
    ) -> BaselineCount {
        let mut count = BaselineCount::default();
        for (fingerprint, finding) in findings {
            if known.get(fingerprint).is_some() {
                count.kept += 1;
                continue;
            }
            known.insert_at(
                fingerprint.to_owned(),
                KnownEntry::without_agent(
                    self.verdict,
                    self.reason.clone(),
                    BASELINE_SOURCE.to_owned(),
                    summary(finding),
                ),
                self.now,
            );
            count.added += 1;
        }
        count
    }
}

/// What an entry says its finding was: `tool rule path: message`, as finalize writes it (and
/// `known prune` reads the tool back from).
pub fn summary(f: &Finding) -> String {
    // Joined, not `format!`: a finalize writes one for each of 100,000 findings.
    [
        f.tool.as_str(),
        " ",
        &f.rule_id,
        " ",
        &f.path,
        ": ",
        &f.message,
    ]
    .concat()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(rule: &str) -> Finding {
        serde_json::from_value(serde_json::json!({
            "tool": "ruff", "rule_id": rule, "message": "m", "path": "src/a.py", "line": 3
        }))
        .unwrap()
    }

    #[test]
    fn a_baseline_records_new_findings_and_keeps_earlier_decisions() {
        let mut known = KnownRegistry::default();
        let earlier = finding("F401");
        let baseline = Baseline::new(Verdict::Intended, "accepted debt", 100).unwrap();
        baseline.record(&mut known, [("fp-1", &earlier)]);
        let mut decided = known.get("fp-1").unwrap().clone();
        decided.verdict = Verdict::Real;
        known.insert_at("fp-1".to_owned(), decided, 50);

        let later = finding("E501");
        let count = Baseline::new(Verdict::FalsePositive, " noise ", 200)
            .unwrap()
            .record(
                &mut known,
                [("fp-1", &earlier), ("fp-2", &later), ("fp-2", &later)],
            );
        assert_eq!(count, BaselineCount { added: 1, kept: 2 });
        assert_eq!(known.get("fp-1").unwrap().verdict, Verdict::Real);
        let added = known.get("fp-2").unwrap();
        assert_eq!(added.verdict, Verdict::FalsePositive);
        assert_eq!(added.reason, "noise");
        assert_eq!(added.source, "baseline");
        assert_eq!(added.summary, "ruff E501 src/a.py: m");
        assert_eq!(known.decided_at("fp-2"), Some("1970-01-01T00:03:20Z"));
    }

    #[test]
    fn a_baseline_only_dismisses_and_needs_a_reason() {
        let real = Baseline::new(Verdict::Real, "r", 0).unwrap_err();
        assert!(real.to_string().contains("intended"), "{real}");
        let empty = Baseline::new(Verdict::Intended, "  ", 0).unwrap_err();
        assert!(empty.to_string().contains("--reason"), "{empty}");
    }
}
