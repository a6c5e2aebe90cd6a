//! What became of the files `install` wrote, held against the SHA-256 sums its manifest
//! recorded and this binary's bundle: `doctor` names a file deleted since, or left from another
//! version.

use crate::bundle_file::embedded_bundle;
use crate::file_read::read_optional;
use crate::install_error::InstallError;
use crate::install_manifest::{read_manifest, sha256_hex};
use crate::install_root::InstallRoot;
use crate::scope::Scope;

/// One recorded file now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InstalledFileState {
    /// As install wrote it, and as this binary would write it.
    Current,
    /// Gone since install: the client no longer has that agent or skill.
    Missing,
    /// Edited since install: `install` keeps the edit.
    Edited,
    /// As install wrote it, but this binary's bundle holds another text (an install by
    /// another version): `install` again brings it up to date.
    Outdated,
}

/// Each file the manifest of the install at `root` records (its `.claude/...` path) and its
/// state; `None` when there is no install there.
pub fn installed_file_states(
    root: &InstallRoot,
    scope: Scope,
) -> Result<Option<Vec<(String, InstalledFileState)>>, InstallError> {
    let Some(manifest) = read_manifest(root, scope)? else {
        return Ok(None);
    };
    let mut states = Vec::with_capacity(manifest.files.len());
    for record in &manifest.files {
        let bundled = embedded_bundle().iter().find(|file| {
            file.target_in_claude_dir()
                .is_ok_and(|target| format!(".claude/{target}") == record.path)
        });
        let state = match read_optional(&root.resolve(&record.path))? {
            None => InstalledFileState::Missing,
            Some(text) if sha256_hex(&text) != record.sha256 => InstalledFileState::Edited,
            Some(text) if bundled.is_some_and(|file| file.contents != text) => {
                InstalledFileState::Outdated
            }
            Some(_) => InstalledFileState::Current,
        };
        states.push((record.path.clone(), state));
    }
    Ok(Some(states))
}
