//! Finding a symbol as a whole word in bytes: a literal search plus an identifier-boundary check.
//!
//! The symbol is searched literally, so regex metacharacters in it (`a.b`, `$x`, `op+`) mean
//! themselves and need no escaping. A boundary is required only on a side where the symbol's edge
//! character is itself an identifier character (Unicode alphanumeric or `_`): `os` does not match
//! inside `posix` or `os_path`, while `$store` also matches in `a$store` (`$` is not one).

use memchr::memmem;

/// A compiled whole-word search for one symbol.
pub(crate) struct WordMatcher {
    finder: memmem::Finder<'static>,
    length: usize,
    check_start: bool,
    check_end: bool,
}

impl WordMatcher {
    /// A matcher for `symbol` (non-empty).
    pub(crate) fn new(symbol: &str) -> WordMatcher {
        WordMatcher {
            finder: memmem::Finder::new(symbol.as_bytes()).into_owned(),
            length: symbol.len(),
            check_start: symbol.chars().next().is_some_and(is_word_char),
            check_end: symbol.chars().next_back().is_some_and(is_word_char),
        }
    }

    /// The byte offset of the first whole-word occurrence at or after `from`.
    pub(crate) fn find_from(&self, haystack: &[u8], from: usize) -> Option<usize> {
        let mut start = from;
        while start <= haystack.len() {
            let found = start + self.finder.find(&haystack[start..])?;
            if self.is_whole_word(haystack, found) {
                return Some(found);
            }
            start = found + 1;
        }
        None
    }

    fn is_whole_word(&self, haystack: &[u8], at: usize) -> bool {
        let before_ok = !self.check_start || !char_before(haystack, at).is_some_and(is_word_char);
        let after_ok =
            !self.check_end || !char_at(haystack, at + self.length).is_some_and(is_word_char);
        before_ok && after_ok
    }
}

/// Identifier characters, for boundary purposes.
fn is_word_char(character: char) -> bool {
    character.is_alphanumeric() || character == '_'
}

/// The UTF-8 character ending just before `at` (`None` at the start or on invalid bytes).
fn char_before(haystack: &[u8], at: usize) -> Option<char> {
    let mut start = at.checked_sub(1)?;
    while start > 0 && at - start < 4 && haystack[start] & 0b1100_0000 == 0b1000_0000 {
        start -= 1;
    }
    std::str::from_utf8(&haystack[start..at])
        .ok()?
        .chars()
        .next_back()
}

/// The UTF-8 character starting at `at` (`None` at the end or on invalid bytes).
fn char_at(haystack: &[u8], at: usize) -> Option<char> {
    let lead = *haystack.get(at)?;
    let width = match lead {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf7 => 4,
        _ => return None,
    };
    let bytes = haystack.get(at..at + width)?;
    std::str::from_utf8(bytes).ok()?.chars().next()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(symbol: &str, text: &str) -> Vec<usize> {
        let matcher = WordMatcher::new(symbol);
        let mut found = Vec::new();
        let mut from = 0;
        while let Some(at) = matcher.find_from(text.as_bytes(), from) {
            found.push(at);
            from = at + 1;
        }
        found
    }

    /// The character before a hit is read back over up to four bytes (a letter outside the
    /// basic plane is a word character too), and only that far: invalid bytes further back do
    /// not hide it.
    #[test]
    fn the_character_before_a_hit_is_read_whole_and_only_it() {
        assert_eq!(all("os", "\u{1d465}os os"), vec![7]);
        let matcher = WordMatcher::new("os");
        assert_eq!(matcher.find_from(b"\xff xos os", 0), Some(6));
    }

    #[test]
    fn os_does_not_match_inside_longer_identifiers() {
        assert_eq!(
            all("os", "import os, posix; os_path; kos; os.path"),
            vec![7, 32]
        );
    }

    #[test]
    fn unicode_identifiers_are_boundaries_too() {
        assert_eq!(all("x", "éx x é x_ xé"), vec![4]);
        assert_eq!(all("名前", "名前 a名前 名前b (名前)"), vec![0, 24]);
    }

    #[test]
    fn metacharacters_are_literal() {
        assert_eq!(all("a.b", "a.b axb a.bc"), vec![0]);
        assert_eq!(all("$store", "x$store $store"), vec![1, 8]);
        assert_eq!(all("op+", "op+ op+x"), vec![0, 4]);
        assert_eq!(all("(x)", "f(x) (x)"), vec![1, 5]);
    }
}
