//! What code adds to a group's task beyond the task writer's title, summary and criteria: the
//! plan as the revise step left it with the reviewers' must-fix points and what became of each
//! (`## Implementation Plan`), the triage reasons, the analyzer command that verifies the fix,
//! and the run's report.

use std::collections::BTreeSet;

use self_repair_engine::{FindingRecord, Group, PlanDepth, RunState, is_rework};
use self_repair_store::RunDir;
use serde_json::Value;

use crate::prompts::revision::Revision;

/// Most distinct triage reasons quoted in a task.
const REASONS: usize = 3;

/// Above this many files the verify command checks the whole project.
const LISTED_FILES: usize = 20;

/// The `## Implementation Plan` text: the plan as the revise step left it (else the merged
/// plan: a full group's synthesis, a light group's one plan), then every reviewer's must-fix
/// points by angle, each with what the revise step did with it. `None` when no plan was
/// written (an analyzer-fixed group, or a plan that is missing).
pub(crate) fn plan_section(dir: &RunDir, state: &RunState, group: &Group) -> Option<String> {
    let revision = Revision::of(dir, &group.id);
    let plan = match (&revision, group.depth) {
        (_, PlanDepth::AnalyzerFix) => return None,
        (Some(revision), _) => revision.plan.clone(),
        (None, PlanDepth::Full) => dir
            .read_result(&format!("syn-{}", group.id), "json")
            .and_then(|text| serde_json::from_str::<Value>(&text).ok())
            .and_then(|v| v["plan"].as_str().map(str::to_owned))?,
        (None, PlanDepth::Light) => dir.read_result(&format!("plan-{}-1", group.id), "md")?,
    };
    let mut out = plan.trim().to_owned();
    let mut points = Vec::new();
    for (n, angle) in state.config.reviewer_angles.iter().enumerate() {
        let review = format!("rev-{}-{}", group.id, n + 1);
        let Some(asks) = crate::prompts::revision::review_asks(dir, &review) else {
            continue;
        };
        let ids = asks.ask_ids(&review);
        if ids.is_empty() {
            continue;
        }
        let mut text = format!("**{angle}** ({}):\n", asks.verdict_line);
        for (k, ask) in ids.iter().enumerate() {
            let what = if is_rework(ask) {
                "Sent the plan back for rework.".to_owned()
            } else {
                asks.ask_text(ask).unwrap_or_default().trim().to_owned()
            };
            text.push_str(&format!("\n{}. {}", k + 1, indent(&what)));
            if let Some(outcome) = revision.as_ref().and_then(|r| r.outcome_line(ask)) {
                text.push_str(&format!("\n   *{outcome}*"));
            }
        }
        points.push(text);
    }
    if !points.is_empty() {
        out.push_str("\n\n### Must fix, from the plan reviews\n\n");
        if revision.is_none() {
            // The revise step failed, or started before a late review came in.
            out.push_str("Not applied to the plan above: the revise step did not run on them.\n\n");
        }
        out.push_str(&points.join("\n\n"));
    }
    Some(out)
}

/// A point's continuation lines, indented under its number.
fn indent(text: &str) -> String {
    text.lines().collect::<Vec<_>>().join("\n   ")
}

/// The command that shows whether the group's findings are gone, for the analyzers whose re-run
/// can be narrowed to them; `None` for a group of several tools or an analyzer we cannot
/// narrow.
pub(crate) fn verify_command(members: &[&FindingRecord]) -> Option<String> {
    let tools: BTreeSet<&str> = members.iter().map(|r| r.finding.tool.as_str()).collect();
    let [tool] = tools.into_iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    let rules: BTreeSet<&str> = members.iter().map(|r| r.finding.rule_id.as_str()).collect();
    let rules: Vec<&str> = rules.into_iter().collect();
    let mut files = BTreeSet::new();
    for record in members {
        files.insert(record.finding.path.as_str());
        files.extend(record.occurrences.iter().map(|o| o.path.as_str()));
    }
    let files = if files.len() > LISTED_FILES {
        ".".to_owned()
    } else {
        files
            .into_iter()
            .map(shell_word)
            .collect::<Vec<_>>()
            .join(" ")
    };
    match tool {
        "ruff" => Some(format!("ruff check --select {} {files}", rules.join(","))),
        "bandit" => Some(format!("bandit -t {} {files}", rules.join(","))),
        "vulture" => Some(format!("vulture {files}")),
        "eslint" => Some(format!("npx eslint {files}")),
        "clippy" => {
            let warn: Vec<String> = rules.iter().map(|r| format!("-W {r}")).collect();
            Some(format!("cargo clippy -- {}", warn.join(" ")))
        }
        _ => None,
    }
}

/// The acceptance criterion the verify command checks.
pub(crate) fn verify_criterion(command: &str, findings: usize) -> String {
    let what = if findings == 1 {
        "this group's finding".to_owned()
    } else {
        format!("any of this group's {findings} findings")
    };
    format!("`{command}` no longer reports {what}")
}

/// Up to three distinct reasons the triage agents gave for the group's verdicts.
pub(crate) fn triage_reasons(dir: &RunDir, group: &Group) -> Vec<String> {
    let mut reasons: Vec<String> = Vec::new();
    for member in &group.members {
        if reasons.len() == REASONS {
            break;
        }
        let Some(reason) = dir
            .read_result(member, "json")
            .and_then(|text| serde_json::from_str::<Value>(&text).ok())
            .and_then(|v| v["reason"].as_str().map(one_line))
        else {
            continue;
        };
        if !reason.is_empty() && !reasons.contains(&reason) {
            reasons.push(reason);
        }
    }
    reasons
}

fn one_line(text: &str) -> String {
    let line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(300) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line,
    }
}

fn shell_word(word: &str) -> String {
    let plain = word
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_./+:@%,".contains(c));
    if plain && !word.is_empty() {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_with_spaces_are_quoted_for_the_shell() {
        assert_eq!(shell_word("src/a.py"), "src/a.py");
        assert_eq!(shell_word("my dir/it's.py"), r"'my dir/it'\''s.py'");
    }
}
