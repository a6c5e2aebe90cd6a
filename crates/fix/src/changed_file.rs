//! A file a fix changed, read from `git diff` output: what happened to it and the lines it
//! gained (where a suppression comment would be).

/// What happened to the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    Added,
    Modified,
    Deleted,
}

/// One changed file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangedFile {
    /// Project-relative, `/`-separated.
    pub path: String,
    pub kind: ChangeKind,
    /// Lines the change added, without the leading `+`.
    pub added: Vec<String>,
    /// Lines the change removed, without the leading `-`.
    pub removed: Vec<String>,
}

/// Reads `git diff --no-color --no-renames` output (any context size) into changed files.
/// Paths are taken from the `+++ b/` line, or the `--- a/` line of a deletion.
pub fn parse_unified_diff(text: &str) -> Vec<ChangedFile> {
    let mut files: Vec<ChangedFile> = Vec::new();
    let mut in_hunk = false;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("diff --git ") {
            in_hunk = false;
            let path = rest.split_once(" b/").map_or(rest, |(_, b)| b).to_owned();
            files.push(ChangedFile {
                path,
                kind: ChangeKind::Modified,
                added: Vec::new(),
                removed: Vec::new(),
            });
            continue;
        }
        let Some(file) = files.last_mut() else {
            continue;
        };
        if !in_hunk {
            if line.starts_with("new file mode") {
                file.kind = ChangeKind::Added;
            } else if line.starts_with("deleted file mode") {
                file.kind = ChangeKind::Deleted;
            } else if let Some(path) = line.strip_prefix("+++ b/") {
                path.clone_into(&mut file.path);
            } else if line.starts_with("@@") {
                in_hunk = true;
            }
            continue;
        }
        if line.starts_with("@@") {
            continue;
        }
        if let Some(added) = line.strip_prefix('+') {
            file.added.push(added.to_owned());
        } else if let Some(removed) = line.strip_prefix('-') {
            file.removed.push(removed.to_owned());
        }
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diff_gives_each_file_its_kind_and_added_lines() {
        let diff = "diff --git a/pkg/mod.py b/pkg/mod.py\nindex 1..2 100644\n--- a/pkg/mod.py\n+++ b/pkg/mod.py\n@@ -1,2 +1,2 @@\n-import os\n+import os  # noqa: F401\n+++ not a header inside a hunk\n diff context\ndiff --git a/tests/test_mod.py b/tests/test_mod.py\ndeleted file mode 100644\nindex 3..0\n--- a/tests/test_mod.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-def test_x(): pass\n";
        let files = parse_unified_diff(diff);
        assert_eq!(files.len(), 2);
        assert_eq!(files[0].path, "pkg/mod.py");
        assert_eq!(files[0].kind, ChangeKind::Modified);
        assert_eq!(
            files[0].added,
            ["import os  # noqa: F401", "++ not a header inside a hunk"]
        );
        assert_eq!(files[1].path, "tests/test_mod.py");
        assert_eq!(files[0].removed, ["import os"]);
        assert_eq!(files[1].kind, ChangeKind::Deleted);
        assert!(files[1].added.is_empty());
        assert_eq!(files[1].removed, ["def test_x(): pass"]);
    }
}
