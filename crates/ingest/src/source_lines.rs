//! Reads the source lines findings point at, each file once, never outside the project root.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::path_resolver::normalize_relative;

/// Files larger than this are not read (their findings hash without line text).
const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;
/// When the cached text exceeds this, the cache is emptied before reading another file.
const MAX_CACHED_BYTES: usize = 64 * 1024 * 1024;

/// A cache of project files split into lines, keyed by project-relative path.
///
/// A path is read only if it is relative, does not climb out with `..`, and (after resolving
/// symlinks) still lies under the root. Missing, unreadable, oversized or escaping files give
/// `None`, never an error: line text only sharpens a fingerprint.
#[derive(Debug)]
pub struct SourceLines {
    root: PathBuf,
    canonical_root: Option<PathBuf>,
    files: HashMap<String, Option<FileLines>>,
    cached_bytes: usize,
}

/// One file's text and the byte offset where each line starts.
#[derive(Debug)]
struct FileLines {
    text: String,
    starts: Vec<usize>,
}

impl SourceLines {
    /// An empty cache over the project at `root`.
    pub fn new(root: &Path) -> SourceLines {
        SourceLines {
            root: root.to_path_buf(),
            canonical_root: std::fs::canonicalize(root).ok(),
            files: HashMap::new(),
            cached_bytes: 0,
        }
    }

    /// The whole text of the project-relative `path`, and the byte offset where each of its
    /// lines starts (none for the empty line after a final line break).
    pub(crate) fn text_and_line_starts(&mut self, path: &str) -> Option<(&str, &[usize])> {
        self.cache(path);
        let file = self.files.get(path)?.as_ref()?;
        Some((&file.text, &file.starts))
    }

    /// The text of 1-based `line` of the project-relative `path`, without its line ending.
    pub fn line(&mut self, path: &str, line: u32) -> Option<&str> {
        self.cache(path);
        let file = self.files.get(path)?.as_ref()?;
        let index = usize::try_from(line).ok()?.checked_sub(1)?;
        let start = *file.starts.get(index)?;
        let end = file
            .starts
            .get(index + 1)
            .copied()
            .unwrap_or(file.text.len());
        let text = &file.text[start..end];
        let text = text.strip_suffix('\n').unwrap_or(text);
        Some(text.strip_suffix('\r').unwrap_or(text))
    }

    /// Reads `path` into the cache unless it is there (a file that cannot be read as `None`).
    fn cache(&mut self, path: &str) {
        if !self.files.contains_key(path) {
            let loaded = self.load(path);
            let size = loaded.as_ref().map_or(0, |file| file.text.len());
            if self.cached_bytes + size > MAX_CACHED_BYTES {
                self.clear();
            }
            self.cached_bytes += size;
            self.files.insert(path.to_owned(), loaded);
        }
    }

    /// Forgets every cached file.
    pub fn clear(&mut self) {
        self.files.clear();
        self.cached_bytes = 0;
    }

    fn load(&self, path: &str) -> Option<FileLines> {
        let full = self.inside_root(path)?;
        let metadata = std::fs::metadata(&full).ok()?;
        if !metadata.is_file() || metadata.len() > MAX_FILE_BYTES {
            return None;
        }
        let bytes = std::fs::read(&full).ok()?;
        let text = match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(error) => String::from_utf8_lossy(error.as_bytes()).into_owned(),
        };
        let mut starts = vec![0];
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, byte)| byte == b'\n')
                .map(|(index, _)| index + 1)
                .filter(|&start| start < text.len()),
        );
        Some(FileLines { text, starts })
    }

    /// The full path of `path` if it provably stays under the root, symlinks included.
    fn inside_root(&self, path: &str) -> Option<PathBuf> {
        if path.starts_with('/') || path.contains('\\') || path.contains(':') {
            return None;
        }
        let normal = normalize_relative(path)?;
        if normal == "." {
            return None;
        }
        let full = self.root.join(&normal);
        let canonical_root = self.canonical_root.as_ref()?;
        let canonical = std::fs::canonicalize(&full).ok()?;
        canonical.starts_with(canonical_root).then_some(canonical)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_lines_and_refuses_paths_outside_the_root() -> std::io::Result<()> {
        let outer = tempfile::tempdir()?;
        let root = outer.path().join("project");
        std::fs::create_dir_all(root.join("src"))?;
        std::fs::write(root.join("src/a.py"), "one\r\ntwo\n\nfour")?;
        std::fs::write(outer.path().join("secret.txt"), "secret\n")?;
        let mut lines = SourceLines::new(&root);
        assert_eq!(lines.line("src/a.py", 1), Some("one"));
        assert_eq!(lines.line("src/a.py", 2), Some("two"));
        assert_eq!(lines.line("src/a.py", 3), Some(""));
        assert_eq!(lines.line("src/a.py", 4), Some("four"));
        assert_eq!(lines.line("src/a.py", 5), None);
        assert_eq!(lines.line("src/a.py", 0), None);
        assert_eq!(lines.line("src/missing.py", 1), None);
        assert_eq!(lines.line("../secret.txt", 1), None);
        assert_eq!(lines.line("src/../../secret.txt", 1), None);
        let absolute = outer.path().join("secret.txt");
        assert_eq!(lines.line(&absolute.to_string_lossy(), 1), None);
        Ok(())
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_leaving_the_root_are_not_followed() -> std::io::Result<()> {
        let outer = tempfile::tempdir()?;
        let root = outer.path().join("project");
        std::fs::create_dir_all(&root)?;
        std::fs::write(outer.path().join("secret.txt"), "secret\n")?;
        std::os::unix::fs::symlink(outer.path().join("secret.txt"), root.join("link.txt"))?;
        let mut lines = SourceLines::new(&root);
        assert_eq!(lines.line("link.txt", 1), None);
        Ok(())
    }

    /// A file of up to 16 MiB is read, a larger one is not (its findings hash without line
    /// text).
    #[test]
    fn a_file_up_to_16_mib_is_read_and_a_larger_one_is_not() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        let limit = 16 * 1024 * 1024;
        let mut at_limit = "x".repeat(limit - 5);
        at_limit.push_str("\nlast");
        std::fs::write(dir.path().join("at.txt"), &at_limit)?;
        at_limit.push('!');
        std::fs::write(dir.path().join("over.txt"), &at_limit)?;
        let mut lines = SourceLines::new(dir.path());
        assert_eq!(lines.line("at.txt", 2), Some("last"));
        assert_eq!(lines.line("over.txt", 2), None);
        Ok(())
    }

    /// A path holding `:` (a drive letter, a URI) or `\\` is not read, even where a file of
    /// that name exists under the root.
    #[cfg(unix)]
    #[test]
    fn a_path_with_a_colon_or_a_backslash_is_not_read() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        std::fs::write(dir.path().join("a:b.txt"), "one\n")?;
        std::fs::write(dir.path().join("a\\b.txt"), "one\n")?;
        std::fs::write(dir.path().join("ab.txt"), "one\n")?;
        let mut lines = SourceLines::new(dir.path());
        assert_eq!(lines.line("ab.txt", 1), Some("one"));
        assert_eq!(lines.line("a:b.txt", 1), None);
        assert_eq!(lines.line("a\\b.txt", 1), None);
        Ok(())
    }
}
