//! A list of file writes and deletions, shown as a diff or applied atomically.

use std::fmt::Write as _;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use similar::TextDiff;

use crate::atomic_write::write_atomically;
use crate::file_read::read_optional;
use crate::install_error::InstallError;
use crate::install_root::InstallRoot;

/// One file to create, replace or delete.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    /// Absolute path.
    pub path: PathBuf,
    /// The path relative to the install root, `/`-separated, as the manifest records it
    /// (`.claude/settings.json`).
    pub rel_path: String,
    /// The path as shown to the user (`.claude/settings.json` in a project,
    /// `~/.claude/settings.json`, or the full path in `CLAUDE_CONFIG_DIR`).
    pub display_path: String,
    /// Contents now (`None`: the file does not exist).
    pub before: Option<String>,
    /// Contents after the change (`None`: delete the file).
    pub after: Option<String>,
    /// Our bookkeeping (the install manifest): summarised in one line instead of diffed.
    pub bookkeeping: bool,
}

impl FileChange {
    /// The change of the file at `rel` under `root`: created, replaced or deleted.
    pub(crate) fn planned(
        root: &InstallRoot,
        rel: &str,
        before: Option<String>,
        after: Option<String>,
    ) -> FileChange {
        FileChange {
            path: root.resolve(rel),
            rel_path: rel.to_owned(),
            display_path: root.display(rel),
            before,
            after,
            bookkeeping: false,
        }
    }

    /// The same change, of an install record: summarised in one line instead of diffed.
    pub(crate) fn of_record(self) -> FileChange {
        FileChange {
            bookkeeping: true,
            ..self
        }
    }
}

/// File changes applied in order, then empty directories removed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ChangeSet {
    pub(crate) changes: Vec<FileChange>,
    /// Directories to remove if empty after the changes, deepest first.
    pub(crate) remove_dirs_if_empty: Vec<PathBuf>,
}

impl ChangeSet {
    /// Queues a change unless `before == after`.
    pub(crate) fn push(&mut self, change: FileChange) {
        if change.before != change.after {
            self.changes.push(change);
        }
    }

    /// A unified diff of every change; new files as full additions, deleted files as full
    /// removals, bookkeeping files as one line.
    pub(crate) fn render_diff(&self) -> String {
        let mut out = String::new();
        for change in &self.changes {
            if change.bookkeeping {
                let verb = match (&change.before, &change.after) {
                    (_, None) => "delete",
                    (None, Some(_)) => "create",
                    (Some(_), Some(_)) => "update",
                };
                let _ = writeln!(out, "# {verb} install record {}", change.display_path);
                continue;
            }
            let old_header = match change.before {
                Some(_) => diff_header("a/", &change.display_path),
                None => "/dev/null".to_owned(),
            };
            let new_header = match change.after {
                Some(_) => diff_header("b/", &change.display_path),
                None => "/dev/null".to_owned(),
            };
            let before = change.before.as_deref().unwrap_or("");
            let after = change.after.as_deref().unwrap_or("");
            let diff = TextDiff::from_lines(before, after);
            let _ = write!(
                out,
                "{}",
                diff.unified_diff()
                    .context_radius(3)
                    .header(&old_header, &new_header)
            );
        }
        out
    }

    /// One line per change: `created .claude/agents/x.md`, ...; under `--dry-run`, which
    /// writes nothing, `would create .claude/agents/x.md`.
    pub(crate) fn summary_lines(&self, dry_run: bool) -> Vec<String> {
        self.changes
            .iter()
            .map(|change| {
                let verb = match (&change.before, &change.after, dry_run) {
                    (_, None, false) => "removed",
                    (None, Some(_), false) => "created",
                    (Some(_), Some(_), false) => "updated",
                    (_, None, true) => "would remove",
                    (None, Some(_), true) => "would create",
                    (Some(_), Some(_), true) => "would update",
                };
                format!("{verb} {}", change.display_path)
            })
            .collect()
    }

    /// Applies every change, refusing any file that changed since planning.
    pub(crate) fn apply(&self) -> Result<(), InstallError> {
        for change in &self.changes {
            if read_optional(&change.path)? != change.before {
                return Err(InstallError::ChangedSincePlan {
                    path: change.path.clone(),
                });
            }
        }
        for change in &self.changes {
            match &change.after {
                Some(text) => write_atomically(&change.path, text)?,
                None => remove_file(&change.path)?,
            }
        }
        for dir in &self.remove_dirs_if_empty {
            remove_dir_if_empty(dir)?;
        }
        Ok(())
    }
}

/// `a/.claude/settings.json` for a relative path, as git writes it; an absolute or `~/` path as
/// it is.
fn diff_header(side: &str, display_path: &str) -> String {
    if display_path.starts_with('/') || display_path.starts_with("~/") {
        display_path.to_owned()
    } else {
        format!("{side}{display_path}")
    }
}

fn remove_file(path: &Path) -> Result<(), InstallError> {
    match std::fs::remove_file(path) {
        Err(err) if err.kind() != ErrorKind::NotFound => Err(InstallError::Write {
            path: path.to_owned(),
            source: err,
        }),
        _ => Ok(()),
    }
}

fn remove_dir_if_empty(dir: &Path) -> Result<(), InstallError> {
    let is_empty = match std::fs::read_dir(dir) {
        Ok(mut entries) => entries.next().is_none(),
        Err(err) if err.kind() == ErrorKind::NotFound => return Ok(()),
        Err(source) => {
            return Err(InstallError::Read {
                path: dir.to_owned(),
                source,
            });
        }
    };
    if is_empty {
        std::fs::remove_dir(dir).map_err(|source| InstallError::Write {
            path: dir.to_owned(),
            source,
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diff_header_prefixes_a_relative_path_only() {
        for (display, header) in [
            (".claude/settings.json", "a/.claude/settings.json"),
            (
                "/home/u/.claude/settings.json",
                "/home/u/.claude/settings.json",
            ),
            ("~/.claude/settings.json", "~/.claude/settings.json"),
            ("~x/settings.json", "a/~x/settings.json"),
        ] {
            assert_eq!(diff_header("a/", display), header, "{display}");
        }
    }

    #[test]
    fn removing_a_missing_file_is_done_and_one_that_cannot_go_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        assert!(remove_file(&dir.path().join("gone.json")).is_ok());
        let file = dir.path().join("here.json");
        std::fs::write(&file, "{}").unwrap();
        assert!(remove_file(&file).is_ok());
        assert!(!file.exists());
        // A directory is not removed as a file: the error names it.
        let err = remove_file(dir.path()).unwrap_err();
        assert!(matches!(err, InstallError::Write { .. }), "{err}");
    }

    #[test]
    fn only_an_empty_directory_is_removed_and_a_missing_one_is_done() {
        let dir = tempfile::tempdir().unwrap();
        assert!(remove_dir_if_empty(&dir.path().join("gone")).is_ok());
        let empty = dir.path().join("empty");
        std::fs::create_dir(&empty).unwrap();
        remove_dir_if_empty(&empty).unwrap();
        assert!(!empty.exists());
        let full = dir.path().join("full");
        std::fs::create_dir(&full).unwrap();
        std::fs::write(full.join("f"), "").unwrap();
        remove_dir_if_empty(&full).unwrap();
        assert!(full.join("f").exists());
        // A file where the directory should be does not list: the error names it.
        let err = remove_dir_if_empty(&full.join("f")).unwrap_err();
        assert!(matches!(err, InstallError::Read { .. }), "{err}");
    }
}
