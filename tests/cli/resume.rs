//! Resume: a second session adopts a half-done run and finishes it; nothing is done twice.

use serde_json::Value;

use crate::harness::TestProject;
use crate::pipeline::{drive, started, submissions};
use crate::scripted_agent::ScriptedAgent;
use self_repair_app::ExitStatus;

#[test]
fn a_second_session_adopts_a_half_done_run_and_finishes_it_without_duplicates() {
    let project: TestProject = started(30);
    let agent = ScriptedAgent {
        project: &project,
        run: "r-test".into(),
    };
    // Session 1 works through 16 items, launches 8 more, then dies with them in flight.
    let first = drive(&project, &agent, "s1", 24);
    assert_eq!(first.launches.len(), 24);

    let adopt = project
        .cmd(&["adopt", "--session", "session-2"])
        .run()
        .success();
    assert!(adopt.stdout.contains("session-2"), "{}", adopt.stdout);
    // The dead session's stops no longer drive anything.
    assert_eq!(project.stop("s1", &[]).stdout, "");

    let second = drive(&project, &agent, "session-2", usize::MAX);
    assert!(second.final_message.unwrap().contains("complete"));
    let counts = submissions(&project, "r-test");
    assert!(
        counts.values().all(|n| *n == 1),
        "an item was submitted twice: {counts:?}"
    );
    for id in &first.launches[..16] {
        assert!(
            !second.launches.contains(id),
            "{id} was done by session 1 and run again"
        );
    }
    let state: Value =
        serde_json::from_str(&project.read(".self-repair/runs/r-test/state.json")).unwrap();
    let tasks = state["tasks"].as_array().unwrap();
    let files = std::fs::read_dir(project.path().join("backlog/tasks"))
        .unwrap()
        .count();
    assert_eq!(files, tasks.len(), "no task written twice");

    // Finalizing again (a resumed or repeated finalize) writes nothing new.
    project.cmd(&["finalize"]).run().success();
    assert_eq!(
        std::fs::read_dir(project.path().join("backlog/tasks"))
            .unwrap()
            .count(),
        files
    );
}

#[test]
fn adopt_outside_claude_code_without_a_session_says_what_to_do() {
    let project = started(2);
    let out = project.terminal(&["adopt"]).run().code(ExitStatus::Usage);
    assert!(
        out.stderr.contains("CLAUDE_CODE_SESSION_ID"),
        "{}",
        out.stderr
    );
    let out = project
        .cmd(&["adopt"])
        .env("CLAUDE_CODE_SESSION_ID", "env-session")
        .run()
        .success();
    assert!(out.stdout.contains("env-session"));
}
