//! Finding fingerprints that survive unrelated edits: no line numbers, stable across platforms.

use std::path::Path;

use self_repair_engine::Finding;

use crate::source_lines::SourceLines;

/// FNV-1a 64-bit offset basis.
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
/// FNV-1a 64-bit prime.
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;
/// Separates the hashed fields (ASCII unit separator), so `("ab","c")` and `("a","bc")` differ.
const SEPARATOR: u8 = 0x1f;

/// The fingerprint of `finding`: 16 lowercase hex digits.
///
/// Algorithm (version 1; changing any detail changes every fingerprint, so don't):
///
/// 1. Build the byte string `v1 ␟ tool ␟ rule_id ␟ path ␟ key ␟ line`, where `␟` is the byte
///    0x1F and every part is UTF-8:
///    - `key` is `s:` + `symbol` when the finding has a symbol, else `m:` + the message with
///      every run of ASCII digits replaced by `#` and whitespace collapsed (so "redefined from
///      line 12" equals "redefined from line 40");
///    - `line` is `l:` + the source line text with leading/trailing whitespace removed and every
///      inner run of whitespace replaced by one space, or `-` when the text is not available.
/// 2. Hash it with 64-bit FNV-1a: `h = 0xcbf29ce484222325`; for each byte `b`:
///    `h = (h ^ b) * 0x100000001b3` (wrapping).
/// 3. Print `h` as 16 lowercase hex digits, zero-padded.
///
/// The line number and columns are never hashed, so a finding keeps its fingerprint when code
/// above it moves. Identical findings on identical lines of the same file share a fingerprint on
/// purpose: they are one item with several occurrences.
pub fn fingerprint(finding: &Finding, line_text: Option<&str>) -> String {
    let mut hasher = Fnv1a::new();
    hasher.write(b"v1");
    hasher.separator();
    hasher.write(finding.tool.as_bytes());
    hasher.separator();
    hasher.write(finding.rule_id.as_bytes());
    hasher.separator();
    hasher.write(finding.path.as_bytes());
    hasher.separator();
    if let Some(symbol) = &finding.symbol {
        hasher.write(b"s:");
        hasher.write(symbol.as_bytes());
    } else {
        hasher.write(b"m:");
        hasher.write_normalized(&finding.message, true);
    }
    hasher.separator();
    match line_text {
        Some(text) => {
            hasher.write(b"l:");
            hasher.write_normalized(text, false);
        }
        None => hasher.write(b"-"),
    }
    format!("{:016x}", hasher.finish())
}

/// Fingerprints of all `findings`, in order, reading source lines under `root`. Each referenced
/// file is read once (findings are visited grouped by path); missing or unreadable files and
/// paths that leave the root simply hash without line text.
pub fn fingerprint_all(findings: &[Finding], root: &Path) -> Vec<String> {
    let mut order: Vec<usize> = (0..findings.len()).collect();
    order.sort_by(|&a, &b| findings[a].path.cmp(&findings[b].path));
    let mut lines = SourceLines::new(root);
    let mut prints = vec![String::new(); findings.len()];
    let mut current_path: Option<&str> = None;
    for index in order {
        let finding = &findings[index];
        if current_path != Some(finding.path.as_str()) {
            // Grouped by path: the previous file is never needed again.
            lines.clear();
            current_path = Some(finding.path.as_str());
        }
        let text = finding
            .line
            .and_then(|line| lines.line(&finding.path, line));
        prints[index] = fingerprint(finding, text);
    }
    prints
}

/// Hand-written 64-bit FNV-1a, so the value never depends on a dependency's choice of hasher.
struct Fnv1a(u64);

impl Fnv1a {
    fn new() -> Fnv1a {
        Fnv1a(FNV_OFFSET)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(FNV_PRIME);
        }
    }

    fn separator(&mut self) {
        self.write(&[SEPARATOR]);
    }

    /// Writes `text` trimmed with inner whitespace runs as one space and, when `digits` is
    /// set, ASCII digit runs as one `#`; without building the normalized string.
    fn write_normalized(&mut self, text: &str, digits: bool) {
        let mut pending_space = false;
        let mut in_digits = false;
        let mut wrote_any = false;
        for character in text.trim().chars() {
            if character.is_whitespace() {
                pending_space = true;
                in_digits = false;
                continue;
            }
            if pending_space && wrote_any {
                self.write(b" ");
            }
            pending_space = false;
            wrote_any = true;
            if digits && character.is_ascii_digit() {
                if !in_digits {
                    self.write(b"#");
                }
                in_digits = true;
                continue;
            }
            in_digits = false;
            let mut buffer = [0_u8; 4];
            self.write(character.encode_utf8(&mut buffer).as_bytes());
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use self_repair_engine::Level;

    fn finding(symbol: Option<&str>, message: &str, line: u32) -> Finding {
        Finding {
            fix: None,
            tool: "ruff".into(),
            rule_id: "F401".into(),
            level: Level::Error,
            message: message.into(),
            path: "py/mod.py".into(),
            line: Some(line),
            column: Some(8),
            end_line: Some(line),
            end_column: Some(10),
            symbol: symbol.map(str::to_owned),
            help_uri: None,
            raw: None,
        }
    }

    #[test]
    fn fnv1a_matches_the_published_test_vectors() {
        let hash = |text: &str| {
            let mut hasher = Fnv1a::new();
            hasher.write(text.as_bytes());
            hasher.finish()
        };
        assert_eq!(hash(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(hash("a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(hash("foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn fingerprint_value_is_pinned() {
        // Pinned so a change to the algorithm cannot slip through: stored known.json entries
        // would silently stop matching.
        let print = fingerprint(
            &finding(Some("os"), "`os` imported but unused", 1),
            Some("import os"),
        );
        insta::assert_snapshot!(print, @"5d4e390ed3a20820");
    }

    #[test]
    fn line_numbers_and_columns_do_not_matter() {
        let a = fingerprint(&finding(Some("os"), "m", 1), Some("import os"));
        let mut moved = finding(Some("os"), "m", 400);
        moved.column = Some(1);
        assert_eq!(a, fingerprint(&moved, Some("  import   os ")));
    }

    #[test]
    fn numbers_in_messages_are_normalized_when_there_is_no_symbol() {
        let a = fingerprint(&finding(None, "redefined from line 12", 20), None);
        let b = fingerprint(&finding(None, "redefined  from line 345", 80), None);
        assert_eq!(a, b);
        let c = fingerprint(&finding(None, "redefined from file 12", 20), None);
        assert_ne!(a, c);
    }

    #[test]
    fn every_identity_field_changes_the_fingerprint() {
        let base = finding(Some("os"), "m", 1);
        let print = |f: &Finding, text: Option<&str>| fingerprint(f, text);
        let reference = print(&base, Some("import os"));
        let mut other = base.clone();
        other.tool = "flake8".into();
        assert_ne!(reference, print(&other, Some("import os")));
        let mut other = base.clone();
        other.rule_id = "F811".into();
        assert_ne!(reference, print(&other, Some("import os")));
        let mut other = base.clone();
        other.path = "py/other.py".into();
        assert_ne!(reference, print(&other, Some("import os")));
        let mut other = base.clone();
        other.symbol = Some("sys".into());
        assert_ne!(reference, print(&other, Some("import os")));
        assert_ne!(reference, print(&base, Some("import os, sys")));
        assert_ne!(reference, print(&base, None));
    }

    #[test]
    fn fields_cannot_bleed_into_each_other() {
        let mut a = finding(Some("os"), "m", 1);
        a.tool = "ab".into();
        a.rule_id = "c".into();
        let mut b = a.clone();
        b.tool = "a".into();
        b.rule_id = "bc".into();
        assert_ne!(fingerprint(&a, None), fingerprint(&b, None));
    }
}
