//! The fix queue (`fix.json`): which task runs, which is next, which were asked for.

use self_repair_fix::{FIX_QUEUE_SCHEMA_VERSION, FixQueue, FixStatus, QueuedTask};

fn task(id: &str, status: FixStatus) -> QueuedTask {
    QueuedTask {
        task_id: id.to_owned(),
        title: format!("task {id}"),
        file: format!("backlog/tasks/{id}.md"),
        status,
        repair_run: None,
        base: None,
        handoff: None,
        reason: None,
        commit: None,
    }
}

fn queue(tasks: Vec<QueuedTask>, asked: &[&str]) -> FixQueue {
    FixQueue {
        schema_version: FIX_QUEUE_SCHEMA_VERSION,
        run: "r".to_owned(),
        self_repair: "self-repair".to_owned(),
        test: None,
        detector: None,
        commit: false,
        allow_config: false,
        tiers: None,
        max_attempts: None,
        tasks,
        asked: asked.iter().map(|a| (*a).to_owned()).collect(),
    }
}

#[test]
fn the_running_task_the_next_open_one_and_the_asked_ones_are_found_by_status_and_id() {
    let tasks = vec![
        task("t-1", FixStatus::Fixed),
        task("t-2", FixStatus::Quarantined),
        task("t-3", FixStatus::Running),
        task("t-4", FixStatus::NotReproduced),
        task("t-5", FixStatus::Open),
    ];
    let all = queue(tasks.clone(), &[]);
    assert_eq!(all.running(), Some(2));
    assert_eq!(all.next_open(), Some(4));
    assert_eq!(all.asked_tasks().count(), 5);
    let some = queue(tasks, &["t-2", "t-5"]);
    let asked: Vec<&str> = some.asked_tasks().map(|t| t.task_id.as_str()).collect();
    assert_eq!(asked, ["t-2", "t-5"]);
    let idle = queue(vec![task("t-1", FixStatus::Fixed)], &[]);
    assert_eq!((idle.running(), idle.next_open()), (None, None));
}

#[test]
fn each_status_has_its_name() {
    let cases = [
        (FixStatus::Open, "open"),
        (FixStatus::Running, "running"),
        (FixStatus::Fixed, "fixed"),
        (FixStatus::Quarantined, "quarantined"),
        (FixStatus::NotReproduced, "not reproduced"),
    ];
    for (status, name) in cases {
        assert_eq!(status.as_str(), name);
    }
}
