//! `cost.json` on disk. The Stop hook replaces it at every stop where a transcript grew, so the
//! replacement must be cheap: a plain rename over the old file makes ext4 write the new one
//! back at once, 0.5-2 ms on a loaded machine (reference/benchmarks.md, issue 15's row 2b).
//! Instead the new ledger is written in place into a spare file, `cost.prev.json`, that then
//! swaps names with `cost.json` in one step (Linux `renameat2` with `RENAME_EXCHANGE`): no file
//! is created or deleted, and readers see the old ledger or the new one, never a torn one. The
//! spare then holds the previous ledger, which loading falls back to when `cost.json` does not
//! parse (a power cut can leave the swapped-in file unwritten).

use std::io::Write;
use std::path::Path;

use serde::de::DeserializeOwned;

use crate::CostError;

/// The ledger, in the run folder.
pub const LEDGER_FILE: &str = "cost.json";
/// The ledger as the save before the last left it; the next save is written into it.
pub const SPARE_FILE: &str = "cost.prev.json";

/// Replaces `cost.json` in `folder` with `bytes`. Where the swap is not supported (another
/// system or file system, no `cost.json` yet) the spare is renamed over `cost.json` instead.
pub(crate) fn write_ledger(folder: &Path, bytes: &[u8]) -> Result<(), CostError> {
    let path = folder.join(LEDGER_FILE);
    let spare = folder.join(SPARE_FILE);
    write_in_place(&spare, bytes).map_err(CostError::io("write", &spare))?;
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{CWD, RenameFlags, renameat_with};
        if renameat_with(CWD, &spare, CWD, &path, RenameFlags::EXCHANGE).is_ok() {
            return Ok(());
        }
    }
    std::fs::rename(&spare, &path).map_err(CostError::io("replace", &path))
}

/// The ledger in `folder`: `cost.json`, else the spare (`None` when neither parses).
pub(crate) fn read_ledger<T: DeserializeOwned>(folder: &Path) -> Option<T> {
    [LEDGER_FILE, SPARE_FILE].iter().find_map(|name| {
        let bytes = std::fs::read(folder.join(name)).ok()?;
        serde_json::from_slice(&bytes).ok()
    })
}

/// Overwrites `path` from its start without truncating it first (truncating to zero would make
/// ext4 flush it at close, the cost this file avoids), then cuts what is left of a longer
/// previous content (only then: a truncation costs a journal update even when nothing is cut).
fn write_in_place(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)?;
    file.write_all(bytes)?;
    let len = bytes.len() as u64;
    if file.metadata()?.len() > len {
        file.set_len(len)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(folder: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(folder)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn each_save_replaces_the_ledger_and_keeps_the_previous_one_as_the_spare() {
        let dir = tempfile::tempdir().unwrap();
        write_ledger(dir.path(), b"[1]").unwrap();
        assert_eq!(read_ledger::<Vec<u32>>(dir.path()), Some(vec![1]));
        write_ledger(dir.path(), b"[2, 22222]").unwrap();
        write_ledger(dir.path(), b"[3]").unwrap();
        assert_eq!(read_ledger::<Vec<u32>>(dir.path()), Some(vec![3]));
        // Written into the file that held `[2, 22222]`: nothing of the longer one is left.
        write_ledger(dir.path(), b"[4]").unwrap();
        assert_eq!(std::fs::read(dir.path().join(LEDGER_FILE)).unwrap(), b"[4]");
        if cfg!(target_os = "linux") {
            assert_eq!(names(dir.path()), [LEDGER_FILE, SPARE_FILE]);
            assert_eq!(std::fs::read(dir.path().join(SPARE_FILE)).unwrap(), b"[3]");
        } else {
            assert_eq!(names(dir.path()), [LEDGER_FILE]);
        }
    }

    #[test]
    fn a_ledger_that_does_not_parse_falls_back_to_the_previous_one() {
        let dir = tempfile::tempdir().unwrap();
        write_ledger(dir.path(), b"[1]").unwrap();
        write_ledger(dir.path(), b"[2]").unwrap();
        std::fs::write(dir.path().join(LEDGER_FILE), b"").unwrap();
        let expected = if cfg!(target_os = "linux") {
            Some(vec![1])
        } else {
            None
        };
        assert_eq!(read_ledger::<Vec<u32>>(dir.path()), expected);
    }
}
