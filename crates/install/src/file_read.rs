//! Reading a file that may not exist.

use std::io::ErrorKind;
use std::path::Path;

use crate::install_error::InstallError;

/// The file's text, or `None` when it does not exist.
pub(crate) fn read_optional(path: &Path) -> Result<Option<String>, InstallError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(err) if err.kind() == ErrorKind::NotFound => Ok(None),
        Err(source) => Err(InstallError::Read {
            path: path.to_owned(),
            source,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_file_is_none_and_one_that_does_not_read_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read_optional(&dir.path().join("gone")).unwrap(), None);
        let file = dir.path().join("here");
        std::fs::write(&file, "text").unwrap();
        assert_eq!(read_optional(&file).unwrap().as_deref(), Some("text"));
        // A directory exists but does not read as text.
        let err = read_optional(dir.path()).unwrap_err();
        assert!(matches!(err, InstallError::Read { .. }), "{err}");
    }
}
