//! `export github-dismissals`: the `gh api` calls that dismiss, in GitHub code scanning, the
//! alerts of the findings a run dismissed. The binary never calls the network; the user runs
//! the script.
//!
//! GitHub's alert numbers are not in any SARIF file, so the script lists the repository's open
//! alerts once and finds each finding's alert by tool name (case-insensitive), rule id, path
//! and start line of the alert's most recent instance (reference/export.md).

use self_repair_engine::FindingRecord;
use self_repair_report::{FindingOutcome, RunReport};

use crate::disposition::{is_dismissal, justification};

/// The longest `dismissed_comment` GitHub accepts.
pub(crate) const COMMENT_CHARS: usize = 280;

/// The script and how many dismissals it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DismissalScript {
    pub text: String,
    /// Occurrences the script dismisses.
    pub dismissals: usize,
}

/// GitHub's reason for a dismissal: `false positive` for `false_positive`; for `intended`,
/// `used in tests` when the finding is in a test file, else `won't fix`.
pub fn dismissed_reason(verdict: &str, path: &str) -> Option<&'static str> {
    match verdict {
        "false_positive" => Some("false positive"),
        "intended" if is_test_path(path) => Some("used in tests"),
        "intended" => Some("won't fix"),
        _ => None,
    }
}

impl DismissalScript {
    /// The script for `report`'s dismissals over the run's `records`.
    pub fn build(report: &RunReport, records: &[FindingRecord]) -> DismissalScript {
        let outcome_of: std::collections::HashMap<&str, &FindingOutcome> = report
            .findings
            .iter()
            .map(|o| (o.fingerprint.as_str(), o))
            .collect();
        let mut calls = Vec::new();
        for record in records {
            let Some(outcome) = outcome_of.get(record.fingerprint.as_str()) else {
                continue;
            };
            if !is_dismissal(outcome) {
                continue;
            }
            let verdict = outcome.verdict.as_deref().unwrap_or_default();
            let comment = cut(&justification(&report.run, outcome), COMMENT_CHARS);
            let places: Vec<(&str, Option<u32>)> = if record.occurrences.is_empty() {
                vec![(record.finding.path.as_str(), record.finding.line)]
            } else {
                record
                    .occurrences
                    .iter()
                    .map(|o| (o.path.as_str(), o.line))
                    .collect()
            };
            for (path, line) in places {
                let Some(reason) = dismissed_reason(verdict, path) else {
                    continue;
                };
                calls.push(format!(
                    "dismiss {} {} {} {} {} {}",
                    quote(&record.finding.tool.to_lowercase()),
                    quote(&record.finding.rule_id),
                    quote(path),
                    quote(&line.map_or(String::new(), |l| l.to_string())),
                    quote(reason),
                    quote(&comment),
                ));
            }
        }
        let dismissals = calls.len();
        if dismissals == 0 {
            return DismissalScript {
                text: format!(
                    "# self-repair run {}: no finding dismissed (false_positive or intended), so \
                     no GitHub code scanning alert to dismiss.\n",
                    report.run
                ),
                dismissals,
            };
        }
        let mut text = format!(
            "#!/bin/sh\n\
             # self-repair run {run}: {dismissals} finding{s} to dismiss in GitHub code scanning.\n\
             # Run it in a clone of the repository (gh fills in {{owner}}/{{repo}}); it needs gh\n\
             # (logged in, with the security_events scope) and jq. Alert numbers are not in SARIF:\n\
             # the first call lists the open alerts once, then each line below dismisses the open\n\
             # alert of the same tool, rule, path and line (reference/export.md).\n\
             set -eu\n\
             alerts=\"$(mktemp)\"\n\
             trap 'rm -f \"$alerts\"' EXIT\n\
             gh api --paginate 'repos/{{owner}}/{{repo}}/code-scanning/alerts?state=open&per_page=100' --jq '.[]' > \"$alerts\"\n\
             dismiss() {{\n\
             \x20 jq -r --arg tool \"$1\" --arg rule \"$2\" --arg path \"$3\" --arg line \"$4\" \\\n\
             \x20   'select((.tool.name | ascii_downcase) == $tool and .rule.id == $rule\n\
             \x20     and .most_recent_instance.location.path == $path\n\
             \x20     and ($line == \"\" or (.most_recent_instance.location.start_line | tostring) == $line))\n\
             \x20    | .number' \"$alerts\" |\n\
             \x20 while read -r number; do\n\
             \x20   gh api --method PATCH \"repos/{{owner}}/{{repo}}/code-scanning/alerts/$number\" \\\n\
             \x20     -f state=dismissed -f dismissed_reason=\"$5\" -f dismissed_comment=\"$6\" > /dev/null\n\
             \x20   echo \"dismissed alert $number: $2 $3:$4 ($5)\"\n\
             \x20 done\n\
             }}\n",
            run = report.run,
            s = if dismissals == 1 { "" } else { "s" },
        );
        for call in &calls {
            text.push_str(call);
            text.push('\n');
        }
        DismissalScript { text, dismissals }
    }
}

/// `text` in single quotes for a POSIX shell.
fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// At most `max` characters, the last one `…` when cut.
fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut kept: String = text.chars().take(max - 1).collect();
    kept.push('…');
    kept
}

/// A test file by the usual conventions: a `test`/`tests`/`__tests__`/`spec` folder, or a file
/// named `test_*`, `*_test.*`, `*.test.*` or `*.spec.*`.
fn is_test_path(path: &str) -> bool {
    let mut segments = path.split('/').peekable();
    while let Some(segment) = segments.next() {
        if segments.peek().is_some() {
            if matches!(segment, "test" | "tests" | "__tests__" | "spec" | "testing") {
                return true;
            }
            continue;
        }
        let stem = segment.split('.').next().unwrap_or(segment);
        return segment.starts_with("test_")
            || stem.ends_with("_test")
            || segment.contains(".test.")
            || segment.contains(".spec.");
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_follow_the_verdict_and_the_path() {
        assert_eq!(
            dismissed_reason("false_positive", "tests/a.py"),
            Some("false positive")
        );
        assert_eq!(dismissed_reason("intended", "src/a.py"), Some("won't fix"));
        for path in [
            "tests/a.py",
            "pkg/test_a.py",
            "go/a_test.go",
            "web/a.spec.ts",
            "web/__tests__/a.js",
            "a.test.js",
        ] {
            assert_eq!(
                dismissed_reason("intended", path),
                Some("used in tests"),
                "{path}"
            );
        }
        assert_eq!(
            dismissed_reason("intended", "src/contest.py"),
            Some("won't fix")
        );
        assert_eq!(dismissed_reason("real", "src/a.py"), None);
        assert_eq!(dismissed_reason("unsure", "src/a.py"), None);
    }

    #[test]
    fn a_run_without_dismissals_prints_no_call() {
        let report = crate::export_tests::report(&[], &[], Vec::new());
        let script = DismissalScript::build(&report, &[]);
        assert_eq!(script.dismissals, 0);
        assert!(!script.text.contains("gh api"), "{}", script.text);
    }

    #[test]
    fn quoting_survives_single_quotes() {
        assert_eq!(quote("it's"), r"'it'\''s'");
    }

    #[test]
    fn comments_are_cut_to_githubs_limit() {
        let long = "x".repeat(400);
        let kept = cut(&long, COMMENT_CHARS);
        assert_eq!(kept.chars().count(), COMMENT_CHARS);
        assert!(kept.ends_with('…'));
        assert_eq!(cut("short", COMMENT_CHARS), "short");
    }
}
