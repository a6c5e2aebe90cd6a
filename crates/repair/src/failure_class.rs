//! Classification of a failed check as data: rules over the output and exit code decide whether
//! a failure is transient (wait and rerun), permanent (escalate at once) or fixable.

use regex::RegexBuilder;
use serde::{Deserialize, Serialize};

/// What a failed check run means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureClass {
    /// The check passed.
    Pass,
    /// Flaky infrastructure: rerun after a backoff without spending a fix attempt.
    Transient,
    /// No code change can fix it (permissions, credentials, a missing command): escalate.
    Permanent,
    /// A code problem: ask for a fix.
    Fixable,
}

impl FailureClass {
    /// Its name.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureClass::Pass => "pass",
            FailureClass::Transient => "transient",
            FailureClass::Permanent => "permanent",
            FailureClass::Fixable => "fixable",
        }
    }
}

/// One classification rule. It matches when the exit code is in `exit_codes` (if any are given)
/// and the case-insensitive regex `pattern` finds a match in the output (if one is given).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassRule {
    pub class: FailureClass,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub pattern: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exit_codes: Vec<i32>,
}

impl ClassRule {
    fn new(class: FailureClass, pattern: &str, exit_codes: &[i32]) -> ClassRule {
        ClassRule {
            class,
            pattern: pattern.to_owned(),
            exit_codes: exit_codes.to_vec(),
        }
    }

    /// Checks the rule: a pattern that does not compile, or a rule that matches everything.
    pub fn validate(&self) -> Result<(), String> {
        if self.pattern.is_empty() && self.exit_codes.is_empty() {
            return Err("a rule needs a `pattern` or `exit_codes`".to_owned());
        }
        if self.class == FailureClass::Pass {
            return Err("a rule cannot classify a failure as `pass`".to_owned());
        }
        if !self.pattern.is_empty() {
            RegexBuilder::new(&self.pattern)
                .case_insensitive(true)
                .build()
                .map_err(|e| format!("pattern `{}` is not a valid regex: {e}", self.pattern))?;
        }
        Ok(())
    }

    fn matches(&self, exit_code: i32, output: &str) -> bool {
        if !self.exit_codes.is_empty() && !self.exit_codes.contains(&exit_code) {
            return false;
        }
        if self.pattern.is_empty() {
            return true;
        }
        RegexBuilder::new(&self.pattern)
            .case_insensitive(true)
            .build()
            .is_ok_and(|re| re.is_match(output))
    }
}

/// The built-in rules, checked after the user's: permanent causes first, so a missing
/// credential that also logs a timeout is escalated rather than retried.
pub fn default_rules() -> Vec<ClassRule> {
    use FailureClass::{Permanent, Transient};
    vec![
        ClassRule::new(Permanent, "", &[126, 127]),
        ClassRule::new(Permanent, r"command not found|permission denied", &[]),
        ClassRule::new(
            Permanent,
            r"authentication (failed|required)|\bunauthori[sz]ed\b|invalid api key",
            &[],
        ),
        ClassRule::new(
            Permanent,
            r"missing credentials|no credentials|credentials (not found|missing)",
            &[],
        ),
        ClassRule::new(Transient, "", &[124]),
        ClassRule::new(Transient, r"timed out|\btimeout\b", &[]),
        ClassRule::new(
            Transient,
            r"connection (refused|reset)|econnrefused|econnreset",
            &[],
        ),
        ClassRule::new(
            Transient,
            r"\b429\b|too many requests|\b503\b|service unavailable",
            &[],
        ),
        ClassRule::new(Transient, r"temporarily|temporary failure", &[]),
    ]
}

/// Classifies one run of the check: exit 0 passes; otherwise the first matching rule of
/// `user_rules` then [`default_rules`] decides; no match is fixable.
pub fn classify(user_rules: &[ClassRule], exit_code: i32, output: &str) -> FailureClass {
    if exit_code == 0 {
        return FailureClass::Pass;
    }
    user_rules
        .iter()
        .cloned()
        .chain(default_rules())
        .find(|rule| rule.matches(exit_code, output))
        .map_or(FailureClass::Fixable, |rule| rule.class)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_class_has_its_examples() {
        let none: &[ClassRule] = &[];
        for (exit, output) in [
            (124, "self-repair: timed out after 120 s"),
            (1, "Error: connect ECONNREFUSED 127.0.0.1:5432"),
            (1, "connection reset by peer"),
            (1, "HTTP 429 Too Many Requests"),
            (1, "503 Service Unavailable"),
            (1, "the registry is temporarily unavailable"),
        ] {
            assert_eq!(
                classify(none, exit, output),
                FailureClass::Transient,
                "{output}"
            );
        }
        for (exit, output) in [
            (1, "open /etc/shadow: Permission denied"),
            (1, "Error: authentication failed for user"),
            (1, "missing credentials for the registry"),
            (127, "sh: 1: cargo-nope: not found"),
            (1, "bash: cargo-nope: command not found"),
        ] {
            assert_eq!(
                classify(none, exit, output),
                FailureClass::Permanent,
                "{output}"
            );
        }
        assert_eq!(
            classify(none, 101, "test result: FAILED. 1 passed; 1 failed"),
            FailureClass::Fixable
        );
        assert_eq!(classify(none, 0, "permission denied"), FailureClass::Pass);
    }

    #[test]
    fn user_rules_come_first() {
        let rules = [ClassRule::new(
            FailureClass::Fixable,
            r"timeout in test_\w+",
            &[],
        )];
        assert_eq!(
            classify(&rules, 1, "assertion: timeout in test_retry"),
            FailureClass::Fixable
        );
        let flaky = [ClassRule::new(
            FailureClass::Transient,
            "database is locked",
            &[1],
        )];
        assert_eq!(
            classify(&flaky, 1, "Error: database is locked"),
            FailureClass::Transient
        );
        assert_eq!(
            classify(&flaky, 2, "Error: database is locked"),
            FailureClass::Fixable
        );
        assert!(
            ClassRule::new(FailureClass::Transient, "(", &[])
                .validate()
                .is_err()
        );
        assert!(
            ClassRule::new(FailureClass::Transient, "", &[])
                .validate()
                .is_err()
        );
    }
}
