//! `.self-repair/audit.jsonl`: a person's answers, one finding of one run a line, sorted by
//! fingerprint then run, under a `# ` header line, so two people auditing on two branches merge
//! in git (`merge=union` in `.self-repair/.gitattributes`) and `eval` reads it as a labels file
//! as it is (JSON Lines with `fingerprint`, `label` and `note`; the other keys it ignores).

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::audit_candidate::is_closed;
use crate::{Answer, AuditCandidate, AuditError};

/// The file's name under `.self-repair/`.
pub const AUDIT_FILE: &str = "audit.jsonl";

/// The header line (`eval` skips `# ` lines).
const HEADER: &str = "# self-repair audit labels: one audited finding of one run a line, sorted by fingerprint and run (reference/audit.md)";

/// One answered finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditLabel {
    pub fingerprint: String,
    /// The truth as the person gave it, in `eval`'s words: `real` or `not_real`.
    pub label: String,
    /// `agree` or `disagree` with the run's verdict.
    pub answer: String,
    /// The run audited.
    pub run: String,
    /// The verdict the run gave (not `verdict`: `eval` would read that key as the label).
    pub run_verdict: String,
    pub tool: String,
    pub rule: String,
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub route: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier: Option<String>,
    /// The person's reason (a disagreement's is required); `eval` reads it as the label's note.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
    /// Who answered (`USER`, or `--by`).
    pub by: String,
    /// When (RFC 3339, UTC): of two lines for one finding of one run, the later stands.
    pub at: String,
}

impl AuditLabel {
    /// The label `answer` on `candidate` makes; `None` for a skip.
    pub fn of(
        candidate: &AuditCandidate,
        run: &str,
        answer: &Answer,
        by: &str,
        at: &str,
    ) -> Option<AuditLabel> {
        let (agree, note) = match answer {
            Answer::Agree => (true, String::new()),
            Answer::Disagree(reason) => (false, reason.trim().to_owned()),
            Answer::Skip => return None,
        };
        // A closed finding the person agrees with is not real; a kept one is.
        let real = candidate.closed() != agree;
        Some(AuditLabel {
            fingerprint: candidate.fingerprint.clone(),
            label: if real { "real" } else { "not_real" }.to_owned(),
            answer: answer.as_str().to_owned(),
            run: run.to_owned(),
            run_verdict: candidate.verdict.clone(),
            tool: candidate.tool.clone(),
            rule: candidate.rule.clone(),
            path: candidate.path.clone(),
            line: candidate.line,
            route: candidate.route.clone(),
            tier: candidate.tier.clone(),
            note,
            by: by.to_owned(),
            at: at.to_owned(),
        })
    }

    /// The run closed it.
    pub fn closed(&self) -> bool {
        is_closed(&self.run_verdict)
    }

    /// The person disagreed with a closure: an unsafe closure, the finding reopened.
    pub fn reopens(&self) -> bool {
        self.closed() && self.answer == "disagree"
    }
}

/// Every answer of the project, by (fingerprint, run).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuditLabels {
    pub labels: BTreeMap<(String, String), AuditLabel>,
}

impl AuditLabels {
    /// Reads the file's text; `path` names it in errors. Blank and `#` lines are skipped; one
    /// finding of one run on two lines (a union merge of two branches) keeps the later answer.
    pub fn parse(text: &str, path: &Path) -> Result<AuditLabels, AuditError> {
        let mut labels = AuditLabels::default();
        for (index, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let label: AuditLabel =
                serde_json::from_str(line).map_err(|e| AuditError::BadLabelLine {
                    path: path.to_path_buf(),
                    line: index + 1,
                    message: e.to_string(),
                })?;
            labels.put(label);
        }
        Ok(labels)
    }

    /// Adds `label` unless the one there for its finding and run was given later.
    pub fn put(&mut self, label: AuditLabel) {
        let key = (label.fingerprint.clone(), label.run.clone());
        if self.labels.get(&key).is_some_and(|old| old.at > label.at) {
            return;
        }
        self.labels.insert(key, label);
    }

    /// The file's text: the header, then one line per label, sorted.
    pub fn render(&self) -> String {
        let mut out = format!("{HEADER}\n");
        for label in self.labels.values() {
            if let Ok(line) = serde_json::to_string(label) {
                out.push_str(&line);
                out.push('\n');
            }
        }
        out
    }

    /// The answers given on run `run`.
    pub fn of_run<'a>(&'a self, run: &'a str) -> impl Iterator<Item = &'a AuditLabel> + 'a {
        self.labels.values().filter(move |l| l.run == run)
    }

    /// Whether `fingerprint` was answered in `run`.
    pub fn answered(&self, fingerprint: &str, run: &str) -> bool {
        self.labels
            .contains_key(&(fingerprint.to_owned(), run.to_owned()))
    }

    /// The findings a person reopened (in any run), with the latest such answer: an audit
    /// disagreement stands over every later agent verdict.
    pub fn reopened(&self) -> BTreeMap<&str, &AuditLabel> {
        let mut out: BTreeMap<&str, &AuditLabel> = BTreeMap::new();
        for label in self.labels.values().filter(|l| l.reopens()) {
            let later = out
                .get(label.fingerprint.as_str())
                .is_none_or(|old| old.at <= label.at);
            if later {
                out.insert(&label.fingerprint, label);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::known_answer_tests::candidate;

    fn label(fingerprint: &str, run: &str, answer: &Answer, at: &str) -> AuditLabel {
        let c = candidate(fingerprint, "B602", "security", "opus", "false_positive");
        AuditLabel::of(&c, run, answer, "alice", at).unwrap()
    }

    #[test]
    fn the_file_is_sorted_one_line_a_finding_and_reads_back() {
        let mut labels = AuditLabels::default();
        labels.put(label("bb", "r1", &Answer::Agree, "2026-12-01T00:00:00Z"));
        labels.put(label(
            "aa",
            "r2",
            &Answer::Disagree("x".into()),
            "2026-12-01T00:00:00Z",
        ));
        labels.put(label("aa", "r1", &Answer::Agree, "2026-12-01T00:00:00Z"));
        let text = labels.render();
        let keys: Vec<&str> = text.lines().skip(1).map(|l| &l[..30]).collect();
        assert!(keys[0].contains("\"aa\""), "{text}");
        assert!(text.lines().nth(1).unwrap().contains("\"r1\""));
        assert!(keys[2].contains("\"bb\""));
        assert_eq!(AuditLabels::parse(&text, Path::new("a")).unwrap(), labels);
    }

    #[test]
    fn a_union_merge_of_two_branches_keeps_both_and_the_later_answer_of_one_finding() {
        let mut ours = AuditLabels::default();
        ours.put(label("aa", "r1", &Answer::Agree, "2026-12-01T00:00:00Z"));
        ours.put(label("cc", "r1", &Answer::Agree, "2026-12-01T00:00:00Z"));
        let mut theirs = AuditLabels::default();
        theirs.put(label(
            "aa",
            "r1",
            &Answer::Disagree("reads argv".into()),
            "2026-12-02T00:00:00Z",
        ));
        theirs.put(label("bb", "r1", &Answer::Agree, "2026-12-01T00:00:00Z"));
        // git's union merge: both sides' lines, ours first.
        let union = format!("{}{}", ours.render(), theirs.render());
        let merged = AuditLabels::parse(&union, Path::new("m")).unwrap();
        assert_eq!(merged.labels.len(), 3);
        let aa = &merged.labels[&("aa".to_owned(), "r1".to_owned())];
        assert_eq!(aa.answer, "disagree");
        assert_eq!(merged.reopened().len(), 1);
    }

    #[test]
    fn eval_reads_the_file_as_a_labels_file() {
        let mut labels = AuditLabels::default();
        labels.put(label("aa", "r1", &Answer::Agree, "2026-12-01T00:00:00Z"));
        labels.put(label(
            "bb",
            "r1",
            &Answer::Disagree("real".into()),
            "2026-12-01T00:00:00Z",
        ));
        let set = self_repair_eval::LabelSet::parse("audit.jsonl", &labels.render()).unwrap();
        assert_eq!(set.format, self_repair_eval::LabelFormat::Jsonl);
        assert_eq!(set.labels.len(), 2);
    }

    #[test]
    fn a_bad_line_names_its_number() {
        let err = AuditLabels::parse("# h\n{\"fingerprint\": 1}\n", Path::new("audit.jsonl"))
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("audit.jsonl:2:"), "{err}");
    }
}
