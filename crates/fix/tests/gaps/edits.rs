//! Analyzer edits: where two edits overlap, what a malformed edit is, and the report.

use self_repair_engine::FixEdit;
use self_repair_fix::{
    EditApplication, EditPreview, EditedFile, FindingFix, FixOutcome, apply_to_text,
};

/// An edit replacing `start..end` of `lines` (line `line`) with `replacement`.
fn edit(line: u32, lines: &str, start: u32, end: u32, replacement: &str) -> FixEdit {
    FixEdit {
        line,
        lines: lines.to_owned(),
        start,
        end,
        replacement: replacement.to_owned(),
    }
}

fn apply(text: &str, fixes: &[(&str, Vec<FixEdit>)]) -> (String, Vec<FixOutcome>) {
    let fixes: Vec<(String, &[FixEdit])> = fixes
        .iter()
        .map(|(name, edits)| ((*name).to_owned(), edits.as_slice()))
        .collect();
    apply_to_text(text, &fixes)
}

#[test]
fn edits_that_touch_without_sharing_a_byte_both_apply() {
    let text = "abcdefgh\n";
    let line = "abcdefgh\n";
    let cases = [
        // Adjacent replacements: 2..5 and 5..8.
        (
            vec![edit(1, line, 2, 5, "X")],
            vec![edit(1, line, 5, 8, "Y")],
            "abXY\n",
        ),
        // The same, the later one first.
        (
            vec![edit(1, line, 5, 8, "Y")],
            vec![edit(1, line, 2, 5, "X")],
            "abXY\n",
        ),
        // An insertion and a replacement elsewhere.
        (
            vec![edit(1, line, 1, 1, "+")],
            vec![edit(1, line, 5, 8, "Y")],
            "a+bcdeY\n",
        ),
        // An insertion where a replacement starts.
        (
            vec![edit(1, line, 3, 3, "+")],
            vec![edit(1, line, 3, 6, "Z")],
            "abc+Zgh\n",
        ),
    ];
    for (first, second, expected) in cases {
        let (new, outcomes) = apply(text, &[("first", first), ("second", second)]);
        assert_eq!(
            outcomes,
            [FixOutcome::Applied(1), FixOutcome::Applied(1)],
            "{expected}"
        );
        assert_eq!(new, expected);
    }
    // Two insertions at one point: their order would be a guess.
    let (new, outcomes) = apply(
        text,
        &[
            ("first", vec![edit(1, line, 3, 3, "+")]),
            ("second", vec![edit(1, line, 3, 3, "-")]),
        ],
    );
    assert_eq!(new, "abc+defgh\n");
    assert!(
        matches!(outcomes[1], FixOutcome::Overlaps(_)),
        "{outcomes:?}"
    );
}

#[test]
fn a_malformed_edit_applies_nothing() {
    let text = "é = 1\nx = 2\n";
    let cases = [
        edit(1, "", 0, 0, "y"),
        edit(1, "é = 1\n", 3, 2, "y"),
        // Inside `é` (two bytes): not a character boundary, at either end.
        edit(1, "é = 1\n", 1, 3, "y"),
        edit(1, "é = 1\n", 0, 1, "y"),
    ];
    for bad in cases {
        let (new, outcomes) = apply(text, &[("bad", vec![bad.clone()])]);
        assert_eq!(new, text, "{bad:?}");
        assert_eq!(
            outcomes,
            [FixOutcome::Stale("the edit is malformed".to_owned())],
            "{bad:?}"
        );
    }
}

#[test]
fn the_report_names_each_finding_s_outcome_and_a_verdict() {
    let fix = |finding: &str, outcome: FixOutcome| FindingFix {
        finding: finding.to_owned(),
        outcome,
    };
    let all = EditApplication {
        fixes: vec![fix("a.py:1 F401", FixOutcome::Applied(2))],
        files_written: vec!["a.py".to_owned()],
    };
    assert!(all.all_applied());
    assert_eq!(all.applied(), 1);
    assert_eq!(
        all.render("task-1", "Unused imports"),
        "apply-fixes task-1: Unused imports\napplied: a.py:1 F401 (2 edit(s))\nfiles written: a.py\nAPPLIED: every finding's fix (1 of 1); `self-repair verify-task task-1` checks the result\n"
    );
    let some = EditApplication {
        fixes: vec![
            fix("a.py:1 F401", FixOutcome::Applied(1)),
            fix("b.py F841", FixOutcome::NoEdits),
            fix("c.py:3 E711", FixOutcome::Stale("gone".to_owned())),
            fix(
                "d.py:4 E712",
                FixOutcome::Unreadable("cannot read".to_owned()),
            ),
            fix("e.py:5 E713", FixOutcome::Overlaps("overlap".to_owned())),
            fix("f.py:6 E714", FixOutcome::Applied(3)),
        ],
        files_written: Vec::new(),
    };
    assert!(!some.all_applied());
    assert_eq!(some.applied(), 2);
    assert_eq!(
        some.render("task-2", "Mixed"),
        "apply-fixes task-2: Mixed\napplied: a.py:1 F401 (1 edit(s))\nskipped: b.py F841: the analyzer's fix has no kept edits\nskipped: c.py:3 E711: gone\nskipped: d.py:4 E712: cannot read\nrefused: e.py:5 E713: overlap\napplied: f.py:6 E714 (3 edit(s))\nfiles written: none\nNOT ALL APPLIED: 2 of 6 finding(s)' fixes; for the others, run the analyzer and `self-repair start` again for fresh edits, or fix them by hand (under `self-repair fix`, the fixer gets them)\n"
    );
}

#[test]
fn a_stale_edit_says_which_line_it_expected_and_whether_it_is_gone_or_ambiguous() {
    let expected = "    x = compute()\n";
    let cases = [
        // Moved one line down: found once elsewhere, applied.
        ("a = 1\n    x = compute()\n", Ok("a = 1\n    x = value()\n")),
        // Mid-line only: not at a line start, so not found.
        (
            "y = 1;    x = compute()\n",
            Err("the file no longer has the text the edit expects (line 3: `x = compute()`)"),
        ),
        (
            "    x = compute()\n    x = compute()\nz\n",
            Err(
                "line 3 changed and the text the edit expects (`x = compute()`) is in the file more than once",
            ),
        ),
    ];
    for (text, want) in cases {
        let (new, outcomes) = apply(
            text,
            &[("moved", vec![edit(3, expected, 8, 17, "value()")])],
        );
        match want {
            Ok(after) => {
                assert_eq!(outcomes, [FixOutcome::Applied(1)], "{text}");
                assert_eq!(new, after);
            }
            Err(why) => assert_eq!(outcomes, [FixOutcome::Stale(why.to_owned())], "{text}"),
        }
    }
}

#[test]
fn the_dry_run_report_shows_the_diff_and_its_verdict_whether_all_or_some_apply() {
    let file = EditedFile {
        path: "m.py".to_owned(),
        before: "import os\nx = 1\n".to_owned(),
        after: "x = 1\n".to_owned(),
    };
    let applied = FindingFix {
        finding: "m.py:1 F401".to_owned(),
        outcome: FixOutcome::Applied(1),
    };
    let stale = FindingFix {
        finding: "n.py:2 F401".to_owned(),
        outcome: FixOutcome::Stale("gone".to_owned()),
    };
    let diff = "--- a/m.py\n+++ b/m.py\n@@ -1,2 +1 @@\n-import os\n x = 1\n";
    // (the findings' outcomes, the report's last line)
    let cases = [
        (
            vec![applied.clone()],
            "DRY RUN: 1 of 1 finding(s)' fixes would apply; nothing was written; `self-repair apply-fixes task-1` without --dry-run applies them",
        ),
        (
            vec![applied.clone(), stale],
            "DRY RUN: 1 of 2 finding(s)' fixes would apply; nothing was written; `self-repair apply-fixes task-1` without --dry-run applies them",
        ),
    ];
    for (fixes, verdict) in cases {
        let lines: Vec<String> = fixes
            .iter()
            .map(|f| match &f.outcome {
                FixOutcome::Applied(_) => format!("applied: {} (1 edit(s))\n", f.finding),
                _ => format!("skipped: {}: gone\n", f.finding),
            })
            .collect();
        let preview = EditPreview {
            application: EditApplication {
                fixes,
                files_written: vec!["m.py".to_owned()],
            },
            files: vec![file.clone()],
        };
        assert_eq!(
            preview.render("task-1", "Remove unused imports"),
            format!(
                "apply-fixes task-1: Remove unused imports\n{}{diff}files it would write: m.py\n{verdict}\n",
                lines.concat()
            )
        );
    }
}
