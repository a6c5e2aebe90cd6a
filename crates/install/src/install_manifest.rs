//! The record of what `install` added, so `uninstall` removes exactly that.

use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::file_read::read_optional;
use crate::install_error::InstallError;
use crate::install_root::InstallRoot;
use crate::scope::Scope;

/// Version of the manifest format written by this crate.
pub const MANIFEST_SCHEMA_VERSION: u32 = 1;

/// `install.json`: what install added. Paths are relative to the project root or home,
/// `/`-separated; a user install's `.claude/...` stands for the folder its manifest is in
/// (`~/.claude` or `CLAUDE_CONFIG_DIR`, [`InstallRoot`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstallManifest {
    /// Always [`MANIFEST_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// Project or user install.
    pub scope: Scope,
    /// The command the hooks run: `self-repair` (from PATH) or the binary's absolute path.
    pub binary: String,
    /// What happened to the settings file.
    pub settings: SettingsRecord,
    /// Bundle files install copied (or found already identical).
    pub files: Vec<FileRecord>,
    /// Directories install created, so uninstall removes them when they are empty again.
    pub created_dirs: Vec<String>,
}

/// What install did to the settings file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SettingsRecord {
    /// The settings file, relative.
    pub path: String,
    /// The file before the first install, when it can still be restored byte-for-byte.
    pub original: OriginalSettings,
    /// SHA-256 (hex) of the text install last wrote (or found, when nothing needed writing).
    /// If the file still hashes to this, uninstall restores `original` exactly.
    pub written_sha256: String,
    /// Hooks install added or pointed at `binary`.
    pub hooks: Vec<HookRecord>,
    /// `permissions.allow` rules install added (rules the user already had are not listed).
    pub permissions: Vec<String>,
    /// Dotted keys install created (`hooks`, `hooks.Stop`, `permissions.allow`), removed again
    /// by a structural uninstall when they end up empty.
    pub created_keys: Vec<String>,
    /// The `statusLine` install wrote and the one it replaced (absent in manifests written
    /// before install set it, and when it left the user's alone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_line: Option<crate::status_line::StatusLineRecord>,
}

/// The settings file before the first install.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum OriginalSettings {
    /// There was no file: install created it.
    Absent,
    /// The exact original text.
    Text {
        /// The original bytes (settings files are UTF-8 JSON).
        text: String,
    },
    /// The user edited the file between two installs: only a structural removal is possible.
    Unknown,
}

/// One hook install registered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookRecord {
    /// Claude Code event (`Stop`, ...).
    pub event: String,
    /// Exec-form args (`["hook", "stop"]`).
    pub args: Vec<String>,
}

/// One bundle file in `.claude/`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRecord {
    /// Relative path, e.g. `.claude/agents/triage-investigator.md`.
    pub path: String,
    /// SHA-256 (hex) of what install wrote; a different hash means the user edited it.
    pub sha256: String,
    /// The identical file was already there before install: uninstall leaves it.
    pub preexisting: bool,
}

/// Reads the manifest of an install at `root`, if there is one.
pub fn read_manifest(
    root: &InstallRoot,
    scope: Scope,
) -> Result<Option<InstallManifest>, InstallError> {
    let path = root.resolve(scope.manifest_rel_path());
    let Some(text) = read_optional(&path)? else {
        return Ok(None);
    };
    let manifest: InstallManifest =
        serde_json::from_str(&text).map_err(|err| InstallError::InvalidManifest {
            path: path.clone(),
            message: err.to_string(),
        })?;
    if manifest.schema_version != MANIFEST_SCHEMA_VERSION || manifest.scope != scope {
        return Err(InstallError::InvalidManifest {
            path,
            message: format!(
                "schema_version {} for scope {:?}; expected {MANIFEST_SCHEMA_VERSION} for {scope:?}",
                manifest.schema_version, manifest.scope
            ),
        });
    }
    Ok(Some(manifest))
}

/// True when `self-repair install` copied the agents where Claude Code reads them: into the
/// project at `project_root`, or into the user's `user` folder (`~/.claude` or
/// `CLAUDE_CONFIG_DIR`). Their types are then bare names, not `self-repair:<name>`.
pub fn agents_installed_by_command(project_root: &Path, user: Option<&InstallRoot>) -> bool {
    let installed = |root: &InstallRoot, scope| matches!(read_manifest(root, scope), Ok(Some(_)));
    installed(&InstallRoot::project(project_root), Scope::Project)
        || user.is_some_and(|user| installed(user, Scope::User))
}

impl InstallManifest {
    /// The manifest as written to disk: 2-space JSON with a trailing newline.
    pub(crate) fn render(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }
}

/// Hex SHA-256 of `text`.
pub(crate) fn sha256_hex(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .fold(String::with_capacity(64), |mut hex, byte| {
            let _ = write!(hex, "{byte:02x}");
            hex
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_of_empty_text_is_the_known_digest() {
        assert_eq!(
            sha256_hex(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    fn manifest(scope: Scope) -> InstallManifest {
        InstallManifest {
            schema_version: MANIFEST_SCHEMA_VERSION,
            scope,
            binary: "/x/self-repair".to_owned(),
            settings: SettingsRecord {
                path: ".claude/settings.json".to_owned(),
                original: OriginalSettings::Absent,
                written_sha256: sha256_hex("{}"),
                hooks: vec![],
                permissions: vec![],
                created_keys: vec![],
                status_line: None,
            },
            files: vec![],
            created_dirs: vec![],
        }
    }

    fn write(root: &InstallRoot, scope: Scope, text: &str) {
        let path = root.resolve(scope.manifest_rel_path());
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
    }

    #[test]
    fn the_agents_are_installed_by_the_command_when_either_install_has_a_manifest() {
        let project = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let user = InstallRoot::user(home.path(), None);
        assert!(!agents_installed_by_command(project.path(), Some(&user)));
        assert!(!agents_installed_by_command(project.path(), None));
        write(&user, Scope::User, &manifest(Scope::User).render());
        assert!(agents_installed_by_command(project.path(), Some(&user)));
        assert!(!agents_installed_by_command(project.path(), None));
        let project_root = InstallRoot::project(project.path());
        write(
            &project_root,
            Scope::Project,
            &manifest(Scope::Project).render(),
        );
        assert!(agents_installed_by_command(project.path(), None));
        // A manifest that does not read is no install.
        let other = tempfile::tempdir().unwrap();
        write(&InstallRoot::project(other.path()), Scope::Project, "{");
        assert!(!agents_installed_by_command(other.path(), None));
    }

    #[test]
    fn a_manifest_reads_back_and_one_of_another_version_is_rejected() {
        let dir = tempfile::tempdir().unwrap();
        let root = InstallRoot::project(dir.path());
        assert_eq!(read_manifest(&root, Scope::Project).unwrap(), None);
        let ours = manifest(Scope::Project);
        assert!(ours.render().ends_with("}\n"));
        write(&root, Scope::Project, &ours.render());
        assert_eq!(
            read_manifest(&root, Scope::Project).unwrap(),
            Some(ours.clone())
        );
        let newer = InstallManifest {
            schema_version: MANIFEST_SCHEMA_VERSION + 1,
            ..ours
        };
        write(&root, Scope::Project, &newer.render());
        let err = read_manifest(&root, Scope::Project).unwrap_err();
        assert!(err.to_string().contains("schema_version 2"), "{err}");
    }

    #[test]
    fn manifest_with_other_scope_is_rejected() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = InstallManifest {
            schema_version: MANIFEST_SCHEMA_VERSION,
            scope: Scope::User,
            binary: "/x/self-repair".to_owned(),
            settings: SettingsRecord {
                path: ".claude/settings.json".to_owned(),
                original: OriginalSettings::Absent,
                written_sha256: sha256_hex("{}"),
                hooks: vec![],
                permissions: vec![],
                created_keys: vec![],
                status_line: None,
            },
            files: vec![],
            created_dirs: vec![],
        };
        let path = dir.path().join(Scope::Project.manifest_rel_path());
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, manifest.render()).unwrap();
        let err = read_manifest(&InstallRoot::project(dir.path()), Scope::Project).unwrap_err();
        assert!(matches!(err, InstallError::InvalidManifest { .. }), "{err}");
    }
}
