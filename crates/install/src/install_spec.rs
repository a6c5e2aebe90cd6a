//! What the caller asks `install` to do.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::scope::Scope;

/// The request behind `self-repair install`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallSpec {
    /// Absolute path of the running `self-repair` binary; the hooks run it directly.
    pub binary: PathBuf,
    /// Project or user install.
    pub scope: Scope,
    /// Whether `self-repair` typed in a shell resolves to `binary`. Sub-agents call it by name;
    /// when false, permission rules for the absolute path are added too and the plan warns.
    /// Compute it with [`binary_resolves_from_path`].
    pub binary_on_path: bool,
}

/// True when some directory of `path_var` (the `PATH` value) holds a `self-repair` that is the
/// same file as `binary`.
pub fn binary_resolves_from_path(binary: &Path, path_var: Option<&OsStr>) -> bool {
    let Some(path_var) = path_var else {
        return false;
    };
    let Ok(wanted) = binary.canonicalize() else {
        return false;
    };
    let file_name = binary
        .file_name()
        .unwrap_or_else(|| OsStr::new("self-repair"));
    std::env::split_paths(path_var)
        .map(|dir| dir.join(file_name))
        .find(|candidate| candidate.is_file())
        .and_then(|found| found.canonicalize().ok())
        .is_some_and(|found| found == wanted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_on_path_only_when_first_match_is_the_same_file() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let bin_a = a.path().join("self-repair");
        let bin_b = b.path().join("self-repair");
        std::fs::write(&bin_a, "a").unwrap();
        std::fs::write(&bin_b, "b").unwrap();
        let path = std::env::join_paths([a.path(), b.path()]).unwrap();
        assert!(binary_resolves_from_path(&bin_a, Some(&path)));
        // Shadowed by the copy in `a`.
        assert!(!binary_resolves_from_path(&bin_b, Some(&path)));
        assert!(!binary_resolves_from_path(&bin_a, None));
    }
}
