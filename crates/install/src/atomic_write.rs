//! Writing a file so readers see the old or the new contents, never half of either.

use std::fs;
use std::io::Write as _;
use std::path::Path;

use crate::install_error::InstallError;

/// Writes `contents` to `path` through a temporary file in the same directory and a rename,
/// creating parent directories. An existing file's permissions are kept; a new file gets the
/// usual 0644 on Unix (a temporary file starts at 0600).
pub(crate) fn write_atomically(path: &Path, contents: &str) -> Result<(), InstallError> {
    let write_err = |source| InstallError::Write {
        path: path.to_owned(),
        source,
    };
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    fs::create_dir_all(dir).map_err(write_err)?;
    let previous_permissions = fs::metadata(path).ok().map(|meta| meta.permissions());
    let mut temp = tempfile::NamedTempFile::new_in(dir).map_err(write_err)?;
    temp.write_all(contents.as_bytes()).map_err(write_err)?;
    temp.as_file().sync_all().map_err(write_err)?;
    let permissions = match previous_permissions {
        Some(permissions) => permissions,
        None => new_file_permissions(temp.as_file()).map_err(write_err)?,
    };
    fs::set_permissions(temp.path(), permissions).map_err(write_err)?;
    temp.persist(path).map_err(|err| write_err(err.error))?;
    Ok(())
}

#[cfg(unix)]
fn new_file_permissions(file: &fs::File) -> std::io::Result<fs::Permissions> {
    use std::os::unix::fs::PermissionsExt as _;
    let mut permissions = file.metadata()?.permissions();
    permissions.set_mode(0o644);
    Ok(permissions)
}

#[cfg(not(unix))]
fn new_file_permissions(file: &fs::File) -> std::io::Result<fs::Permissions> {
    Ok(file.metadata()?.permissions())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creates_parents_and_replaces_contents() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/c.json");
        write_atomically(&path, "one").unwrap();
        write_atomically(&path, "two").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "two");
        assert_eq!(fs::read_dir(path.parent().unwrap()).unwrap().count(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn a_new_file_is_readable_by_all_and_writable_by_its_owner() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new.json");
        write_atomically(&path, "{}").unwrap();
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o644
        );
    }

    #[cfg(unix)]
    #[test]
    fn keeps_the_mode_of_an_existing_file() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        fs::write(&path, "{}").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        write_atomically(&path, "{ }").unwrap();
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o640
        );
    }
}
