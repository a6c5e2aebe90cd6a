//! The figure a team reads: of the dismissals a person audited, how many were wrong (unsafe
//! closures), the agreement over every answer, and the exact upper bound on the unsafe-closure
//! rate at a stated confidence; for all, per security rule and per tier.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::{AuditLabel, upper_bound};

/// One row of the figure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditRow {
    /// `all`, `rule bandit B602`, `tier sonnet`.
    pub name: String,
    /// Closed findings a person answered (agree or disagree).
    pub audited_closures: usize,
    /// Of them, those the person disagreed with: real findings the run closed.
    pub unsafe_closures: usize,
    /// Kept (`real`) findings a person answered, and those they said were not real.
    pub audited_kept: usize,
    pub wrongly_kept: usize,
    /// Answers that agreed with the run, over every answer.
    pub agreed: usize,
    pub answered: usize,
    /// The one-sided Clopper-Pearson upper bound on the unsafe-closure rate at `confidence`;
    /// `None` with no audited closure.
    pub bound: Option<f64>,
}

impl AuditRow {
    fn of<'a>(name: String, labels: impl Iterator<Item = &'a AuditLabel>, confidence: f64) -> Self {
        let mut row = AuditRow {
            name,
            audited_closures: 0,
            unsafe_closures: 0,
            audited_kept: 0,
            wrongly_kept: 0,
            agreed: 0,
            answered: 0,
            bound: None,
        };
        for label in labels {
            let disagree = label.answer == "disagree";
            row.answered += 1;
            row.agreed += usize::from(!disagree);
            if label.closed() {
                row.audited_closures += 1;
                row.unsafe_closures += usize::from(disagree);
            } else {
                row.audited_kept += 1;
                row.wrongly_kept += usize::from(disagree);
            }
        }
        row.bound = (row.audited_closures > 0)
            .then(|| upper_bound(row.unsafe_closures, row.audited_closures, confidence));
        row
    }

    /// "0 of 60 audited dismissals wrong: below 4.9 %, 95 % confidence".
    pub fn sentence(&self, confidence: f64) -> String {
        match self.bound {
            None => "no dismissal audited yet".to_owned(),
            Some(bound) => format!(
                "{} of {} audited dismissals wrong: the unsafe-closure rate is below {}, {} \
                 confidence",
                self.unsafe_closures,
                self.audited_closures,
                percent(bound),
                percent_whole(confidence)
            ),
        }
    }

    /// `28 of 30 (93.3 %)`.
    fn agreement(&self) -> String {
        if self.answered == 0 {
            return "-".to_owned();
        }
        format!(
            "{} of {} ({})",
            self.agreed,
            self.answered,
            percent(self.agreed as f64 / self.answered as f64)
        )
    }
}

/// `9.5 %`.
fn percent(rate: f64) -> String {
    format!("{:.1} %", rate * 100.0)
}

/// `95 %`, `97.5 %`: one decimal, dropped when it is 0.
fn percent_whole(rate: f64) -> String {
    let text = format!("{:.1}", rate * 100.0);
    format!("{} %", text.strip_suffix(".0").unwrap_or(&text))
}

/// The figure over a set of answers (one run's, or every run's).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditFigure {
    pub confidence: f64,
    pub all: AuditRow,
    /// One row per security rule a person audited a closure of.
    pub rules: Vec<AuditRow>,
    /// One row per tier (`none`: decided without an agent).
    pub tiers: Vec<AuditRow>,
}

impl AuditFigure {
    /// The figure of `labels` at `confidence`.
    pub fn of<'a>(labels: impl Iterator<Item = &'a AuditLabel>, confidence: f64) -> AuditFigure {
        let labels: Vec<&AuditLabel> = labels.collect();
        let mut rules: BTreeMap<String, Vec<&AuditLabel>> = BTreeMap::new();
        let mut tiers: BTreeMap<String, Vec<&AuditLabel>> = BTreeMap::new();
        for label in &labels {
            if label.route.as_deref() == Some("security") {
                rules
                    .entry(format!("rule {} {}", label.tool, label.rule))
                    .or_default()
                    .push(label);
            }
            tiers
                .entry(format!("tier {}", label.tier.as_deref().unwrap_or("none")))
                .or_default()
                .push(label);
        }
        let rows = |groups: BTreeMap<String, Vec<&AuditLabel>>| {
            groups
                .into_iter()
                .map(|(name, group)| AuditRow::of(name, group.into_iter(), confidence))
                .collect()
        };
        AuditFigure {
            confidence,
            all: AuditRow::of("all".to_owned(), labels.into_iter(), confidence),
            rules: rows(rules),
            tiers: rows(tiers),
        }
    }

    /// The headline: the sentence, the agreement and the kept findings checked.
    pub fn headline(&self) -> String {
        let all = &self.all;
        if all.answered == 0 {
            return "audit: no answer yet (`self-repair audit` asks a person about a sample of \
                    the run's dismissals)"
                .to_owned();
        }
        format!(
            "audit: {}; agreement {}; {} kept finding{} checked, {} not real",
            all.sentence(self.confidence),
            all.agreement(),
            all.audited_kept,
            if all.audited_kept == 1 { "" } else { "s" },
            all.wrongly_kept
        )
    }

    /// All, then each security rule, then each tier.
    fn rows(&self) -> Vec<&AuditRow> {
        std::iter::once(&self.all)
            .chain(&self.rules)
            .chain(&self.tiers)
            .collect()
    }

    /// The table: all, then each security rule and each tier.
    pub fn render_text(&self) -> String {
        let rows = self.rows();
        let width = rows.iter().map(|r| r.name.len()).max().unwrap_or(3);
        let mut out = format!(
            "{:width$}  {:>8}  {:>6}  {:>14}  {}\n",
            "row",
            "audited",
            "unsafe",
            format!("bound ({})", percent_whole(self.confidence)),
            "agreement"
        );
        for row in rows {
            out.push_str(&format!(
                "{:width$}  {:>8}  {:>6}  {:>14}  {}\n",
                row.name,
                row.audited_closures,
                row.unsafe_closures,
                row.bound.map_or_else(|| "-".to_owned(), percent),
                row.agreement()
            ));
        }
        out
    }

    /// `## Audit by a person`: the headline and the table, for report.md and eval.md.
    pub fn render_markdown(&self) -> String {
        let mut out = format!("## Audit by a person\n\n{}.\n\n", self.headline());
        if self.all.answered == 0 {
            return out;
        }
        out.push_str(&format!(
            "| row | audited dismissals | unsafe closures | rate below ({} confidence) | agreement |\n|---|---|---|---|---|\n",
            percent_whole(self.confidence)
        ));
        for row in self.rows() {
            out.push_str(&format!(
                "| {} | {} | {} | {} | {} |\n",
                row.name,
                row.audited_closures,
                row.unsafe_closures,
                row.bound.map_or_else(|| "-".to_owned(), percent),
                row.agreement()
            ));
        }
        out.push_str(
            "\nThe bound is the exact one-sided (Clopper-Pearson) upper limit on the share of \
             the run's dismissals that are real, from the audited sample (reference/audit.md).\n",
        );
        out
    }
}
