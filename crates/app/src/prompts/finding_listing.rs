//! The findings an item works on, as `item | tool rule | path:line | message | root cause |
//! reason` lines, bounded (ARCHITECTURE invariant 7, issue 13): up to a limit every line; above
//! it the counts by rule and by file, a sample spread over rules and files, and the command that
//! pages through all of them (`self-repair show ITEM --findings --page N`).

use std::collections::BTreeMap;

use self_repair_context::fenced_block;
use self_repair_engine::{FindingRecord, ItemKind, ItemStatus, RunState, WorkItem};
use self_repair_store::RunDir;
use serde::Serialize;
use serde_json::Value;

/// Lines of one `--findings` page: at most ~25 KB even with the longest messages and reasons.
pub(crate) const FINDINGS_PAGE: usize = 40;
/// Rules and files named in the counts; the rest are counted in one "n more".
const COUNTED: usize = 12;

/// The findings of one item, in the item's order.
pub(crate) struct FindingListing<'a> {
    pub state: &'a RunState,
    pub findings: &'a [FindingRecord],
    pub dir: &'a RunDir,
    pub ids: Vec<&'a str>,
}

impl<'a> FindingListing<'a> {
    /// What `item` works on: its own finding (triage), its members (a triage batch), every
    /// finding of its rule (a rule survey), its slice (aggregate), every verdict of
    /// the run (rule review), its group's members (plan, synthesis, review, task writing).
    pub(crate) fn of(
        state: &'a RunState,
        findings: &'a [FindingRecord],
        dir: &'a RunDir,
        item: &'a WorkItem,
    ) -> FindingListing<'a> {
        let ids: Vec<&str> = match item.kind {
            ItemKind::Triage => vec![item.id.as_ref()],
            ItemKind::Aggregate | ItemKind::TriageBatch | ItemKind::Verify => {
                item.inputs().iter().map(std::ops::Deref::deref).collect()
            }
            ItemKind::RuleSurvey => state
                .surveys
                .iter()
                .find(|s| s.id == item.id)
                .map(|s| s.members.iter().map(String::as_str).collect())
                .unwrap_or_default(),
            // Labels only: its task holds no finding.
            ItemKind::MergeLabels => Vec::new(),
            ItemKind::RuleReview => state.items[..state.triage_items as usize]
                .iter()
                .filter(|i| i.status == ItemStatus::Done)
                .map(|i| i.id.as_ref())
                .collect(),
            ItemKind::Plan
            | ItemKind::Synthesize
            | ItemKind::Review
            | ItemKind::Revise
            | ItemKind::WriteTask => item
                .group
                .and_then(|g| state.groups.get(g as usize - 1))
                .map(|g| g.members.iter().map(String::as_str).collect())
                .unwrap_or_default(),
        };
        FindingListing {
            state,
            findings,
            dir,
            ids,
        }
    }

    /// Every line when there are at most `most`; else the counts, a spread sample of `most`
    /// lines and how to page through all (`page_command` ends before `--page N`).
    pub(crate) fn render(&self, most: usize, page_command: &str) -> String {
        if self.ids.len() <= most {
            let lines: Vec<String> = self.ids.iter().map(|id| self.line(id)).collect();
            return fenced_block("text", &lines.join("\n"));
        }
        let keys: Vec<(String, String)> = self.ids.iter().map(|id| self.key(id)).collect();
        let mut counts = vec![format!(
            "{}, {}, {}",
            count(self.ids.len(), "finding"),
            count(distinct(keys.iter().map(|k| k.0.as_str())), "rule"),
            count(distinct(keys.iter().map(|k| k.1.as_str())), "file")
        )];
        counts.push(format!(
            "by rule: {}",
            tally(keys.iter().map(|k| k.0.as_str()))
        ));
        counts.push(format!(
            "by file: {}",
            tally(keys.iter().map(|k| k.1.as_str()))
        ));
        let sample: Vec<String> = spread(&keys, most)
            .into_iter()
            .map(|i| self.line(self.ids[i]))
            .collect();
        let pages = self.ids.len().div_ceil(FINDINGS_PAGE);
        format!(
            "{}\nA sample of {} of the {}, spread over rules and files:\n\n{}\nAll {}, {FINDINGS_PAGE} \
             a page: `{page_command} --page 1` to `--page {pages}`.\n",
            fenced_block("text", &counts.join("\n")),
            sample.len(),
            self.ids.len(),
            fenced_block("text", &sample.join("\n")),
            self.ids.len(),
        )
    }

    /// Page `page` (from 1) of every line.
    pub(crate) fn page(&self, item: &str, page: usize) -> FindingsPage {
        let pages = self.ids.len().div_ceil(FINDINGS_PAGE).max(1);
        let page = page.clamp(1, pages);
        let lines = self
            .ids
            .iter()
            .skip((page - 1) * FINDINGS_PAGE)
            .take(FINDINGS_PAGE)
            .map(|id| self.line(id))
            .collect();
        FindingsPage {
            item: item.to_owned(),
            run: self.state.run.clone(),
            page,
            pages,
            total: self.ids.len(),
            lines,
        }
    }

    /// `t-00001 | ruff F401 | py/mod.py:1 | message | root cause | reason`.
    pub(crate) fn line(&self, id: &str) -> String {
        let Some(item) = self.state.item(id) else {
            return format!("{id} | (unknown item)");
        };
        let (what, at, message) = self.record(item).map_or_else(
            || (String::new(), String::new(), String::new()),
            |r| {
                let f = &r.finding;
                let at = match f.line {
                    Some(l) => format!("{}:{l}", f.path),
                    None => f.path.clone(),
                };
                (
                    format!("{} {}", f.tool, f.rule_id),
                    at,
                    one_line(&f.message, 160),
                )
            },
        );
        let reason = self
            .dir
            .read_result(id, "json")
            .and_then(|text| serde_json::from_str::<Value>(&text).ok())
            .and_then(|v| v["reason"].as_str().map(|r| one_line(r, 240)))
            .unwrap_or_default();
        format!(
            "{id} | {what} | {at} | {message} | {} | {reason}",
            item.root_cause.as_deref().unwrap_or("-")
        )
    }

    fn record(&self, item: &WorkItem) -> Option<&FindingRecord> {
        self.findings.get(item.finding? as usize)
    }

    /// (`tool rule`, path) of a finding.
    fn key(&self, id: &str) -> (String, String) {
        self.state
            .item(id)
            .and_then(|i| self.record(i))
            .map_or_else(
                || ("?".to_owned(), "?".to_owned()),
                |r| {
                    (
                        format!("{} {}", r.finding.tool, r.finding.rule_id),
                        r.finding.path.clone(),
                    )
                },
            )
    }
}

/// One page of `show ITEM --findings`.
#[derive(Debug, Clone, Serialize)]
pub struct FindingsPage {
    pub item: String,
    pub run: String,
    pub page: usize,
    pub pages: usize,
    pub total: usize,
    pub lines: Vec<String>,
}

impl FindingsPage {
    /// The text `show --findings` prints.
    pub fn render(&self) -> String {
        let next_command = format!(
            "self-repair show {} --run {} --findings",
            self.item, self.run
        );
        let first = (self.page - 1) * FINDINGS_PAGE + 1;
        let last = first + self.lines.len().saturating_sub(1);
        let next = if self.page < self.pages {
            format!("Next: `{next_command} --page {}`.\n", self.page + 1)
        } else {
            "This is the last page.\n".to_owned()
        };
        format!(
            "Findings of {} (data), page {} of {}: {first} to {last} of {}, one a line: item | \
             tool rule | path:line | message | root cause | reason\n\n{}{next}",
            self.item,
            self.page,
            self.pages,
            self.total,
            fenced_block("text", &self.lines.join("\n")),
        )
    }
}

fn distinct<'k>(keys: impl Iterator<Item = &'k str>) -> usize {
    keys.collect::<std::collections::BTreeSet<_>>().len()
}

/// `a ×12, b ×3, … (4 more: 5)`: the most frequent first, ties by name.
fn tally<'k>(keys: impl Iterator<Item = &'k str>) -> String {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for key in keys {
        *counts.entry(key).or_default() += 1;
    }
    let mut sorted: Vec<(&str, usize)> = counts.into_iter().collect();
    sorted.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let mut parts: Vec<String> = sorted
        .iter()
        .take(COUNTED)
        .map(|(k, n)| format!("{k} ×{n}"))
        .collect();
    if sorted.len() > COUNTED {
        let rest: usize = sorted[COUNTED..].iter().map(|(_, n)| n).sum();
        parts.push(format!("{} more with {rest}", sorted.len() - COUNTED));
    }
    parts.join(", ")
}

/// Indices of `most` findings spread over rules, then over files within a rule: rules take
/// turns for the places (the most frequent first); a rule's places go to the first findings of
/// evenly spaced files, and once every file has one, to evenly spaced other findings. The
/// result is in the original order.
fn spread(keys: &[(String, String)], most: usize) -> Vec<usize> {
    // rule -> file -> indices, files in order of first appearance.
    let mut by_rule: BTreeMap<&str, Vec<(&str, Vec<usize>)>> = BTreeMap::new();
    for (i, (rule, file)) in keys.iter().enumerate() {
        let files = by_rule.entry(rule.as_str()).or_default();
        match files.iter_mut().find(|(f, _)| *f == file.as_str()) {
            Some((_, list)) => list.push(i),
            None => files.push((file.as_str(), vec![i])),
        }
    }
    // (first finding of every file, the others), per rule.
    let mut orders: Vec<(Vec<usize>, Vec<usize>)> = by_rule
        .into_values()
        .map(|files| {
            let firsts = files.iter().map(|(_, l)| l[0]).collect();
            let rest = files
                .iter()
                .flat_map(|(_, l)| l[1..].iter().copied())
                .collect();
            (firsts, rest)
        })
        .collect();
    orders.sort_by_key(|(firsts, rest)| std::cmp::Reverse(firsts.len() + rest.len()));
    // Places per rule: one each in turn while a rule has findings left.
    let mut places = vec![0; orders.len()];
    let mut given = 0;
    while given < most && given < keys.len() {
        for (rule, (firsts, rest)) in orders.iter().enumerate() {
            if given < most && places[rule] < firsts.len() + rest.len() {
                places[rule] += 1;
                given += 1;
            }
        }
    }
    let mut chosen: Vec<usize> = Vec::new();
    for ((firsts, rest), n) in orders.iter().zip(places) {
        // Other files before a second finding of any file; evenly spaced within each.
        let from_firsts = n.min(firsts.len());
        chosen.extend((0..from_firsts).map(|k| firsts[k * firsts.len() / from_firsts]));
        let from_rest = n - from_firsts;
        chosen.extend((0..from_rest).map(|k| rest[k * rest.len() / from_rest]));
    }
    chosen.sort_unstable();
    chosen
}

/// `1 rule`, `3 rules`.
fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

fn one_line(text: &str, max: usize) -> String {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if joined.chars().count() > max {
        format!("{}…", joined.chars().take(max).collect::<String>())
    } else {
        joined
    }
}

#[cfg(test)]
mod tests {
    use super::{spread, tally};

    fn keys(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(r, f)| ((*r).to_owned(), (*f).to_owned()))
            .collect()
    }

    #[test]
    fn the_sample_takes_every_rule_before_a_second_of_any_and_spreads_over_files() {
        let mut pairs = vec![("ruff D205", "a.py"); 50];
        pairs.extend([
            ("ruff D205", "b.py"),
            ("ruff E501", "a.py"),
            ("ruff F401", "c.py"),
        ]);
        let chosen = spread(&keys(&pairs), 4);
        // D205 twice (a.py then b.py), E501 and F401 once each.
        assert_eq!(chosen, vec![0, 50, 51, 52]);
        // One rule, one file: its first finding, then evenly spaced over the others.
        assert_eq!(spread(&keys(&[("r", "f"); 100]), 4), vec![0, 1, 34, 67]);
    }

    #[test]
    fn the_tally_names_the_most_frequent_and_counts_the_rest() {
        let many: Vec<String> = (0..15).map(|i| format!("r{i:02}")).collect();
        let mut all: Vec<&str> = many.iter().map(String::as_str).collect();
        all.extend(["r07", "r07"]);
        let text = tally(all.into_iter());
        assert!(text.starts_with("r07 ×3, r00 ×1"), "{text}");
        assert!(text.ends_with("3 more with 3"), "{text}");
    }
}
