//! An edit of an analyzer's safe fix as its output states it (a range in the analyzer's own
//! units, and the new text), and where that range lies in a file's text.

use std::ops::Range;

use self_repair_engine::Finding;

/// Findings and, index for index, the edits of each one's safe fix (none when it has none).
pub(crate) type FindingsWithEdits = (Vec<Finding>, Vec<Vec<ReportedEdit>>);

/// How an analyzer counts columns and offsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TextUnit {
    /// Unicode scalar values (Ruff, rustc/clippy columns; SARIF `unicodeCodePoints`).
    Chars,
    /// UTF-16 code units (`ESLint` ranges; SARIF's default `utf16CodeUnits`).
    Utf16,
    /// UTF-8 bytes (SARIF `byteOffset`).
    Bytes,
}

/// Where an edit applies, as the analyzer wrote it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReportedRange {
    /// 1-based lines and columns, the end exclusive (Ruff, clippy, SARIF regions).
    LineColumn {
        start_line: u32,
        start_column: u32,
        end_line: u32,
        end_column: u32,
        unit: TextUnit,
    },
    /// 0-based offsets into the whole text, the end exclusive (`ESLint` `range`, SARIF
    /// `charOffset`/`byteOffset`).
    Offsets {
        start: u64,
        end: u64,
        unit: TextUnit,
    },
}

/// One edit of a safe fix, before it is read against its file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ReportedEdit {
    pub(crate) range: ReportedRange,
    pub(crate) replacement: String,
}

impl ReportedRange {
    /// The byte range it names in `text` (whose lines start at `line_starts`), or `None` when
    /// it does not fit the text (past a line's end or the text's, inside a character, or
    /// ending before it starts).
    pub(crate) fn byte_range(&self, text: &str, line_starts: &[usize]) -> Option<Range<usize>> {
        let (start, end) = match *self {
            ReportedRange::LineColumn {
                start_line,
                start_column,
                end_line,
                end_column,
                unit,
            } => (
                line_column_offset(text, line_starts, start_line, start_column, unit)?,
                line_column_offset(text, line_starts, end_line, end_column, unit)?,
            ),
            ReportedRange::Offsets { start, end, unit } => (
                advance(text, 0, usize::try_from(start).ok()?, unit, false)?,
                advance(text, 0, usize::try_from(end).ok()?, unit, false)?,
            ),
        };
        (start <= end).then_some(start..end)
    }
}

/// The byte offset of a 1-based line and column; column 1 of the line after the last is the
/// end of the text (Ruff ends a deleted last line there).
fn line_column_offset(
    text: &str,
    line_starts: &[usize],
    line: u32,
    column: u32,
    unit: TextUnit,
) -> Option<usize> {
    let index = usize::try_from(line).ok()?.checked_sub(1)?;
    let line_start = match line_starts.get(index) {
        Some(&start) => start,
        None if index == line_starts.len() && text.ends_with('\n') => text.len(),
        None => return None,
    };
    let count = usize::try_from(column).ok()?.checked_sub(1)?;
    advance(text, line_start, count, unit, true)
}

/// The byte offset `count` units after byte `from`, landing on a character boundary; with
/// `within_line`, never past the line's end (its `\n`).
fn advance(
    text: &str,
    from: usize,
    count: usize,
    unit: TextUnit,
    within_line: bool,
) -> Option<usize> {
    let rest = text.get(from..)?;
    if unit == TextUnit::Bytes {
        let at = from.checked_add(count)?;
        let fits = text.is_char_boundary(at) && !(within_line && text[from..at].contains('\n'));
        return fits.then_some(at);
    }
    let mut counted = 0;
    for (offset, c) in rest.char_indices() {
        if counted == count {
            return Some(from + offset);
        }
        if counted > count || (within_line && c == '\n') {
            return None;
        }
        counted += match unit {
            TextUnit::Utf16 => c.len_utf16(),
            TextUnit::Chars | TextUnit::Bytes => 1,
        };
    }
    (counted == count).then_some(text.len())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The byte offset where each line of `text` starts (none for the empty line after a final
    /// line break), as `SourceLines` keeps them.
    pub(crate) fn line_starts(text: &str) -> Vec<usize> {
        let mut starts = vec![0];
        starts.extend(
            text.match_indices('\n')
                .map(|(at, _)| at + 1)
                .filter(|&start| start < text.len()),
        );
        starts
    }

    fn byte_range(range: ReportedRange, text: &str) -> Option<Range<usize>> {
        range.byte_range(text, &line_starts(text))
    }

    fn columns(line: u32, start: u32, end: u32, unit: TextUnit) -> ReportedRange {
        ReportedRange::LineColumn {
            start_line: line,
            start_column: start,
            end_line: line,
            end_column: end,
            unit,
        }
    }

    #[test]
    fn columns_count_in_the_analyzer_s_unit() {
        // "é" is one char, one UTF-16 unit, two bytes; "𝒳" one char, two UTF-16 units, four bytes.
        let text = "a\nxé𝒳 = 1\n";
        let x = columns(2, 4, 5, TextUnit::Chars);
        assert_eq!(byte_range(x, text).map(|r| &text[r]), Some(" "));
        let x = columns(2, 5, 6, TextUnit::Utf16);
        assert_eq!(byte_range(x, text).map(|r| &text[r]), Some(" "));
        // Column 4 in UTF-16 is inside the surrogate pair of "𝒳".
        assert_eq!(byte_range(columns(2, 4, 5, TextUnit::Utf16), text), None);
        // Past the line's end.
        assert_eq!(byte_range(columns(1, 1, 4, TextUnit::Chars), text), None);
    }

    #[test]
    fn offsets_in_utf16_units_land_after_astral_characters() {
        let text = "const 𝒳 = \"é\";\nvar y = 1;\n";
        let var = "var y = 1;";
        let start = text[..text.find(var).unwrap_or(0)].encode_utf16().count() as u64;
        let range = ReportedRange::Offsets {
            start,
            end: start + 10,
            unit: TextUnit::Utf16,
        };
        assert_eq!(byte_range(range, text).map(|r| &text[r]), Some(var));
        // The same numbers read as chars are off by one (the astral character is two units).
        let chars = ReportedRange::Offsets {
            start,
            end: start + 10,
            unit: TextUnit::Chars,
        };
        assert_ne!(byte_range(chars, text).map(|r| &text[r]), Some(var));
    }

    #[test]
    fn the_line_after_the_last_starts_at_the_end_of_the_text() {
        let text = "import os\n";
        let range = ReportedRange::LineColumn {
            start_line: 1,
            start_column: 1,
            end_line: 2,
            end_column: 1,
            unit: TextUnit::Chars,
        };
        assert_eq!(byte_range(range, text), Some(0..text.len()));
    }

    /// Only the line right after the last, and only after a final line break, starts at the
    /// text's end: a line further on, or one after a last line without a break, is no line.
    #[test]
    fn no_line_past_the_one_after_the_last_and_none_after_a_text_without_a_final_break() {
        let to_line = |end_line: u32| ReportedRange::LineColumn {
            start_line: 1,
            start_column: 1,
            end_line,
            end_column: 1,
            unit: TextUnit::Chars,
        };
        for (text, end_line, expected) in [
            ("import os\n", 2, Some(0..10)),
            ("import os\n", 3, None),
            ("import os", 2, None),
            ("a\nb\n", 3, Some(0..4)),
            ("a\nb\n", 4, None),
        ] {
            assert_eq!(
                byte_range(to_line(end_line), text),
                expected,
                "{text:?} to line {end_line}"
            );
        }
    }

    /// A byte offset inside a character, or byte columns running past their line's end, name
    /// no range.
    #[test]
    fn bytes_inside_a_character_or_past_the_line_s_end_name_no_range() {
        let text = "é\nab\n";
        let offsets = |start: u64, end: u64| ReportedRange::Offsets {
            start,
            end,
            unit: TextUnit::Bytes,
        };
        assert_eq!(byte_range(offsets(0, 2), text), Some(0..2));
        assert_eq!(byte_range(offsets(1, 2), text), None);
        assert_eq!(byte_range(offsets(0, 99), text), None);
        assert_eq!(
            byte_range(columns(2, 1, 3, TextUnit::Bytes), text),
            Some(3..5)
        );
        assert_eq!(byte_range(columns(2, 1, 4, TextUnit::Bytes), text), None);
    }
}
