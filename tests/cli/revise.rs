//! The revise step through the binary (design note 35): a review's must-fix points and a rework
//! verdict reach `rv-g1`, whose task lists them and whose schema asks for one answer each; the
//! revised plan, with what became of each point, is the task file's Implementation Plan.

use serde_json::{Value, json};

use crate::harness::{TestProject, filters, jsonl_findings};
use crate::scripted_agent::{ScriptedAgent, next_wave};

/// The reviews of group 1 ask for a rework and two fixes; every other review approves.
fn review(id: &str) -> String {
    match id {
        "rev-g1-1" => {
            "## Verdict\nrework: the plan deletes the imports, but `m0.py` re-exports them.\n\n\
                       ## Must fix\nnone\n\n## Checked\n`src/m0.py`"
                .to_owned()
        }
        "rev-g1-2" => {
            "## Verdict\napprove with changes, two steps are incomplete.\n\n## Must fix\n\
                       1. Step 1: keep `sym0`, `src/m1.py` imports it from `m0`.\n\
                       2. Step 3: name the test that imports every module.\n\n\
                       ## Should consider\nnothing\n\n## Checked\n`src/m1.py`"
                .to_owned()
        }
        _ => format!(
            "## Verdict\napprove ({id}).\n\n## Must fix\nnone\n\n## Checked\nthe plan's files"
        ),
    }
}

/// What [`drive`] saw: every item launched, in order, the `show rv-g1` output of its dispatch
/// (text and JSON), and the `show tw-g1` text of the task writer's.
struct Driven {
    launches: Vec<String>,
    revise: Option<(String, Value)>,
    task_writer: Option<String>,
}

/// Drives the run to its end; answers reviews with [`review`], the rest with the scripted
/// agent.
fn drive(project: &TestProject, agent: &ScriptedAgent) -> Driven {
    let mut driven = Driven {
        launches: Vec::new(),
        revise: None,
        task_writer: None,
    };
    for _ in 0..200 {
        let Some(ids) = next_wave(project) else {
            break;
        };
        for id in &ids {
            if id.starts_with("rev-") {
                agent.submit(id, &review(id)).success();
                continue;
            }
            if id == "rv-g1" {
                let text = project.cmd(&["show", id]).run().success().stdout;
                driven.revise = Some((text, agent.show(id)));
            }
            if id == "tw-g1" {
                driven.task_writer = Some(project.cmd(&["show", id]).run().success().stdout);
            }
            agent.work(id).success();
        }
        driven.launches.extend(ids);
    }
    driven
}

#[test]
fn review_points_reach_the_revise_step_and_its_plan_reaches_the_task() {
    let project = TestProject::new();
    project.write(
        ".self-repair/config.json",
        r#"{"triage_batch": 1, "survey_min": 0, "full_plan_min": 2}"#,
    );
    project.write("findings.jsonl", &jsonl_findings(6));
    let settings = filters(&project);
    let _guard = settings.bind_to_scope();
    project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-rv"])
        .run()
        .success();
    let agent = ScriptedAgent {
        project: &project,
        run: "r-rv".into(),
    };
    let Driven {
        launches,
        revise: shown,
        task_writer,
    } = drive(&project, &agent);
    let at = |id: &str| {
        launches
            .iter()
            .position(|l| l == id)
            .unwrap_or_else(|| panic!("{id} never launched: {launches:?}"))
    };
    assert!(at("rev-g1-4") < at("rv-g1") && at("rv-g1") < at("tw-g1"));
    assert_eq!(launches.iter().filter(|l| *l == "rv-g1").count(), 1);
    // The other groups' reviews approve: their revise steps are settled without an agent.
    let state = crate::harness::run_state(&project, "r-rv");
    let revisions: Vec<(String, u32)> = state
        .items
        .iter()
        .filter(|i| i.kind == self_repair_engine::ItemKind::Revise)
        .map(|i| (i.id.to_string(), i.dispatches))
        .collect();
    assert!(revisions.len() > 1, "{revisions:?}");
    for (id, dispatches) in &revisions {
        assert_eq!(*dispatches, u32::from(id == "rv-g1"), "{id}");
    }
    assert!(
        state
            .items
            .iter()
            .all(|i| i.status == self_repair_engine::ItemStatus::Done),
        "every item done"
    );

    let (text, json) = shown.expect("rv-g1 was shown");
    insta::assert_snapshot!("revise_show", text);
    assert_eq!(json["model"], "opus");
    assert_eq!(json["agent"], "self-repair:plan-reviser");
    assert_eq!(
        json["output_schema"]["properties"]["points"]["items"]["properties"]["point"]["enum"],
        json!(["rev-g1-1.rework", "rev-g1-2.1", "rev-g1-2.2"])
    );

    // The task: the revised plan, and each point with what the revise step did with it.
    let state: Value =
        serde_json::from_str(&project.read(".self-repair/runs/r-rv/state.json")).unwrap();
    let task = state["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["group"] == "g1")
        .expect("a task for g1");
    let file = project.read(task["file"].as_str().unwrap());
    let plan = file
        .split("<!-- SECTION:PLAN:BEGIN -->\n")
        .nth(1)
        .and_then(|rest| rest.split("\n<!-- SECTION:PLAN:END -->").next())
        .expect("an Implementation Plan section");
    insta::assert_snapshot!("revise_task_plan", plan);
    // Fenced as data under its note (issue 40, item 3).
    assert!(
        plan.contains("as data: a proposal to check against the code")
            && plan.contains("```markdown\n## Summary\n\nScripted revised plan"),
        "{plan}"
    );
    assert!(!plan.contains("Scripted merged plan"), "{plan}");

    // The task writer reads each review's verdict and what became of each of its points.
    let writer = task_writer.expect("tw-g1 was shown");
    for line in [
        "Verdict: rework: the plan deletes the imports",
        "Verdict: approve with changes, two steps are incomplete.",
        "- rev-g1-1.rework: ",
        "- rev-g1-2.1: ",
        "- rev-g1-2.2: ",
    ] {
        assert!(writer.contains(line), "{line:?} in:\n{writer}");
    }
}

#[test]
fn a_revise_step_never_dispatched_takes_no_submission() {
    let project = TestProject::new();
    project.write(
        ".self-repair/config.json",
        r#"{"triage_batch": 1, "survey_min": 0}"#,
    );
    project.write("findings.jsonl", &jsonl_findings(1));
    project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-rv"])
        .run()
        .success();
    let body = json!({"plan": "x".repeat(50), "points": []}).to_string();
    let agent = ScriptedAgent {
        project: &project,
        run: "r-rv".into(),
    };
    let out = agent.submit("rv-g1", &body);
    assert_eq!(out.code, 8, "{}", out.stderr);
}
