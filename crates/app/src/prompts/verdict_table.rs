//! The rule reviewer's view of a run's verdicts: one row per (tool, rule, level, verdict, root
//! cause) with its count and a few example items and paths, largest rows first, cut at a row
//! budget. Its size depends on how many distinct rules and causes the run has, never on how many
//! findings (ARCHITECTURE invariant 7): 2,221 verdicts of the Jinja2 corpus render in ~10 KB
//! instead of 150 KB as one line each.

use std::collections::BTreeMap;

use self_repair_engine::{Finding, WorkItem};

/// Example item ids shown per row.
const EXAMPLE_ITEMS: usize = 5;
/// Distinct example paths shown per row.
const EXAMPLE_PATHS: usize = 3;
/// Longest root cause shown, in characters.
const CAUSE_CHARS: usize = 80;

/// One row: the verdicts that share a rule and a cause.
#[derive(Debug, Default)]
struct Row {
    count: usize,
    items: Vec<String>,
    paths: Vec<String>,
}

/// Verdicts grouped into rows.
#[derive(Debug, Default)]
pub(crate) struct VerdictTable {
    rows: BTreeMap<[String; 5], Row>,
}

impl VerdictTable {
    /// Adds one decided triage item and its finding.
    pub(crate) fn add(&mut self, item: &WorkItem, finding: Option<&Finding>) {
        let (tool, rule, level, path) = finding.map_or_else(Default::default, |f| {
            (
                f.tool.clone(),
                f.rule_id.clone(),
                f.level.as_str().to_owned(),
                f.path.clone(),
            )
        });
        let cause: String = item
            .root_cause
            .as_deref()
            .unwrap_or("-")
            .chars()
            .take(CAUSE_CHARS)
            .collect();
        let key = [
            tool,
            rule,
            level,
            item.verdict.map_or("-", |v| v.as_str()).to_owned(),
            cause,
        ];
        let row = self.rows.entry(key).or_default();
        row.count += 1;
        if row.items.len() < EXAMPLE_ITEMS {
            row.items.push(item.id.to_string());
        }
        if row.paths.len() < EXAMPLE_PATHS && !row.paths.contains(&path) {
            row.paths.push(path);
        }
    }

    /// The table, largest rows first, at most `max_rows` rows; a last line counts what was cut.
    pub(crate) fn render(&self, max_rows: usize) -> String {
        let mut rows: Vec<(&[String; 5], &Row)> = self.rows.iter().collect();
        rows.sort_by(|a, b| b.1.count.cmp(&a.1.count).then_with(|| a.0.cmp(b.0)));
        let mut lines = vec![
            "tool | rule | level | verdict | root cause | findings | example items | example paths"
                .to_owned(),
        ];
        for ([tool, rule, level, verdict, cause], row) in rows.iter().take(max_rows) {
            lines.push(format!(
                "{tool} | {rule} | {level} | {verdict} | {cause} | {} | {} | {}",
                row.count,
                row.items.join(" "),
                row.paths.join(" ")
            ));
        }
        if rows.len() > max_rows {
            let rest = &rows[max_rows..];
            let findings: usize = rest.iter().map(|(_, row)| row.count).sum();
            lines.push(format!(
                "... and {} smaller rows ({findings} findings, at most {} each)",
                rest.len(),
                rest.first().map_or(0, |(_, row)| row.count)
            ));
        }
        lines.join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use self_repair_engine::{ItemKind, Level, Tier, Verdict};

    fn finding(rule: &str, path: &str) -> Finding {
        Finding {
            fix: None,
            tool: "ruff".to_owned(),
            rule_id: rule.to_owned(),
            level: Level::Warning,
            message: "m".to_owned(),
            path: path.to_owned(),
            line: Some(1),
            column: None,
            end_line: None,
            end_column: None,
            symbol: None,
            help_uri: None,
            raw: None,
        }
    }

    #[test]
    fn the_table_grows_with_rules_and_causes_not_with_findings() {
        let render = |findings: usize| {
            let mut table = VerdictTable::default();
            for n in 0..findings {
                let mut item = WorkItem::new(format!("t-{n:05}"), ItemKind::Triage, Tier::Haiku);
                item.verdict = Some(Verdict::Real);
                item.root_cause = Some(format!("cause {}", n % 3).into());
                table.add(
                    &item,
                    Some(&finding(&format!("R{}", n % 7), &format!("src/f{n}.py"))),
                );
            }
            table.render(100)
        };
        let small = render(100);
        let large = render(100_000);
        assert_eq!(small.lines().count(), large.lines().count());
        assert!(
            large.len() < small.len() + 21 * 8,
            "{} vs {}",
            large.len(),
            small.len()
        );
        assert!(large.contains("| 4762 |"), "{large}");
    }

    #[test]
    fn rows_past_the_budget_are_counted_in_one_line() {
        let mut table = VerdictTable::default();
        for n in 0..10 {
            let mut item = WorkItem::new(format!("t-{n:05}"), ItemKind::Triage, Tier::Haiku);
            item.verdict = Some(Verdict::FalsePositive);
            table.add(&item, Some(&finding(&format!("R{n}"), "a.py")));
        }
        let text = table.render(4);
        assert_eq!(text.lines().count(), 1 + 4 + 1);
        assert!(
            text.ends_with("... and 6 smaller rows (6 findings, at most 1 each)"),
            "{text}"
        );
    }
}
