//! What a fix changed since its baseline commit: tracked changes and new files, without the
//! folders the fix loop writes itself.

use std::path::Path;

use self_repair_fix::{ChangeKind, ChangedFile, FixError, tree_changes};
use self_repair_process::Git;

fn git(dir: &Path, args: &[&str]) -> String {
    Git::at(dir).text(args).unwrap()
}

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn changed(path: &str, kind: ChangeKind, added: &[&str], removed: &[&str]) -> ChangedFile {
    ChangedFile {
        path: path.to_owned(),
        kind,
        added: added.iter().map(|l| (*l).to_owned()).collect(),
        removed: removed.iter().map(|l| (*l).to_owned()).collect(),
    }
}

#[test]
fn the_changes_are_the_tracked_diff_and_new_files_outside_the_store_and_backlog() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q"]);
    git(root, &["config", "user.name", "t"]);
    git(root, &["config", "user.email", "t@localhost"]);
    write(root, "a.py", "import os\nx = 1\n");
    write(root, "b.py", "y = 2\n");
    write(root, "backlog/tasks/task-1.md", "To Do\n");
    write(root, ".self-repair/config.json", "{}\n");
    write(root, ".gitignore", "*.log\n");
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "base"]);
    let base = git(root, &["rev-parse", "HEAD"]);
    let base = base.trim();
    assert_eq!(tree_changes(root, base).unwrap(), []);

    write(root, "a.py", "x = 1\n");
    std::fs::remove_file(root.join("b.py")).unwrap();
    write(root, "pkg/c.py", "import a\nprint(a.x)\n");
    write(root, "pkg/empty.py", "");
    write(root, "backlog/tasks/task-1.md", "Done\n");
    write(root, "backlog/tasks/task-2.md", "To Do\n");
    write(root, ".self-repair/config.json", "{\"x\": 1}\n");
    write(root, ".self-repair/runs/r1/state.json", "{}\n");
    write(root, "run.log", "ignored\n");
    assert_eq!(
        tree_changes(root, base).unwrap(),
        [
            changed("a.py", ChangeKind::Modified, &[], &["import os"]),
            changed("b.py", ChangeKind::Deleted, &[], &["y = 2"]),
            changed(
                "pkg/c.py",
                ChangeKind::Added,
                &["import a", "print(a.x)"],
                &[]
            ),
            changed("pkg/empty.py", ChangeKind::Added, &[], &[]),
        ]
    );
    assert!(matches!(
        tree_changes(root, "no-such-commit"),
        Err(FixError::Git(_))
    ));
}
