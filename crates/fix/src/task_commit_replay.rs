//! A fixed task's commit replayed alone onto the branch its pull request goes into: `fix
//! --commit` makes one commit per task on top of the ones before, so a task's branch gets that
//! commit's change (its task file left out) applied in a scratch work tree at the base, never in
//! the user's own tree.

use std::path::Path;
use std::time::Duration;

use self_repair_process::Git;

use crate::FixError;

/// Each git step of the replay gets this long (they are local: a worktree, an apply, a commit).
const STEP_TIMEOUT: Duration = Duration::from_mins(2);

/// Makes a commit on `onto` holding the change of `commit` (its author and message) without
/// `task_file`, in a scratch work tree at `scratch` (created, then removed); returns its id.
/// `root` is the project's work tree, which is left as it is.
pub fn replay_task_commit(
    root: &Path,
    onto: &str,
    commit: &str,
    task_file: &str,
    scratch: &Path,
) -> Result<String, FixError> {
    let git = Git::at(root).within(STEP_TIMEOUT);
    let full = git.text(&["rev-parse", "--verify", &format!("{commit}^{{commit}}")])?;
    let exclude = format!(":(exclude,literal){task_file}");
    let parent = format!("{full}^");
    let diff = git.output(&[
        "diff",
        "--binary",
        "--full-index",
        &parent,
        &full,
        "--",
        ".",
        &exclude,
    ])?;
    if diff.is_empty() {
        return Err(FixError::Usage(format!(
            "commit {commit} changes nothing but the task file {task_file}: there is no change to propose"
        )));
    }
    std::fs::create_dir_all(scratch).map_err(|e| scratch_error(scratch, &e))?;
    let patch = scratch.join("task.patch");
    std::fs::write(&patch, &diff).map_err(|e| scratch_error(&patch, &e))?;
    let tree = scratch.join("tree");
    let tree_text = tree.display().to_string();
    // A tree left by an earlier run that was killed half-way.
    let _ = git.output(&["worktree", "remove", "--force", &tree_text]);
    git.output(&["worktree", "add", "--quiet", "--detach", &tree_text, onto])?;
    let made = commit_in(&tree, &patch, &full, commit, onto);
    let removed = git.output(&["worktree", "remove", "--force", &tree_text]);
    let _ = std::fs::remove_dir_all(scratch);
    let made = made?;
    removed?;
    Ok(made)
}

/// In the scratch tree at `onto`: the patch applied (three-way, so nearby changes of the base
/// merge), committed with the task commit's author and message.
fn commit_in(
    tree: &Path,
    patch: &Path,
    full: &str,
    commit: &str,
    onto: &str,
) -> Result<String, FixError> {
    let git = Git::at(tree).within(STEP_TIMEOUT);
    let patch_text = patch.display().to_string();
    git.output(&["apply", "--3way", "--whitespace=nowarn", &patch_text])
        .map_err(|e| {
            FixError::Usage(format!(
                "the change of commit {commit} does not apply onto {onto} ({e}): an earlier task changed the same lines; merge that task's pull request first, or rebase {commit} by hand"
            ))
        })?;
    git.output(&["commit", "--quiet", "--no-verify", "-C", full])?;
    Ok(git.text(&["rev-parse", "HEAD"])?)
}

fn scratch_error(path: &Path, e: &std::io::Error) -> FixError {
    FixError::Usage(format!(
        "cannot write {}: {e}; set TMPDIR to a writable folder",
        path.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str]) -> String {
        Git::at(dir).text(args).unwrap()
    }

    /// A repository with a base commit, then two task commits on top, each changing its own
    /// file and its task file.
    fn repository() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        git(root, &["init", "-q"]);
        git(root, &["config", "user.name", "t"]);
        git(root, &["config", "user.email", "t@localhost"]);
        std::fs::write(root.join("a.py"), "import os\nx = 1\n").unwrap();
        std::fs::write(root.join("b.py"), "y = None == 1\n").unwrap();
        std::fs::create_dir_all(root.join("backlog/tasks")).unwrap();
        std::fs::write(root.join("backlog/tasks/task-1 - A.md"), "To Do\n").unwrap();
        std::fs::write(root.join("backlog/tasks/task-2 - B.md"), "To Do\n").unwrap();
        git(root, &["add", "-A"]);
        git(root, &["commit", "-qm", "start"]);
        git(root, &["tag", "base"]);
        std::fs::write(root.join("a.py"), "x = 1\n").unwrap();
        std::fs::write(root.join("backlog/tasks/task-1 - A.md"), "Done\n").unwrap();
        git(root, &["commit", "-qam", "fix: TASK-1 A"]);
        std::fs::write(root.join("b.py"), "y = 1 is None\n").unwrap();
        std::fs::write(root.join("backlog/tasks/task-2 - B.md"), "Done\n").unwrap();
        git(root, &["commit", "-qam", "fix: TASK-2 B"]);
        dir
    }

    #[test]
    fn a_later_task_s_commit_lands_alone_on_the_base_without_its_task_file() {
        let dir = repository();
        let root = dir.path();
        let scratch = tempfile::tempdir().unwrap();
        let head = git(root, &["rev-parse", "HEAD"]);
        let made = replay_task_commit(
            root,
            "base",
            "HEAD",
            "backlog/tasks/task-2 - B.md",
            &scratch.path().join("s"),
        )
        .unwrap();
        assert_eq!(
            git(root, &["rev-parse", &format!("{made}^")]),
            git(root, &["rev-parse", "base"])
        );
        assert_eq!(
            git(root, &["diff", "--name-only", "base", &made]),
            "b.py",
            "only the task's code change"
        );
        assert_eq!(
            git(root, &["log", "-1", "--format=%s", &made]),
            "fix: TASK-2 B"
        );
        // The user's tree and branch are as they were; no worktree is left behind.
        assert_eq!(git(root, &["rev-parse", "HEAD"]), head);
        assert_eq!(git(root, &["status", "--porcelain"]), "");
        assert_eq!(git(root, &["worktree", "list"]).lines().count(), 1);
    }

    #[test]
    fn a_change_that_does_not_apply_onto_the_base_says_what_to_do() {
        let dir = repository();
        let root = dir.path();
        // The base moved: a.py's lines are not there any more.
        git(root, &["checkout", "-q", "-b", "other", "base"]);
        std::fs::write(root.join("a.py"), "import sys\nz = 2\n").unwrap();
        git(root, &["commit", "-qam", "elsewhere"]);
        let scratch = tempfile::tempdir().unwrap();
        let first = git(root, &["log", "--all", "--format=%H", "--grep=TASK-1"]);
        let err = replay_task_commit(
            root,
            "other",
            &first,
            "backlog/tasks/task-1 - A.md",
            &scratch.path().join("s"),
        );
        let message = err.unwrap_err().to_string();
        assert!(message.contains("does not apply onto other"), "{message}");
        assert_eq!(git(root, &["worktree", "list"]).lines().count(), 1);
    }
}
