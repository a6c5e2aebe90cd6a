//! What the working tree looks like, as a digest per changed file: the no-change guard compares
//! two snapshots to tell whether an attempt changed anything, and which files.

use std::collections::BTreeMap;
use std::path::Path;

use self_repair_engine::StableHash;
use self_repair_process::Git;
use self_repair_store::STORE_DIR;
use serde::{Deserialize, Serialize};

/// Most files hashed when the project is not a git work tree.
const WALK_LIMIT: usize = 20_000;
/// Folders never hashed by the walk (build output, dependencies, our own store).
const WALK_SKIP: [&str; 5] = [STORE_DIR, ".git", "target", "node_modules", ".venv"];

/// Per-file content digests of the files that differ from `HEAD` (git), or of every file (walk).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TreeSnapshot {
    pub files: BTreeMap<String, String>,
}

impl TreeSnapshot {
    /// Takes a snapshot of the project at `root`, skipping `.self-repair/`.
    pub fn take(root: &Path) -> TreeSnapshot {
        git_snapshot(root).unwrap_or_else(|| walk_snapshot(root))
    }

    /// One digest of the whole snapshot.
    pub fn digest(&self) -> String {
        let mut hash = StableHash::new();
        for (path, digest) in &self.files {
            hash.write(path.as_bytes());
            hash.separator();
            hash.write(digest.as_bytes());
            hash.separator();
        }
        hash.hex()
    }

    /// Files whose content differs between `before` and `self`, sorted.
    pub fn changed_since(&self, before: &TreeSnapshot) -> Vec<String> {
        let mut changed: Vec<String> = self
            .files
            .iter()
            .filter(|(path, digest)| before.files.get(*path) != Some(digest))
            .map(|(path, _)| path.clone())
            .chain(
                before
                    .files
                    .keys()
                    .filter(|path| !self.files.contains_key(*path))
                    .cloned(),
            )
            .collect();
        changed.sort();
        changed.dedup();
        changed
    }
}

fn file_digest(path: &Path) -> String {
    match std::fs::read(path) {
        Ok(bytes) => {
            let mut hash = StableHash::new();
            hash.write(&bytes);
            hash.hex()
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => "deleted".to_owned(),
        Err(_) => "unreadable".to_owned(),
    }
}

/// Runs git in `root`; `None` when it fails (not a work tree, no git).
pub(crate) fn git(root: &Path, args: &[&str]) -> Option<Vec<u8>> {
    Git::at(root).output(args).ok()
}

fn git_snapshot(root: &Path) -> Option<TreeSnapshot> {
    let top = git(root, &["rev-parse", "--show-toplevel"])?;
    let top = String::from_utf8_lossy(&top).trim().to_owned();
    let status = git(
        root,
        &[
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--",
            ".",
            ":(exclude).self-repair",
        ],
    )?;
    let mut files = BTreeMap::new();
    let mut fields = status.split(|&b| b == 0).filter(|f| !f.is_empty());
    while let Some(field) = fields.next() {
        if field.len() < 4 {
            continue;
        }
        let code = &field[..2];
        let path = String::from_utf8_lossy(&field[3..]).into_owned();
        if code.contains(&b'R') || code.contains(&b'C') {
            // A rename is followed by its old path, which is gone (or unchanged).
            if let Some(old) = fields.next() {
                files.insert(
                    String::from_utf8_lossy(old).into_owned(),
                    "moved".to_owned(),
                );
            }
        }
        let digest = file_digest(&Path::new(&top).join(&path));
        files.insert(path, digest);
    }
    Some(TreeSnapshot { files })
}

fn walk_snapshot(root: &Path) -> TreeSnapshot {
    let mut files = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
        entries.sort_by_key(std::fs::DirEntry::file_name);
        for entry in entries {
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if !WALK_SKIP.contains(&name.as_str()) {
                    stack.push(path);
                }
            } else if kind.is_file() {
                if files.len() >= WALK_LIMIT {
                    return TreeSnapshot { files };
                }
                let rel = path
                    .strip_prefix(root)
                    .map_or_else(|_| name.clone(), |p| p.to_string_lossy().into_owned());
                files.insert(rel, file_digest(&path));
            }
        }
    }
    TreeSnapshot { files }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_walk_sees_edits_creations_and_deletions_but_not_the_store() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "1").unwrap();
        std::fs::write(dir.path().join("b.txt"), "1").unwrap();
        let before = TreeSnapshot::take(dir.path());
        std::fs::create_dir(dir.path().join(STORE_DIR)).unwrap();
        std::fs::write(dir.path().join(STORE_DIR).join("x"), "noise").unwrap();
        assert_eq!(TreeSnapshot::take(dir.path()).digest(), before.digest());
        std::fs::write(dir.path().join("a.txt"), "2").unwrap();
        std::fs::remove_file(dir.path().join("b.txt")).unwrap();
        std::fs::write(dir.path().join("c.txt"), "new").unwrap();
        let after = TreeSnapshot::take(dir.path());
        assert_eq!(after.changed_since(&before), ["a.txt", "b.txt", "c.txt"]);
        assert_ne!(after.digest(), before.digest());
    }

    #[test]
    fn in_a_git_tree_a_deleted_file_and_one_that_cannot_be_read_are_told_apart() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let run = |args: &[&str]| {
            Git::at(root).output(args).unwrap();
        };
        run(&["init", "-q"]);
        run(&["config", "user.name", "t"]);
        run(&["config", "user.email", "t@localhost"]);
        for name in ["a.txt", "b.txt", "c.txt"] {
            std::fs::write(root.join(name), name).unwrap();
        }
        run(&["add", "-A"]);
        run(&["commit", "-qm", "base"]);
        assert_eq!(TreeSnapshot::take(root), TreeSnapshot::default());
        std::fs::write(root.join("a.txt"), "edited").unwrap();
        std::fs::remove_file(root.join("b.txt")).unwrap();
        run(&["mv", "c.txt", "d.txt"]);
        // Another repository inside: git lists its folder, which reads as no file.
        std::fs::create_dir(root.join("nested")).unwrap();
        Git::at(&root.join("nested"))
            .output(&["init", "-q"])
            .unwrap();
        std::fs::write(root.join("nested/x"), "x").unwrap();
        // A one-letter name: git's shortest line, `?? e`.
        std::fs::write(root.join("e"), "e").unwrap();
        let snapshot = TreeSnapshot::take(root);
        let kinds: Vec<(&str, &str)> = snapshot
            .files
            .iter()
            .map(|(path, digest)| {
                let kind = match digest.as_str() {
                    "deleted" | "unreadable" | "moved" => digest.as_str(),
                    _ => "content",
                };
                (path.as_str(), kind)
            })
            .collect();
        assert_eq!(
            kinds,
            [
                ("a.txt", "content"),
                ("b.txt", "deleted"),
                ("c.txt", "moved"),
                ("d.txt", "content"),
                ("e", "content"),
                ("nested/", "unreadable"),
            ]
        );
    }
}
