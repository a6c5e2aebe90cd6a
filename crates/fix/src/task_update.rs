//! The task file once its fix is verified: status `Done`, the acceptance criteria the composite
//! check verified ticked, and an implementation note saying how it was fixed and checked.

/// What the fix loop knows about a verified fix.
#[derive(Debug, Clone, Default)]
pub struct FixRecord {
    /// The analyzer's tools (criteria naming one, or findings, are the analyzer's to verify).
    pub tools: Vec<String>,
    /// Whether a test command ran and passed (criteria about tests are then verified).
    pub tests_passed: bool,
    /// Attempts made (0: the autofix or the baseline passed).
    pub attempts: u32,
    /// The tiers that made them, in order (`main`, `sonnet`, ...; `autofix` for the mechanical step).
    pub tiers: Vec<String>,
    pub files_changed: Vec<String>,
    /// The verifying commands, as people would type them.
    pub commands: Vec<String>,
    /// The repair run that did it.
    pub repair_run: String,
}

/// `text` (a Backlog.md task file) with status `Done`, the verified criteria ticked and an
/// implementation note; criteria the check cannot verify stay unticked and the note lists them.
pub fn mark_task_done(text: &str, record: &FixRecord) -> String {
    let mut out = Vec::new();
    let mut in_front = false;
    let mut front_seen = 0;
    let mut in_criteria = false;
    let mut unverified = Vec::new();
    for line in text.lines() {
        if line == "---" && front_seen < 2 {
            front_seen += 1;
            in_front = front_seen == 1;
            out.push(line.to_owned());
            continue;
        }
        if in_front && line.starts_with("status:") {
            out.push("status: Done".to_owned());
            continue;
        }
        if line.contains("<!-- AC:BEGIN -->") {
            in_criteria = true;
        } else if line.contains("<!-- AC:END -->") {
            in_criteria = false;
        } else if in_criteria && let Some(rest) = line.strip_prefix("- [ ] ") {
            if verifies(rest, record) {
                out.push(format!("- [x] {rest}"));
            } else {
                unverified.push(rest.to_owned());
                out.push(line.to_owned());
            }
            continue;
        }
        out.push(line.to_owned());
    }
    let mut text = out.join("\n");
    text.push('\n');
    text.push_str(&format!(
        "\n## Implementation Notes\n\n<!-- SECTION:NOTES:BEGIN -->\n{}\n<!-- SECTION:NOTES:END -->\n",
        note(record, &unverified)
    ));
    text
}

/// True when the composite check's evidence covers the criterion: the analyzer's re-run for one
/// that names the analyzer or its findings, the passing tests for one that says the tests pass.
fn verifies(criterion: &str, record: &FixRecord) -> bool {
    let lower = criterion.to_ascii_lowercase();
    // "The tests pass" is what a passing test command proves; "a test covers X" it does not.
    let about_tests = lower.contains("test")
        && ["pass", "green", "succeed"]
            .iter()
            .any(|w| lower.contains(w));
    let about_analyzer = record
        .tools
        .iter()
        .any(|t| lower.contains(&t.to_ascii_lowercase()))
        || lower.contains("finding")
        || lower.contains("reports none")
        || lower.contains("no longer report");
    if about_tests {
        record.tests_passed
    } else {
        about_analyzer
    }
}

fn note(record: &FixRecord, unverified: &[String]) -> String {
    let attempts = match record.attempts {
        0 => {
            "no model attempt (the mechanical autofix step, or the code already passed)".to_owned()
        }
        1 => "1 attempt".to_owned(),
        n => format!("{n} attempts"),
    };
    let mut note = format!(
        "Fixed by self-repair (repair run {}): {attempts}; tiers: {}.\n\nFiles changed: {}.\n\nVerified by `self-repair verify-task` (reference/fix.md):\n",
        record.repair_run,
        if record.tiers.is_empty() {
            "none".to_owned()
        } else {
            record.tiers.join(", ")
        },
        if record.files_changed.is_empty() {
            "none".to_owned()
        } else {
            record.files_changed.join(", ")
        }
    );
    for command in &record.commands {
        note.push_str(&format!("- `{command}`\n"));
    }
    if !unverified.is_empty() {
        note.push_str("\nNot verified by the check (left unticked, review them):\n");
        for criterion in unverified {
            note.push_str(&format!("- {criterion}\n"));
        }
    }
    note.trim_end().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TASK: &str = "---\nid: TASK-1\ntitle: \"Remove unused imports\"\nstatus: To Do\nassignee: []\n---\n\n## Description\n\n<!-- SECTION:DESCRIPTION:BEGIN -->\nstatus: not front matter\n<!-- SECTION:DESCRIPTION:END -->\n\n## Acceptance Criteria\n<!-- AC:BEGIN -->\n- [ ] #1 `ruff check --select F401 mod.py` reports none of the ruff findings of this group (1 finding)\n- [ ] #2 The project's tests pass after the fixes\n- [ ] #3 The changelog mentions it\n- [ ] #4 A test covers the changed behaviour\n<!-- AC:END -->\n";

    fn record(tests_passed: bool) -> FixRecord {
        FixRecord {
            tools: vec!["ruff".to_owned()],
            tests_passed,
            attempts: 2,
            tiers: vec!["main".to_owned(), "sonnet".to_owned()],
            files_changed: vec!["mod.py".to_owned()],
            commands: vec!["self-repair verify-task task-1 --run r1".to_owned()],
            repair_run: "fix-task-1".to_owned(),
        }
    }

    #[test]
    fn a_verified_task_is_done_with_only_the_criteria_the_check_covers_ticked() {
        let done = mark_task_done(TASK, &record(true));
        insta::assert_snapshot!(done);
        assert!(done.contains("status: not front matter"));
    }

    #[test]
    fn a_test_criterion_stays_unticked_when_no_test_command_ran() {
        let done = mark_task_done(TASK, &record(false));
        assert!(done.contains("- [x] #1"));
        assert!(done.contains("- [ ] #2 The project's tests pass"));
        assert!(done.contains("- [ ] #4 A test covers the changed behaviour"));
    }

    #[test]
    fn a_criterion_is_the_analyzer_s_when_it_names_a_tool_its_findings_or_none_reported() {
        let record = record(false);
        // (criterion, verified by the analyzer's re-run)
        let cases = [
            ("Ruff is clean on mod.py", true),
            ("The 3 findings of the group are gone", true),
            ("`mypy mod.py` reports none", true),
            ("mypy no longer reports them", true),
            ("mypy is clean", false),
            ("The changelog mentions it", false),
        ];
        for (criterion, verified) in cases {
            assert_eq!(verifies(criterion, &record), verified, "{criterion}");
        }
    }
}
