//! A project's `.self-repair/` folder: where it is, its runs, and which run is active.

use std::path::{Path, PathBuf};

use crate::new_run::NewRun;
use crate::{RunDir, StoreError, check_run_id, write_atomic};

/// Name of the folder in the project root.
pub const STORE_DIR: &str = ".self-repair";

/// The longest path, and the longest name in it, that Linux opens (`PATH_MAX`, `NAME_MAX`; macOS
/// allows less). A longer one names no folder, so nothing at or above it is searched.
const PATH_MAX: usize = 4096;
const NAME_MAX: usize = 255;

/// A project root that holds (or will hold) `.self-repair/`.
#[derive(Debug, Clone)]
pub struct Project {
    root: PathBuf,
    /// The run this process works on instead of the active one (`SELF_REPAIR_RUN`, set by
    /// `drive` for each session it starts: a partition's sessions run side by side).
    pinned: Option<String>,
}

impl Project {
    /// The project at exactly `root`.
    pub fn at(root: PathBuf) -> Project {
        Project { root, pinned: None }
    }

    /// The same project, where `run` (when given) stands for the active run: the run this
    /// process's hooks and commands work on (`SELF_REPAIR_RUN`, design note 56). The `active`
    /// file itself is unchanged.
    #[must_use]
    pub fn pinned_to(mut self, run: Option<String>) -> Project {
        self.pinned = run;
        self
    }

    /// The nearest folder at or above `start` that has `.self-repair/`; none, at once, when
    /// `start` is longer than the system allows (a hook input's `cwd` is whatever the client
    /// sent: 435 KB of it cost 3.5 s of `stat` calls on its ancestors).
    pub fn find(start: &Path) -> Option<Project> {
        if !is_openable(start) {
            return None;
        }
        start
            .ancestors()
            .find(|dir| dir.join(STORE_DIR).is_dir())
            .map(|dir| Project::at(dir.to_path_buf()))
    }

    /// Where a new run goes: an existing `.self-repair/` above `start`, else the enclosing git
    /// work tree, else `start` itself.
    pub fn find_or_choose(start: &Path) -> Project {
        Project::find(start).unwrap_or_else(|| {
            if !is_openable(start) {
                return Project::at(start.to_path_buf());
            }
            let root = start
                .ancestors()
                .find(|dir| dir.join(".git").exists())
                .unwrap_or(start);
            Project::at(root.to_path_buf())
        })
    }

    /// The project root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `<root>/.self-repair`.
    pub fn store_dir(&self) -> PathBuf {
        self.root.join(STORE_DIR)
    }

    fn active_path(&self) -> PathBuf {
        self.store_dir().join("active")
    }

    /// The active run's id, if any (a cheap read: this is the hook's hot path); the pinned run
    /// when there is one ([`Project::pinned_to`]).
    pub fn active_run_id(&self) -> Option<String> {
        if let Some(run) = &self.pinned {
            return check_run_id(run).ok().map(|()| run.clone());
        }
        let text = std::fs::read_to_string(self.active_path()).ok()?;
        let id = text.trim();
        check_run_id(id).ok().map(|()| id.to_owned())
    }

    /// Makes `run` the project's active run.
    pub fn set_active(&self, run: &str) -> Result<(), StoreError> {
        check_run_id(run)?;
        write_atomic(&self.active_path(), format!("{run}\n").as_bytes())
    }

    /// Leaves the project with no active run (its run was moved aside).
    pub fn clear_active(&self) -> Result<(), StoreError> {
        match std::fs::remove_file(self.active_path()) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(StoreError::io("remove", self.active_path())(e)),
        }
    }

    /// The run `id`, checked to exist. A folder of that name that holds no run (what a `start`
    /// killed before runs were staged left) is [`StoreError::BrokenRun`], which names `doctor`.
    pub fn run(&self, id: &str) -> Result<RunDir, StoreError> {
        check_run_id(id)?;
        let dir = RunDir::new(self.runs_dir().join(id));
        if dir.exists() {
            Ok(dir)
        } else if dir.path().is_dir() {
            Err(StoreError::BrokenRun(dir.path().to_path_buf()))
        } else {
            Err(StoreError::NoSuchRun(id.to_owned()))
        }
    }

    /// The run `id`, or the active run when `id` is `None`.
    pub fn run_or_active(&self, id: Option<&str>) -> Result<RunDir, StoreError> {
        if let Some(id) = id {
            return self.run(id);
        }
        let id = self
            .active_run_id()
            .ok_or_else(|| StoreError::NoActiveRun(self.root.clone()))?;
        self.run(&id)
    }

    /// `<root>/.self-repair/runs`.
    pub fn runs_dir(&self) -> PathBuf {
        self.store_dir().join("runs")
    }

    /// Begins a new run `id`: a folder no reader lists, made `runs/<id>` by
    /// [`NewRun::publish`]. Fails if the run exists.
    pub fn begin_run(&self, id: &str) -> Result<NewRun, StoreError> {
        NewRun::begin(&self.runs_dir(), id)
    }

    /// Ids of every run, oldest first by name: the folders under `runs/` that hold one
    /// ([`Project::broken_runs`] lists the others).
    pub fn run_ids(&self) -> Result<Vec<String>, StoreError> {
        Ok(self
            .run_folders()?
            .into_iter()
            .filter(|id| RunDir::new(self.runs_dir().join(id)).exists())
            .collect())
    }

    /// Folders under `runs/` named like a run that hold none (no `state.json`, no `run.json`):
    /// what a `start` killed before runs were staged left. Commands skip them and say so;
    /// `doctor --runs-only` moves them aside ([`Project::set_aside_broken`]).
    pub fn broken_runs(&self) -> Result<Vec<String>, StoreError> {
        Ok(self
            .run_folders()?
            .into_iter()
            .filter(|id| !RunDir::new(self.runs_dir().join(id)).exists())
            .collect())
    }

    /// Moves the folder of run `id` to `.self-repair/broken/` (a free name there); returns
    /// where it went.
    pub fn set_aside_broken(&self, id: &str) -> Result<PathBuf, StoreError> {
        check_run_id(id)?;
        let path = self.runs_dir().join(id);
        set_aside(&path).map_err(StoreError::io("move aside", &path))
    }

    /// Every folder under `runs/` named like a run, sorted.
    fn run_folders(&self) -> Result<Vec<String>, StoreError> {
        let runs = self.runs_dir();
        let entries = match std::fs::read_dir(&runs) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(StoreError::io("list", &runs)(e)),
        };
        let mut ids: Vec<String> = entries
            .filter_map(Result::ok)
            .filter(|e| e.path().is_dir())
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|id| check_run_id(id).is_ok())
            .collect();
        ids.sort();
        Ok(ids)
    }
}

/// Moves `runs/<id>` to `<store>/broken/<id>` (`<id>.2`, `.3`... when taken); returns the new
/// path.
pub(crate) fn set_aside(path: &Path) -> std::io::Result<PathBuf> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let store = path
        .parent()
        .and_then(Path::parent)
        .ok_or_else(|| std::io::Error::other("a run folder outside a store"))?;
    let broken = store.join("broken");
    std::fs::create_dir_all(&broken)?;
    for n in 1..=1000u32 {
        let to = match n {
            1 => broken.join(&name),
            n => broken.join(format!("{name}.{n}")),
        };
        if to.exists() {
            continue;
        }
        std::fs::rename(path, &to)?;
        return Ok(to);
    }
    Err(std::io::Error::other(format!(
        "{} holds 1000 copies of {name} already; remove some",
        broken.display()
    )))
}

/// Whether `path` is within the system's limits: at most `PATH_MAX` bytes, no name over
/// `NAME_MAX`.
fn is_openable(path: &Path) -> bool {
    path.as_os_str().len() <= PATH_MAX
        && path
            .components()
            .all(|part| part.as_os_str().len() <= NAME_MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `SessionStart` input with a 435 KB `cwd` walked its 90,000 ancestors, one `stat` each.
    #[test]
    fn a_start_longer_than_the_system_allows_finds_no_project_without_searching_above_it() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join(STORE_DIR)).unwrap();
        let within = root.path().join("a/b");
        assert_eq!(Project::find(&within).unwrap().root(), root.path());

        let too_long = root.path().join("a/".repeat(PATH_MAX / 2));
        assert!(Project::find(&too_long).is_none());
        let long_name = root.path().join("x".repeat(NAME_MAX + 1)).join("src");
        assert!(Project::find(&long_name).is_none());
        assert_eq!(Project::find_or_choose(&too_long).root(), too_long);
    }

    #[test]
    fn the_active_run_is_the_pinned_one_else_the_one_the_active_file_names() {
        let root = tempfile::tempdir().unwrap();
        let project = Project::at(root.path().to_path_buf());
        let active = root.path().join(".self-repair/active");
        assert_eq!(project.active_run_id(), None);
        std::fs::create_dir(project.store_dir()).unwrap();
        project.set_active("r-1").unwrap();
        assert_eq!(std::fs::read_to_string(&active).unwrap(), "r-1\n");
        assert_eq!(project.active_run_id().as_deref(), Some("r-1"));
        assert!(matches!(
            project.set_active("../r"),
            Err(StoreError::BadRunId(_))
        ));
        assert_eq!(project.active_run_id().as_deref(), Some("r-1"));
        std::fs::write(&active, "../etc\n").unwrap();
        assert_eq!(project.active_run_id(), None, "a bad id names no run");
        std::fs::write(&active, "r-2\n").unwrap();
        let pinned = project.clone().pinned_to(Some("r-9".into()));
        assert_eq!(pinned.active_run_id().as_deref(), Some("r-9"));
        assert_eq!(pinned.root(), root.path());
        let bad = project.clone().pinned_to(Some("../r".into()));
        assert_eq!(bad.active_run_id(), None);
        let unpinned = project.clone().pinned_to(None);
        assert_eq!(unpinned.active_run_id().as_deref(), Some("r-2"));
        project.clear_active().unwrap();
        assert!(!active.exists());
        assert_eq!(project.active_run_id(), None);
        project.clear_active().unwrap();
        // Anything but a missing file is an error: here a folder in its place.
        std::fs::create_dir(&active).unwrap();
        assert!(project.clear_active().is_err());
    }

    #[test]
    fn runs_are_the_folders_that_hold_one_and_the_others_are_broken() {
        let root = tempfile::tempdir().unwrap();
        let project = Project::at(root.path().to_path_buf());
        let runs = root.path().join(".self-repair/runs");
        assert_eq!(project.store_dir(), root.path().join(".self-repair"));
        assert_eq!(project.runs_dir(), runs);
        assert!(project.run_ids().unwrap().is_empty());
        assert!(project.broken_runs().unwrap().is_empty());
        std::fs::create_dir_all(runs.join("r-2")).unwrap();
        std::fs::write(RunDir::at(runs.join("r-2")).state_path(), "{}").unwrap();
        std::fs::create_dir_all(runs.join("r-1")).unwrap();
        std::fs::write(RunDir::at(runs.join("r-1")).manifest_path(), "{}").unwrap();
        std::fs::create_dir_all(runs.join("r-3")).unwrap();
        std::fs::create_dir_all(runs.join(".new-r-4-1")).unwrap();
        std::fs::write(runs.join("r-5"), "a file").unwrap();
        assert_eq!(project.run_ids().unwrap(), ["r-1", "r-2"]);
        assert_eq!(project.broken_runs().unwrap(), ["r-3"]);
        assert_eq!(project.run("r-1").unwrap().path(), runs.join("r-1"));
        assert!(
            matches!(project.run("r-3"), Err(StoreError::BrokenRun(p)) if p == runs.join("r-3"))
        );
        assert!(matches!(project.run("r-9"), Err(StoreError::NoSuchRun(id)) if id == "r-9"));
        assert!(matches!(
            project.run("../r-1"),
            Err(StoreError::BadRunId(_))
        ));
        assert_eq!(
            project.run_or_active(Some("r-2")).unwrap().path(),
            runs.join("r-2")
        );
        assert!(matches!(
            project.run_or_active(None),
            Err(StoreError::NoActiveRun(p)) if p == root.path()
        ));
        project.set_active("r-1").unwrap();
        assert_eq!(
            project.run_or_active(None).unwrap().path(),
            runs.join("r-1")
        );
        // A broken run goes aside under a free name.
        let broken = root.path().join(".self-repair/broken");
        for name in ["r-3", "r-3.2", "r-3.3"] {
            std::fs::create_dir_all(runs.join("r-3")).unwrap();
            assert_eq!(project.set_aside_broken("r-3").unwrap(), broken.join(name));
            assert!(!runs.join("r-3").exists());
        }
        assert!(project.broken_runs().unwrap().is_empty());
        assert!(project.set_aside_broken("..").is_err());
        // `runs` that cannot be listed is an error, not an empty project.
        let other = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(other.path().join(".self-repair")).unwrap();
        std::fs::write(other.path().join(".self-repair/runs"), "a file").unwrap();
        assert!(Project::at(other.path().to_path_buf()).run_ids().is_err());
    }

    #[test]
    fn a_new_run_goes_to_the_nearest_store_else_the_git_work_tree_else_where_it_started() {
        let root = tempfile::tempdir().unwrap();
        let start = root.path().join("repo/src/deep");
        std::fs::create_dir_all(&start).unwrap();
        assert_eq!(Project::find(&start).map(|p| p.root().to_path_buf()), None);
        assert_eq!(Project::find_or_choose(&start).root(), start);
        std::fs::create_dir_all(root.path().join("repo/.git")).unwrap();
        assert_eq!(
            Project::find_or_choose(&start).root(),
            root.path().join("repo")
        );
        std::fs::create_dir_all(root.path().join("repo/src/.self-repair")).unwrap();
        assert_eq!(
            Project::find_or_choose(&start).root(),
            root.path().join("repo/src")
        );
        let run = Project::find(&start).unwrap().begin_run("r-1").unwrap();
        assert_eq!(run.id(), "r-1");
    }

    #[test]
    fn a_path_is_openable_up_to_the_systems_limits() {
        let at_limit = "a/".repeat(PATH_MAX / 2);
        assert_eq!(at_limit.len(), PATH_MAX);
        for (path, openable) in [
            (at_limit.clone(), true),
            (format!("{at_limit}b"), false),
            ("x".repeat(NAME_MAX), true),
            (format!("a/{}/b", "x".repeat(NAME_MAX + 1)), false),
            ("a/b".to_owned(), true),
        ] {
            assert_eq!(is_openable(Path::new(&path)), openable, "{}", path.len());
        }
    }
}
