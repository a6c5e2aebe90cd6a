//! One row of the table: a route, a tier or the whole run, with its quality figures and what
//! its findings cost.

use serde::Serialize;

use crate::{Confusion, Spend, SpendPer};

/// The figures of one row (definitions in reference/eval.md).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScoreRow {
    /// `all`, a route name or a tier; `none` for findings no agent decided.
    pub name: String,
    /// Findings in the row, labelled or not.
    pub findings: u32,
    /// Findings in the row a label holds for (pending ones included).
    pub labelled: u32,
    pub confusion: Confusion,
    /// real kept / (real kept + false kept).
    pub precision: Option<f64>,
    /// real kept / (real kept + real closed): decided real findings kept.
    pub recall: Option<f64>,
    /// Labelled real, closed.
    pub unsafe_closures: u32,
    /// unsafe closures / labelled real (scored).
    pub unsafe_closure_rate: Option<f64>,
    /// Labelled false, kept as real.
    pub false_alarms: u32,
    /// false alarms / labelled false (scored).
    pub false_alarm_rate: Option<f64>,
    /// `unsure`, quarantined or refused.
    pub abstentions: u32,
    /// correct / scored: an abstention counts as wrong.
    pub strict_score: Option<f64>,
    /// correct / decided: abstentions left out.
    pub decided_score: Option<f64>,
    /// What the row's findings cost (each item once); the `all` row adds the overhead.
    pub spend: Spend,
    /// `spend` / findings.
    pub per_finding: Option<SpendPer>,
    /// What the row's labelled findings cost (each item once).
    pub labelled_spend: Spend,
    /// `labelled_spend` / correct verdicts.
    pub per_correct: Option<SpendPer>,
}

fn ratio(numerator: u32, denominator: u32) -> Option<f64> {
    (denominator > 0).then(|| f64::from(numerator) / f64::from(denominator))
}

impl ScoreRow {
    /// The row's figures from its counts and spends.
    pub(crate) fn of(
        name: &str,
        findings: u32,
        confusion: Confusion,
        spend: Spend,
        labelled_spend: Spend,
    ) -> ScoreRow {
        let c = confusion;
        ScoreRow {
            name: name.to_owned(),
            findings,
            labelled: c.scored() + c.pending,
            confusion: c,
            precision: ratio(c.real_kept, c.real_kept + c.false_kept),
            recall: ratio(c.real_kept, c.real_kept + c.real_closed),
            unsafe_closures: c.real_closed,
            unsafe_closure_rate: ratio(c.real_closed, c.real()),
            false_alarms: c.false_kept,
            false_alarm_rate: ratio(c.false_kept, c.false_()),
            abstentions: c.abstentions(),
            strict_score: ratio(c.correct(), c.scored()),
            decided_score: ratio(c.correct(), c.decided()),
            spend,
            per_finding: spend.per(findings),
            labelled_spend,
            per_correct: labelled_spend.per(c.correct()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ratio;

    /// A rate over nothing is no rate (shown as `-`), never 0 % nor a division by zero.
    #[test]
    fn a_rate_over_a_zero_denominator_is_none() {
        assert_eq!(ratio(0, 0), None);
        assert_eq!(ratio(3, 0), None);
        assert_eq!(ratio(1, 4), Some(0.25));
        assert_eq!(ratio(3, 3), Some(1.0));
        assert_eq!(ratio(0, 2), Some(0.0));
    }
}
