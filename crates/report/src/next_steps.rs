//! What a person does after a run, with the commands: fix its tasks (`self-repair fix`),
//! accept the rule proposals (`rules accept`) and the dismissals waiting in `known.json`
//! (`known accept`), and make the analyzer configuration changes its surveys suggest. Only the
//! steps that apply; report.md's "Next steps", the closing line and `status` say them.

use serde::Serialize;

/// The counts behind each next step of one run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct NextSteps {
    pub run: String,
    /// Backlog tasks of the run `self-repair fix` would take (written, or found already
    /// written; after a `fix`, those not fixed, not Done and not found not reproduced).
    pub tasks: usize,
    /// Tasks `fix` found not reproduced: the detectors do not report their findings.
    #[serde(skip_serializing_if = "is_zero")]
    pub not_reproduced: usize,
    /// Rules the run's rule review proposed, still `proposed` in `rules.json`.
    pub rule_proposals: usize,
    /// Dismissals of the run `known.json` keeps as proposals.
    pub known_proposals: usize,
    /// Rules a survey's `suppress` policy suggests silencing in the analyzer's configuration.
    pub config_changes: usize,
}

impl NextSteps {
    /// True when there is nothing left to do.
    pub fn is_empty(&self) -> bool {
        self.tasks
            + self.not_reproduced
            + self.rule_proposals
            + self.known_proposals
            + self.config_changes
            == 0
    }

    /// One sentence for the closing line (`None` when nothing applies): "Next: `self-repair
    /// fix` for 4 tasks; `self-repair rules accept` for 2 rule proposals (report.md's Next
    /// steps)."
    pub fn line(&self) -> Option<String> {
        let steps = self.steps();
        (!steps.is_empty()).then(|| format!("Next: {} (report.md's Next steps).", steps.join("; ")))
    }

    /// Each step that applies, in a few words with its command and count.
    pub fn steps(&self) -> Vec<String> {
        let mut steps = Vec::new();
        if self.tasks > 0 {
            steps.push(format!(
                "`self-repair fix` for {}",
                counted(self.tasks, "task", "tasks")
            ));
        }
        if self.not_reproduced > 0 {
            steps.push(format!(
                "{} not reproduced by the detectors (reference/fix.md, then `self-repair fix TASK`)",
                counted(self.not_reproduced, "task", "tasks")
            ));
        }
        if self.rule_proposals > 0 {
            steps.push(format!(
                "`self-repair rules accept` for {}",
                counted(self.rule_proposals, "rule proposal", "rule proposals")
            ));
        }
        if self.known_proposals > 0 {
            steps.push(format!(
                "`self-repair known accept` for {}",
                counted(self.known_proposals, "dismissal", "dismissals")
            ));
        }
        if self.config_changes > 0 {
            steps.push(format!(
                "{} to the analyzer's configuration",
                counted(self.config_changes, "suggested change", "suggested changes")
            ));
        }
        steps
    }

    /// report.md's "Next steps" section; empty when nothing applies.
    pub fn render_markdown(&self) -> String {
        if self.is_empty() {
            return String::new();
        }
        let mut out = String::from("## Next steps\n\n");
        if self.tasks > 0 {
            out.push_str(&format!(
                "- `self-repair fix --run {}`: fixes the run's {} one at a time, each checked by \
                 re-running the detectors and the tests (it needs `detectors` and a `test` \
                 command in `.self-repair/config.json` and a git work tree: reference/fix.md).\n",
                self.run,
                counted(self.tasks, "task", "tasks")
            ));
        }
        if self.rule_proposals > 0 {
            out.push_str(&format!(
                "- `self-repair rules accept ID` for each rule you agree with under \"Rule \
                 proposals\" ({}): an accepted rule decides matching findings from the next \
                 `self-repair start`, with no agent (`self-repair rules reject ID` drops one).\n",
                counted(self.rule_proposals, "proposal", "proposals")
            ));
        }
        if self.known_proposals > 0 {
            out.push_str(&format!(
                "- `self-repair known accept FINGERPRINT` for each dismissal you agree with under \
                 \"Waiting for `known accept`\" ({}): until a person accepts it, a dismissal \
                 decides nothing and the next run triages the finding again (`self-repair known \
                 reject FINGERPRINT` forgets it).\n",
                counted(self.known_proposals, "dismissal", "dismissals")
            ));
        }
        if self.config_changes > 0 {
            out.push_str(&format!(
                "- The analyzer configuration under \"Suggested analyzer configuration\" ({}): \
                 once it is made, the analyzer's next report no longer holds those findings.\n",
                counted(self.config_changes, "suggested change", "suggested changes")
            ));
        }
        out.push('\n');
        out
    }
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde passes a reference"
)]
fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// `1 task`, `4 tasks`.
fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::NextSteps;

    #[test]
    fn a_run_with_nothing_left_has_no_next_steps_line_and_no_section() {
        let steps = NextSteps {
            run: "r".to_owned(),
            ..NextSteps::default()
        };
        assert!(steps.is_empty());
        assert_eq!(steps.line(), None);
        assert_eq!(steps.render_markdown(), "");
    }

    #[test]
    fn next_steps_name_only_the_steps_that_apply_with_their_counts() {
        let steps = NextSteps {
            run: "r".to_owned(),
            tasks: 1,
            known_proposals: 3,
            ..NextSteps::default()
        };
        assert_eq!(
            steps.line().as_deref(),
            Some(
                "Next: `self-repair fix` for 1 task; `self-repair known accept` for 3 dismissals \
                 (report.md's Next steps)."
            )
        );
        let section = steps.render_markdown();
        assert!(section.contains("`self-repair fix --run r`"), "{section}");
        assert!(section.contains("(3 dismissals)"), "{section}");
        assert!(!section.contains("rules accept"), "{section}");
        assert!(!section.contains("Suggested analyzer"), "{section}");
    }

    /// Each count alone, at 2: the step it adds, in the line and in report.md.
    #[test]
    fn each_count_adds_its_own_step_and_section_line() {
        // (the count set, its step, what its report.md line says)
        type Case = (fn(&mut NextSteps), &'static str, Option<&'static str>);
        let cases: [Case; 5] = [
            (
                |s| s.tasks = 2,
                "`self-repair fix` for 2 tasks",
                Some("fixes the run's 2 tasks"),
            ),
            (
                |s| s.not_reproduced = 2,
                "2 tasks not reproduced by the detectors (reference/fix.md, then `self-repair fix TASK`)",
                None,
            ),
            (
                |s| s.rule_proposals = 2,
                "`self-repair rules accept` for 2 rule proposals",
                Some("\"Rule proposals\" (2 proposals)"),
            ),
            (
                |s| s.known_proposals = 2,
                "`self-repair known accept` for 2 dismissals",
                Some("(2 dismissals)"),
            ),
            (
                |s| s.config_changes = 2,
                "2 suggested changes to the analyzer's configuration",
                Some("\"Suggested analyzer configuration\" (2 suggested changes)"),
            ),
        ];
        for (set, step, section) in cases {
            let mut steps = NextSteps {
                run: "r".to_owned(),
                ..NextSteps::default()
            };
            set(&mut steps);
            assert!(!steps.is_empty(), "{step}");
            assert_eq!(steps.steps(), [step]);
            assert_eq!(
                steps.line(),
                Some(format!("Next: {step} (report.md's Next steps)."))
            );
            let markdown = steps.render_markdown();
            assert!(markdown.starts_with("## Next steps\n\n"), "{markdown}");
            match section {
                Some(words) => {
                    assert!(markdown.contains(words), "{markdown}");
                    assert_eq!(markdown.matches("\n- ").count(), 1, "{markdown}");
                }
                None => assert_eq!(markdown, "## Next steps\n\n\n"),
            }
        }
    }

    #[test]
    fn not_reproduced_is_written_only_when_there_are_some() {
        let mut steps = NextSteps {
            run: "r".to_owned(),
            tasks: 1,
            ..NextSteps::default()
        };
        let json = serde_json::to_value(&steps).unwrap();
        assert_eq!(json.get("not_reproduced"), None);
        assert_eq!(json["tasks"], 1);
        steps.not_reproduced = 1;
        let json = serde_json::to_value(&steps).unwrap();
        assert_eq!(json["not_reproduced"], 1);
        assert_eq!(
            steps.steps()[1],
            "1 task not reproduced by the detectors (reference/fix.md, then `self-repair fix TASK`)"
        );
    }
}
