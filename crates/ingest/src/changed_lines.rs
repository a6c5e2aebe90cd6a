//! `start --changed-since REF`: the lines each file gained or changed since REF, read from
//! `git diff -U0`, so a pull request's run takes only the findings on its own lines.

use std::collections::HashMap;
use std::path::Path;

use self_repair_engine::Finding;
use self_repair_process::Git;

use crate::scope_error::ScopeError;

/// The lines changed since a git revision, per project-relative file path (`/`-separated, as
/// findings' paths are).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChangedLines {
    files: HashMap<String, FileChanges>,
}

/// What changed in one file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct FileChanges {
    /// The file did not exist at the revision (added, or untracked): every line is new.
    whole: bool,
    /// Inclusive 1-based line ranges of the new side, in diff order.
    ranges: Vec<(u32, u32)>,
}

impl ChangedLines {
    /// The lines of the work tree at `root` that differ from `reference` (anything `git diff`
    /// takes: a commit, a branch, a tag, `origin/main...` for what a pull request shows), plus
    /// every untracked file that git does not ignore. Renamed files count only their changed
    /// lines. Paths are relative to `root`, which may be a folder inside the repository.
    pub fn since(root: &Path, reference: &str) -> Result<ChangedLines, ScopeError> {
        if reference.is_empty() || reference.starts_with('-') {
            return Err(ScopeError::NotARevision {
                reference: reference.to_owned(),
            });
        }
        let git = Git::at(root);
        let failed = |error: self_repair_process::GitError| ScopeError::GitDiff {
            reference: reference.to_owned(),
            problem: error.to_string(),
        };
        let diff = git
            .output(&[
                "-c",
                "core.quotePath=false",
                "diff",
                "-U0",
                "--no-color",
                "--no-ext-diff",
                "--no-textconv",
                "-M",
                "--relative",
                "--src-prefix=a/",
                "--dst-prefix=b/",
                reference,
                "--",
            ])
            .map_err(failed)?;
        let mut changed = ChangedLines::from_unified_diff(&String::from_utf8_lossy(&diff));
        let untracked = git
            .output(&["ls-files", "--others", "--exclude-standard", "-z"])
            .map_err(failed)?;
        for path in untracked.split(|&b| b == 0).filter(|p| !p.is_empty()) {
            changed.mark_whole(String::from_utf8_lossy(path).into_owned());
        }
        Ok(changed)
    }

    /// Reads the output of `git diff -U0` made with `a/` and `b/` prefixes: each file's new
    /// path (`+++ b/…`, or the `diff --git` header for a file without hunks) and the new side
    /// of each hunk (`@@ -a,b +c,d @@`). Deleted files and pure deletions change no line.
    pub fn from_unified_diff(diff: &str) -> ChangedLines {
        let mut changed = ChangedLines::default();
        let mut current: Option<String> = None;
        let mut new_file = false;
        let (mut old_left, mut new_left) = (0_u32, 0_u32);
        for line in diff.lines() {
            if old_left > 0 || new_left > 0 {
                // Inside a hunk every line is content, even one that reads like a header.
                match line.as_bytes().first() {
                    Some(b'-') => old_left = old_left.saturating_sub(1),
                    Some(b'+') => new_left = new_left.saturating_sub(1),
                    Some(b' ') => {
                        old_left = old_left.saturating_sub(1);
                        new_left = new_left.saturating_sub(1);
                    }
                    _ => {}
                }
                continue;
            }
            if let Some(header) = line.strip_prefix("diff --git ") {
                current = header_path(header);
                new_file = false;
            } else if line.starts_with("new file mode ") {
                new_file = true;
                if let Some(path) = &current {
                    changed.mark_whole(path.clone());
                }
            } else if let Some(target) = line.strip_prefix("+++ ") {
                current = diff_path(target, "b/");
                if new_file && let Some(path) = &current {
                    changed.mark_whole(path.clone());
                }
            } else if let Some(hunk) = line.strip_prefix("@@ ") {
                let Some((old, new)) = hunk_sides(hunk) else {
                    continue;
                };
                old_left = old.1;
                new_left = new.1;
                if let Some(path) = &current
                    && new.1 > 0
                {
                    changed
                        .files
                        .entry(path.clone())
                        .or_default()
                        .ranges
                        .push((new.0, new.0 + (new.1 - 1)));
                }
            }
        }
        changed
    }

    /// True when `finding` lies on a changed line: one of its lines (`line` to `end_line`)
    /// changed, or its file is new. A finding without a line is in scope when its file
    /// changed at all.
    pub fn contains(&self, finding: &Finding) -> bool {
        let Some(file) = self.files.get(&finding.path) else {
            return false;
        };
        if file.whole {
            return true;
        }
        let Some(first) = finding.line else {
            return !file.ranges.is_empty();
        };
        let last = finding.end_line.unwrap_or(first).max(first);
        file.ranges
            .iter()
            .any(|&(start, end)| start <= last && first <= end)
    }

    /// Files with at least one changed line (or new), for messages.
    pub fn file_count(&self) -> usize {
        self.files
            .values()
            .filter(|f| f.whole || !f.ranges.is_empty())
            .count()
    }

    fn mark_whole(&mut self, path: String) {
        self.files.entry(path).or_default().whole = true;
    }
}

/// The new path of a `diff --git a/P b/P` header. Only an unrenamed file's header names its
/// path unambiguously (both halves equal); a renamed one's path comes from `+++` or nowhere
/// (a pure rename changes no line).
fn header_path(header: &str) -> Option<String> {
    if header.starts_with('"') {
        let (old, rest) = split_quoted(header)?;
        let new = rest.strip_prefix(' ')?;
        let new = unquote(new)?;
        let old = old.strip_prefix("a/")?;
        let new = new.strip_prefix("b/")?;
        return (old == new).then(|| new.to_owned());
    }
    let rest = header.strip_prefix("a/")?;
    // `P b/P`: P is (len - 3) / 2 bytes long.
    let half = rest.len().checked_sub(3)? / 2;
    let (old, new) = (rest.get(..half)?, rest.get(half..)?);
    let new = new.strip_prefix(" b/")?;
    (old == new).then(|| new.to_owned())
}

/// `b/path` or `"b/quoted\tpath"` → `path`; `/dev/null` → none.
fn diff_path(text: &str, prefix: &str) -> Option<String> {
    let text = text.trim_end_matches('\r');
    if text == "/dev/null" {
        return None;
    }
    let path = if text.starts_with('"') {
        unquote(text)?
    } else {
        // git appends a tab after a path that contains spaces in `---`/`+++` lines.
        text.strip_suffix('\t').unwrap_or(text).to_owned()
    };
    path.strip_prefix(prefix).map(str::to_owned)
}

/// `"a/x" rest` → (`a/x` unquoted, ` rest`).
fn split_quoted(text: &str) -> Option<(String, &str)> {
    let bytes = text.as_bytes();
    let mut escaped = false;
    for (index, &byte) in bytes.iter().enumerate().skip(1) {
        if escaped {
            escaped = false;
        } else if byte == b'\\' {
            escaped = true;
        } else if byte == b'"' {
            return Some((unquote(&text[..=index])?, &text[index + 1..]));
        }
    }
    None
}

/// Undoes git's C-style quoting: `"caf\303\251\tx"` → `café`, a tab, `x`.
fn unquote(text: &str) -> Option<String> {
    let inner = text.strip_prefix('"')?.strip_suffix('"')?;
    let mut bytes = Vec::with_capacity(inner.len());
    let mut chars = inner.bytes().peekable();
    while let Some(byte) = chars.next() {
        if byte != b'\\' {
            bytes.push(byte);
            continue;
        }
        let escaped = chars.next()?;
        bytes.push(match escaped {
            b'a' => 0x07,
            b'b' => 0x08,
            b't' => b'\t',
            b'n' => b'\n',
            b'v' => 0x0b,
            b'f' => 0x0c,
            b'r' => b'\r',
            b'0'..=b'7' => {
                let mut value = u32::from(escaped - b'0');
                for _ in 0..2 {
                    let digit = chars.next_if(|d| (b'0'..=b'7').contains(d))?;
                    value = value * 8 + u32::from(digit - b'0');
                }
                u8::try_from(value).ok()?
            }
            other => other,
        });
    }
    String::from_utf8(bytes).ok()
}

/// `-a,b +c,d @@ …` → ((a, b), (c, d)); a missing count is 1.
fn hunk_sides(hunk: &str) -> Option<((u32, u32), (u32, u32))> {
    let mut words = hunk.split(' ');
    let old = side(words.next()?.strip_prefix('-')?)?;
    let new = side(words.next()?.strip_prefix('+')?)?;
    Some((old, new))
}

fn side(text: &str) -> Option<(u32, u32)> {
    match text.split_once(',') {
        Some((start, count)) => Some((start.parse().ok()?, count.parse().ok()?)),
        None => Some((text.parse().ok()?, 1)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(path: &str, line: Option<u32>, end_line: Option<u32>) -> Finding {
        Finding {
            tool: "ruff".into(),
            rule_id: "F401".into(),
            level: self_repair_engine::Level::Error,
            message: "m".into(),
            path: path.into(),
            line,
            column: None,
            end_line,
            end_column: None,
            symbol: None,
            help_uri: None,
            raw: None,
            fix: None,
        }
    }

    const DIFF: &str = "\
diff --git a/src/app.py b/src/app.py
index 1111111..2222222 100644
--- a/src/app.py
+++ b/src/app.py
@@ -3,0 +4,2 @@ def f():
+import os
++++ b/not/a/header.py
@@ -10 +12 @@ def g():
-x = 1
+x = 2
@@ -20,3 +21,0 @@ def h():
-a
-b
-c
diff --git a/new.py b/new.py
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/new.py
@@ -0,0 +1,2 @@
+import sys
+print(sys)
diff --git a/empty/__init__.py b/empty/__init__.py
new file mode 100644
index 0000000..e69de29
diff --git a/gone.py b/gone.py
deleted file mode 100644
index 4444444..0000000
--- a/gone.py
+++ /dev/null
@@ -1,2 +0,0 @@
-a
-b
diff --git a/old name.py b/new name.py
similarity 90%
rename from old name.py
rename to new name.py
index 5555555..6666666 100644
--- a/old name.py\t
+++ b/new name.py\t
@@ -7 +7 @@
-y = 1
+y = 2
diff --git a/moved.py b/elsewhere/moved.py
similarity 100%
rename from moved.py
rename to elsewhere/moved.py
diff --git \"a/caf\\303\\251\\tx.py\" \"b/caf\\303\\251\\tx.py\"
index 7777777..8888888 100644
--- \"a/caf\\303\\251\\tx.py\"
+++ \"b/caf\\303\\251\\tx.py\"
@@ -1 +1 @@
-a
+b
";

    #[test]
    fn hunks_give_the_new_sides_changed_lines() {
        let changed = ChangedLines::from_unified_diff(DIFF);
        let app = |line| changed.contains(&at("src/app.py", Some(line), None));
        assert!(!app(3));
        assert!(app(4));
        assert!(app(5));
        assert!(!app(6));
        assert!(app(12));
        assert!(!app(13));
        // A pure deletion (`+21,0`) changes no line.
        assert!(!app(21));
        assert!(!app(22));
    }

    #[test]
    fn content_lines_that_look_like_headers_are_content() {
        // `++++ b/not/a/header.py` is the added line `++ b/not/a/header.py`.
        let changed = ChangedLines::from_unified_diff(DIFF);
        assert!(!changed.contains(&at("not/a/header.py", Some(1), None)));
        assert!(changed.contains(&at("src/app.py", Some(12), None)));
    }

    /// A hunk's lines are content until both its sides are counted out: an added line that
    /// reads like a header, after the hunk's last removed line, is still content.
    #[test]
    fn an_added_line_like_a_header_after_the_removed_ones_is_content() {
        let diff = "diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\n@@ -1 +1,2 @@\n-old\n+new\n+++ b/evil.py\n@@ -10 +11 @@\n-x\n+y\n";
        let changed = ChangedLines::from_unified_diff(diff);
        for line in [1, 2, 11] {
            assert!(changed.contains(&at("app.py", Some(line), None)), "{line}");
        }
        assert!(!changed.contains(&at("evil.py", Some(11), None)));
    }

    #[test]
    fn a_finding_spanning_lines_is_in_scope_when_one_of_them_changed() {
        let changed = ChangedLines::from_unified_diff(DIFF);
        assert!(changed.contains(&at("src/app.py", Some(1), Some(4))));
        assert!(!changed.contains(&at("src/app.py", Some(1), Some(3))));
        assert!(changed.contains(&at("src/app.py", Some(12), Some(2))));
    }

    #[test]
    fn new_files_are_wholly_changed_even_when_empty() {
        let changed = ChangedLines::from_unified_diff(DIFF);
        assert!(changed.contains(&at("new.py", Some(2), None)));
        assert!(changed.contains(&at("new.py", None, None)));
        assert!(changed.contains(&at("empty/__init__.py", Some(1), None)));
        assert!(changed.contains(&at("empty/__init__.py", None, None)));
    }

    #[test]
    fn deleted_files_and_pure_renames_change_no_line() {
        let changed = ChangedLines::from_unified_diff(DIFF);
        assert!(!changed.contains(&at("gone.py", Some(1), None)));
        assert!(!changed.contains(&at("elsewhere/moved.py", Some(1), None)));
        assert!(!changed.contains(&at("elsewhere/moved.py", None, None)));
        assert!(!changed.contains(&at("moved.py", Some(1), None)));
    }

    #[test]
    fn a_renamed_file_counts_its_changed_lines_under_its_new_name() {
        let changed = ChangedLines::from_unified_diff(DIFF);
        assert!(changed.contains(&at("new name.py", Some(7), None)));
        assert!(!changed.contains(&at("new name.py", Some(8), None)));
        assert!(!changed.contains(&at("old name.py", Some(7), None)));
    }

    #[test]
    fn quoted_paths_are_unquoted() {
        let changed = ChangedLines::from_unified_diff(DIFF);
        assert!(changed.contains(&at("café\tx.py", Some(1), None)));
    }

    /// An empty new file has no `+++` line: its quoted path comes from the header alone.
    #[test]
    fn an_empty_new_file_with_a_quoted_path_is_named_by_its_header() {
        let diff = "diff --git \"a/caf\\303\\251 x.py\" \"b/caf\\303\\251 x.py\"\n\
                    new file mode 100644\n\
                    index 0000000..e69de29\n";
        let changed = ChangedLines::from_unified_diff(diff);
        assert!(changed.contains(&at("café x.py", Some(1), None)), "{diff}");
        assert_eq!(changed.file_count(), 1);
    }

    #[test]
    fn a_line_less_finding_is_in_scope_when_its_file_changed() {
        let changed = ChangedLines::from_unified_diff(DIFF);
        assert!(changed.contains(&at("src/app.py", None, None)));
        assert!(!changed.contains(&at("untouched.py", None, None)));
        assert!(!changed.contains(&at(".", None, None)));
    }

    #[test]
    fn file_count_counts_files_with_a_changed_line() {
        // src/app.py, new.py, empty/__init__.py, new name.py, café\tx.py.
        assert_eq!(ChangedLines::from_unified_diff(DIFF).file_count(), 5);
    }

    fn git(root: &Path, args: &[&str]) {
        let mut all = vec!["-c", "user.name=t", "-c", "user.email=t@example.com"];
        all.extend_from_slice(args);
        Git::at(root).output(&all).unwrap();
    }

    #[test]
    fn since_reads_the_work_tree_against_a_revision_from_a_project_inside_the_repository() {
        let repo = tempfile::tempdir().unwrap();
        let project = repo.path().join("svc");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::write(repo.path().join("outside.py"), "a\n").unwrap();
        std::fs::write(project.join("kept.py"), "1\n2\n3\n").unwrap();
        std::fs::write(project.join("moved.py"), "m\nn\no\np\n").unwrap();
        git(repo.path(), &["init", "-q"]);
        git(repo.path(), &["add", "."]);
        git(repo.path(), &["commit", "-q", "-m", "base"]);
        git(repo.path(), &["tag", "base"]);
        std::fs::write(repo.path().join("outside.py"), "b\n").unwrap();
        std::fs::write(project.join("kept.py"), "1\ntwo\n3\n").unwrap();
        git(repo.path(), &["mv", "svc/moved.py", "svc/renamed.py"]);
        std::fs::write(project.join("added.py"), "x\n").unwrap();
        git(repo.path(), &["add", "svc/added.py"]);
        git(repo.path(), &["commit", "-q", "-m", "change"]);
        std::fs::write(project.join("untracked.py"), "u\n").unwrap();
        std::fs::write(project.join(".gitignore"), "ignored.py\n").unwrap();
        std::fs::write(project.join("ignored.py"), "i\n").unwrap();

        let changed = ChangedLines::since(&project, "base").unwrap();
        assert!(changed.contains(&at("kept.py", Some(2), None)));
        assert!(!changed.contains(&at("kept.py", Some(1), None)));
        assert!(changed.contains(&at("added.py", Some(1), None)));
        assert!(changed.contains(&at("untracked.py", Some(1), None)));
        assert!(!changed.contains(&at("ignored.py", Some(1), None)));
        assert!(!changed.contains(&at("renamed.py", Some(1), None)));
        // Paths are the project's: the repository's other folders are not in them.
        assert!(!changed.contains(&at("outside.py", Some(1), None)));
        assert!(!changed.contains(&at("../outside.py", Some(1), None)));
        // kept.py, added.py, untracked.py and the untracked .gitignore.
        assert_eq!(changed.file_count(), 4, "{changed:?}");
    }

    #[test]
    fn an_unknown_revision_names_itself_and_what_git_said() {
        let repo = tempfile::tempdir().unwrap();
        git(repo.path(), &["init", "-q"]);
        let error = ChangedLines::since(repo.path(), "no-such-branch").unwrap_err();
        let text = error.to_string();
        assert!(text.contains("no-such-branch"), "{text}");
        assert!(text.contains("git fetch"), "{text}");
    }

    #[test]
    fn an_option_is_not_taken_for_a_revision() {
        let dir = tempfile::tempdir().unwrap();
        let error = ChangedLines::since(dir.path(), "--output=/tmp/x").unwrap_err();
        assert!(matches!(error, ScopeError::NotARevision { .. }), "{error}");
    }
}
