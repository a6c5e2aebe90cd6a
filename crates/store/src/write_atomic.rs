//! Atomic file replacement: readers see the old file or the new one, never a torn one.

use std::io::Write;
use std::path::Path;
use std::time::{Duration, SystemTime};

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

/// [`replace_rebuildable`] that creates and deletes no file: `bytes` are written in place into
/// `spare` (created by the first save only), which then swaps names with `path` in one step
/// (`renameat2` with `RENAME_EXCHANGE`), so `spare` holds the previous content afterwards.
/// Readers see the old file or the new one, never a torn one: only the spare is ever written.
///
/// The Stop hook saves `state.json` and its head this way at every stop that changed the run.
/// A file created and one deleted a save, each time, cost more than the rest of a stop on a
/// file system that looks for a free inode past recently deleted ones (ext4 without a journal:
/// 20 of a 27 ms stop, reference/benchmarks.md); the swap costs neither.
///
/// `path` alternates between two inodes, so the new file's modification time is set past the
/// old one's (by a nanosecond when the clock has not moved on): a stamp of device, inode, length
/// and time ([`crate::state_head`]) taken of one save then never matches a later one. Where the
/// swap is not supported (another system or file system, no `path` yet) the spare is renamed
/// over `path`, and where the spare cannot be written this is [`replace_rebuildable`].
pub(crate) fn replace_through_spare(
    path: &Path,
    spare: &Path,
    bytes: &[u8],
) -> Result<(), StoreError> {
    let after = std::fs::metadata(path).and_then(|m| m.modified()).ok();
    if write_spare(spare, bytes, after).is_err() {
        return replace_rebuildable(path, bytes);
    }
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{CWD, RenameFlags, renameat_with};
        if renameat_with(CWD, spare, CWD, path, RenameFlags::EXCHANGE).is_ok() {
            return Ok(());
        }
    }
    std::fs::rename(spare, path).map_err(StoreError::io("replace", path))
}

/// Overwrites `spare` from its start without truncating it first (a truncation to zero makes
/// ext4 write the file back at close), cuts what is left of a longer previous content, and
/// dates it after `after`.
fn write_spare(spare: &Path, bytes: &[u8], after: Option<SystemTime>) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(spare)?;
    file.write_all(bytes)?;
    let len = bytes.len() as u64;
    if file.metadata()?.len() > len {
        file.set_len(len)?;
    }
    let now = SystemTime::now();
    let stamp = match after {
        Some(old) if old >= now => old + Duration::from_nanos(1),
        _ => now,
    };
    file.set_modified(stamp)
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

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_replacement_through_the_spare_creates_no_file_after_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.json");
        let spare = dir.path().join("state.prev.json");
        replace_through_spare(&path, &spare, b"first, long").unwrap();
        replace_through_spare(&path, &spare, b"second").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        assert_eq!(std::fs::read(&spare).unwrap(), b"first, long");
        #[cfg(target_os = "linux")]
        {
            use std::os::unix::fs::MetadataExt;
            let inodes = |p: &Path| std::fs::metadata(p).unwrap().ino();
            let (a, b) = (inodes(&path), inodes(&spare));
            // From here on the two files only swap names: none is created or deleted.
            replace_through_spare(&path, &spare, b"third").unwrap();
            assert_eq!((inodes(&path), inodes(&spare)), (b, a));
            replace_through_spare(&path, &spare, b"4").unwrap();
            assert_eq!((inodes(&path), inodes(&spare)), (a, b));
            assert_eq!(
                std::fs::read(&path).unwrap(),
                b"4",
                "a longer old content is cut"
            );
            assert_eq!(std::fs::read(&spare).unwrap(), b"third");
        }
        assert_eq!(names(dir.path()), ["state.json", "state.prev.json"]);
    }

    #[test]
    fn each_replacement_is_dated_after_the_file_it_replaces() {
        // Even when the clock says otherwise: the file replaced is dated an hour ahead.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.json");
        let spare = dir.path().join("state.prev.json");
        replace_through_spare(&path, &spare, b"one").unwrap();
        let ahead = SystemTime::now() + Duration::from_hours(1);
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(ahead)
            .unwrap();
        let modified = |p: &Path| std::fs::metadata(p).unwrap().modified().unwrap();
        replace_through_spare(&path, &spare, b"two").unwrap();
        let second = modified(&path);
        assert!(second > ahead, "{second:?} is after {ahead:?}");
        replace_through_spare(&path, &spare, b"six").unwrap();
        assert!(modified(&path) > second, "the same length, a later time");
    }

    #[test]
    fn a_spare_that_cannot_be_written_falls_back_to_a_new_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.json");
        let spare = dir.path().join("state.prev.json");
        std::fs::create_dir(&spare).unwrap();
        replace_through_spare(&path, &spare, b"first").unwrap();
        replace_through_spare(&path, &spare, b"second").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        assert!(spare.is_dir(), "left as it was");
        assert_eq!(names(dir.path()), ["state.json", "state.prev.json"]);
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
