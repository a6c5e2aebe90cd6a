//! Where a symbol appears in the project: a whole-word search honouring `.gitignore`, capped.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::ContextError;
use crate::excerpt::{MAX_HIT_LINE_CHARS, excerpt_around};
use crate::file_text::is_binary;
use crate::project_path::relative_display;
use crate::word_match::WordMatcher;

/// Directories never searched, wherever they appear (VCS data, our own state, build output,
/// installed packages), in addition to whatever `.gitignore`/`.ignore` exclude.
const SKIPPED_DIRECTORIES: &[&str] = &[
    ".git",
    ".hg",
    ".svn",
    ".self-repair",
    "target",
    "node_modules",
];

/// Limits and exclusions for [`references`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefOptions {
    /// Most hits kept in the report (all are counted). Default 50.
    pub max_results: usize,
    /// Most files read; the scan stops there. Default 20,000.
    pub max_files_scanned: usize,
    /// Most bytes read in total; the scan stops there. Default 256 MB.
    pub max_bytes_scanned: u64,
    /// Files larger than this are skipped (bundles, dumps). Default 2 MB.
    pub max_file_bytes: u64,
    /// Locations left out of the hits (the definition, the finding's own line).
    pub exclude: Vec<RefLocation>,
    /// Project-relative files never searched, or folders when they end in `/`: the run's own
    /// inputs (an analyzer's report names every symbol it flags, which is not a use) and the
    /// task sink `backlog/`.
    pub skip_paths: Vec<String>,
}

impl Default for RefOptions {
    fn default() -> RefOptions {
        RefOptions {
            max_results: 50,
            max_files_scanned: 20_000,
            max_bytes_scanned: 256 * 1024 * 1024,
            max_file_bytes: 2 * 1024 * 1024,
            exclude: Vec::new(),
            skip_paths: vec!["backlog/".to_owned()],
        }
    }
}

/// A project-relative path and 1-based line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefLocation {
    /// Project-relative path with `/` separators (a leading `./` is ignored).
    pub path: String,
    /// 1-based line.
    pub line: u32,
}

/// One line where the symbol appears.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefHit {
    /// Project-relative path with `/` separators.
    pub path: String,
    /// 1-based line.
    pub line: u32,
    /// The line, trimmed, cut to 200 characters around the first occurrence.
    pub text: String,
}

impl RefHit {
    /// `path:line: text`.
    pub fn render(&self) -> String {
        format!("{}:{}: {}", self.path, self.line, self.text)
    }
}

/// Which cap stopped a scan before every file was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScanLimit {
    /// [`RefOptions::max_files_scanned`] files were read.
    Files,
    /// [`RefOptions::max_bytes_scanned`] bytes were read.
    Bytes,
}

/// What [`references`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefReport {
    /// The symbol searched for.
    pub symbol: String,
    /// The first hits in path then line order, at most [`RefOptions::max_results`].
    pub hits: Vec<RefHit>,
    /// Every matching line found in the files read (one per line, however many occurrences).
    pub total_hits: usize,
    /// Files holding at least one hit.
    pub files_with_hits: usize,
    /// Files read.
    pub files_scanned: usize,
    /// Bytes read.
    pub bytes_scanned: u64,
    /// Files skipped as binary (a NUL byte near the start).
    pub skipped_binary: usize,
    /// Files skipped as larger than [`RefOptions::max_file_bytes`].
    pub skipped_large: usize,
    /// Hits at excluded locations, not counted in `total_hits`.
    pub excluded_hits: usize,
    /// Set when a cap stopped the scan: `total_hits` is then a lower bound.
    pub stopped_by: Option<ScanLimit>,
}

impl RefReport {
    /// Whether `hits` shows fewer than `total_hits`.
    pub fn is_truncated(&self) -> bool {
        self.hits.len() < self.total_hits
    }

    /// One line saying what was found and what was left out.
    pub fn summary(&self) -> String {
        let lines = plural(self.total_hits, "line", "lines");
        let files = plural(self.files_with_hits, "file", "files");
        let mut summary = if self.total_hits == 0 {
            format!(
                "no references in {}",
                plural(self.files_scanned, "file", "files")
            )
        } else {
            format!("{lines} in {files}")
        };
        if self.excluded_hits > 0 {
            let _ = write!(
                summary,
                ", not counting {} excluded",
                plural(self.excluded_hits, "line", "lines")
            );
        }
        if self.is_truncated() {
            let _ = write!(summary, "; showing the first {}", self.hits.len());
        }
        match self.stopped_by {
            Some(ScanLimit::Files) => {
                let _ = write!(
                    summary,
                    "; scan stopped after {} files (cap)",
                    self.files_scanned
                );
            }
            Some(ScanLimit::Bytes) => {
                let _ = write!(
                    summary,
                    "; scan stopped after {} bytes (cap)",
                    self.bytes_scanned
                );
            }
            None => {}
        }
        summary
    }

    /// The hits as `path:line: text` lines.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for hit in &self.hits {
            out.push_str(&hit.render());
            out.push('\n');
        }
        out
    }
}

fn plural(count: usize, one: &str, many: &str) -> String {
    if count == 1 {
        format!("1 {one}")
    } else {
        format!("{count} {many}")
    }
}

/// The lines of files under `root` where `symbol` appears as a whole word.
///
/// Honours `.gitignore`, `.ignore` and `.git/info/exclude` (also outside a git repository), skips
/// `.git`, `.self-repair`, `target`, `node_modules`, binary and oversized files, never follows
/// symlinks. Files are read in path order, so the result is deterministic; a cap on files or
/// bytes stops the scan and says so.
pub fn references(
    root: &Path,
    symbol: &str,
    options: &RefOptions,
) -> Result<RefReport, ContextError> {
    let symbol = symbol.trim();
    if symbol.is_empty() || symbol.contains(['\n', '\r']) {
        return Err(ContextError::InvalidSymbol {
            symbol: symbol.to_owned(),
        });
    }
    let root = root.canonicalize().map_err(|source| ContextError::Root {
        root: root.to_path_buf(),
        source,
    })?;
    let excluded: Vec<(String, u32)> = options
        .exclude
        .iter()
        .map(|location| (normalize(&location.path), location.line))
        .collect();
    let matcher = WordMatcher::new(symbol);
    let mut report = RefReport {
        symbol: symbol.to_owned(),
        hits: Vec::new(),
        total_hits: 0,
        files_with_hits: 0,
        files_scanned: 0,
        bytes_scanned: 0,
        skipped_binary: 0,
        skipped_large: 0,
        excluded_hits: 0,
        stopped_by: None,
    };
    let skip: Vec<String> = options
        .skip_paths
        .iter()
        .map(|p| normalize_skip(p))
        .collect();
    for (rel_path, path, size) in project_files(&root) {
        let skipped = skip.iter().any(|s| {
            if s.ends_with('/') {
                rel_path.starts_with(s.as_str())
            } else {
                rel_path == *s
            }
        });
        if skipped {
            continue;
        }
        if size > options.max_file_bytes {
            report.skipped_large += 1;
            continue;
        }
        if report.files_scanned >= options.max_files_scanned {
            report.stopped_by = Some(ScanLimit::Files);
            break;
        }
        if report.bytes_scanned.saturating_add(size) > options.max_bytes_scanned {
            report.stopped_by = Some(ScanLimit::Bytes);
            break;
        }
        // A file that vanished or cannot be read since the walk is simply not a reference.
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        report.files_scanned += 1;
        report.bytes_scanned += bytes.len() as u64;
        if is_binary(&bytes) {
            report.skipped_binary += 1;
            continue;
        }
        let mut file_has_hit = false;
        for (line, text) in matching_lines(&bytes, &matcher) {
            if excluded
                .iter()
                .any(|(path, excluded_line)| *path == rel_path && *excluded_line == line)
            {
                report.excluded_hits += 1;
                continue;
            }
            file_has_hit = true;
            report.total_hits += 1;
            if report.hits.len() < options.max_results {
                report.hits.push(RefHit {
                    path: rel_path.clone(),
                    line,
                    text,
                });
            }
        }
        if file_has_hit {
            report.files_with_hits += 1;
        }
    }
    Ok(report)
}

/// Regular files under `root` that the ignore rules keep, as (relative path, path, size), sorted
/// by relative path.
fn project_files(root: &Path) -> Vec<(String, PathBuf, u64)> {
    let walker = ignore::WalkBuilder::new(root)
        .hidden(false)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|entry| {
            let is_dir = entry.file_type().is_some_and(|kind| kind.is_dir());
            !(is_dir
                && entry.depth() > 0
                && SKIPPED_DIRECTORIES
                    .iter()
                    .any(|name| entry.file_name() == *name))
        })
        .build();
    let mut files = Vec::new();
    // Unreadable directories and broken entries are skipped: a reference search is best effort.
    for entry in walker.flatten() {
        if !entry.file_type().is_some_and(|kind| kind.is_file()) {
            continue;
        }
        let Some(rel_path) = relative_display(root, entry.path()) else {
            continue;
        };
        let size = entry.metadata().map_or(0, |metadata| metadata.len());
        files.push((rel_path, entry.into_path(), size));
    }
    files.sort_by(|left, right| left.0.cmp(&right.0));
    files
}

/// [`normalize`], keeping the trailing `/` that marks a folder.
fn normalize_skip(path: &str) -> String {
    let mut normalized = normalize(path);
    if path.ends_with('/') || path.ends_with('\\') {
        normalized.push('/');
    }
    normalized
}

/// `./src//a.rs` -> `src/a.rs`.
fn normalize(path: &str) -> String {
    path.split(['/', '\\'])
        .filter(|part| !part.is_empty() && *part != ".")
        .collect::<Vec<_>>()
        .join("/")
}

/// Each line holding a whole-word occurrence, once, as (1-based line, excerpt).
fn matching_lines(bytes: &[u8], matcher: &WordMatcher) -> Vec<(u32, String)> {
    let mut found = Vec::new();
    let mut line = 1_u32;
    let mut counted_to = 0;
    let mut from = 0;
    while let Some(at) = matcher.find_from(bytes, from) {
        line =
            line.saturating_add(memchr::memchr_iter(b'\n', &bytes[counted_to..at]).count() as u32);
        let line_start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |newline| newline + 1);
        let line_end =
            memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |newline| at + newline);
        let raw = &bytes[line_start..line_end];
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let text = String::from_utf8_lossy(raw);
        let leading = text.len() - text.trim_start().len();
        let trimmed = text.trim();
        let focus = (at - line_start).saturating_sub(leading);
        found.push((line, excerpt_around(trimmed, focus, MAX_HIT_LINE_CHARS)));
        counted_to = at;
        // Past the end (a last line without a newline), `find_from` finds nothing.
        from = line_end + 1;
    }
    found
}
