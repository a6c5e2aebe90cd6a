//! The task a fix works on: its backlog record, its group and the group's findings.

use std::collections::BTreeSet;

use self_repair_engine::{FindingRecord, Group, RunState, TaskRecord};

use crate::FixError;

/// One task of a triage run, with what the composite check needs to judge it.
#[derive(Debug, Clone)]
pub struct TaskTarget {
    pub task: TaskRecord,
    pub group: Group,
    /// The group's findings (those investigated by the group's triage items).
    pub findings: Vec<FindingRecord>,
}

impl TaskTarget {
    /// The task `task_id` (`task-3`, `TASK-3` or `3`) of the run, with its group's findings.
    pub fn find(
        state: &RunState,
        findings: &[FindingRecord],
        task_id: &str,
    ) -> Result<TaskTarget, FixError> {
        let wanted = normalize_task_id(task_id);
        let Some(task) = state
            .tasks
            .iter()
            .find(|t| normalize_task_id(&t.task_id) == wanted)
        else {
            let known: Vec<&str> = state.tasks.iter().map(|t| t.task_id.as_str()).collect();
            return Err(FixError::NotFound(if known.is_empty() {
                format!(
                    "run {} wrote no task: finish its triage first (`self-repair status --run {}`)",
                    state.run, state.run
                )
            } else {
                format!(
                    "no task `{task_id}` in run {}: its tasks are {}",
                    state.run,
                    known.join(", ")
                )
            }));
        };
        let Some(group) = state.groups.iter().find(|g| g.id == task.group) else {
            return Err(FixError::NotFound(format!(
                "task {} names group {}, which run {} does not hold: run `self-repair doctor --run {}`",
                task.task_id, task.group, state.run, state.run
            )));
        };
        let members: BTreeSet<&str> = group.members.iter().map(String::as_str).collect();
        let findings: Vec<FindingRecord> = findings
            .iter()
            .filter(|r| r.item.as_deref().is_some_and(|i| members.contains(i)))
            .cloned()
            .collect();
        Ok(TaskTarget {
            task: task.clone(),
            group: group.clone(),
            findings,
        })
    }

    /// The files the group's findings are in.
    pub fn files(&self) -> BTreeSet<String> {
        self.findings
            .iter()
            .flat_map(|r| {
                std::iter::once(r.finding.path.clone())
                    .chain(r.occurrences.iter().map(|o| o.path.clone()))
            })
            .collect()
    }

    /// True when every finding carries the analyzer's safe fix: the autofix step comes first.
    pub fn all_safe_fixes(&self) -> bool {
        !self.findings.is_empty() && self.findings.iter().all(|r| r.finding.has_safe_fix())
    }

    /// True when every finding's safe fix kept its edits: `apply-fixes` can apply them all.
    pub fn all_fix_edits(&self) -> bool {
        self.all_safe_fixes()
            && self
                .findings
                .iter()
                .all(|r| r.finding.fix.as_ref().is_some_and(|f| !f.edits.is_empty()))
    }

    /// The tools that reported the group's findings.
    pub fn tools(&self) -> BTreeSet<String> {
        self.findings
            .iter()
            .map(|r| r.finding.tool.clone())
            .collect()
    }
}

/// `task-3`, `TASK-3` and `3` all name task 3.
fn normalize_task_id(id: &str) -> String {
    let lower = id.trim().to_ascii_lowercase();
    match lower.strip_prefix("task-") {
        Some(rest) => rest.to_owned(),
        None => lower,
    }
}

#[cfg(test)]
mod tests {
    use super::normalize_task_id;

    #[test]
    fn task_ids_match_whatever_the_case_or_prefix() {
        assert_eq!(normalize_task_id("TASK-12"), normalize_task_id("task-12"));
        assert_eq!(normalize_task_id("12"), normalize_task_id("task-12"));
        assert_ne!(normalize_task_id("task-1"), normalize_task_id("task-12"));
    }
}
