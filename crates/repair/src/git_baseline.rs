//! Git safety: what the tree was at the start (a `git stash create` commit, or `HEAD` when
//! clean), so the user can restore it, and the combined diff since. Nothing here resets,
//! stashes or checks out the user's work.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::tree_snapshot::git;

/// Git's empty tree, for a repository without commits.
const EMPTY_TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
/// Most untracked files shown in the combined diff.
const UNTRACKED_LIMIT: usize = 200;

/// The tree at the start of the run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GitBaseline {
    /// Whether the project is in a git work tree.
    pub repo: bool,
    pub head: Option<String>,
    /// `git stash create` of the uncommitted changes at the start (not on the stash list).
    pub stash: Option<String>,
}

impl GitBaseline {
    /// Records the baseline of the project at `root`.
    pub fn record(root: &Path) -> GitBaseline {
        if git(root, &["rev-parse", "--is-inside-work-tree"]).is_none() {
            return GitBaseline::default();
        }
        let text = |bytes: Vec<u8>| {
            let s = String::from_utf8_lossy(&bytes).trim().to_owned();
            (!s.is_empty()).then_some(s)
        };
        let head = git(root, &["rev-parse", "--verify", "HEAD"]).and_then(text);
        let stash = git(root, &["stash", "create"])
            .or_else(|| {
                git(
                    root,
                    &[
                        "-c",
                        "user.name=self-repair",
                        "-c",
                        "user.email=self-repair@localhost",
                        "stash",
                        "create",
                    ],
                )
            })
            .and_then(text);
        GitBaseline {
            repo: true,
            head,
            stash,
        }
    }

    /// The commit the combined diff is taken against.
    pub fn base(&self) -> Option<&str> {
        self.stash.as_deref().or(self.head.as_deref())
    }

    /// How to get the starting tree back, for the report.
    pub fn restore_hint(&self) -> String {
        match (&self.stash, &self.head) {
            (Some(stash), _) => format!(
                "Your uncommitted work at the start is saved as commit {stash} (not on the stash list): `git stash apply {stash}` restores it onto a clean tree."
            ),
            (None, Some(head)) => format!(
                "The tree was clean at the start, at {head}: `git diff {head}` shows every change made since."
            ),
            (None, None) if self.repo => {
                "The repository had no commit at the start; `git status` shows what changed."
                    .to_owned()
            }
            (None, None) => {
                "The project is not a git work tree; self-repair cannot show or restore the starting state."
                    .to_owned()
            }
        }
    }

    /// Every change since the start (tracked files against the base, then untracked files as
    /// new), excluding `.self-repair/` and the project-relative files of `exclude` (never the
    /// repair's: a triage run's findings files). Empty when not a git work tree.
    pub fn combined_diff(&self, root: &Path, exclude: &[String]) -> String {
        if !self.repo {
            return String::new();
        }
        let base = self.base().unwrap_or(EMPTY_TREE);
        let left_out: Vec<String> = std::iter::once(":(exclude).self-repair".to_owned())
            .chain(
                exclude
                    .iter()
                    .map(|path| format!(":(exclude,literal){path}")),
            )
            .collect();
        let with = |args: &[&str]| -> Vec<String> {
            args.iter()
                .map(|a| (*a).to_owned())
                .chain(left_out.iter().cloned())
                .collect()
        };
        let diff_args = with(&["diff", "--binary", base, "--", "."]);
        let diff_args: Vec<&str> = diff_args.iter().map(String::as_str).collect();
        let mut diff = git(root, &diff_args)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default();
        let list_args = with(&[
            "ls-files",
            "--others",
            "--exclude-standard",
            "-z",
            "--",
            ".",
        ]);
        let list_args: Vec<&str> = list_args.iter().map(String::as_str).collect();
        let untracked = git(root, &list_args).unwrap_or_default();
        for path in untracked
            .split(|&b| b == 0)
            .filter(|p| !p.is_empty())
            .take(UNTRACKED_LIMIT)
        {
            let path = String::from_utf8_lossy(path).into_owned();
            // `git diff --no-index` exits 1 when the files differ, so read its output directly.
            if let Ok(out) = self_repair_process::Git::at(root).output_accepting(
                &["diff", "--no-index", "--binary", "--", "/dev/null", &path],
                &[0, 1],
            ) {
                diff.push_str(&String::from_utf8_lossy(&out));
            }
        }
        diff
    }
}
