//! How figures are written in the table, the markdown and the picture: one spelling each.

use crate::{ScoreRow, SpendPer};

/// `87.5%`, or `-` when the figure has no denominator.
pub(crate) fn percent(value: Option<f64>) -> String {
    value.map_or_else(|| "-".to_owned(), |v| format!("{:.1}%", v * 100.0))
}

/// `4 (3.3%)`: a count and its rate.
pub(crate) fn count_rate(count: u32, rate: Option<f64>) -> String {
    match rate {
        Some(_) => format!("{count} ({})", percent(rate)),
        None => count.to_string(),
    }
}

/// The per-unit figures of a row: agents, tokens and dollars (the last two `-` unpriced).
pub(crate) fn per_unit(per: Option<SpendPer>, priced: bool) -> [String; 3] {
    match per {
        Some(p) if priced => [
            format!("{:.2}", p.agents),
            format!("{:.0}", p.tokens),
            format!("${:.4}", p.usd),
        ],
        Some(p) => [format!("{:.2}", p.agents), "-".to_owned(), "-".to_owned()],
        None => ["-".to_owned(), "-".to_owned(), "-".to_owned()],
    }
}

/// The table's columns, headers first, for one row.
pub(crate) fn row_cells(row: &ScoreRow, priced: bool) -> Vec<String> {
    let [agents, tokens, usd] = per_unit(row.per_finding, priced);
    let [_, _, usd_correct] = per_unit(row.per_correct, priced);
    vec![
        row.name.clone(),
        row.findings.to_string(),
        row.labelled.to_string(),
        percent(row.precision),
        percent(row.recall),
        count_rate(row.unsafe_closures, row.unsafe_closure_rate),
        count_rate(row.false_alarms, row.false_alarm_rate),
        row.abstentions.to_string(),
        percent(row.strict_score),
        percent(row.decided_score),
        agents,
        tokens,
        usd,
        usd_correct,
    ]
}

/// The headers of [`row_cells`].
pub(crate) const HEADERS: [&str; 14] = [
    "row",
    "findings",
    "labelled",
    "precision",
    "recall",
    "unsafe closures",
    "false alarms",
    "abstained",
    "strict",
    "decided",
    "agents/finding",
    "tokens/finding",
    "$/finding",
    "$/correct",
];

/// `1h 02m 03s`, `2m 03s`, `45s`.
pub(crate) fn duration(seconds: u64) -> String {
    let (h, m, s) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
    match (h, m) {
        (0, 0) => format!("{s}s"),
        (0, _) => format!("{m}m {s:02}s"),
        _ => format!("{h}h {m:02}m {s:02}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::duration;

    #[test]
    fn a_duration_names_only_the_units_it_needs() {
        for (seconds, text) in [
            (0, "0s"),
            (45, "45s"),
            (59, "59s"),
            (60, "1m 00s"),
            (123, "2m 03s"),
            (3599, "59m 59s"),
            (3600, "1h 00m 00s"),
            (3723, "1h 02m 03s"),
        ] {
            assert_eq!(duration(seconds), text, "{seconds} s");
        }
    }
}
