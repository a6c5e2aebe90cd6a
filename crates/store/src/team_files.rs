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
# rules.json, audit.jsonl and templates/; runs/, active, detect/ and the rest stay on each machine.
*
!.gitignore
!.gitattributes
!config.json
!known.json
!rules.json
!audit.jsonl
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
audit.jsonl merge=union
";

/// The team files of the store at `store_dir`.
pub struct TeamFiles;

/// What `uninstall` finds of the team files in a store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TeamFilesLeft {
    /// Neither file is there.
    Absent,
    /// Each as self-repair writes it, in a folder that holds nothing else: `uninstall` takes
    /// them (and the folder).
    Unused(Vec<PathBuf>),
    /// They stay: `reason` says why (edited, or the store holds what they are about).
    Kept { files: Vec<PathBuf>, reason: String },
}

impl TeamFilesLeft {
    /// The files, whatever becomes of them.
    pub fn files(&self) -> &[PathBuf] {
        match self {
            TeamFilesLeft::Absent => &[],
            TeamFilesLeft::Unused(files) | TeamFilesLeft::Kept { files, .. } => files,
        }
    }
}

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

    /// Whether the team files of `store_dir` may go with an uninstall: only when each is byte
    /// for byte what self-repair writes and the folder holds nothing else but `going` (the
    /// install's own record). `start` and `known baseline` write them too, and a team commits
    /// them with the registries, so a store in use keeps them.
    pub fn left_behind(store_dir: &Path, going: &[&str]) -> Result<TeamFilesLeft, StoreError> {
        let mut files = Vec::new();
        let mut edited = Vec::new();
        for (name, text) in [(".gitignore", GITIGNORE), (".gitattributes", GITATTRIBUTES)] {
            let path = store_dir.join(name);
            match std::fs::read(&path) {
                Ok(bytes) => {
                    if bytes != text.as_bytes() {
                        edited.push(name);
                    }
                    files.push(path);
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(StoreError::io("read", &path)(e)),
            }
        }
        if files.is_empty() {
            return Ok(TeamFilesLeft::Absent);
        }
        if !edited.is_empty() {
            return Ok(TeamFilesLeft::Kept {
                files,
                reason: format!("{} edited since self-repair wrote it", edited.join(" and ")),
            });
        }
        let mut others: Vec<String> = std::fs::read_dir(store_dir)
            .map_err(StoreError::io("read", store_dir))?
            .filter_map(Result::ok)
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .filter(|name| {
                ![".gitignore", ".gitattributes"].contains(&name.as_str())
                    && !going.contains(&name.as_str())
            })
            .collect();
        if others.is_empty() {
            return Ok(TeamFilesLeft::Unused(files));
        }
        others.sort();
        Ok(TeamFilesLeft::Kept {
            files,
            reason: format!(
                ".self-repair/ also holds {}, whose sharing in git they decide (`start` writes \
                 them too)",
                others.join(", ")
            ),
        })
    }

    /// Removes `files` (what [`TeamFiles::left_behind`] found unused), then `store_dir` when
    /// that left it empty.
    pub fn remove(store_dir: &Path, files: &[PathBuf]) -> Result<(), StoreError> {
        for path in files {
            match std::fs::remove_file(path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(StoreError::io("remove", path)(e));
                }
                _ => {}
            }
        }
        let empty = std::fs::read_dir(store_dir).is_ok_and(|mut entries| entries.next().is_none());
        if empty {
            std::fs::remove_dir(store_dir).map_err(StoreError::io("remove", store_dir))?;
        }
        Ok(())
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

    #[test]
    fn team_files_go_only_unedited_and_alone_in_the_store() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join(".self-repair");
        TeamFiles::ensure(&store).unwrap();
        std::fs::write(store.join("install.json"), "{}").unwrap();
        let files = vec![store.join(".gitignore"), store.join(".gitattributes")];
        assert_eq!(
            TeamFiles::left_behind(&store, &["install.json"]).unwrap(),
            TeamFilesLeft::Unused(files.clone())
        );
        std::fs::create_dir_all(store.join("runs")).unwrap();
        std::fs::write(store.join("known.json"), "{}").unwrap();
        let TeamFilesLeft::Kept { reason, .. } =
            TeamFiles::left_behind(&store, &["install.json"]).unwrap()
        else {
            panic!("a store in use keeps them");
        };
        assert!(reason.contains("also holds known.json, runs"), "{reason}");
        std::fs::remove_dir(store.join("runs")).unwrap();
        std::fs::remove_file(store.join("known.json")).unwrap();
        std::fs::write(store.join(".gitignore"), "runs/\n").unwrap();
        let TeamFilesLeft::Kept { reason, .. } =
            TeamFiles::left_behind(&store, &["install.json"]).unwrap()
        else {
            panic!("an edited file stays");
        };
        assert!(reason.contains(".gitignore edited"), "{reason}");
        std::fs::write(store.join(".gitignore"), GITIGNORE).unwrap();
        std::fs::remove_file(store.join("install.json")).unwrap();
        TeamFiles::remove(&store, &files).unwrap();
        assert!(!store.exists());
        assert_eq!(
            TeamFiles::left_behind(&store, &[]).unwrap(),
            TeamFilesLeft::Absent
        );
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

    #[test]
    fn the_files_found_are_named_whatever_becomes_of_them() {
        let files = vec![PathBuf::from(".gitignore"), PathBuf::from(".gitattributes")];
        assert!(TeamFilesLeft::Absent.files().is_empty());
        assert_eq!(TeamFilesLeft::Unused(files.clone()).files(), files);
        let kept = TeamFilesLeft::Kept {
            files: files.clone(),
            reason: "edited".into(),
        };
        assert_eq!(kept.files(), files);
    }

    #[test]
    fn a_team_file_that_cannot_be_read_or_removed_is_an_error_not_an_absent_file() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join(".self-repair");
        // A folder where `.gitignore` should be: reading and removing it fail.
        std::fs::create_dir_all(store.join(".gitignore")).unwrap();
        assert!(TeamFiles::left_behind(&store, &[]).is_err());
        assert!(TeamFiles::remove(&store, &[store.join(".gitignore")]).is_err());
        assert!(store.join(".gitignore").is_dir());
        // A file already gone is no error; the store left empty goes too.
        std::fs::remove_dir(store.join(".gitignore")).unwrap();
        TeamFiles::remove(&store, &[store.join(".gitattributes")]).unwrap();
        assert!(!store.exists());
    }
}
