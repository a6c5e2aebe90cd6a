//! The numbered lines around a finding, its own line marked.

use std::fmt;
use std::path::Path;

use crate::ContextError;
use crate::excerpt::{MAX_SNIPPET_LINE_CHARS, cap_line};
use crate::file_text::{FileText, MAX_FILE_BYTES};
use crate::project_path::resolve_in_project;

/// Lines of one file around a finding's line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snippet {
    /// The project-relative path, as given.
    pub path: String,
    /// The finding's 1-based line; 0 means the finding names no line (the top is shown).
    pub line: u32,
    /// The lines shown, in order, long ones capped with `…`.
    pub lines: Vec<SnippetLine>,
    /// Why fewer lines than asked for are shown, when that is not just the file's edge.
    pub note: Option<SnippetNote>,
}

/// One numbered line of a [`Snippet`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnippetLine {
    /// 1-based line number.
    pub number: u32,
    /// The text, without the line break, capped at 300 characters.
    pub text: String,
    /// This is the finding's line.
    pub is_finding: bool,
}

/// Why a snippet shows no lines (or fewer than asked).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SnippetNote {
    /// The file holds a NUL byte near its start; its content is not shown.
    Binary,
    /// The file has fewer lines than the finding's line (it changed since the finding).
    LinePastEnd {
        /// Lines the file has.
        line_count: u32,
    },
    /// The line lies beyond the part of a very large file that is read (2 MB).
    LineBeyondReadLimit,
}

impl fmt::Display for SnippetNote {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SnippetNote::Binary => formatter.write_str("binary file: content not shown"),
            SnippetNote::LinePastEnd { line_count } => write!(
                formatter,
                "the file has only {line_count} lines: it may have changed since the finding was reported"
            ),
            SnippetNote::LineBeyondReadLimit => formatter
                .write_str("the line is past the first 2 MB of a very large file: not shown"),
        }
    }
}

impl Snippet {
    /// The lines as `  12 | code`, the finding's line as `> 12 | code`, numbers right-aligned.
    pub fn render(&self) -> String {
        let width = self
            .lines
            .last()
            .map_or(1, |last| last.number.to_string().len());
        let mut out = String::new();
        for line in &self.lines {
            let marker = if line.is_finding { "> " } else { "  " };
            let number = line.number;
            let rendered = format!("{marker}{number:>width$} | {}", line.text);
            out.push_str(rendered.trim_end());
            out.push('\n');
        }
        out
    }
}

/// The lines within `radius` of 1-based `line` in `rel_path` under `root`.
///
/// `Ok(None)` when the file does not exist (or is not a regular file). A path that is absolute,
/// climbs with `..`, or leaves the project through a symlink is an error and nothing is opened.
/// Line 0 means "no line": the top `2 * radius + 1` lines are shown, none marked.
pub fn snippet(
    root: &Path,
    rel_path: &str,
    line: u32,
    radius: u32,
) -> Result<Option<Snippet>, ContextError> {
    let Some(path) = resolve_in_project(root, rel_path)? else {
        return Ok(None);
    };
    let text = FileText::read(&path, MAX_FILE_BYTES)?;
    Ok(Some(snippet_from_text(rel_path, &text, line, radius)))
}

/// [`snippet`] over a file already read.
pub(crate) fn snippet_from_text(
    rel_path: &str,
    text: &FileText,
    line: u32,
    radius: u32,
) -> Snippet {
    let mut snippet = Snippet {
        path: rel_path.to_owned(),
        line,
        lines: Vec::new(),
        note: None,
    };
    if text.binary {
        snippet.note = Some(SnippetNote::Binary);
        return snippet;
    }
    let lines = text.lines();
    let line_count = u32::try_from(lines.len()).unwrap_or(u32::MAX);
    if line > line_count {
        snippet.note = Some(if text.truncated {
            SnippetNote::LineBeyondReadLimit
        } else {
            SnippetNote::LinePastEnd { line_count }
        });
        return snippet;
    }
    let (first, last) = if line == 0 {
        (
            1,
            radius.saturating_mul(2).saturating_add(1).min(line_count),
        )
    } else {
        (
            line.saturating_sub(radius).max(1),
            line.saturating_add(radius).min(line_count),
        )
    };
    for number in first..=last {
        let text = &lines[(number - 1) as usize];
        snippet.lines.push(SnippetLine {
            number,
            text: cap_line(text, MAX_SNIPPET_LINE_CHARS),
            is_finding: number == line,
        });
    }
    snippet
}
