//! Cutting long lines down to a readable excerpt, marked with an ellipsis where text was cut.

/// Most characters of one line shown in a snippet.
pub(crate) const MAX_SNIPPET_LINE_CHARS: usize = 300;

/// Most characters of one line shown in a reference hit.
pub(crate) const MAX_HIT_LINE_CHARS: usize = 200;

const ELLIPSIS: char = '…';

/// The first `max_chars` characters of `text`, with `…` appended when something was cut.
pub(crate) fn cap_line(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        None => text.to_owned(),
        Some((cut, _)) => {
            let mut capped = text[..cut].to_owned();
            capped.push(ELLIPSIS);
            capped
        }
    }
}

/// At most `max_chars` characters of `text` around byte offset `focus`, so a hit deep in a long
/// (say minified) line stays visible; `…` marks each side that was cut.
pub(crate) fn excerpt_around(text: &str, focus: usize, max_chars: usize) -> String {
    let total = text.chars().count();
    if total <= max_chars {
        return text.to_owned();
    }
    let focus_char = text
        .char_indices()
        .take_while(|&(index, _)| index < focus)
        .count();
    // Keep a third of the window before the hit, the rest after it.
    let start = focus_char
        .saturating_sub(max_chars / 3)
        .min(total - max_chars);
    let end = start + max_chars;
    let mut excerpt = String::new();
    if start > 0 {
        excerpt.push(ELLIPSIS);
    }
    excerpt.extend(text.chars().skip(start).take(max_chars));
    if end < total {
        excerpt.push(ELLIPSIS);
    }
    excerpt
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cap_line_keeps_short_lines_and_marks_cut_ones() {
        assert_eq!(cap_line("short", 10), "short");
        assert_eq!(cap_line("abcdef", 3), "abc…");
        assert_eq!(cap_line("ééééé", 2), "éé…");
    }

    #[test]
    fn excerpt_around_keeps_the_focus_visible() {
        let line = format!("{}needle{}", "a".repeat(500), "b".repeat(500));
        let excerpt = excerpt_around(&line, 500, 60);
        assert!(excerpt.contains("needle"), "{excerpt}");
        assert!(
            excerpt.starts_with('…') && excerpt.ends_with('…'),
            "{excerpt}"
        );
        assert_eq!(excerpt.chars().count(), 62);
    }

    #[test]
    fn excerpt_around_keeps_exactly_a_third_of_the_window_before_the_hit() {
        let line = "abcdefghijklmnopqrst";
        for (focus, max_chars, expected) in [
            (9, 6, "…hijklm…"),
            (2, 6, "abcdef…"),
            (19, 6, "…opqrst"),
            (9, 20, "abcdefghijklmnopqrst"),
            (9, 19, "…bcdefghijklmnopqrst"),
        ] {
            assert_eq!(excerpt_around(line, focus, max_chars), expected, "{focus}");
        }
        // The focus is a byte offset: `é` takes two.
        assert_eq!(excerpt_around("ééééééééé", 12, 3), "…ééé…");
    }

    #[test]
    fn excerpt_around_at_line_start_cuts_only_the_end() {
        let line = format!("needle{}", "b".repeat(500));
        let excerpt = excerpt_around(&line, 0, 20);
        assert!(
            excerpt.starts_with("needle") && excerpt.ends_with('…'),
            "{excerpt}"
        );
    }
}
