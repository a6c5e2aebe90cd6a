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
