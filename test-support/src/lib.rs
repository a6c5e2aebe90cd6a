//! What the tests of every crate share (a dev-dependency only, never shipped): the pinned clock,
//! the five-rule JSONL corpus, and a git fixture with an identity of its own.

#![expect(
    clippy::expect_used,
    reason = "test infrastructure: a fixture that cannot run fails the test that uses it"
)]

use std::path::Path;
use std::process::Command;

/// The instant tests pin the clock to: 2026-11-22T09:30:05Z.
pub const NOW: u64 = 1_795_339_805;

/// The five rules of the generic corpus: tool, rule id, level, message.
const RULES: [(&str, &str, &str, &str); 5] = [
    ("ruff", "F401", "warning", "imported but unused"),
    (
        "ruff",
        "E711",
        "error",
        "comparison to None should be `cond is None`",
    ),
    (
        "eslint",
        "eqeqeq",
        "warning",
        "Expected '===' and instead saw '=='",
    ),
    ("vulture", "unused-function", "warning", "unused function"),
    (
        "clippy",
        "clippy::len_zero",
        "warning",
        "length comparison to zero",
    ),
];

/// `count` distinct generic findings as JSONL lines (no trailing newline), over the five rules:
/// one triage item each after `start`.
pub fn jsonl_findings(count: usize) -> String {
    (0..count)
        .map(|i| {
            let (tool, rule, level, message) = RULES[i % RULES.len()];
            serde_json::json!({"tool": tool, "rule_id": rule, "level": level,
                "message": format!("{message} (n{i})"), "path": format!("src/m{}.py", i / 7),
                "line": i % 40 + 1, "symbol": format!("sym{i}")})
            .to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Runs `git ARGS` in `dir` with a fixed identity and no signing, the user's and the system's
/// configuration left out; asserts it succeeded and returns its standard output.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@localhost",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output();
    let output = output.expect("git starts");
    assert!(
        output.status.success(),
        "git {args:?} in {}: {}",
        dir.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_corpus_has_one_line_per_finding_over_five_rules() {
        let text = jsonl_findings(12);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 12);
        let rules: std::collections::BTreeSet<String> = lines
            .iter()
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap()["rule_id"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect();
        assert_eq!(rules.len(), 5);
    }
}
