//! Atomic file replacement: readers see the old file or the new one, never a torn one.

use std::io::Write;
use std::path::Path;

use tempfile::NamedTempFile;

use crate::StoreError;

/// Writes `bytes` to a temporary file beside `path` and renames it over `path`.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let temp = write_temp(path, bytes, TEMP_PREFIX)?;
    persist(temp, path)
}

/// [`write_atomic`] for a file written piece by piece (a registry of 100,000 lines): `write`
/// streams into a buffered temporary file beside `path`, which then replaces `path`. Nothing
/// replaces `path` when `write` fails.
pub fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), StoreError> {
    let temp = write_temp(path, b"", TEMP_PREFIX)?;
    let mut out = std::io::BufWriter::new(temp);
    write(&mut out)
        .and_then(|()| out.flush())
        .map_err(StoreError::io("write", path.to_path_buf()))?;
    let temp = out
        .into_inner()
        .map_err(|e| StoreError::io("write", path.to_path_buf())(e.into_error()))?;
    persist(temp, path)
}

/// [`write_atomic`] for a file the journal can rebuild (`state.json`), written on most hook
/// stops. On Linux the new file and the old one swap names in one step (`renameat2` with
/// `RENAME_EXCHANGE`) and the old one is then deleted. A plain rename over an existing file
/// makes ext4 start writing the new file's data back to disk at once, which took 0.3 ms of a
/// 5 ms hook stop (reference/benchmarks.md); the swap does not. What the swap gives up is that
/// flush: after a power cut the file may be empty, which loading reports and `doctor` repairs
/// from the journal (reference/state-file.md). Where the swap is not supported (another file
/// system, no file yet) this is [`write_atomic`].
pub fn replace_rebuildable(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let temp = write_temp(path, bytes, &rebuildable_temp_prefix(path))?;
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{CWD, RenameFlags, renameat_with};
        if renameat_with(CWD, temp.path(), CWD, path, RenameFlags::EXCHANGE).is_ok() {
            // `temp` now names the old file; dropping it deletes it.
            return Ok(());
        }
    }
    persist(temp, path)
}

/// Every temporary file starts with this; [`replace_rebuildable`]'s go on with the name of the
/// file they replace (`.tmp-state.json-…`), so a writer holding the lock can recognise them.
pub(crate) const TEMP_PREFIX: &str = ".tmp-";

/// The temporary files of [`replace_rebuildable`] for `path` start with this.
pub(crate) fn rebuildable_temp_prefix(path: &Path) -> String {
    format!("{TEMP_PREFIX}{}-", file_name(path))
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn write_temp(path: &Path, bytes: &[u8], prefix: &str) -> Result<NamedTempFile, StoreError> {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    let mut temp = tempfile::Builder::new()
        .prefix(prefix)
        .tempfile_in(dir)
        .map_err(StoreError::io("create a temporary file in", dir))?;
    temp.write_all(bytes)
        .map_err(StoreError::io("write", temp.path().to_path_buf()))?;
    Ok(temp)
}

fn persist(temp: NamedTempFile, path: &Path) -> Result<(), StoreError> {
    temp.persist(path)
        .map_err(|e| StoreError::io("replace", path)(e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replacing_leaves_only_the_new_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.json");
        replace_rebuildable(&path, b"first").unwrap();
        replace_rebuildable(&path, b"second").unwrap();
        write_atomic(&path, b"third").unwrap();
        replace_rebuildable(&path, b"fourth").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"fourth");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["state.json"], "no temporary file is left behind");
    }

    #[test]
    fn a_streamed_write_that_fails_leaves_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("known.json");
        write_atomic_with(&path, |w| w.write_all(b"old\n")).unwrap();
        let failed = write_atomic_with(&path, |w| {
            w.write_all(b"half")?;
            Err(std::io::Error::other("encoding failed"))
        });
        assert!(failed.is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"old\n");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["known.json"], "no temporary file is left behind");
    }

    #[test]
    fn a_rebuildable_files_temporaries_are_named_after_it() {
        let path = Path::new("runs/r-1/state.json");
        assert_eq!(rebuildable_temp_prefix(path), ".tmp-state.json-");
        assert_eq!(file_name(path), "state.json");
        assert_eq!(file_name(Path::new("/")), "");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.json");
        // A temporary of it left by a writer killed in between: named as the prefix says.
        let temp = write_temp(&path, b"half", &rebuildable_temp_prefix(&path)).unwrap();
        let name = temp
            .path()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        assert!(name.starts_with(".tmp-state.json-"), "{name}");
        assert_eq!(std::fs::read(temp.path()).unwrap(), b"half");
    }
}
