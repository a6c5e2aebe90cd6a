//! The task of a group the analyzer fixes itself (every finding has its own safe fix): written
//! by code, with no planning agent, from the findings alone.

use std::collections::{BTreeMap, BTreeSet};

use self_repair_engine::{FindingRecord, Group, TaskDraft};

/// Longest title, in characters (the task writer's limit too).
const TITLE_CHARS: usize = 69;

/// A group whose findings all carry the analyzer's safe fix, and the findings around it.
#[derive(Debug, Clone, Copy)]
pub struct AnalyzerFixTask<'a> {
    pub group: &'a Group,
    /// The group's findings.
    pub members: &'a [&'a FindingRecord],
    /// Every finding of the run, to count those the same command changes outside the group.
    pub all: &'a [FindingRecord],
}

/// One tool's share of the group: its rules (with a fix description each) and files.
#[derive(Default)]
struct ToolShare {
    rules: BTreeMap<String, Option<String>>,
    files: BTreeSet<String>,
    findings: usize,
}

impl AnalyzerFixTask<'_> {
    /// The task: the command that applies the analyzer's fixes, the counts, and the re-run of
    /// the analyzer as the acceptance criterion.
    pub fn draft(&self) -> TaskDraft {
        let mut tools: BTreeMap<&str, ToolShare> = BTreeMap::new();
        let mut reports = 0;
        let mut files = BTreeSet::new();
        for record in self.members {
            let f = &record.finding;
            let share = tools.entry(f.tool.as_str()).or_default();
            share.findings += 1;
            let description = f.fix.as_ref().and_then(|x| x.description.clone());
            let entry = share.rules.entry(f.rule_id.clone()).or_insert(None);
            if entry.is_none() {
                *entry = description;
            }
            share.files.insert(f.path.clone());
            files.insert(f.path.clone());
            for occurrence in &record.occurrences {
                share.files.insert(occurrence.path.clone());
                files.insert(occurrence.path.clone());
            }
            reports += record.occurrences.len().max(1);
        }
        let findings = self.members.len();
        let mut description = format!(
            "The analyzer fixes this group itself: every finding in it carries the analyzer's own \
             fix, rated safe (applied by default). Root cause: {}. No plan was written for this \
             group: self-repair wrote this task from the analyzer's output.\n\n\
             {} ({}) in {}.",
            self.group.root_cause.trim(),
            counted(findings, "finding"),
            counted(reports, "report"),
            counted(files.len(), "file")
        );
        let mut criteria = Vec::new();
        for (tool, share) in &tools {
            let (fix, check, note) = commands(tool, share);
            let rules: Vec<String> = share
                .rules
                .iter()
                .map(|(rule, what)| match what {
                    Some(what) => format!("- {tool} {rule}: {}", one_line(what)),
                    None => format!("- {tool} {rule}"),
                })
                .collect();
            description.push_str(&format!(
                "\n\n{tool} ({}), the analyzer's fixes:\n\n{}\n\nApply them:\n\n```sh\n{fix}\n```\n",
                counted(share.findings, "finding"),
                rules.join("\n")
            ));
            if let Some(note) = note {
                description.push_str(&format!("\n{note}\n"));
            }
            criteria.push(format!(
                "{check} reports none of the {tool} findings of this group ({})",
                counted(share.findings, "finding")
            ));
        }
        let others = self.others_changed(&tools);
        if others > 0 {
            description.push_str(&format!(
                "\nThe same rules have {} in these files outside this group (judged not real, or \
                 in another group): the command changes them too. Review the diff and keep only \
                 what this group needs.\n",
                counted(others, "other finding")
            ));
        }
        let all_edits_kept = self
            .members
            .iter()
            .all(|r| r.finding.fix.as_ref().is_some_and(|f| !f.edits.is_empty()));
        if all_edits_kept {
            description.push_str(
                "\nself-repair kept the analyzer's edits for every finding of this group: \
                 `self-repair apply-fixes` applies exactly those, only where a file still has the \
                 text an edit expects, and `self-repair fix` runs it (Ruff's own command when a \
                 detector runs Ruff) before any fixer.\n",
            );
        }
        criteria.push("The project's tests pass after the fixes".to_owned());
        let mut labels = vec!["analyzer-fix".to_owned()];
        labels.extend(tools.keys().map(|t| label(t)).filter(|l| !l.is_empty()));
        TaskDraft {
            title: title(&tools, findings),
            description,
            acceptance_criteria: criteria,
            labels,
            priority: None,
        }
    }

    /// Findings outside the group with one of its tools' rules in one of its files.
    fn others_changed(&self, tools: &BTreeMap<&str, ToolShare>) -> usize {
        let members: BTreeSet<&str> = self
            .members
            .iter()
            .map(|r| r.fingerprint.as_str())
            .collect();
        self.all
            .iter()
            .filter(|r| !members.contains(r.fingerprint.as_str()))
            .filter(|r| {
                let f = &r.finding;
                tools.get(f.tool.as_str()).is_some_and(|share| {
                    share.rules.contains_key(&f.rule_id) && share.files.contains(&f.path)
                })
            })
            .count()
    }
}

/// The command that applies one tool's fixes, the command whose re-run is the acceptance
/// check, and a note on what the command cannot narrow down.
fn commands(tool: &str, share: &ToolShare) -> (String, String, Option<String>) {
    let rules: Vec<&str> = share.rules.keys().map(String::as_str).collect();
    let files: Vec<String> = share.files.iter().map(|p| shell_word(p)).collect();
    let files = files.join(" ");
    match tool {
        "ruff" => (
            format!("ruff check --fix --select {} {files}", rules.join(",")),
            format!("`ruff check --select {} {files}`", rules.join(",")),
            None,
        ),
        "clippy" | "rustc" => {
            let warn: Vec<String> = rules.iter().map(|r| format!("-W {r}")).collect();
            let lints = "-A clippy::all -A clippy::pedantic -A clippy::nursery -A unused";
            (
                format!(
                    "cargo clippy --fix --allow-dirty -- {lints} {}",
                    warn.join(" ")
                ),
                format!("`cargo clippy -- {lints} {}`", warn.join(" ")),
                Some(format!(
                    "Run it in the folder of the `Cargo.toml` that builds {files}: cargo fixes \
                     whole packages, so only the lints named with `-W` are left on."
                )),
            )
        }
        "eslint" => (
            format!("npx eslint --fix {files}"),
            format!("`npx eslint {files}`"),
            Some(format!(
                "`eslint --fix` cannot be limited to {}: it applies the fixes of every rule \
                 enabled for these files. Review the diff.",
                rules.join(", ")
            )),
        ),
        _ => (
            format!(
                "# apply {tool}'s own fixes for {} in {files}",
                rules.join(", ")
            ),
            format!("a re-run of {tool}"),
            Some(format!(
                "{tool} rates these fixes safe; apply them the way {tool} applies its fixes."
            )),
        ),
    }
}

fn title(tools: &BTreeMap<&str, ToolShare>, findings: usize) -> String {
    let full = match tools.iter().next() {
        Some((tool, share)) if tools.len() == 1 => {
            let rules: Vec<&str> = share.rules.keys().map(String::as_str).collect();
            format!(
                "Apply {tool}'s safe fixes for {} ({})",
                rules.join(", "),
                counted(findings, "finding")
            )
        }
        _ => format!(
            "Apply the analyzers' safe fixes ({})",
            counted(findings, "finding")
        ),
    };
    if full.chars().count() <= TITLE_CHARS {
        return full;
    }
    let rules: usize = tools.values().map(|s| s.rules.len()).sum();
    let whose = match tools.keys().next() {
        Some(tool) if tools.len() == 1 => format!("{tool}'s"),
        _ => "the analyzers'".to_owned(),
    };
    format!(
        "Apply {whose} safe fixes for {rules} rules ({})",
        counted(findings, "finding")
    )
}

/// A word the shell reads as itself: single-quoted unless plainly safe.
fn shell_word(text: &str) -> String {
    if !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./+,:@".contains(c))
    {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

fn label(tool: &str) -> String {
    tool.to_ascii_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect::<String>()
        .trim_matches('-')
        .to_owned()
}

/// `1 finding`, `3 findings`.
fn counted(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use self_repair_engine::{
        AnalyzerFix, Finding, FindingRecord, FixApplicability, FixEdit, Group, Level, Occurrence,
        PlanDepth,
    };

    use super::AnalyzerFixTask;

    fn record(tool: &str, rule: &str, path: &str, n: u32) -> FindingRecord {
        FindingRecord {
            fingerprint: format!("{tool}-{rule}-{path}-{n}"),
            finding: Finding {
                tool: tool.to_owned(),
                rule_id: rule.to_owned(),
                level: Level::Warning,
                message: "m".to_owned(),
                path: path.to_owned(),
                line: Some(n),
                column: None,
                end_line: None,
                end_column: None,
                symbol: None,
                help_uri: None,
                raw: None,
                fix: Some(AnalyzerFix {
                    applicability: FixApplicability::Safe,
                    description: Some(format!("fix {rule}")),
                    edits: Vec::new(),
                }),
            },
            occurrences: vec![Occurrence {
                path: path.to_owned(),
                line: Some(n),
                column: None,
            }],
            item: None,
            predecided: None,
            job_index: None,
        }
    }

    fn group() -> Group {
        Group {
            id: "g1".to_owned(),
            label: "l".to_owned(),
            root_cause: "cause".to_owned(),
            members: Vec::new(),
            planned: true,
            depth: PlanDepth::AnalyzerFix,
        }
    }

    #[test]
    fn clippy_gets_only_its_lints_warned_and_eslint_says_it_cannot_narrow_down() {
        let all = vec![
            record("clippy", "clippy::len_zero", "rs/src/main.rs", 4),
            record("eslint", "no-var", "js/src/my file.js", 1),
            // Same rule, same file, not in the group: the command changes it too.
            record("eslint", "no-var", "js/src/my file.js", 9),
        ];
        let members: Vec<&FindingRecord> = all[..2].iter().collect();
        let group = group();
        let draft = AnalyzerFixTask {
            group: &group,
            members: &members,
            all: &all,
        }
        .draft();
        assert_eq!(draft.title, "Apply the analyzers' safe fixes (2 findings)");
        assert!(draft.description.contains(
            "cargo clippy --fix --allow-dirty -- -A clippy::all -A clippy::pedantic -A clippy::nursery -A unused -W clippy::len_zero"
        ), "{}", draft.description);
        assert!(
            draft
                .description
                .contains("npx eslint --fix 'js/src/my file.js'"),
            "{}",
            draft.description
        );
        assert!(
            draft
                .description
                .contains("The same rules have 1 other finding in these files"),
            "{}",
            draft.description
        );
        assert_eq!(draft.acceptance_criteria.len(), 3);
        assert_eq!(draft.labels, ["analyzer-fix", "clippy", "eslint"]);
    }

    /// Each tool's share counts its findings; a finding outside the group counts as changed
    /// by the command only with one of the group's rules *and* in one of its files, and with
    /// none such the note is left out.
    #[test]
    fn a_tool_counts_its_findings_and_only_its_rules_in_its_files_count_as_changed_too() {
        let all = vec![
            record("ruff", "F401", "a.py", 1),
            record("ruff", "F401", "a.py", 2),
            // The group's rule in another file, another rule in the group's file, another
            // tool's finding there: the command changes none of them.
            record("ruff", "F401", "b.py", 3),
            record("ruff", "E711", "a.py", 4),
            record("eslint", "F401", "a.py", 5),
        ];
        let members: Vec<&FindingRecord> = all[..2].iter().collect();
        let group = group();
        let draft = AnalyzerFixTask {
            group: &group,
            members: &members,
            all: &all,
        }
        .draft();
        assert_eq!(draft.title, "Apply ruff's safe fixes for F401 (2 findings)");
        assert!(
            draft
                .description
                .contains("\n\n2 findings (2 reports) in 1 file.\n"),
            "{}",
            draft.description
        );
        assert!(
            draft
                .description
                .contains("ruff (2 findings), the analyzer's fixes:\n\n- ruff F401: fix F401\n"),
            "{}",
            draft.description
        );
        assert!(
            !draft.description.contains("outside this group"),
            "{}",
            draft.description
        );
        assert_eq!(
            draft.acceptance_criteria[0],
            "`ruff check --select F401 a.py` reports none of the ruff findings of this group (2 findings)"
        );
    }

    /// The note that self-repair applies the analyzer's edits itself is written only when every
    /// finding of the group kept its edits.
    #[test]
    fn the_kept_edits_note_needs_every_finding_s_edits() {
        let with_edits = |n: u32| {
            let mut r = record("ruff", "F401", "a.py", n);
            if let Some(fix) = r.finding.fix.as_mut() {
                fix.edits = vec![FixEdit {
                    line: n,
                    lines: "import os\n".to_owned(),
                    start: 0,
                    end: 10,
                    replacement: String::new(),
                }];
            }
            r
        };
        let group = group();
        for (all, noted) in [
            (vec![with_edits(1), with_edits(2)], true),
            (
                vec![with_edits(1), record("ruff", "F401", "a.py", 2)],
                false,
            ),
            (
                vec![
                    record("ruff", "F401", "a.py", 1),
                    record("ruff", "F401", "a.py", 2),
                ],
                false,
            ),
        ] {
            let members: Vec<&FindingRecord> = all.iter().collect();
            let draft = AnalyzerFixTask {
                group: &group,
                members: &members,
                all: &all,
            }
            .draft();
            assert_eq!(
                draft
                    .description
                    .contains("`self-repair apply-fixes` applies exactly those"),
                noted,
                "{}",
                draft.description
            );
        }
    }

    #[test]
    fn a_long_rule_list_gives_a_short_title() {
        let all: Vec<FindingRecord> = (0..12)
            .map(|n| record("ruff", &format!("RULE{n:03}"), "a.py", n))
            .collect();
        let members: Vec<&FindingRecord> = all.iter().collect();
        let group = group();
        let draft = AnalyzerFixTask {
            group: &group,
            members: &members,
            all: &all,
        }
        .draft();
        assert_eq!(
            draft.title,
            "Apply ruff's safe fixes for 12 rules (12 findings)"
        );
        assert!(draft.title.chars().count() <= 69);
        assert!(
            draft
                .description
                .contains("ruff check --fix --select RULE000,RULE001,")
        );
    }

    #[test]
    fn a_path_is_quoted_for_the_shell_unless_plainly_safe_and_a_fix_is_one_line() {
        for (path, word) in [
            ("src/a.py", "src/a.py"),
            ("a+b,c:d@e_f-g.h", "a+b,c:d@e_f-g.h"),
            ("a b.py", "'a b.py'"),
            ("", "''"),
            ("it's.py", r"'it'\''s.py'"),
            ("$(rm -rf x)", "'$(rm -rf x)'"),
        ] {
            assert_eq!(super::shell_word(path), word, "{path}");
        }
        assert_eq!(
            super::one_line("Remove\n  the unused   import"),
            "Remove the unused import"
        );
    }
}
