//! `export github-dismissals`: the `gh api` calls that dismiss, in GitHub code scanning, the
//! alerts of the findings a run dismissed. The binary never calls the network; the user runs
//! the script.
//!
//! A finding read from the code scanning alerts themselves (`start` on `gh api` output) knows
//! its alert number: its call dismisses that alert. A SARIF file holds no alert number, so for
//! the other findings the script lists the repository's open alerts once and finds each one's
//! alert by tool name (case-insensitive), rule id, path and start line of the alert's most
//! recent instance (reference/export.md).

use std::collections::HashMap;

use self_repair_engine::FindingRecord;
use self_repair_report::{FindingOutcome, RunReport};

use crate::disposition::{is_dismissal, justification};
use crate::input_index::InputIndex;

/// The longest `dismissed_comment` GitHub accepts.
pub(crate) const COMMENT_CHARS: usize = 280;

/// The script and how many dismissals it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DismissalScript {
    pub text: String,
    /// Occurrences the script dismisses.
    pub dismissals: usize,
    /// Of them, dismissed by the alert number the run read (the rest are looked up).
    pub by_number: usize,
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

/// The part of the script that dismisses alerts by number.
const BY_NUMBER: &str = "\
dismiss_alert() {
  gh api --method PATCH \"repos/{owner}/{repo}/code-scanning/alerts/$1\" \\
    -f state=dismissed -f dismissed_reason=\"$2\" -f dismissed_comment=\"$3\" > /dev/null
  echo \"dismissed alert $1 ($2)\"
}
";

/// The part of the script that finds each alert by tool, rule, path and line, then dismisses it.
const BY_LOOKUP: &str = "\
alerts=\"$(mktemp)\"
trap 'rm -f \"$alerts\"' EXIT
gh api --paginate 'repos/{owner}/{repo}/code-scanning/alerts?state=open&per_page=100' --jq '.[]' > \"$alerts\"
dismiss() {
  jq -r --arg tool \"$1\" --arg rule \"$2\" --arg path \"$3\" --arg line \"$4\" \\
    'select((.tool.name | ascii_downcase) == $tool and .rule.id == $rule
      and .most_recent_instance.location.path == $path
      and ($line == \"\" or (.most_recent_instance.location.start_line | tostring) == $line))
     | .number' \"$alerts\" |
  while read -r number; do
    gh api --method PATCH \"repos/{owner}/{repo}/code-scanning/alerts/$number\" \\
      -f state=dismissed -f dismissed_reason=\"$5\" -f dismissed_comment=\"$6\" > /dev/null
    echo \"dismissed alert $number: $2 $3:$4 ($5)\"
  done
}
";

impl DismissalScript {
    /// The script for `report`'s dismissals over the run's `records`; `index` (the run's
    /// `inputs/index.json`) gives the alert number of each finding read from code scanning.
    pub fn build(
        report: &RunReport,
        records: &[FindingRecord],
        index: Option<&InputIndex>,
    ) -> DismissalScript {
        let outcome_of: HashMap<&str, &FindingOutcome> = report
            .findings
            .iter()
            .map(|o| (&*o.fingerprint, o))
            .collect();
        let numbers = index.map(InputIndex::alert_numbers).unwrap_or_default();
        let (mut numbered, mut looked_up) = (Vec::new(), Vec::new());
        for (at, record) in records.iter().enumerate() {
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
            for (occurrence, (path, line)) in places.into_iter().enumerate() {
                let Some(reason) = dismissed_reason(verdict, path) else {
                    continue;
                };
                let line = line.map_or(String::new(), |l| l.to_string());
                let key = [u32::try_from(at).unwrap_or(u32::MAX), occurrence as u32];
                let tool = record.finding.tool.to_lowercase();
                let rule = &record.finding.rule_id;
                if let Some(number) = numbers.get(&key) {
                    numbered.push(format!(
                        "dismiss_alert {number} {} {}  # {tool} {rule} {path}:{line}",
                        quote(reason),
                        quote(&comment),
                    ));
                } else {
                    looked_up.push(format!(
                        "dismiss {} {} {} {} {} {}",
                        quote(&tool),
                        quote(rule),
                        quote(path),
                        quote(&line),
                        quote(reason),
                        quote(&comment),
                    ));
                }
            }
        }
        let dismissals = numbered.len() + looked_up.len();
        let by_number = numbered.len();
        if dismissals == 0 {
            return DismissalScript {
                text: format!(
                    "# self-repair run {}: no finding dismissed (false_positive or intended), so \
                     no GitHub code scanning alert to dismiss.\n",
                    report.run
                ),
                dismissals,
                by_number,
            };
        }
        let mut text = format!(
            "#!/bin/sh\n\
             # self-repair run {run}: {dismissals} finding{s} to dismiss in GitHub code scanning.\n\
             # Run it in a clone of the repository (gh fills in {{owner}}/{{repo}}); it needs gh\n",
            run = report.run,
            s = if dismissals == 1 { "" } else { "s" },
        );
        if looked_up.is_empty() {
            text.push_str(
                "# (logged in, with the security_events scope). The run read these alerts from code\n\
                 # scanning: each line below dismisses one by its number (reference/export.md).\n\
                 set -eu\n",
            );
        } else {
            text.push_str(
                "# (logged in, with the security_events scope) and jq. Alert numbers are not in SARIF:\n\
                 # the first call lists the open alerts once, then each line below dismisses the open\n\
                 # alert of the same tool, rule, path and line (reference/export.md).\n",
            );
            if !numbered.is_empty() {
                text.push_str(
                    "# Findings the run read from the alerts themselves are dismissed by number\n\
                     # (`dismiss_alert`).\n",
                );
            }
            text.push_str("set -eu\n");
            text.push_str(BY_LOOKUP);
        }
        if !numbered.is_empty() {
            text.push_str(BY_NUMBER);
        }
        for call in numbered.iter().chain(&looked_up) {
            text.push_str(call);
            text.push('\n');
        }
        DismissalScript {
            text,
            dismissals,
            by_number,
        }
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
        let script = DismissalScript::build(&report, &[], None);
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
