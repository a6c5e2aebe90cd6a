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
        std::fs::rename(&staging, &self.target).map_err(|e| self.publish_error(e))?;
        self.published = true;
        sync_folder(self.target.parent());
        Ok(RunDir::at(self.target.clone()))
    }

    /// What a failed rename onto `runs/<id>` means: a run of that id made since the check
    /// above (a second `start` with the same `--run-id` won the race), or an I/O error.
    fn publish_error(&self, e: std::io::Error) -> StoreError {
        match e.kind() {
            std::io::ErrorKind::DirectoryNotEmpty | std::io::ErrorKind::AlreadyExists => {
                StoreError::RunExists(self.id.clone())
            }
            _ => StoreError::io("publish", &self.target)(e),
        }
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

#[cfg(test)]
mod tests {
    use std::time::SystemTime;

    use super::*;
    use crate::Project;

    fn project() -> (tempfile::TempDir, Project) {
        let root = tempfile::tempdir().unwrap();
        let project = Project::at(root.path().to_path_buf());
        (root, project)
    }

    /// Writes what makes a folder a run.
    fn fill(run: &NewRun) {
        std::fs::write(run.dir().state_path(), "{}").unwrap();
    }

    fn age(folder: &Path, by: Duration) {
        File::open(folder)
            .unwrap()
            .set_modified(SystemTime::now() - by)
            .unwrap();
    }

    #[test]
    fn a_run_is_staged_out_of_sight_then_published_in_one_rename() {
        let (_root, project) = project();
        let runs = project.runs_dir();
        let run = project.begin_run("r-1").unwrap();
        assert_eq!(run.id(), "r-1");
        let staging = run.dir().path().to_path_buf();
        assert_eq!(
            staging,
            runs.join(format!("{STAGING_PREFIX}r-1-{}", std::process::id()))
        );
        assert!(run.dir().items_dir().is_dir());
        assert!(
            project.run_ids().unwrap().is_empty(),
            "not listed while staged"
        );
        fill(&run);
        let published = run.publish().unwrap();
        assert_eq!(published.path(), runs.join("r-1"));
        assert!(published.state_path().is_file());
        assert!(!staging.exists());
        assert_eq!(project.run_ids().unwrap(), ["r-1"]);
        assert!(matches!(
            project.begin_run("r-1"),
            Err(StoreError::RunExists(id)) if id == "r-1"
        ));
        assert!(matches!(
            project.begin_run("../r"),
            Err(StoreError::BadRunId(_))
        ));
    }

    #[test]
    fn a_run_dropped_before_it_is_published_leaves_nothing() {
        let (_root, project) = project();
        let run = project.begin_run("r-1").unwrap();
        let staging = run.dir().path().to_path_buf();
        fill(&run);
        drop(run);
        assert!(!staging.exists());
        assert!(!project.runs_dir().join("r-1").exists());
    }

    #[test]
    fn publishing_replaces_an_empty_folder_sets_a_broken_one_aside_and_never_a_run() {
        let (_root, project) = project();
        let runs = project.runs_dir();
        std::fs::create_dir_all(runs.join("r-1")).unwrap();
        let run = project.begin_run("r-1").unwrap();
        fill(&run);
        assert!(run.publish().unwrap().state_path().is_file());
        // A folder a start killed before runs were staged left, with something in it.
        std::fs::create_dir_all(runs.join("r-2/items")).unwrap();
        let run = project.begin_run("r-2").unwrap();
        fill(&run);
        run.publish().unwrap();
        assert!(runs.join("r-2/state.json").is_file());
        assert!(project.store_dir().join("broken/r-2/items").is_dir());
        // A second start of the same id published first: it wins, this one is dropped.
        let late = project.begin_run("r-3").unwrap();
        std::fs::create_dir_all(runs.join("r-3")).unwrap();
        std::fs::write(runs.join("r-3/state.json"), "{}").unwrap();
        let staging = late.dir().path().to_path_buf();
        assert!(matches!(late.publish(), Err(StoreError::RunExists(id)) if id == "r-3"));
        assert!(!staging.exists(), "the loser's folder is removed");
        // A staging folder that went missing is an error of its own, not a run that exists.
        let gone = project.begin_run("r-4").unwrap();
        std::fs::remove_dir_all(gone.dir().path()).unwrap();
        assert!(matches!(gone.publish(), Err(StoreError::Io { .. })));
    }

    #[test]
    fn a_rename_that_finds_the_run_made_meanwhile_says_it_exists() {
        let (_root, project) = project();
        let run = project.begin_run("r-1").unwrap();
        for (kind, exists) in [
            (std::io::ErrorKind::DirectoryNotEmpty, true),
            (std::io::ErrorKind::AlreadyExists, true),
            (std::io::ErrorKind::NotFound, false),
            (std::io::ErrorKind::PermissionDenied, false),
        ] {
            let error = run.publish_error(std::io::Error::from(kind));
            assert_eq!(
                matches!(&error, StoreError::RunExists(id) if id == "r-1"),
                exists,
                "{kind:?}: {error}"
            );
            assert_eq!(matches!(error, StoreError::Io { .. }), !exists, "{kind:?}");
        }
    }

    #[test]
    fn only_old_staging_folders_whose_creator_died_are_removed() {
        let (_root, project) = project();
        let runs = project.runs_dir();
        let old = Duration::from_mins(2);
        // A live creator, however old its folder (begun first: beginning removes the dead).
        let alive = project.begin_run("r-4").unwrap();
        age(alive.dir().path(), old);
        // A creator that died: its lock is free.
        let dead = runs.join(format!("{STAGING_PREFIX}r-1-1"));
        std::fs::create_dir_all(&dead).unwrap();
        std::fs::write(dead.join("lock"), "").unwrap();
        age(&dead, old);
        // One that died before it made its lock.
        let no_lock = runs.join(format!("{STAGING_PREFIX}r-2-1"));
        std::fs::create_dir_all(&no_lock).unwrap();
        age(&no_lock, old);
        // Too young to tell.
        let young = runs.join(format!("{STAGING_PREFIX}r-3-1"));
        std::fs::create_dir_all(&young).unwrap();
        // Not a staging folder.
        let run = runs.join("r-5");
        std::fs::create_dir_all(&run).unwrap();
        age(&run, old);
        let mut removed = remove_abandoned_staging(&runs);
        removed.sort();
        assert_eq!(removed, [dead.clone(), no_lock.clone()]);
        assert!(!dead.exists() && !no_lock.exists());
        assert!(young.is_dir() && alive.dir().path().is_dir() && run.is_dir());
        assert!(remove_abandoned_staging(&runs.join("missing")).is_empty());
    }
}
