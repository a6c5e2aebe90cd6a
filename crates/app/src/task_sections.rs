//! What code adds to a group's task beyond the task writer's title, summary and criteria: the
//! plan the planners wrote with the reviewers' must-fix points (`## Implementation Plan`), the
//! triage reasons, the analyzer command that verifies the fix, and the run's report.

use std::collections::BTreeSet;

use self_repair_engine::{FindingRecord, Group, PlanDepth, RunState};
use self_repair_store::RunDir;
use serde_json::Value;

/// Most distinct triage reasons quoted in a task.
const REASONS: usize = 3;

/// Above this many files the verify command checks the whole project.
const LISTED_FILES: usize = 20;

/// The `## Implementation Plan` text: the merged plan (a full group's synthesis, a light
/// group's one plan), then every reviewer's must-fix points by angle. `None` when no plan was
/// written (an analyzer-fixed group, or a plan that is missing).
pub fn plan_section(dir: &RunDir, state: &RunState, group: &Group) -> Option<String> {
    let plan = match group.depth {
        PlanDepth::AnalyzerFix => return None,
        PlanDepth::Full => dir
            .read_result(&format!("syn-{}", group.id), "json")
            .and_then(|text| serde_json::from_str::<Value>(&text).ok())
            .and_then(|v| v["plan"].as_str().map(str::to_owned))?,
        PlanDepth::Light => dir.read_result(&format!("plan-{}-1", group.id), "md")?,
    };
    let mut out = plan.trim().to_owned();
    let mut points = Vec::new();
    for (n, angle) in state.config.reviewer_angles.iter().enumerate() {
        let Some(review) = dir.read_result(&format!("rev-{}-{}", group.id, n + 1), "md") else {
            continue;
        };
        let verdict = section(&review, "verdict")
            .and_then(|v| v.lines().next().map(str::trim).map(str::to_owned))
            .unwrap_or_default();
        let Some(must) = section(&review, "must fix").filter(|m| !is_none(m)) else {
            continue;
        };
        points.push(format!("**{angle}** ({verdict}):\n\n{}", must.trim()));
    }
    if !points.is_empty() {
        out.push_str("\n\n### Must fix, from the plan reviews\n\n");
        out.push_str(&points.join("\n\n"));
    }
    Some(out)
}

/// The body of the `## NAME` section of a review (case-insensitive), up to the next `## `.
fn section(markdown: &str, name: &str) -> Option<String> {
    let mut body: Option<Vec<&str>> = None;
    for line in markdown.lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            if body.is_some() {
                break;
            }
            if heading.trim().eq_ignore_ascii_case(name) {
                body = Some(Vec::new());
            }
            continue;
        }
        if let Some(lines) = body.as_mut() {
            lines.push(line);
        }
    }
    body.map(|lines| lines.join("\n").trim().to_owned())
        .filter(|b| !b.is_empty())
}

fn is_none(text: &str) -> bool {
    let t = text.trim().trim_end_matches('.').to_lowercase();
    t.is_empty() || t == "none" || t == "- none" || t == "n/a"
}

/// The command that shows whether the group's findings are gone, for the analyzers whose re-run
/// can be narrowed to them; `None` for a group of several tools or an analyzer we cannot
/// narrow.
pub fn verify_command(members: &[&FindingRecord]) -> Option<String> {
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
pub fn verify_criterion(command: &str, findings: usize) -> String {
    let what = if findings == 1 {
        "this group's finding".to_owned()
    } else {
        format!("any of this group's {findings} findings")
    };
    format!("`{command}` no longer reports {what}")
}

/// Up to three distinct reasons the triage agents gave for the group's verdicts.
pub fn triage_reasons(dir: &RunDir, group: &Group) -> Vec<String> {
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
    fn a_review_s_must_fix_section_is_found_and_none_is_skipped() {
        let review = "## Verdict\napprove with changes, one step is unsafe.\n\n## Must fix\n1. Step 2: keep the `os` import in `cli.py`, it is re-exported.\n\n## Should consider\nnothing";
        assert_eq!(
            section(review, "must fix").as_deref(),
            Some("1. Step 2: keep the `os` import in `cli.py`, it is re-exported.")
        );
        assert_eq!(
            section(review, "verdict").as_deref(),
            Some("approve with changes, one step is unsafe.")
        );
        assert!(is_none(
            &section("## Verdict\napprove\n\n## Must fix\nNone.\n", "must fix").unwrap()
        ));
    }

    #[test]
    fn paths_with_spaces_are_quoted_for_the_shell() {
        assert_eq!(shell_word("src/a.py"), "src/a.py");
        assert_eq!(shell_word("my dir/it's.py"), r"'my dir/it'\''s.py'");
    }
}
