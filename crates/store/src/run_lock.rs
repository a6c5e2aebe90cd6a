//! The per-run exclusive lock: every writer of a run's journal or state holds it.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::StoreError;

/// Held while alive; the OS releases it if the process dies.
#[derive(Debug)]
pub struct RunLock {
    file: File,
}

impl RunLock {
    /// Takes the lock at `path`, waiting up to `timeout`.
    pub fn acquire(path: &Path, timeout: Duration) -> Result<RunLock, StoreError> {
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .map_err(StoreError::io("open lock", path))?;
        let start = Instant::now();
        let mut pause = Duration::from_micros(200);
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(RunLock { file }),
                Err(_) if start.elapsed() < timeout => {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(20));
                }
                Err(_) => {
                    return Err(StoreError::LockTimeout {
                        path: PathBuf::from(path),
                        secs: timeout.as_secs(),
                    });
                }
            }
        }
    }
}

impl Drop for RunLock {
    fn drop(&mut self) {
        // Closing the file releases the lock anyway; unlocking first is only politeness.
        let _ = self.file.unlock();
    }
}

/// Takes the project's registry lock (`.self-repair/registry.lock`), waiting up to
/// [`crate::LOCK_TIMEOUT`]: every read-modify-write of `known.json` or `rules.json` holds it, so
/// two writers (the shares of `drive --partitions` finalizing at once, a user's `known add`
/// meanwhile) never lose each other's entries.
pub fn lock_registry(store_dir: &Path) -> Result<RunLock, StoreError> {
    std::fs::create_dir_all(store_dir).map_err(StoreError::io("create", store_dir))?;
    RunLock::acquire(&store_dir.join("registry.lock"), crate::LOCK_TIMEOUT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_lock_is_waited_for_until_it_is_free_or_the_time_is_up() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lock");
        let held = RunLock::acquire(&path, Duration::ZERO).unwrap();
        match RunLock::acquire(&path, Duration::ZERO) {
            Err(StoreError::LockTimeout { path: at, secs: 0 }) => assert_eq!(at, path),
            other => panic!("a held lock, no time to wait: {other:?}"),
        }
        // Its holder lets go a moment later: the waiter gets it.
        let release = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            drop(held);
        });
        let waited = RunLock::acquire(&path, Duration::from_mins(1));
        release.join().unwrap();
        assert!(waited.is_ok(), "{waited:?}");
        drop(waited);
        let store = dir.path().join("store");
        let registry = lock_registry(&store).unwrap();
        assert!(store.join("registry.lock").is_file());
        assert!(RunLock::acquire(&store.join("registry.lock"), Duration::ZERO).is_err());
        drop(registry);
        assert!(RunLock::acquire(&store.join("registry.lock"), Duration::ZERO).is_ok());
    }
}
