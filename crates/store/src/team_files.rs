//! The two files that tell git what of `.self-repair/` a team shares: `.gitignore` (runs and
//! everything else stay on each machine; config, rules, known and templates are committed)
//! and `.gitattributes` (the registries merge by union: one entry a line, so two branches'
//! additions both stay). `start` and `install` write each when it is absent; a file the team
//! already has is theirs and left alone.

use std::path::{Path, PathBuf};

use crate::{StoreError, write_atomic};

/// `.self-repair/.gitignore`: everything is ignored but what a team commits, so a file a later
/// version adds under `.self-repair/` stays local unless this list names it.
pub const GITIGNORE: &str = "\
# Written by self-repair (README.md, \"Team and CI\"). A team commits config.json, known.json,
# rules.json and templates/; runs/, active, detect/ and the rest stay on each machine.
*
!.gitignore
!.gitattributes
!config.json
!known.json
!rules.json
!templates/
!templates/**
";

/// `.self-repair/.gitattributes`: git's union merge keeps the lines of both sides where two
/// branches added entries next to each other. `self-repair install` registers the
/// `self-repair-known` merge driver in `.git/info/attributes`, which wins over this file and
/// also settles one finding decided differently on two branches.
pub const GITATTRIBUTES: &str = "\
# Written by self-repair (reference/state-file.md, \"The registry in git\"): one entry a line,
# so a union merge keeps both branches' entries; `self-repair install` adds a merge driver.
known.json merge=union
rules.json merge=union
";

/// The team files of the store at `store_dir`.
pub struct TeamFiles;

impl TeamFiles {
    /// Writes `.gitignore` and `.gitattributes` into `store_dir` where absent (creating the
    /// folder); returns the paths written.
    pub fn ensure(store_dir: &Path) -> Result<Vec<PathBuf>, StoreError> {
        std::fs::create_dir_all(store_dir).map_err(StoreError::io("create", store_dir))?;
        let mut written = Vec::new();
        for (name, text) in [(".gitignore", GITIGNORE), (".gitattributes", GITATTRIBUTES)] {
            let path = store_dir.join(name);
            if path.exists() {
                continue;
            }
            write_atomic(&path, text.as_bytes())?;
            written.push(path);
        }
        Ok(written)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn team_files_are_written_once_and_a_teams_own_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join(".self-repair");
        std::fs::create_dir_all(&store).unwrap();
        std::fs::write(store.join(".gitignore"), "runs/\n").unwrap();
        let written = TeamFiles::ensure(&store).unwrap();
        assert_eq!(written, [store.join(".gitattributes")]);
        assert_eq!(
            std::fs::read_to_string(store.join(".gitignore")).unwrap(),
            "runs/\n"
        );
        assert!(TeamFiles::ensure(&store).unwrap().is_empty());
    }

    /// What git itself makes of the `.gitignore`: the shared files are tracked, runs are not.
    #[test]
    fn git_tracks_config_rules_known_and_templates_and_ignores_runs() {
        let dir = tempfile::tempdir().unwrap();
        let git = |args: &[&str]| self_repair_test_support::git(dir.path(), args);
        git(&["init", "-q"]);
        let store = dir.path().join(".self-repair");
        TeamFiles::ensure(&store).unwrap();
        for file in [
            "config.json",
            "known.json",
            "rules.json",
            "templates/triage-generic.md",
            "active",
            "runs/r-1/state.json",
            "detect/ruff.out",
        ] {
            let path = store.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "x").unwrap();
        }
        let untracked = git(&["ls-files", "--others", "--exclude-standard"]);
        let mut listed: Vec<&str> = untracked.lines().collect();
        listed.sort_unstable();
        assert_eq!(
            listed,
            [
                ".self-repair/.gitattributes",
                ".self-repair/.gitignore",
                ".self-repair/config.json",
                ".self-repair/known.json",
                ".self-repair/rules.json",
                ".self-repair/templates/triage-generic.md",
            ]
        );
    }
}
