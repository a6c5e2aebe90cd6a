//! `apply-fixes --dry-run`: what the analyzer's edits would change, as a unified diff per file,
//! with nothing written.

use std::fmt::Write as _;

use crate::edit_application::EditApplication;

/// One file the edits would change: its text now and after.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditedFile {
    /// Project-relative.
    pub path: String,
    pub before: String,
    pub after: String,
}

/// What `apply-fixes` would do: the per-finding report and the files' changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditPreview {
    pub application: EditApplication,
    pub files: Vec<EditedFile>,
}

impl EditPreview {
    /// A unified diff of every file (`a/PATH`, `b/PATH`, as `git diff` names them).
    pub fn diff(&self) -> String {
        let mut out = String::new();
        for file in &self.files {
            let diff = similar::TextDiff::from_lines(&file.before, &file.after);
            let _ = write!(
                out,
                "{}",
                diff.unified_diff()
                    .context_radius(3)
                    .header(&format!("a/{}", file.path), &format!("b/{}", file.path))
            );
        }
        out
    }

    /// The dry run's report: a line per finding, the diff, the files it would write and the
    /// verdict line.
    pub fn render(&self, task_id: &str, title: &str) -> String {
        let report = self.application.render(task_id, title);
        let mut out = String::new();
        for line in report.lines() {
            if let Some(files) = line.strip_prefix("files written: ") {
                out.push_str(&self.diff());
                let _ = writeln!(out, "files it would write: {files}");
            } else if line.starts_with("APPLIED: ") || line.starts_with("NOT ALL APPLIED: ") {
                let applied = self.application.applied();
                let _ = writeln!(
                    out,
                    "DRY RUN: {applied} of {} finding(s)' fixes would apply; nothing was written; `self-repair apply-fixes {task_id}` without --dry-run applies them",
                    self.application.fixes.len()
                );
            } else {
                let _ = writeln!(out, "{line}");
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use self_repair_engine::{
        AnalyzerFix, Finding, FindingRecord, FixApplicability, FixEdit, Level,
    };

    use crate::preview_analyzer_edits;

    #[test]
    fn a_preview_writes_nothing_and_its_diff_is_what_applying_would_write() {
        let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let text = "import os\nimport sys\nprint(sys.argv)\n";
        std::fs::write(root.path().join("m.py"), text).unwrap_or_else(|e| panic!("{e}"));
        let finding = Finding {
            tool: "ruff".to_owned(),
            rule_id: "F401".to_owned(),
            level: Level::Warning,
            message: "`os` imported but unused".to_owned(),
            path: "m.py".to_owned(),
            line: Some(1),
            column: None,
            end_line: None,
            end_column: None,
            symbol: None,
            help_uri: None,
            raw: None,
            fix: Some(AnalyzerFix {
                applicability: FixApplicability::Safe,
                description: None,
                edits: vec![FixEdit {
                    line: 1,
                    lines: "import os\n".to_owned(),
                    start: 0,
                    end: 10,
                    replacement: String::new(),
                }],
            }),
        };
        let records = [FindingRecord::new("f", finding)];
        let preview = preview_analyzer_edits(root.path(), &records);
        let on_disk = std::fs::read_to_string(root.path().join("m.py")).unwrap_or_default();
        assert_eq!(on_disk, text);
        assert!(preview.application.all_applied());
        assert_eq!(preview.application.files_written, ["m.py"]);
        assert_eq!(
            preview.diff(),
            "--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,2 @@\n-import os\n import sys\n print(sys.argv)\n"
        );
        let applied = crate::apply_analyzer_edits(root.path(), &records);
        assert!(applied.all_applied());
        let written = std::fs::read_to_string(root.path().join("m.py")).unwrap_or_default();
        assert_eq!(written, preview.files[0].after);
    }
}
