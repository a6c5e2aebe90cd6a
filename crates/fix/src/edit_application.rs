//! The tool-agnostic autofix (`self-repair apply-fixes`): the edits the analyzer gave for the
//! group's findings, kept at ingest with the text each expects, applied by self-repair itself.
//! An edit applies only where its file still holds that text (at its line, or once anywhere
//! when lines above it moved); a finding's edits apply together or not at all; a finding whose
//! edits overlap an earlier one's is refused; each file is edited from its end backwards and
//! written atomically.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::ops::Range;
use std::path::{Component, Path, PathBuf};

use self_repair_engine::{FindingRecord, FixEdit};

use crate::edit_preview::{EditPreview, EditedFile};

/// What became of one finding's fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FixOutcome {
    /// Every edit applied (how many).
    Applied(usize),
    /// Its fix has no kept edits (the analyzer gave none, or too many: reference/fix.md).
    NoEdits,
    /// An edit's text is not in the file any more, or not once: nothing of this fix applied.
    Stale(String),
    /// An edit overlaps one of an earlier finding's applied fix (named), or another of its own.
    Overlaps(String),
    /// The file could not be read or written.
    Unreadable(String),
}

/// One finding of the group and what became of its fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FindingFix {
    /// `path:line rule`.
    pub finding: String,
    pub outcome: FixOutcome,
}

/// What `apply-fixes` did to a group.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EditApplication {
    pub fixes: Vec<FindingFix>,
    /// The files written, project-relative.
    pub files_written: Vec<String>,
}

impl EditApplication {
    /// True when every finding's fix applied.
    pub fn all_applied(&self) -> bool {
        self.fixes
            .iter()
            .all(|f| matches!(f.outcome, FixOutcome::Applied(_)))
    }

    /// How many findings' fixes applied.
    pub fn applied(&self) -> usize {
        self.fixes
            .iter()
            .filter(|f| matches!(f.outcome, FixOutcome::Applied(_)))
            .count()
    }

    /// The report: one line per finding, the files written, and a last verdict line.
    pub fn render(&self, task_id: &str, title: &str) -> String {
        let mut out = format!("apply-fixes {task_id}: {title}\n");
        for fix in &self.fixes {
            let line = match &fix.outcome {
                FixOutcome::Applied(n) => format!("applied: {} ({n} edit(s))", fix.finding),
                FixOutcome::NoEdits => format!(
                    "skipped: {}: the analyzer's fix has no kept edits",
                    fix.finding
                ),
                FixOutcome::Stale(why) | FixOutcome::Unreadable(why) => {
                    format!("skipped: {}: {why}", fix.finding)
                }
                FixOutcome::Overlaps(why) => format!("refused: {}: {why}", fix.finding),
            };
            let _ = writeln!(out, "{line}");
        }
        let files = if self.files_written.is_empty() {
            "none".to_owned()
        } else {
            self.files_written.join(", ")
        };
        let _ = writeln!(out, "files written: {files}");
        let applied = self.applied();
        if self.all_applied() {
            let _ = writeln!(
                out,
                "APPLIED: every finding's fix ({applied} of {}); `self-repair verify-task {task_id}` checks the result",
                self.fixes.len()
            );
        } else {
            let _ = writeln!(
                out,
                "NOT ALL APPLIED: {applied} of {} finding(s)' fixes; for the others, run the analyzer and `self-repair start` again for fresh edits, or fix them by hand (under `self-repair fix`, the fixer gets them)",
                self.fixes.len()
            );
        }
        out
    }
}

/// Applies the kept edits of `findings` to their files under `root`, one file at a time.
pub fn apply_analyzer_edits(root: &Path, findings: &[FindingRecord]) -> EditApplication {
    edit_files(root, findings, true).0
}

/// What [`apply_analyzer_edits`] would do, writing nothing: the report (its `files_written`
/// are the files it would write) and each such file's text before and after.
pub fn preview_analyzer_edits(root: &Path, findings: &[FindingRecord]) -> EditPreview {
    let (application, files) = edit_files(root, findings, false);
    EditPreview { application, files }
}

/// The edits applied in memory, each changed file written when `write`; returns the report and
/// the changed files' texts.
fn edit_files(
    root: &Path,
    findings: &[FindingRecord],
    write: bool,
) -> (EditApplication, Vec<EditedFile>) {
    let mut by_file: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    let mut fixes: Vec<FindingFix> = findings
        .iter()
        .map(|record| FindingFix {
            finding: label(record),
            outcome: FixOutcome::NoEdits,
        })
        .collect();
    for (i, record) in findings.iter().enumerate() {
        if edits_of(record).is_empty() {
            continue;
        }
        by_file
            .entry(record.finding.path.as_str())
            .or_default()
            .push(i);
    }
    let mut files_written = Vec::new();
    let mut edited = Vec::new();
    for (path, members) in by_file {
        let (full, text) = match read_inside(root, path) {
            Ok(found) => found,
            Err(why) => {
                for i in members {
                    fixes[i].outcome = FixOutcome::Unreadable(why.clone());
                }
                continue;
            }
        };
        let file_fixes: Vec<(String, &[FixEdit])> = members
            .iter()
            .map(|&i| (fixes[i].finding.clone(), edits_of(&findings[i])))
            .collect();
        let (new_text, mut outcomes) = apply_to_text(&text, &file_fixes);
        if new_text != text {
            let written = if write {
                write_atomically(&full, &new_text)
            } else {
                Ok(())
            };
            match written {
                Ok(()) => {
                    files_written.push(path.to_owned());
                    edited.push(EditedFile {
                        path: path.to_owned(),
                        before: text,
                        after: new_text,
                    });
                }
                Err(e) => {
                    let why = format!("cannot write {path}: {e}");
                    outcomes = vec![FixOutcome::Unreadable(why); members.len()];
                }
            }
        }
        for (i, outcome) in members.into_iter().zip(outcomes) {
            fixes[i].outcome = outcome;
        }
    }
    (
        EditApplication {
            fixes,
            files_written,
        },
        edited,
    )
}

fn edits_of(record: &FindingRecord) -> &[FixEdit] {
    record
        .finding
        .fix
        .as_ref()
        .map_or(&[], |f| f.edits.as_slice())
}

fn label(record: &FindingRecord) -> String {
    let finding = &record.finding;
    match finding.line {
        Some(line) => format!("{}:{line} {}", finding.path, finding.rule_id),
        None => format!("{} {}", finding.path, finding.rule_id),
    }
}

/// Applies each named fix's edits to `text` in turn (a fix all or nothing), from the end of the
/// text backwards; returns the new text and each fix's outcome, in order.
pub fn apply_to_text(text: &str, fixes: &[(String, &[FixEdit])]) -> (String, Vec<FixOutcome>) {
    // Accepted replacements: byte range, new text, the fix it belongs to.
    let mut accepted: Vec<(Range<usize>, &str, usize)> = Vec::new();
    let mut outcomes = Vec::with_capacity(fixes.len());
    for (index, (_, edits)) in fixes.iter().enumerate() {
        if edits.is_empty() {
            outcomes.push(FixOutcome::NoEdits);
            continue;
        }
        let located: Result<Vec<Range<usize>>, String> =
            edits.iter().map(|edit| locate(text, edit)).collect();
        let ranges = match located {
            Ok(ranges) => ranges,
            Err(why) => {
                outcomes.push(FixOutcome::Stale(why));
                continue;
            }
        };
        let mut mine: Vec<(Range<usize>, &str, usize)> = Vec::new();
        let mut conflict = None;
        for (range, edit) in ranges.into_iter().zip(edits.iter()) {
            let new = edit.replacement.as_str();
            // The same replacement twice (one fix repeated) is one edit.
            if accepted
                .iter()
                .chain(&mine)
                .any(|(r, t, _)| *r == range && *t == new)
            {
                continue;
            }
            if let Some((_, _, owner)) = accepted
                .iter()
                .chain(&mine)
                .find(|(r, _, _)| overlaps(r, &range))
            {
                conflict = Some(if *owner == index {
                    "two of its own edits overlap".to_owned()
                } else {
                    format!(
                        "an edit overlaps the fix of {}, applied first; run the analyzer again for a fresh fix",
                        fixes[*owner].0
                    )
                });
                break;
            }
            mine.push((range, new, index));
        }
        if let Some(why) = conflict {
            outcomes.push(FixOutcome::Overlaps(why));
        } else {
            outcomes.push(FixOutcome::Applied(edits.len()));
            accepted.extend(mine);
        }
    }
    accepted.sort_by_key(|(range, _, _)| std::cmp::Reverse((range.start, range.end)));
    let mut new_text = text.to_owned();
    for (range, replacement, _) in accepted {
        new_text.replace_range(range, replacement);
    }
    (new_text, outcomes)
}

/// Two replacements overlap when they share a byte, or insert at one point (their order would
/// be a guess).
fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    (a.start < b.end && b.start < a.end) || (a.is_empty() && b.is_empty() && a.start == b.start)
}

/// Where the edit's replaced bytes are in `text`: its lines at its line, or found once at a
/// line start elsewhere (lines above it were added or removed).
fn locate(text: &str, edit: &FixEdit) -> Result<Range<usize>, String> {
    let (start, end) = (edit.start as usize, edit.end as usize);
    let inside = edit.lines.is_char_boundary(start) && edit.lines.is_char_boundary(end);
    if edit.lines.is_empty() || start > end || !inside {
        return Err("the edit is malformed".to_owned());
    }
    let at_line = line_offset(text, edit.line).filter(|&at| text[at..].starts_with(&edit.lines));
    let base = at_line.map_or_else(|| find_once(text, edit), Ok)?;
    Ok(base + start..base + end)
}

/// Where the edit's lines start in `text` when they are there once, at a line start.
fn find_once(text: &str, edit: &FixEdit) -> Result<usize, String> {
    let mut found = text
        .match_indices(edit.lines.as_str())
        .map(|(at, _)| at)
        .filter(|&at| at == 0 || text.as_bytes()[at - 1] == b'\n');
    match (found.next(), found.next()) {
        (Some(at), None) => Ok(at),
        (None, _) => Err(format!(
            "the file no longer has the text the edit expects (line {}: `{}`)",
            edit.line,
            first_line(&edit.lines)
        )),
        (Some(_), Some(_)) => Err(format!(
            "line {} changed and the text the edit expects (`{}`) is in the file more than once",
            edit.line,
            first_line(&edit.lines)
        )),
    }
}

fn first_line(lines: &str) -> &str {
    lines.lines().next().unwrap_or_default().trim()
}

/// The byte offset where 1-based `line` starts.
fn line_offset(text: &str, line: u32) -> Option<usize> {
    let mut at = 0;
    for _ in 1..line {
        at += text[at..].find('\n')? + 1;
    }
    Some(at)
}

/// The full path and text of the project-relative `path`, or why it cannot be edited.
fn read_inside(root: &Path, path: &str) -> Result<(PathBuf, String), String> {
    let full = inside_root(root, path)
        .ok_or_else(|| format!("{path} is not a file inside the project"))?;
    let text = std::fs::read_to_string(&full).map_err(|e| format!("cannot read {path}: {e}"))?;
    Ok((full, text))
}

/// `path` under `root`, when it is relative, does not climb out, and (symlinks resolved) still
/// lies under the root.
fn inside_root(root: &Path, path: &str) -> Option<PathBuf> {
    let relative = Path::new(path);
    if !relative
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return None;
    }
    let full = std::fs::canonicalize(root.join(relative)).ok()?;
    let canonical_root = std::fs::canonicalize(root).ok()?;
    (full.starts_with(&canonical_root) && full.is_file()).then_some(full)
}

/// Writes `text` to a temporary file beside `path` with its permissions, then renames it over
/// `path`: a reader sees the old file or the new one, never half of it.
fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temporary = path.with_file_name(format!(".{name}.self-repair-{}", std::process::id()));
    let written = std::fs::write(&temporary, text).and_then(|()| {
        let permissions = std::fs::metadata(path)?.permissions();
        std::fs::set_permissions(&temporary, permissions)?;
        std::fs::rename(&temporary, path)
    });
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(line: u32, lines: &str, replaced: &str, replacement: &str) -> FixEdit {
        let start = lines.find(replaced).unwrap_or_default();
        FixEdit {
            line,
            lines: lines.to_owned(),
            start: start as u32,
            end: (start + replaced.len()) as u32,
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
    fn edits_of_one_file_apply_from_the_end_so_earlier_ones_do_not_move_later_ones() {
        let text = "fn main() {\n    let v = vec![1, 2, 3];\n    let n = v.len() == 0;\n}\n";
        let (new, outcomes) = apply(
            text,
            &[
                (
                    "vec",
                    vec![edit(
                        2,
                        "    let v = vec![1, 2, 3];\n",
                        "vec![1, 2, 3]",
                        "[1, 2, 3]",
                    )],
                ),
                (
                    "len",
                    vec![edit(
                        3,
                        "    let n = v.len() == 0;\n",
                        "v.len() == 0",
                        "v.is_empty()",
                    )],
                ),
            ],
        );
        assert_eq!(
            new,
            "fn main() {\n    let v = [1, 2, 3];\n    let n = v.is_empty();\n}\n"
        );
        assert_eq!(outcomes, [FixOutcome::Applied(1), FixOutcome::Applied(1)]);
    }

    #[test]
    fn an_edit_whose_text_changed_is_skipped_and_the_others_apply() {
        let text = "import os\nimport sys\nx = 1\n";
        let (new, outcomes) = apply(
            text,
            &[
                ("os", vec![edit(1, "import os\n", "import os\n", "")]),
                // The file now says `x = 1`, not `x = 2`.
                ("x", vec![edit(3, "x = 2\n", "2", "3")]),
            ],
        );
        assert_eq!(new, "import sys\nx = 1\n");
        assert_eq!(outcomes[0], FixOutcome::Applied(1));
        assert!(
            matches!(&outcomes[1], FixOutcome::Stale(why) if why.contains("no longer has the text")),
            "{outcomes:?}"
        );
    }

    #[test]
    fn a_fix_applies_all_or_nothing() {
        let text = "a = 1\nb = 2\n";
        let (new, outcomes) = apply(
            text,
            &[(
                "two",
                vec![edit(1, "a = 1\n", "1", "10"), edit(2, "b = 3\n", "3", "30")],
            )],
        );
        assert_eq!(new, text);
        assert!(matches!(outcomes[0], FixOutcome::Stale(_)));
    }

    #[test]
    fn overlapping_edits_of_another_finding_are_refused() {
        // Ruff's fixes for two unused names of one import each rewrite the whole statement.
        let text = "from m import a, b\n";
        let line = "from m import a, b\n";
        let (new, outcomes) = apply(
            text,
            &[
                (
                    "a",
                    vec![edit(1, line, "from m import a, b", "from m import b")],
                ),
                (
                    "b",
                    vec![edit(1, line, "from m import a, b", "from m import a")],
                ),
            ],
        );
        assert_eq!(new, "from m import b\n");
        assert_eq!(outcomes[0], FixOutcome::Applied(1));
        assert!(
            matches!(&outcomes[1], FixOutcome::Overlaps(why) if why.contains("the fix of a")),
            "{outcomes:?}"
        );
        // Two insertions at one point: their order would be a guess.
        let (_, outcomes) = apply(
            "x\n",
            &[
                ("p", vec![edit(1, "x\n", "", "(")]),
                ("q", vec![edit(1, "x\n", "", "[")]),
            ],
        );
        assert!(matches!(outcomes[1], FixOutcome::Overlaps(_)));
    }

    #[test]
    fn the_same_edit_twice_applies_once() {
        let e = edit(1, "var x = 1;\n", "var", "let");
        let (new, outcomes) = apply("var x = 1;\n", &[("a", vec![e.clone()]), ("b", vec![e])]);
        assert_eq!(new, "let x = 1;\n");
        assert_eq!(outcomes, [FixOutcome::Applied(1), FixOutcome::Applied(1)]);
    }

    #[test]
    fn lines_that_moved_are_found_once_elsewhere_and_not_when_repeated() {
        // Two lines were added above the edit's line 1.
        let text = "# a\n# b\nvar é = \"𝒳\";\n";
        let (new, outcomes) = apply(
            text,
            &[("v", vec![edit(1, "var é = \"𝒳\";\n", "var", "let")])],
        );
        assert_eq!(new, "# a\n# b\nlet é = \"𝒳\";\n");
        assert_eq!(outcomes, [FixOutcome::Applied(1)]);
        let twice = "x\nvar y;\nvar y;\n";
        let (new, outcomes) = apply(twice, &[("v", vec![edit(1, "var y;\n", "var", "let")])]);
        assert_eq!(new, twice);
        assert!(
            matches!(&outcomes[0], FixOutcome::Stale(why) if why.contains("more than once")),
            "{outcomes:?}"
        );
    }

    /// An `ESLint` fix's range counts UTF-16 code units: read at ingest against the file, applied
    /// here through the binary's own path (written, read back).
    #[test]
    fn an_eslint_fix_after_non_ascii_text_applies_where_eslint_meant() {
        let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let source = "const s = \"é𝒳\"; var x = 1;\n";
        std::fs::write(root.path().join("bad.js"), source).unwrap_or_else(|e| panic!("{e}"));
        let start = source[..source.find("var").unwrap_or_default()]
            .encode_utf16()
            .count();
        let output = format!(
            r#"[{{"filePath":"bad.js","messages":[{{"ruleId":"no-var","severity":2,"message":"Unexpected var.","line":1,"column":{},"fix":{{"range":[{start},{}],"text":"let x = 1;"}}}}]}}]"#,
            start + 1,
            start + 10
        );
        let options =
            self_repair_ingest::IngestOptions::new("eslint.json", root.path()).with_fix_edits();
        let parsed =
            self_repair_ingest::parse(&output, self_repair_ingest::Format::Eslint, &options)
                .unwrap_or_else(|e| panic!("{e}"));
        let records: Vec<FindingRecord> = parsed
            .findings
            .into_iter()
            .map(|finding| FindingRecord::new("f", finding))
            .collect();
        let applied = apply_analyzer_edits(root.path(), &records);
        assert!(applied.all_applied(), "{applied:?}");
        assert_eq!(applied.files_written, ["bad.js"]);
        let fixed = std::fs::read_to_string(root.path().join("bad.js")).unwrap_or_default();
        assert_eq!(fixed, "const s = \"é𝒳\"; let x = 1;\n");
    }

    fn record(path: &str, edits: Vec<FixEdit>) -> FindingRecord {
        FindingRecord::new(
            "",
            self_repair_engine::Finding {
                tool: "ruff".to_owned(),
                rule_id: "F401".to_owned(),
                level: self_repair_engine::Level::Warning,
                message: "m".to_owned(),
                path: path.to_owned(),
                line: Some(1),
                column: None,
                end_line: None,
                end_column: None,
                symbol: None,
                help_uri: None,
                raw: None,
                fix: Some(self_repair_engine::AnalyzerFix {
                    applicability: self_repair_engine::FixApplicability::Safe,
                    description: None,
                    edits,
                }),
            },
        )
    }

    #[test]
    fn each_fix_is_named_by_its_path_line_and_rule() {
        let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(root.path().join("a.py"), "import os\nimport sys\n")
            .unwrap_or_else(|e| panic!("{e}"));
        let mut lineless = record("a.py", vec![edit(2, "import sys\n", "import sys\n", "")]);
        lineless.finding.line = None;
        lineless.finding.rule_id = "I001".to_owned();
        let records = [
            record("a.py", vec![edit(1, "import os\n", "import os\n", "")]),
            lineless,
        ];
        let applied = apply_analyzer_edits(root.path(), &records);
        let names: Vec<&str> = applied.fixes.iter().map(|f| f.finding.as_str()).collect();
        assert_eq!(names, ["a.py:1 F401", "a.py I001"]);
    }

    #[cfg(unix)]
    #[test]
    fn files_outside_the_project_are_never_written_and_a_rewrite_keeps_the_mode() {
        use std::os::unix::fs::PermissionsExt;
        let outer = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = outer.path().join("project");
        std::fs::create_dir(&root).unwrap_or_else(|e| panic!("{e}"));
        let text = "import os\nrun()\n";
        for path in [outer.path().join("secret.py"), root.join("tool.py")] {
            std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
        }
        std::os::unix::fs::symlink(outer.path().join("secret.py"), root.join("link.py"))
            .unwrap_or_else(|e| panic!("{e}"));
        let mode = std::fs::Permissions::from_mode(0o751);
        std::fs::set_permissions(root.join("tool.py"), mode).unwrap_or_else(|e| panic!("{e}"));
        let delete = || vec![edit(1, "import os\n", "import os\n", "")];
        let records = [
            record("../secret.py", delete()),
            record("link.py", delete()),
            record("tool.py", delete()),
        ];
        let applied = apply_analyzer_edits(&root, &records);
        let outcomes: Vec<&FixOutcome> = applied.fixes.iter().map(|f| &f.outcome).collect();
        assert!(
            matches!(
                outcomes[..],
                [
                    FixOutcome::Unreadable(_),
                    FixOutcome::Unreadable(_),
                    FixOutcome::Applied(1)
                ]
            ),
            "{outcomes:?}"
        );
        let secret = std::fs::read_to_string(outer.path().join("secret.py")).unwrap_or_default();
        assert_eq!(secret, text);
        let tool = root.join("tool.py");
        assert_eq!(
            std::fs::read_to_string(&tool).unwrap_or_default(),
            "run()\n"
        );
        let mode = std::fs::metadata(&tool)
            .map(|m| m.permissions().mode() & 0o777)
            .ok();
        assert_eq!(mode, Some(0o751));
        assert_eq!(applied.files_written, ["tool.py"]);
    }
}
