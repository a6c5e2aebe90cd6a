//! Reading a project file with a size cap, detecting binary content, splitting lines.

use std::io::Read;
use std::path::Path;

use crate::ContextError;

/// Most bytes read from one file for a snippet or an enclosing-item scan.
pub(crate) const MAX_FILE_BYTES: u64 = 2 * 1024 * 1024;

/// How many leading bytes are checked for a NUL to call a file binary (as git and ripgrep do).
const BINARY_SNIFF_BYTES: usize = 8 * 1024;

/// The first [`MAX_FILE_BYTES`] of a file, and what is known about the rest.
#[derive(Debug)]
pub(crate) struct FileText {
    bytes: Vec<u8>,
    /// The file is longer than what was read.
    pub(crate) truncated: bool,
    /// A NUL byte appears near the start.
    pub(crate) binary: bool,
}

impl FileText {
    /// Reads at most `limit` bytes of `path`.
    pub(crate) fn read(path: &Path, limit: u64) -> Result<FileText, ContextError> {
        let read_error = |source| ContextError::Read {
            path: path.to_path_buf(),
            source,
        };
        let file = std::fs::File::open(path).map_err(read_error)?;
        let mut bytes = Vec::new();
        file.take(limit.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(read_error)?;
        let truncated = bytes.len() as u64 > limit;
        if truncated {
            bytes.truncate(limit as usize);
            // Drop the partial last line so no half line is shown as if it were whole.
            if let Some(last_newline) = memchr::memrchr(b'\n', &bytes) {
                bytes.truncate(last_newline + 1);
            }
        }
        Ok(FileText {
            binary: is_binary(&bytes),
            bytes,
            truncated,
        })
    }

    /// Builds from text already in memory (tests, callers holding the content).
    #[cfg(test)]
    pub(crate) fn from_text(text: &str) -> FileText {
        FileText {
            bytes: text.as_bytes().to_vec(),
            truncated: false,
            binary: false,
        }
    }

    /// The lines read, without their `\n` or `\r\n`; invalid UTF-8 is replaced, not refused.
    pub(crate) fn lines(&self) -> Vec<String> {
        let mut body = self.bytes.as_slice();
        if body.last() == Some(&b'\n') {
            body = &body[..body.len() - 1];
        }
        if body.is_empty() && self.bytes.is_empty() {
            return Vec::new();
        }
        body.split(|&byte| byte == b'\n')
            .map(|line| {
                let line = line.strip_suffix(b"\r").unwrap_or(line);
                String::from_utf8_lossy(line).into_owned()
            })
            .collect()
    }
}

/// True when the first bytes hold a NUL: the file is not text we should show.
pub(crate) fn is_binary(bytes: &[u8]) -> bool {
    let sniff = &bytes[..bytes.len().min(BINARY_SNIFF_BYTES)];
    memchr::memchr(0, sniff).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_keep_a_blank_file_line_and_drop_line_endings() {
        for (text, lines) in [
            ("", Vec::<&str>::new()),
            ("\n", vec![""]),
            ("\n\n", vec!["", ""]),
            ("a", vec!["a"]),
            ("a\r\nb\n", vec!["a", "b"]),
            ("a\n\nb", vec!["a", "", "b"]),
        ] {
            assert_eq!(FileText::from_text(text).lines(), lines, "{text:?}");
        }
    }

    #[test]
    fn a_file_over_the_limit_is_cut_after_its_last_whole_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        std::fs::write(&path, "a\nbb\nccc").unwrap();
        for (limit, lines, truncated) in [
            (6, vec!["a", "bb"], true),
            (5, vec!["a", "bb"], true),
            (4, vec!["a"], true),
            (8, vec!["a", "bb", "ccc"], false),
            (9, vec!["a", "bb", "ccc"], false),
        ] {
            let text = FileText::read(&path, limit).unwrap();
            assert_eq!(text.lines(), lines, "{limit}");
            assert_eq!(text.truncated, truncated, "{limit}");
        }
        // Cut after a first line that is blank: that blank line stays.
        std::fs::write(&path, "\nabc").unwrap();
        let text = FileText::read(&path, 2).unwrap();
        assert_eq!((text.lines(), text.truncated), (vec![String::new()], true));
    }

    #[test]
    fn the_cap_is_two_mebibytes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.txt");
        let line = format!("{}\n", "x".repeat(1023));
        std::fs::write(&path, line.repeat(2048)).unwrap();
        assert!(!FileText::read(&path, MAX_FILE_BYTES).unwrap().truncated);
        std::fs::write(&path, line.repeat(2049)).unwrap();
        let text = FileText::read(&path, MAX_FILE_BYTES).unwrap();
        assert!(text.truncated);
        assert_eq!(text.lines().len(), 2048);
    }

    #[test]
    fn a_nul_in_the_first_eight_kibibytes_makes_a_file_binary() {
        let mut bytes = vec![b'a'; 8 * 1024];
        assert!(!is_binary(&bytes));
        bytes[8 * 1024 - 1] = 0;
        assert!(is_binary(&bytes));
        bytes[8 * 1024 - 1] = b'a';
        bytes.push(0);
        assert!(!is_binary(&bytes));
    }
}
