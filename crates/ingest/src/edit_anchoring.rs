//! Reads each safe fix's edits against the file they change, keeping with each one the whole
//! lines it touches: the text `apply-fixes` later requires before it applies the edit.

use std::path::Path;

use self_repair_engine::{Finding, FixEdit};

use crate::reported_edit::ReportedEdit;
use crate::source_lines::SourceLines;

/// The most edits one finding's fix keeps.
pub const MAX_FIX_EDITS: usize = 32;
/// The most bytes one finding's kept edits hold (their lines plus their replacements): a
/// larger fix (a whole file rewritten) keeps no edits, so `findings.json` stays small and the
/// group's task goes to the analyzer's own command or a fixer.
pub const MAX_FIX_EDIT_BYTES: usize = 16 * 1024;

/// Sets `fix.edits` of each finding with a safe fix from `reported` (index for index), when
/// every edit fits its file under `root` as it is now and the whole stays within bounds.
pub(crate) fn anchor_edits(findings: &mut [Finding], reported: &[Vec<ReportedEdit>], root: &Path) {
    let mut files = SourceLines::new(root);
    for (finding, edits) in findings.iter_mut().zip(reported) {
        if edits.is_empty() || edits.len() > MAX_FIX_EDITS || !finding.has_safe_fix() {
            continue;
        }
        let Some((text, starts)) = files.text_and_line_starts(&finding.path) else {
            continue;
        };
        // Analyzers count lines, columns and offsets after a byte-order mark or with it (each
        // its own way): its files keep no edits rather than edits one character off.
        if text.starts_with('\u{feff}') {
            continue;
        }
        let anchored: Option<Vec<FixEdit>> =
            edits.iter().map(|e| anchor(text, starts, e)).collect();
        let Some(anchored) = anchored else {
            continue;
        };
        let bytes: usize = anchored
            .iter()
            .map(|e| e.lines.len() + e.replacement.len())
            .sum();
        if bytes > MAX_FIX_EDIT_BYTES {
            continue;
        }
        if let Some(fix) = finding.fix.as_mut() {
            fix.edits = anchored;
        }
    }
}

/// The edit with the whole lines it touches in `text` (whose lines start at `starts`), or
/// `None` when its range does not fit.
fn anchor(text: &str, starts: &[usize], edit: &ReportedEdit) -> Option<FixEdit> {
    let range = edit.range.byte_range(text, starts)?;
    let first = text[..range.start].rfind('\n').map_or(0, |at| at + 1);
    // A range that ends right after a line break (a deleted line) ends its lines there.
    let last = if range.end > range.start && text[..range.end].ends_with('\n') {
        range.end
    } else {
        text[range.end..]
            .find('\n')
            .map_or(text.len(), |at| range.end + at + 1)
    };
    // An insertion at the very end after a final line break touches no line to anchor it.
    if first == last {
        return None;
    }
    Some(FixEdit {
        line: u32::try_from(starts.partition_point(|&start| start <= first)).ok()?,
        lines: text[first..last].to_owned(),
        start: u32::try_from(range.start - first).ok()?,
        end: u32::try_from(range.end - first).ok()?,
        replacement: edit.replacement.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reported_edit::tests::line_starts;
    use crate::reported_edit::{ReportedRange, TextUnit};

    #[test]
    fn an_edit_keeps_the_whole_lines_it_touches() {
        let text = "import os\nx = 1\n";
        let deleted = ReportedEdit {
            range: ReportedRange::LineColumn {
                start_line: 1,
                start_column: 1,
                end_line: 2,
                end_column: 1,
                unit: TextUnit::Chars,
            },
            replacement: String::new(),
        };
        let edit = anchor(text, &line_starts(text), &deleted);
        assert_eq!(
            edit.map(|e| (e.line, e.lines, e.start, e.end)),
            Some((1, "import os\n".to_owned(), 0, 10))
        );
        let inserted = ReportedEdit {
            range: ReportedRange::Offsets {
                start: 14,
                end: 14,
                unit: TextUnit::Bytes,
            },
            replacement: "0".to_owned(),
        };
        let edit = anchor(text, &line_starts(text), &inserted);
        assert_eq!(
            edit.map(|e| (e.line, e.lines, e.start, e.end)),
            Some((2, "x = 1\n".to_owned(), 4, 4))
        );
    }

    #[test]
    fn a_file_with_a_byte_order_mark_keeps_no_edits() -> Result<(), crate::IngestError> {
        let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(root.path().join("a.py"), "\u{feff}import os\n")
            .unwrap_or_else(|e| panic!("{e}"));
        let output = r#"[{"code":"F401","message":"`os` imported but unused","filename":"a.py","location":{"row":1,"column":8},"end_location":{"row":1,"column":10},"fix":{"applicability":"safe","message":"Remove unused import: `os`","edits":[{"content":"","location":{"row":1,"column":1},"end_location":{"row":2,"column":1}}]}}]"#;
        let options = crate::IngestOptions::new("ruff.json", root.path()).with_fix_edits();
        let parsed = crate::parse(output, crate::Format::Ruff, &options)?;
        assert!(parsed.findings[0].has_safe_fix());
        assert!(parsed.findings[0].fix.iter().all(|f| f.edits.is_empty()));
        // Without the mark the same output keeps its edit.
        std::fs::write(root.path().join("a.py"), "import os\n").unwrap_or_else(|e| panic!("{e}"));
        let parsed = crate::parse(output, crate::Format::Ruff, &options)?;
        assert!(parsed.findings[0].fix.iter().all(|f| f.edits.len() == 1));
        Ok(())
    }

    /// Ruff's output for one finding in `a.py` whose safe fix inserts `#` at the start of each
    /// of its first `count` lines.
    fn ruff_fix_of(count: usize) -> String {
        ruff_fix_inserting(count, "#")
    }

    /// The same, inserting `content` (JSON-safe) at the start of each line.
    fn ruff_fix_inserting(count: usize, content: &str) -> String {
        let edits: Vec<String> = (1..=count)
            .map(|row| {
                format!(
                    r#"{{"content":"{content}","location":{{"row":{row},"column":1}},"end_location":{{"row":{row},"column":1}}}}"#
                )
            })
            .collect();
        format!(
            r#"[{{"code":"ERA001","message":"m","filename":"a.py","location":{{"row":1,"column":1}},"end_location":{{"row":1,"column":2}},"fix":{{"applicability":"safe","message":"m","edits":[{}]}}}}]"#,
            edits.join(",")
        )
    }

    #[test]
    fn a_fix_of_more_than_32_edits_keeps_no_edits() -> Result<(), crate::IngestError> {
        let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let text: String = (1..=40).fold(String::new(), |text, n| text + &format!("x{n} = {n}\n"));
        std::fs::write(root.path().join("a.py"), text).unwrap_or_else(|e| panic!("{e}"));
        let options = crate::IngestOptions::new("ruff.json", root.path()).with_fix_edits();
        // (edits the analyzer reports, edits the finding keeps)
        for (reported, kept) in [
            (1, 1),
            (MAX_FIX_EDITS, MAX_FIX_EDITS),
            (MAX_FIX_EDITS + 1, 0),
        ] {
            let parsed = crate::parse(&ruff_fix_of(reported), crate::Format::Ruff, &options)?;
            assert!(parsed.findings[0].has_safe_fix(), "{reported} edits");
            let edits: Vec<usize> = parsed.findings[0]
                .fix
                .iter()
                .map(|f| f.edits.len())
                .collect();
            assert_eq!(edits, [kept], "{reported} edits");
        }
        Ok(())
    }

    #[test]
    fn a_fix_keeps_its_edits_up_to_16_kib_of_lines_and_replacements()
    -> Result<(), crate::IngestError> {
        let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let options = crate::IngestOptions::new("ruff.json", root.path()).with_fix_edits();
        // (the length of the one line the fix's edit touches, edits kept)
        for (length, kept) in [
            (2_000, 1),
            (MAX_FIX_EDIT_BYTES - 1, 1),
            (MAX_FIX_EDIT_BYTES, 0),
        ] {
            let line = format!("x = '{}'\n", "y".repeat(length - 7));
            assert_eq!(line.len(), length);
            std::fs::write(root.path().join("a.py"), &line).unwrap_or_else(|e| panic!("{e}"));
            // The edit inserts one `#`: the line plus the replacement is `length + 1` bytes.
            let parsed = crate::parse(&ruff_fix_of(1), crate::Format::Ruff, &options)?;
            let edits: Vec<usize> = parsed.findings[0]
                .fix
                .iter()
                .map(|f| f.edits.len())
                .collect();
            assert_eq!(edits, [kept], "a line of {length} bytes");
        }
        // The replacement counts too: 10,000 bytes of line and as many inserted.
        std::fs::write(root.path().join("a.py"), "x".repeat(9_999) + "\n")
            .unwrap_or_else(|e| panic!("{e}"));
        for (inserted, kept) in [(6_000, 1), (10_000, 0)] {
            let output = ruff_fix_inserting(1, &"#".repeat(inserted));
            let parsed = crate::parse(&output, crate::Format::Ruff, &options)?;
            let edits: Vec<usize> = parsed.findings[0]
                .fix
                .iter()
                .map(|f| f.edits.len())
                .collect();
            assert_eq!(edits, [kept], "{inserted} bytes inserted");
        }
        Ok(())
    }
}
