//! Groups the analyzer fixes itself get a task written by code, with no planning agent; small
//! groups get one plan and one review (design notes 21 and 22).

use serde_json::Value;

use crate::harness::{TestProject, filters};
use crate::pipeline::drive;
use crate::scripted_agent::ScriptedAgent;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/formats");

/// Ruff's real JSON on `mod.py`: F401 with a safe fix, E711 with an unsafe one.
fn ruff_project() -> TestProject {
    let project = TestProject::new();
    let read = |name: &str| std::fs::read_to_string(format!("{FIXTURES}/{name}")).unwrap();
    project.write("mod.py", &read("python-input-mod.py"));
    project.write("ruff.json", &read("ruff-0.17.6.json"));
    project
        .cmd(&[
            "start",
            "ruff.json",
            "--run-id",
            "r-test",
            "--base",
            "/home/dev/samples/py",
        ])
        .run()
        .success();
    project
}

#[test]
fn a_group_whose_findings_all_have_a_safe_analyzer_fix_gets_a_code_written_task_and_no_planner() {
    let project = ruff_project();
    let settings = filters(&project);
    let _guard = settings.bind_to_scope();
    let agent = ScriptedAgent {
        project: &project,
        run: "r-test".into(),
    };
    let driven = drive(&project, &agent, "s1", usize::MAX);
    let state = crate::harness::run_state(&project, "r-test");
    assert_eq!(state.status, self_repair_engine::RunStatus::Complete);
    // g1: F401 (safe fix) → by code; g2: E711 (unsafe fix), one finding → light.
    let depths: Vec<&str> = state.groups.iter().map(|g| g.depth.as_str()).collect();
    assert_eq!(depths, ["analyzer_fix", "light"]);
    let plan_phase: Vec<&str> = driven
        .launches
        .iter()
        .map(String::as_str)
        .filter(|id| {
            !["t-", "agg-", "ml-", "rr-"]
                .iter()
                .any(|prefix| id.starts_with(prefix))
        })
        .collect();
    assert_eq!(plan_phase, ["plan-g2-1", "rev-g2-1", "tw-g2"]);

    assert_eq!(state.tasks.len(), 2);
    let by_code = &state.tasks[0];
    assert_eq!(by_code.group, "g1");
    insta::assert_snapshot!("analyzer_fix_task_file", project.read(&by_code.file));

    // The light group's reviewer and task writer read the one plan (there is no synthesis).
    let review = agent.show("rev-g2-1");
    let prompt = review["prompt"].as_str().unwrap();
    assert!(
        prompt.contains("The group's only plan (plan-g2-1)")
            && prompt.contains("Scripted markdown long enough"),
        "{prompt}"
    );
    let writer = agent.show("tw-g2")["prompt"].as_str().unwrap().to_owned();
    assert!(
        writer.contains("The group's only plan (plan-g2-1)"),
        "{writer}"
    );

    let report: Value =
        serde_json::from_str(&project.read(".self-repair/runs/r-test/report.json")).unwrap();
    let plans: Vec<&Value> = report["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| &g["plan"])
        .collect();
    assert_eq!(plans, ["analyzer_fix", "light"]);
    let markdown = project.read(".self-repair/runs/r-test/report.md");
    assert!(
        markdown.contains("| by code: the analyzer's safe fixes | task-1"),
        "{markdown}"
    );

    // A first-class Backlog.md task: the real CLI lists it with its criteria (feature
    // `real-tools`: the real npm CLI, run by `just e2e`).
    #[cfg(feature = "real-tools")]
    {
        let listed = crate::backlog_cli::backlog_task_list(project.path());
        let entry = listed["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["id"] == "TASK-1")
            .unwrap_or_else(|| panic!("TASK-1 not listed: {listed}"));
        assert_eq!(entry["title"], by_code.title.as_str());
        assert_eq!(entry["acceptanceCriteriaCount"], 2, "{entry}");
    }

    // Deduplicated like every task: the same findings again write nothing new.
    std::fs::remove_file(project.path().join(".self-repair/known.json")).unwrap();
    project
        .cmd(&[
            "start",
            "ruff.json",
            "--run-id",
            "r-again",
            "--base",
            "/home/dev/samples/py",
        ])
        .run()
        .success();
    let again = ScriptedAgent {
        project: &project,
        run: "r-again".into(),
    };
    drive(&project, &again, "s2", usize::MAX);
    let state = crate::harness::run_state(&project, "r-again");
    assert!(state.tasks.iter().all(|t| t.existing), "{:?}", state.tasks);
    let files = std::fs::read_dir(project.path().join("backlog/tasks"))
        .unwrap()
        .count();
    assert_eq!(files, 2);
}
