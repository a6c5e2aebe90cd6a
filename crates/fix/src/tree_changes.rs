//! What the fix changed since the baseline commit: `git diff` of tracked files plus untracked
//! files as added, without our own store and the backlog (the fix loop writes there itself).

use std::path::Path;

use self_repair_process::Git;

use crate::{ChangeKind, ChangedFile, FixError, parse_unified_diff};

/// Folders the fix loop writes itself; a change there is never the fixer's.
const OWN_FOLDERS: [&str; 2] = [":(exclude).self-repair", ":(exclude)backlog"];

/// Every file changed in the work tree of `root` since the commit `base`.
pub fn tree_changes(root: &Path, base: &str) -> Result<Vec<ChangedFile>, FixError> {
    let mut args = vec![
        "diff",
        "--no-color",
        "--no-renames",
        "--no-ext-diff",
        base,
        "--",
        ".",
    ];
    args.extend(OWN_FOLDERS);
    let diff = git(root, &args)?;
    let mut files = parse_unified_diff(&diff);
    let mut args = vec![
        "ls-files",
        "--others",
        "--exclude-standard",
        "-z",
        "--",
        ".",
    ];
    args.extend(OWN_FOLDERS);
    let untracked = git(root, &args)?;
    for path in untracked.split('\0').filter(|p| !p.is_empty()) {
        let text = std::fs::read(root.join(path))
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default();
        files.push(ChangedFile {
            path: path.to_owned(),
            kind: ChangeKind::Added,
            added: text.lines().map(str::to_owned).collect(),
            removed: Vec::new(),
        });
    }
    Ok(files)
}

fn git(root: &Path, args: &[&str]) -> Result<String, FixError> {
    let out = Git::at(root).output(args)?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}
