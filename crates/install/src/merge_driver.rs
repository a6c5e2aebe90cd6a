//! The `self-repair-known` git merge driver: `install` registers it in the project's repository
//! (this clone only: `.git/config` and `.git/info/attributes`, neither committed), so `git
//! merge` merges `known.json` and `rules.json` by key through `self-repair known merge-driver`
//! instead of by line. Clones without it still merge additions through the committed
//! `.self-repair/.gitattributes` (`merge=union`); the driver adds what a text merge cannot do:
//! one finding decided differently on two branches keeps the later decision, reported.

use std::path::{Path, PathBuf};

use self_repair_process::Git;

use crate::InstallError;

/// The driver's name in `merge.<name>.driver` and `merge=<name>`.
pub const MERGE_DRIVER: &str = "self-repair-known";

/// The first line of the block `install` adds to `.git/info/attributes`.
const BLOCK_START: &str =
    "# self-repair: merge the registries by key (`self-repair install`; `uninstall` removes this)";

/// What registering did in the repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeDriverRegistration {
    /// `.git/info/attributes` (the common one of every work tree of the repository).
    pub attributes: PathBuf,
    /// The command git runs: `self-repair known merge-driver %O %A %B %P`.
    pub command: String,
    /// False when both were already there.
    pub changed: bool,
}

/// The driver command for the binary `command` (`self-repair`, or an absolute path).
pub fn merge_driver_command(command: &str) -> String {
    let quoted = if command
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"/._-+".contains(&b))
    {
        command.to_owned()
    } else {
        format!("'{}'", command.replace('\'', "'\\''"))
    };
    format!("{quoted} known merge-driver %O %A %B %P")
}

#[expect(clippy::needless_pass_by_value, reason = "used with map_err")]
fn git_error(e: self_repair_process::GitError) -> InstallError {
    InstallError::MergeDriver(e.to_string())
}

/// The attribute lines for the store of the project at `root`, paths from the top of its work
/// tree.
fn attribute_block(prefix: &str) -> String {
    format!(
        "{BLOCK_START}\n{prefix}.self-repair/known.json merge={MERGE_DRIVER}\n{prefix}.self-repair/rules.json merge={MERGE_DRIVER}\n"
    )
}

/// Registers the driver for the project at `root`, running `command` (the binary). `None` when
/// `root` is not in a git work tree (nothing to register).
pub fn register_merge_driver(
    root: &Path,
    command: &str,
) -> Result<Option<MergeDriverRegistration>, InstallError> {
    let git = Git::at(root);
    let Some((attributes, prefix)) = repository_paths(root)? else {
        return Ok(None);
    };
    let driver = merge_driver_command(command);
    let key = format!("merge.{MERGE_DRIVER}.driver");
    let current = git
        .output_accepting(&["config", "--get", &key], &[0, 1])
        .map_err(git_error)?;
    let mut changed = false;
    if String::from_utf8_lossy(&current).trim() != driver {
        git.output(&["config", &key, &driver]).map_err(git_error)?;
        git.output(&[
            "config",
            &format!("merge.{MERGE_DRIVER}.name"),
            "self-repair registries (known.json, rules.json) merged by key",
        ])
        .map_err(git_error)?;
        changed = true;
    }
    let text = read_or_empty(&attributes)?;
    let block = attribute_block(&prefix);
    if !text.contains(&block) {
        let mut kept = without_block(&text);
        if !kept.is_empty() && !kept.ends_with('\n') {
            kept.push('\n');
        }
        kept.push_str(&block);
        write(&attributes, &kept)?;
        changed = true;
    }
    Ok(Some(MergeDriverRegistration {
        attributes,
        command: driver,
        changed,
    }))
}

/// Where the driver would be registered for the project at `root`: this clone's
/// `.git/info/attributes`, or `None` outside a git work tree (`install --dry-run`).
pub fn merge_driver_attributes(root: &Path) -> Result<Option<PathBuf>, InstallError> {
    Ok(repository_paths(root)?.map(|(attributes, _)| attributes))
}

/// True when this clone has the driver registered (`uninstall --dry-run`).
pub fn merge_driver_registered(root: &Path) -> bool {
    Git::at(root)
        .output_accepting(
            &["config", "--get", &format!("merge.{MERGE_DRIVER}.driver")],
            &[0, 1],
        )
        .is_ok_and(|out| !out.is_empty())
}

/// Removes what [`register_merge_driver`] added; true when anything was there.
pub fn unregister_merge_driver(root: &Path) -> Result<bool, InstallError> {
    let Some((attributes, _)) = repository_paths(root)? else {
        return Ok(false);
    };
    let git = Git::at(root);
    let key = format!("merge.{MERGE_DRIVER}.driver");
    let registered = !git
        .output_accepting(&["config", "--get", &key], &[0, 1])
        .map_err(git_error)?
        .is_empty();
    if registered {
        git.output(&[
            "config",
            "--remove-section",
            &format!("merge.{MERGE_DRIVER}"),
        ])
        .map_err(git_error)?;
    }
    let text = read_or_empty(&attributes)?;
    let kept = without_block(&text);
    let had_block = kept != text;
    if had_block {
        write(&attributes, &kept)?;
    }
    Ok(registered || had_block)
}

/// `.git/info/attributes` and the project's path from the top of the work tree (`""` or
/// `sub/`); `None` outside a work tree.
fn repository_paths(root: &Path) -> Result<Option<(PathBuf, String)>, InstallError> {
    let git = Git::at(root);
    let Ok(inside) = git.output(&["rev-parse", "--is-inside-work-tree"]) else {
        return Ok(None);
    };
    if String::from_utf8_lossy(&inside).trim() != "true" {
        return Ok(None);
    }
    let path = git
        .output(&["rev-parse", "--git-path", "info/attributes"])
        .map_err(git_error)?;
    let path = PathBuf::from(String::from_utf8_lossy(&path).trim());
    let attributes = if path.is_absolute() {
        path
    } else {
        root.join(path)
    };
    let prefix = git
        .output(&["rev-parse", "--show-prefix"])
        .map_err(git_error)?;
    Ok(Some((
        attributes,
        String::from_utf8_lossy(&prefix).trim().to_owned(),
    )))
}

/// `text` without a block this module wrote (its comment line and the attribute lines after
/// it).
fn without_block(text: &str) -> String {
    let mut kept = String::new();
    let mut in_block = false;
    for line in text.lines() {
        if line == BLOCK_START {
            in_block = true;
            continue;
        }
        if in_block && line.ends_with(&format!(" merge={MERGE_DRIVER}")) {
            continue;
        }
        in_block = false;
        kept.push_str(line);
        kept.push('\n');
    }
    kept
}

fn read_or_empty(path: &Path) -> Result<String, InstallError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(InstallError::MergeDriver(format!(
            "read {}: {e}",
            path.display()
        ))),
    }
}

fn write(path: &Path, text: &str) -> Result<(), InstallError> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| InstallError::MergeDriver(format!("create {}: {e}", dir.display())))?;
    }
    std::fs::write(path, text)
        .map_err(|e| InstallError::MergeDriver(format!("write {}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    use self_repair_test_support::git;

    #[test]
    fn the_driver_is_registered_once_for_a_subfolder_project_and_removed() {
        let repo = tempfile::tempdir().unwrap();
        git(repo.path(), &["init", "-q"]);
        std::fs::create_dir_all(repo.path().join(".git/info")).unwrap();
        std::fs::write(repo.path().join(".git/info/attributes"), "*.bin binary\n").unwrap();
        let project = repo.path().join("app");
        std::fs::create_dir_all(&project).unwrap();

        let first = register_merge_driver(&project, "/opt/my tools/self-repair")
            .unwrap()
            .unwrap();
        assert!(first.changed);
        assert_eq!(
            first.command,
            "'/opt/my tools/self-repair' known merge-driver %O %A %B %P"
        );
        let second = register_merge_driver(&project, "/opt/my tools/self-repair")
            .unwrap()
            .unwrap();
        assert!(!second.changed, "a second install changes nothing");
        let attributes = std::fs::read_to_string(repo.path().join(".git/info/attributes")).unwrap();
        assert_eq!(
            attributes,
            format!(
                "*.bin binary\n{BLOCK_START}\napp/.self-repair/known.json merge=self-repair-known\napp/.self-repair/rules.json merge=self-repair-known\n"
            )
        );
        // git itself resolves the attribute and the driver for the registry.
        let attr = git(
            &project,
            &["check-attr", "merge", "--", ".self-repair/known.json"],
        );
        assert_eq!(
            attr.trim(),
            ".self-repair/known.json: merge: self-repair-known"
        );
        assert_eq!(
            git(&project, &["config", "merge.self-repair-known.driver"]).trim(),
            first.command
        );

        assert!(unregister_merge_driver(&project).unwrap());
        assert_eq!(
            std::fs::read_to_string(repo.path().join(".git/info/attributes")).unwrap(),
            "*.bin binary\n"
        );
        assert!(!unregister_merge_driver(&project).unwrap());
    }

    #[test]
    fn a_plain_command_is_left_bare_and_any_other_quoted_for_the_shell() {
        for (command, shown) in [
            ("self-repair", "self-repair"),
            (
                "/usr/local/bin/self-repair_2.0+x",
                "/usr/local/bin/self-repair_2.0+x",
            ),
            ("/opt/my tools/self-repair", "'/opt/my tools/self-repair'"),
            ("/opt/it's/self-repair", "'/opt/it'\\''s/self-repair'"),
        ] {
            assert_eq!(
                merge_driver_command(command),
                format!("{shown} known merge-driver %O %A %B %P")
            );
        }
    }

    #[test]
    fn registered_is_read_from_git_and_either_half_left_is_removed() {
        let repo = tempfile::tempdir().unwrap();
        git(repo.path(), &["init", "-q"]);
        std::fs::create_dir_all(repo.path().join(".git/info")).unwrap();
        let attributes = repo.path().join(".git/info/attributes");
        // A last line without its newline gets one before the block.
        std::fs::write(&attributes, "*.bin binary").unwrap();
        assert!(!merge_driver_registered(repo.path()));

        let registration = register_merge_driver(repo.path(), "self-repair")
            .unwrap()
            .unwrap();
        assert_eq!(
            merge_driver_attributes(repo.path()).unwrap(),
            Some(registration.attributes.clone())
        );
        assert!(registration.attributes.ends_with(".git/info/attributes"));
        assert!(merge_driver_registered(repo.path()));
        assert_eq!(
            std::fs::read_to_string(&attributes).unwrap(),
            format!("*.bin binary\n{}", attribute_block(""))
        );

        // The driver's config without its attributes: still something to remove.
        std::fs::write(&attributes, "*.bin binary\n").unwrap();
        assert!(unregister_merge_driver(repo.path()).unwrap());
        assert!(!merge_driver_registered(repo.path()));

        // The attributes without the driver's config: the same. Only the block goes, not the
        // lines after it, even one of the user's naming the driver.
        let after = "*.png binary\nmine.json merge=self-repair-known\n";
        std::fs::write(&attributes, format!("{}{after}", attribute_block(""))).unwrap();
        assert!(unregister_merge_driver(repo.path()).unwrap());
        assert_eq!(std::fs::read_to_string(&attributes).unwrap(), after);
        assert!(!unregister_merge_driver(repo.path()).unwrap());
    }

    #[test]
    fn a_missing_attributes_file_is_created_and_an_unreadable_one_refused() {
        let repo = tempfile::tempdir().unwrap();
        git(repo.path(), &["init", "-q"]);
        let attributes = repo.path().join(".git/info/attributes");
        std::fs::remove_file(&attributes).ok();
        register_merge_driver(repo.path(), "self-repair")
            .unwrap()
            .unwrap();
        assert_eq!(
            std::fs::read_to_string(&attributes).unwrap(),
            attribute_block("")
        );

        std::fs::remove_file(&attributes).unwrap();
        std::fs::create_dir(&attributes).unwrap();
        match register_merge_driver(repo.path(), "self-repair") {
            Err(InstallError::MergeDriver(message)) => {
                assert!(message.starts_with("read "), "{message}");
            }
            other => panic!("a folder read as attributes: {other:?}"),
        }
    }

    #[test]
    fn outside_git_there_is_nothing_to_register() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            register_merge_driver(dir.path(), "self-repair").unwrap(),
            None
        );
        assert_eq!(merge_driver_attributes(dir.path()).unwrap(), None);
        assert!(!merge_driver_registered(dir.path()));
        assert!(!unregister_merge_driver(dir.path()).unwrap());
    }
}
