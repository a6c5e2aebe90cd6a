//! A run being created: built in a folder no reader lists (`runs/.new-<id>-<pid>`), then made
//! visible in one `rename`, so a command killed while it creates a run leaves either no run or
//! a whole one, never a folder that breaks `runs` (design note 68).

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::{RunDir, StoreError, check_run_id};

/// What a staging folder's name starts with: not a run id (ids start with a letter or digit),
/// so [`crate::Project::run_ids`] never lists it.
pub const STAGING_PREFIX: &str = ".new-";

/// How long a staging folder whose creator is gone is left alone before it is removed: the
/// lock tells a live creator from a dead one, and this covers the moment between `mkdir` and
/// the lock.
const STAGING_GRACE: Duration = Duration::from_mins(1);

/// A run under construction. Write into [`NewRun::dir`], then [`NewRun::publish`]; dropped
/// unpublished (an error on the way), the folder is removed.
#[derive(Debug)]
pub struct NewRun {
    dir: RunDir,
    target: PathBuf,
    id: String,
    /// Held until published: a cleaner that can take it knows the creator died.
    _lock: Option<File>,
    published: bool,
}

impl NewRun {
    /// Creates `runs/.new-<id>-<pid>/` (and its `items/`), locked; refuses an `id` whose run
    /// exists already.
    pub(crate) fn begin(runs: &Path, id: &str) -> Result<NewRun, StoreError> {
        check_run_id(id)?;
        std::fs::create_dir_all(runs).map_err(StoreError::io("create", runs))?;
        remove_abandoned_staging(runs);
        let target = runs.join(id);
        if RunDir::at(target.clone()).exists() {
            return Err(StoreError::RunExists(id.to_owned()));
        }
        let staging = runs.join(format!("{STAGING_PREFIX}{id}-{}", std::process::id()));
        // A folder of this name is a dead process's (pids are reused): never a live creator's.
        let _ = std::fs::remove_dir_all(&staging);
        std::fs::create_dir(&staging).map_err(StoreError::io("create", &staging))?;
        let dir = RunDir::at(staging.clone());
        let items = dir.items_dir();
        std::fs::create_dir(&items).map_err(StoreError::io("create", &items))?;
        let lock_path = staging.join("lock");
        let lock = File::create(&lock_path).map_err(StoreError::io("create", &lock_path))?;
        lock.try_lock()
            .map_err(|e| StoreError::io("lock", &lock_path)(std::io::Error::other(e)))?;
        Ok(NewRun {
            dir,
            target,
            id: id.to_owned(),
            _lock: Some(lock),
            published: false,
        })
    }

    /// The folder to write the run into.
    pub fn dir(&self) -> &RunDir {
        &self.dir
    }

    /// The run's id (not the staging folder's name).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Makes the run visible under `runs/<id>` in one rename. A run of that id made meanwhile
    /// (a second `start` with the same `--run-id`) is not replaced: [`StoreError::RunExists`].
    pub fn publish(mut self) -> Result<RunDir, StoreError> {
        let staging = self.dir.path().to_path_buf();
        if RunDir::at(self.target.clone()).exists() {
            return Err(StoreError::RunExists(self.id.clone()));
        }
        // A folder left by a start from before runs were staged holds no run (`doctor` moves
        // those aside): an empty one is replaced by the rename, a non-empty one is set aside.
        if self.target.is_dir() && std::fs::remove_dir(&self.target).is_err() {
            crate::project::set_aside(&self.target)
                .map_err(StoreError::io("move aside", &self.target))?;
        }
        match std::fs::rename(&staging, &self.target) {
            Ok(()) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::DirectoryNotEmpty | std::io::ErrorKind::AlreadyExists
                ) =>
            {
                return Err(StoreError::RunExists(self.id.clone()));
            }
            Err(e) => return Err(StoreError::io("publish", &self.target)(e)),
        }
        self.published = true;
        sync_folder(self.target.parent());
        Ok(RunDir::at(self.target.clone()))
    }
}

impl Drop for NewRun {
    fn drop(&mut self) {
        if !self.published {
            let _ = std::fs::remove_dir_all(self.dir.path());
        }
    }
}

/// Removes the staging folders of creators that died (their lock is free, and the folder is
/// older than [`STAGING_GRACE`]); returns them. `start` calls it before it stages, `doctor` too.
pub fn remove_abandoned_staging(runs: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(runs) else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for entry in entries.filter_map(Result::ok) {
        let is_staging = entry
            .file_name()
            .to_str()
            .is_some_and(|n| n.starts_with(STAGING_PREFIX));
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age >= STAGING_GRACE);
        if !is_staging || !old {
            continue;
        }
        let path = entry.path();
        let creator_gone = match File::open(path.join("lock")) {
            Ok(file) => file.try_lock().is_ok(),
            Err(_) => true,
        };
        if creator_gone && std::fs::remove_dir_all(&path).is_ok() {
            removed.push(path);
        }
    }
    removed
}

/// Flushes a folder's entries (the rename) where the system allows it.
fn sync_folder(folder: Option<&Path>) {
    if let Some(folder) = folder
        && let Ok(file) = File::open(folder)
    {
        let _ = file.sync_all();
    }
}
