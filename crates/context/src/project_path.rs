//! Resolving a finding's project-relative path without ever leaving the project.

use std::path::{Component, Path, PathBuf};

use crate::ContextError;

/// Resolves `rel_path` under `root` to a canonical path of an existing regular file.
///
/// Refuses absolute paths, `..` components and anything whose canonical form (symlinks
/// resolved) is not inside the canonical root. A missing path, or one that is not a regular
/// file (directory, fifo, device), is `Ok(None)`: nothing is opened.
pub(crate) fn resolve_in_project(
    root: &Path,
    rel_path: &str,
) -> Result<Option<PathBuf>, ContextError> {
    let outside = || ContextError::PathOutsideProject {
        path: rel_path.to_owned(),
    };
    if rel_path.is_empty() || rel_path.contains('\0') {
        return Err(outside());
    }
    let relative = Path::new(rel_path);
    // `C:\x` and `\\server\x` are not absolute on Unix, but they never name a project file.
    let bytes = rel_path.as_bytes();
    let looks_windows_absolute = rel_path.starts_with('\\')
        || (bytes.len() >= 2
            && bytes[0].is_ascii_alphabetic()
            && bytes[1] == b':'
            && matches!(bytes.get(2), None | Some(b'\\' | b'/')));
    if relative.is_absolute() || looks_windows_absolute {
        return Err(outside());
    }
    for component in relative.components() {
        match component {
            Component::Normal(_) | Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => {
                return Err(outside());
            }
        }
    }
    let canonical_root = root.canonicalize().map_err(|source| ContextError::Root {
        root: root.to_path_buf(),
        source,
    })?;
    let joined = canonical_root.join(relative);
    let canonical = match joined.canonicalize() {
        Ok(path) => path,
        Err(error) if is_missing(&error) => return Ok(None),
        Err(source) => {
            return Err(ContextError::Read {
                path: joined,
                source,
            });
        }
    };
    if !canonical.starts_with(&canonical_root) {
        return Err(outside());
    }
    match std::fs::metadata(&canonical) {
        Ok(metadata) if metadata.is_file() => Ok(Some(canonical)),
        Ok(_) => Ok(None),
        Err(error) if is_missing(&error) => Ok(None),
        Err(source) => Err(ContextError::Read {
            path: canonical,
            source,
        }),
    }
}

/// Missing, or a path through something that is not a directory: both mean "no such file".
fn is_missing(error: &std::io::Error) -> bool {
    matches!(
        error.kind(),
        std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
    )
}

/// The project-relative spelling of `path` (under `root`), with `/` separators.
pub(crate) fn relative_display(root: &Path, path: &Path) -> Option<String> {
    let relative = path.strip_prefix(root).ok()?;
    let mut parts = Vec::new();
    for component in relative.components() {
        match component {
            Component::Normal(part) => parts.push(part.to_string_lossy().into_owned()),
            Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(parts.join("/"))
}
