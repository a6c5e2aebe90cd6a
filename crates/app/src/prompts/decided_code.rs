//! The code a decision about a finding was made on, so a decision stops applying when that code
//! changes. The fingerprint only covers the flagged line (it ignores line numbers so a decision
//! survives edits elsewhere in the file); a dismissal was reasoned about the code around it too.
//!
//! The span is the enclosing item's declaration line down to a few lines past the flagged line:
//! where the enclosing item starts is known for every language `show` reads, where it ends is
//! not (the scanners find declarations, not their ends), so the span stops shortly after the
//! finding instead of guessing. An edit there (the guard above a dismissed `eval`, the
//! function's signature, the flagged line's neighbours) re-opens the finding; an edit further
//! down the item does not.

use std::collections::HashMap;
use std::path::Path;

use self_repair_context::ProjectSource;
use self_repair_engine::StableHash;

/// Lines past the flagged one that the span covers.
const AFTER: u32 = 3;

/// Longest span, in lines: an item that starts far above the finding is cut to its last lines.
const MOST_LINES: u32 = 80;

/// Where the decision's code is and a hash of its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DecidedCode {
    /// `src/a.py:10-24`.
    pub lines: String,
    /// Hash of the span's lines, each trimmed, blank lines dropped.
    pub code: String,
}

/// The span around `line` of `path` (project-relative) and its hash; `None` for a finding with
/// no line or a file that cannot be read.
pub(crate) fn decided_code(root: &Path, path: &str, line: Option<u32>) -> Option<DecidedCode> {
    DecidedCodes::new(root).of(path, line)
}

/// [`decided_code`] for many findings: each file is read once, however many findings it has
/// (a finalize of 100,000 findings over 1,000 files reads 1,000 files, not 100,000).
pub(crate) struct DecidedCodes<'a> {
    root: &'a Path,
    /// By project-relative path: its text and lines (`None`: it does not read) and its
    /// enclosing items.
    files: HashMap<String, Option<(FileLines, ProjectSource)>>,
    /// Bytes of text the cache holds: past [`CACHED_BYTES`] it starts over.
    bytes: usize,
}

/// Most bytes of source [`DecidedCodes`] keeps read (a project of large files is read again
/// rather than held whole).
const CACHED_BYTES: usize = 64 << 20;

impl<'a> DecidedCodes<'a> {
    pub(crate) fn new(root: &'a Path) -> DecidedCodes<'a> {
        DecidedCodes {
            root,
            files: HashMap::new(),
            bytes: 0,
        }
    }

    /// [`decided_code`] of `line` of `path`.
    pub(crate) fn of(&mut self, path: &str, line: Option<u32>) -> Option<DecidedCode> {
        let line = line.filter(|l| *l >= 1)?;
        if !self.files.contains_key(path) {
            let read = std::fs::read_to_string(self.root.join(path))
                .ok()
                .map(|text| {
                    self.bytes += text.len();
                    (FileLines::of(text), ProjectSource::open(self.root, path))
                });
            if self.bytes > CACHED_BYTES {
                self.files.clear();
                self.bytes = 0;
            }
            self.files.insert(path.to_owned(), read);
        }
        let (lines, source) = self.files.get(path)?.as_ref()?;
        let count = u32::try_from(lines.spans.len()).ok()?;
        if line > count {
            return None;
        }
        let start = source
            .enclosing_item(line)
            .map_or(line, |item| item.start_line.min(line))
            .max(line.saturating_sub(MOST_LINES - 1));
        let end = (line + AFTER).min(count);
        let mut hash = StableHash::new();
        for n in (start - 1) as usize..end as usize {
            let trimmed = lines.line(n).trim();
            if !trimmed.is_empty() {
                hash.write(trimmed.as_bytes());
                hash.separator();
            }
        }
        // Joined, not `format!`: a finalize writes one for each of 100,000 findings.
        let (start, end) = (start.to_string(), end.to_string());
        Some(DecidedCode {
            lines: [path, ":", &start, "-", &end].concat(),
            code: hash.hex(),
        })
    }
}

/// A file's text and where each of its lines (as `str::lines` cuts them) starts and ends: one
/// string a file, not one a line.
struct FileLines {
    text: String,
    /// Each line's byte range in `text`.
    spans: Vec<(usize, usize)>,
}

impl FileLines {
    fn of(text: String) -> FileLines {
        let spans = text
            .lines()
            .map(|line| {
                let start = line.as_ptr() as usize - text.as_ptr() as usize;
                (start, start + line.len())
            })
            .collect();
        FileLines { text, spans }
    }

    /// Line `n`, 0-based.
    fn line(&self, n: usize) -> &str {
        let (start, end) = self.spans[n];
        &self.text[start..end]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = "import os\n\n\ndef run(cmd):\n    if not cmd.isalnum():\n        raise ValueError(cmd)\n    return os.system(cmd)\n\n\ndef other():\n    return 1\n";

    fn code_of(source: &str, line: u32) -> DecidedCode {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.py"), source).unwrap();
        decided_code(dir.path(), "a.py", Some(line)).unwrap()
    }

    #[test]
    fn a_files_lines_are_those_str_lines_cuts() {
        for text in ["a\r\n  b\n\nc", "a\nb\n", "", "\n\n", "one"] {
            let lines = FileLines::of(text.to_owned());
            let cut: Vec<&str> = (0..lines.spans.len()).map(|n| lines.line(n)).collect();
            assert_eq!(cut, text.lines().collect::<Vec<_>>(), "{text:?}");
        }
    }

    #[test]
    fn the_span_runs_from_the_enclosing_item_to_just_past_the_finding() {
        assert_eq!(code_of(SOURCE, 7).lines, "a.py:4-10");
    }

    #[test]
    fn an_edit_to_the_guard_above_the_finding_changes_the_code_and_one_below_does_not() {
        let before = code_of(SOURCE, 7);
        let guard_removed = SOURCE.replace(
            "    if not cmd.isalnum():\n        raise ValueError(cmd)\n",
            "",
        );
        assert_ne!(code_of(&guard_removed, 5).code, before.code);
        let below = SOURCE.replace("return 1", "return 2");
        assert_eq!(code_of(&below, 7).code, before.code);
        // Moved down by an edit above the item: same code, new lines.
        let moved = format!("# a comment\n{SOURCE}");
        let after_move = code_of(&moved, 8);
        assert_eq!(after_move.code, before.code);
        assert_eq!(after_move.lines, "a.py:5-11");
    }
}
