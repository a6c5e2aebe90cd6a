//! The project's `backlog/` folder: existing tasks (ids and group fingerprints) and idempotent
//! writing of new ones.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use self_repair_engine::{TaskDraft, TaskRecord};
use self_repair_store::write_atomic;

use crate::{BacklogTask, GROUP_MARKER, ReportError};

/// What a new backlog needs so the `backlog` CLI can read it: measured on backlog.md 1.52, a
/// folder without `config.yml` is "No Backlog.md project found"; this config works offline and
/// is never rewritten by reads.
const DEFAULT_CONFIG: &str = r#"default_status: "To Do"
statuses: ["To Do", "In Progress", "Done"]
labels: []
date_format: yyyy-mm-dd
max_column_width: 20
auto_open_browser: false
default_port: 6420
remote_operations: false
auto_commit: false
filesystem_only: true
bypass_git_hooks: false
check_active_branches: false
active_branch_days: 30
task_prefix: "task"
"#;

/// A task already in the backlog that carries a group fingerprint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExistingTask {
    pub task_id: String,
    pub file: String,
    pub title: String,
    /// Its frontmatter's `priority`, when it has one.
    pub priority: Option<String>,
}

/// One group's task to write.
#[derive(Debug, Clone)]
pub struct TaskToWrite {
    pub group: String,
    pub draft: TaskDraft,
    pub fingerprint: String,
    pub footer: String,
    /// The task's `## Implementation Plan`, when a plan was written.
    pub plan: Option<String>,
}

/// `<project>/backlog`.
#[derive(Debug, Clone)]
pub struct Backlog {
    root: PathBuf,
}

impl Backlog {
    /// The backlog of the project at `root`.
    pub fn new(root: &Path) -> Backlog {
        Backlog {
            root: root.to_path_buf(),
        }
    }

    fn dir(&self) -> PathBuf {
        self.root.join("backlog")
    }

    /// Highest task number in `tasks/` and `completed/` (the CLI's rule), and every group
    /// fingerprint found in `tasks/`, `completed/` and `archive/tasks/`.
    pub fn scan(&self) -> Result<(u64, HashMap<String, ExistingTask>), ReportError> {
        let mut highest = 0;
        let mut found = HashMap::new();
        for (sub, counts) in [
            ("tasks", true),
            ("completed", true),
            ("archive/tasks", false),
        ] {
            let dir = self.dir().join(sub);
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.filter_map(Result::ok) {
                let name = entry.file_name().to_string_lossy().into_owned();
                if !name.starts_with("task-")
                    || !Path::new(&name)
                        .extension()
                        .is_some_and(|e| e.eq_ignore_ascii_case("md"))
                {
                    continue;
                }
                let Ok(text) = std::fs::read_to_string(entry.path()) else {
                    continue;
                };
                let number = frontmatter(&text, "id")
                    .and_then(|id| task_number(&id))
                    .or_else(|| task_number(&name));
                if counts {
                    highest = highest.max(number.unwrap_or(0));
                }
                if let Some(fp) = group_fingerprint(&text) {
                    found.entry(fp).or_insert_with(|| ExistingTask {
                        task_id: number.map_or_else(|| name.clone(), |n| format!("task-{n}")),
                        file: format!("backlog/{sub}/{name}"),
                        title: frontmatter(&text, "title").unwrap_or_default(),
                        priority: frontmatter(&text, "priority").filter(|p| !p.is_empty()),
                    });
                }
            }
        }
        Ok((highest, found))
    }

    /// Writes one task per group unless a task with the group's fingerprint exists; numbers
    /// continue after the highest existing one. Creates `backlog/config.yml` when missing.
    pub fn write(
        &self,
        tasks: &[TaskToWrite],
        created: u64,
    ) -> Result<Vec<TaskRecord>, ReportError> {
        let (mut highest, existing) = self.scan()?;
        let tasks_dir = self.dir().join("tasks");
        let mut records = Vec::new();
        for task in tasks {
            if let Some(found) = existing.get(&task.fingerprint) {
                records.push(TaskRecord {
                    group: task.group.clone(),
                    task_id: found.task_id.clone(),
                    file: found.file.clone(),
                    title: found.title.clone(),
                    existing: true,
                    priority: found.priority.clone(),
                });
                continue;
            }
            if records.is_empty() || !tasks_dir.is_dir() {
                self.prepare(&tasks_dir)?;
            }
            highest += 1;
            let file = BacklogTask {
                number: highest,
                draft: task.draft.clone(),
                created,
                group_fingerprint: task.fingerprint.clone(),
                footer: task.footer.clone(),
                plan: task.plan.clone(),
            };
            let name = file.file_name();
            write_atomic(&tasks_dir.join(&name), file.render().as_bytes())?;
            records.push(TaskRecord {
                group: task.group.clone(),
                task_id: format!("task-{highest}"),
                file: format!("backlog/tasks/{name}"),
                title: task.draft.title.clone(),
                existing: false,
                priority: task.draft.priority.clone(),
            });
        }
        Ok(records)
    }

    fn prepare(&self, tasks_dir: &Path) -> Result<(), ReportError> {
        std::fs::create_dir_all(tasks_dir).map_err(|e| ReportError::io("create", tasks_dir, e))?;
        let config = self.dir().join("config.yml");
        if !config.exists() {
            let name = self.root.file_name().map_or_else(
                || "project".to_owned(),
                |n| n.to_string_lossy().into_owned(),
            );
            let quoted = serde_json::Value::String(name).to_string();
            let text = format!("project_name: {quoted}\n{DEFAULT_CONFIG}");
            write_atomic(&config, text.as_bytes())?;
        }
        Ok(())
    }
}

/// The value of a top-level frontmatter key, unquoted.
fn frontmatter(text: &str, key: &str) -> Option<String> {
    let body = text.strip_prefix("---\n")?;
    let end = body.find("\n---")?;
    body[..end].lines().find_map(|line| {
        let value = line.strip_prefix(key)?.strip_prefix(':')?.trim();
        let unquoted = serde_json::from_str::<String>(value).ok().or_else(|| {
            Some(
                value
                    .trim_matches('\'')
                    .replace("''", "'")
                    .trim_matches('"')
                    .to_owned(),
            )
        })?;
        Some(unquoted)
    })
}

/// `TASK-12`, `task-12`, `task-12 - Title.md` → 12.
fn task_number(text: &str) -> Option<u64> {
    let rest = text.get(5..)?;
    if !text[..5].eq_ignore_ascii_case("task-") {
        return None;
    }
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

fn group_fingerprint(text: &str) -> Option<String> {
    let start = text.find(GROUP_MARKER)? + GROUP_MARKER.len();
    let end = start + text[start..].find("-->")?;
    Some(text[start..end].trim().to_owned())
}
