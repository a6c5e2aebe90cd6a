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

#[cfg(test)]
mod tests {
    use super::*;

    /// In a git checkout the files are git's list: tracked and untracked ones, not those
    /// `.gitignore` leaves out. Outside git the walk leaves them out too, and hidden files.
    #[test]
    fn git_lists_the_project_s_files_and_the_walk_leaves_out_the_same_ignored_ones() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(root.join("build")).unwrap();
        std::fs::write(root.join("src/x.py"), "x = 1\n").unwrap();
        std::fs::write(root.join("build/out.py"), "y = 2\n").unwrap();
        std::fs::write(root.join(".gitignore"), "build/\n").unwrap();
        let set =
            |paths: &[&str]| -> HashSet<String> { paths.iter().map(|p| (*p).to_owned()).collect() };
        assert_eq!(walked_files(root), set(&["src/x.py"]));
        Git::at(root).output(&["init", "-q"]).unwrap();
        let listed = set(&[".gitignore", "src/x.py"]);
        assert_eq!(git_files(root), Some(listed.clone()));
        assert_eq!(project_files(root), listed);
    }
}
