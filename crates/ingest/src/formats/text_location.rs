//! Splits `path:LINE<separator>rest` lines as text-output analyzers print them.

/// Splits `line` at the first `:<digits><separator>`: path, line number, rest. Paths may
/// themselves contain `:` (Windows drives), so the digits and separator must follow.
pub(crate) fn split_location<'l>(
    line: &'l str,
    separator: &str,
) -> Option<(&'l str, u32, &'l str)> {
    for (colon, _) in line.match_indices(':') {
        let after = &line[colon + 1..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            continue;
        }
        if let Some(rest) = after[digits..].strip_prefix(separator) {
            let number = after[..digits].parse().ok()?;
            return Some((&line[..colon], number, rest));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_after_the_line_number() {
        assert_eq!(
            split_location("a.py:12: msg", ": "),
            Some(("a.py", 12, "msg"))
        );
        assert_eq!(
            split_location("C:\\x\\a.py:3: m", ": "),
            Some(("C:\\x\\a.py", 3, "m"))
        );
        assert_eq!(
            split_location("src/u.ts:2 - x", " - "),
            Some(("src/u.ts", 2, "x"))
        );
        assert_eq!(split_location("no location here", ": "), None);
    }
}
