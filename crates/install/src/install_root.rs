//! Where an install's relative paths land: under the project root or the home, with `.claude/`
//! of a user install in Claude Code's config directory (`CLAUDE_CONFIG_DIR`) when that is set.

use std::path::{Path, PathBuf};

/// The folder Claude Code's files go in, as install plans and manifests spell it.
const CLAUDE_DIR: &str = ".claude";

/// The place an install writes to. Plans and manifests name files by logical relative paths
/// (`.claude/settings.json`, `.self-repair/install.json`); [`InstallRoot::resolve`] maps them
/// onto the disk and [`InstallRoot::display`] names them for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallRoot {
    /// The project root, or the home.
    root: PathBuf,
    /// Where `.claude/...` goes: `<root>/.claude`, or `CLAUDE_CONFIG_DIR` for a user install.
    claude_dir: PathBuf,
    /// How `.claude` is shown: `.claude` (a project), `~/.claude`, or the config directory.
    claude_display: String,
}

impl InstallRoot {
    /// A project install: every path under `root`, shown relative to it.
    pub fn project(root: impl Into<PathBuf>) -> InstallRoot {
        let root = root.into();
        InstallRoot {
            claude_dir: root.join(CLAUDE_DIR),
            claude_display: CLAUDE_DIR.to_owned(),
            root,
        }
    }

    /// A user install in `home`: `.claude/...` goes into `config_dir` when it is given and is not
    /// `~/.claude` itself (Claude Code reads the user's settings, agents and skills from
    /// `$CLAUDE_CONFIG_DIR` when it is set, else from `~/.claude`). A relative `config_dir` must
    /// already be resolved against the working directory.
    pub fn user(home: &Path, config_dir: Option<&Path>) -> InstallRoot {
        let home_claude = home.join(CLAUDE_DIR);
        match config_dir.filter(|dir| !same_dir(dir, &home_claude)) {
            Some(dir) => InstallRoot {
                root: home.to_path_buf(),
                claude_dir: dir.to_path_buf(),
                claude_display: dir.display().to_string(),
            },
            None => InstallRoot {
                root: home.to_path_buf(),
                claude_dir: home_claude,
                claude_display: format!("~/{CLAUDE_DIR}"),
            },
        }
    }

    /// The project root or the home.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where `.claude/...` lands: `<root>/.claude` or the config directory.
    pub fn claude_dir(&self) -> &Path {
        &self.claude_dir
    }

    /// True when `.claude/...` lands somewhere else than `<root>/.claude` (`CLAUDE_CONFIG_DIR`).
    pub fn claude_dir_moved(&self) -> bool {
        self.claude_dir != self.root.join(CLAUDE_DIR)
    }

    /// The file or folder at `rel` (`/`-separated, relative): `.claude` and `.claude/<rest>`
    /// under [`InstallRoot::claude_dir`], anything else under the root.
    pub fn resolve(&self, rel: &str) -> PathBuf {
        match claude_rest(rel) {
            Some("") => self.claude_dir.clone(),
            Some(rest) => self.claude_dir.join(rest),
            None => self.root.join(rel),
        }
    }

    /// `rel` as messages name it: relative to a project root, `~/.claude/<rest>` in the home, or
    /// the full path in the config directory.
    pub fn display(&self, rel: &str) -> String {
        match claude_rest(rel) {
            Some("") => self.claude_display.clone(),
            Some(rest) => format!("{}/{rest}", self.claude_display),
            None if self.claude_display == CLAUDE_DIR => rel.to_owned(),
            None => self.root.join(rel).display().to_string(),
        }
    }
}

/// What follows `.claude` in `rel` (`""` for `.claude` itself), or `None` when `rel` is not in it.
fn claude_rest(rel: &str) -> Option<&str> {
    let rest = rel.strip_prefix(CLAUDE_DIR)?;
    if rest.is_empty() {
        return Some("");
    }
    rest.strip_prefix('/')
}

/// Whether `a` and `b` name the same folder (through links), or the same path when either is
/// missing.
fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_project_keeps_every_path_under_its_root_and_shows_it_relative() {
        let root = InstallRoot::project("/p");
        assert_eq!(
            root.resolve(".claude/settings.json"),
            Path::new("/p/.claude/settings.json")
        );
        assert_eq!(
            root.resolve(".self-repair/install.json"),
            Path::new("/p/.self-repair/install.json")
        );
        assert_eq!(
            root.display(".claude/settings.json"),
            ".claude/settings.json"
        );
        assert_eq!(
            root.display(".self-repair/install.json"),
            ".self-repair/install.json"
        );
        assert!(!root.claude_dir_moved());
    }

    #[test]
    fn a_user_install_without_config_dir_goes_to_home_claude_shown_with_a_tilde() {
        let root = InstallRoot::user(Path::new("/h"), None);
        assert_eq!(
            root.resolve(".claude/agents/a.md"),
            Path::new("/h/.claude/agents/a.md")
        );
        assert_eq!(root.resolve(".claude"), Path::new("/h/.claude"));
        assert_eq!(
            root.display(".claude/settings.json"),
            "~/.claude/settings.json"
        );
        assert!(!root.claude_dir_moved());
    }

    #[test]
    fn a_user_install_with_config_dir_maps_only_the_claude_folder_onto_it() {
        let root = InstallRoot::user(Path::new("/h"), Some(Path::new("/cfg")));
        assert_eq!(
            root.resolve(".claude/settings.json"),
            Path::new("/cfg/settings.json")
        );
        assert_eq!(root.resolve(".claude"), Path::new("/cfg"));
        // Not a prefix match on the name: `.claude-plugin` is not in `.claude`.
        assert_eq!(
            root.resolve(".claude-plugin/plugin.json"),
            Path::new("/h/.claude-plugin/plugin.json")
        );
        assert_eq!(root.display(".claude/settings.json"), "/cfg/settings.json");
        assert!(root.claude_dir_moved());
    }

    #[test]
    fn a_config_dir_that_is_home_claude_through_a_link_is_home_claude() {
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir(home.path().join(".claude")).unwrap();
        let link = home.path().join("config");
        std::os::unix::fs::symlink(home.path().join(".claude"), &link).unwrap();
        let root = InstallRoot::user(home.path(), Some(&link));
        assert!(!root.claude_dir_moved());
        assert_eq!(
            root.display(".claude/settings.json"),
            "~/.claude/settings.json"
        );
    }
}
