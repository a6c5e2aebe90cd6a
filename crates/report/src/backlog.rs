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
        // Before the first new task: the folder and `config.yml` (whatever tasks exist).
        let mut prepared = false;
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
            if !prepared {
                self.prepare(&tasks_dir)?;
                prepared = true;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn task_file(id: &str, title: &str, priority: &str, group: Option<&str>) -> String {
        let marker = group.map_or_else(String::new, |g| format!("\n{GROUP_MARKER}{g} -->\n"));
        format!(
            "---\nid: {id}\ntitle: \"{title}\"\nstatus: To Do\npriority: {priority}\n---\n\n## Description\n{marker}"
        )
    }

    fn write(root: &Path, path: &str, text: &str) {
        let path = root.join("backlog").join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn draft(title: &str) -> TaskDraft {
        TaskDraft {
            title: title.into(),
            description: "d".into(),
            acceptance_criteria: vec!["c".into()],
            labels: Vec::new(),
            priority: Some("high".into()),
        }
    }

    #[test]
    fn a_scan_numbers_after_tasks_and_completed_and_finds_groups_everywhere() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        write(
            r,
            "tasks/task-3 - A.md",
            &task_file("TASK-3", "A", "high", Some("g1")),
        );
        write(
            r,
            "completed/task-7 - B.md",
            &task_file("task-7", "B", "", None),
        );
        // No id in its frontmatter: the file name's number.
        write(
            r,
            "tasks/task-5 - C.md",
            "no frontmatter\n<!-- self-repair:group=g3 -->\n",
        );
        // Archived: its group counts, its number does not.
        write(
            r,
            "archive/tasks/task-12 - D.md",
            &task_file("TASK-12", "D", "", Some("g2")),
        );
        // Not tasks: another name, another extension.
        write(
            r,
            "tasks/notes.md",
            &task_file("TASK-40", "N", "", Some("g4")),
        );
        write(
            r,
            "tasks/task-41.txt",
            &task_file("TASK-41", "T", "", Some("g5")),
        );
        let (highest, found) = Backlog::new(r).scan().unwrap();
        assert_eq!(highest, 7);
        let mut groups: Vec<&str> = found.keys().map(String::as_str).collect();
        groups.sort_unstable();
        assert_eq!(groups, ["g1", "g2", "g3"]);
        assert_eq!(
            found["g1"],
            ExistingTask {
                task_id: "task-3".into(),
                file: "backlog/tasks/task-3 - A.md".into(),
                title: "A".into(),
                priority: Some("high".into()),
            }
        );
        assert_eq!(found["g2"].task_id, "task-12");
        assert_eq!(found["g2"].priority, None, "an empty priority is none");
        assert_eq!(found["g3"].task_id, "task-5");
        assert_eq!(found["g3"].title, "");
    }

    /// `write` made `config.yml` only when the first task of the call was new: a run whose
    /// first group already had a task wrote the others into a backlog the CLI did not read.
    #[test]
    fn config_is_written_even_when_the_first_group_already_has_a_task() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        write(
            r,
            "tasks/task-3 - A.md",
            &task_file("TASK-3", "A", "low", Some("g1")),
        );
        let tasks = ["g1", "g2"].map(|group| TaskToWrite {
            group: group.into(),
            draft: draft(group),
            fingerprint: group.into(),
            footer: String::new(),
            plan: None,
        });
        Backlog::new(r).write(&tasks, 0).unwrap();
        assert!(r.join("backlog/config.yml").is_file());
    }

    #[test]
    fn tasks_are_written_once_a_group_numbered_on_with_a_config_for_the_cli() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        write(
            r,
            "tasks/task-3 - A.md",
            &task_file("TASK-3", "A", "low", Some("g1")),
        );
        let to_write = |group: &str, title: &str| TaskToWrite {
            group: format!("group {group}"),
            draft: draft(title),
            fingerprint: group.into(),
            footer: String::new(),
            plan: None,
        };
        let backlog = Backlog::new(r);
        let records = backlog
            .write(
                &[
                    to_write("g1", "A"),
                    to_write("g2", "B"),
                    to_write("g3", "C"),
                ],
                0,
            )
            .unwrap();
        let ids: Vec<(&str, bool)> = records
            .iter()
            .map(|t| (t.task_id.as_str(), t.existing))
            .collect();
        assert_eq!(
            ids,
            [("task-3", true), ("task-4", false), ("task-5", false)]
        );
        assert_eq!(records[0].priority.as_deref(), Some("low"));
        assert_eq!(records[1].file, "backlog/tasks/task-4 - B.md");
        assert!(r.join("backlog/tasks/task-5 - C.md").is_file());
        let config = std::fs::read_to_string(r.join("backlog/config.yml")).unwrap();
        assert!(config.starts_with("project_name: \""), "{config}");
        // Written again: nothing new.
        let again = backlog.write(&[to_write("g2", "B")], 0).unwrap();
        assert_eq!(
            (again[0].task_id.as_str(), again[0].existing),
            ("task-4", true)
        );
    }

    #[test]
    fn a_task_number_is_read_from_an_id_or_a_file_name() {
        for (text, number) in [
            ("TASK-12", Some(12)),
            ("task-12 - Title.md", Some(12)),
            ("task-", None),
            ("tusk-12", None),
            ("task", None),
        ] {
            assert_eq!(task_number(text), number, "{text}");
        }
        assert_eq!(
            group_fingerprint("a <!-- self-repair:group= abc --> b").as_deref(),
            Some("abc")
        );
        assert_eq!(group_fingerprint("<!-- self-repair:group=abc"), None);
        assert_eq!(
            frontmatter("---\ntitle: 'it''s'\nid: \"TASK-1\"\n---\n", "title").as_deref(),
            Some("it's")
        );
        assert_eq!(frontmatter("title: x\n", "title"), None);
    }
}
