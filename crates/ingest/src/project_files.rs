//! The files of the project, to recognise paths an analyzer wrote on another machine: git's
//! list (tracked and untracked, ignored files left out), or a walk honouring `.gitignore`
//! outside git.

use std::collections::HashSet;
use std::path::Path;

use self_repair_process::Git;

/// Most files the walk collects outside git: enough for any project an agent triages, bounded
/// for a home directory given by mistake.
const WALK_LIMIT: usize = 500_000;

/// Project-relative `/` paths of the project's files.
pub(crate) fn project_files(root: &Path) -> HashSet<String> {
    git_files(root).unwrap_or_else(|| walked_files(root))
}

fn git_files(root: &Path) -> Option<HashSet<String>> {
    let listed = Git::at(root)
        .output(&[
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .ok()?;
    Some(
        listed
            .split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .collect(),
    )
}

fn walked_files(root: &Path) -> HashSet<String> {
    ignore::WalkBuilder::new(root)
        .require_git(false)
        .build()
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_some_and(|t| t.is_file()))
        .filter_map(|entry| {
            let relative = entry.path().strip_prefix(root).ok()?;
            Some(relative.to_string_lossy().replace('\\', "/"))
        })
        .take(WALK_LIMIT)
        .collect()
}
