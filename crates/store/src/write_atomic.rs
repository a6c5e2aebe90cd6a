//! Atomic file replacement: readers see the old file or the new one, never a torn one.

use std::io::Write;
use std::path::Path;

use crate::StoreError;

/// Writes `bytes` to a temporary file beside `path` and renames it over `path`.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    let mut temp = tempfile::Builder::new()
        .prefix(".tmp-")
        .tempfile_in(dir)
        .map_err(StoreError::io("create a temporary file in", dir))?;
    temp.write_all(bytes)
        .map_err(StoreError::io("write", temp.path().to_path_buf()))?;
    temp.persist(path)
        .map_err(|e| StoreError::io("replace", path)(e.error))?;
    Ok(())
}
