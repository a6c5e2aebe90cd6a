//! Measurement, not a check (`cargo test --test cli corpus_plan_depth -- --ignored
//! --nocapture`): the Jinja2 corpus driven to the end by the demo's simulated agent (one
//! root-cause group per rule), printing the plan phase's agent items by group depth, against
//! what full depth for every group (before design notes 21 and 22) would have created.

use std::path::{Path, PathBuf};

use self_repair_app::CommandEnv;
use self_repair_app::commands::demo::simulated_agent::SimulatedAgent;
use self_repair_app::commands::show::show;
use self_repair_app::commands::start::StartOptions;
use self_repair_app::commands::start::start;
use self_repair_app::commands::submit::submit;
use self_repair_app::hooks::stop::hook_stop;
use self_repair_app::run::finalize::read_findings;
use self_repair_app::run::load::load_folded;
use self_repair_engine::{Dispatch, PlanDepth};
use self_repair_store::Project;

const CORPUS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/corpus/jinja2-3.1.6"
);

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Drives `input` (a Ruff JSON file of the corpus, made in `base`) to the end; prints counts.
fn measure(input: &str, base: &str) {
    let dir = tempfile::tempdir().unwrap();
    let root: PathBuf = dir.path().to_path_buf();
    copy_dir(&Path::new(CORPUS).join("src"), &root.join("src"));
    std::fs::create_dir_all(root.join(".self-repair")).unwrap();
    std::fs::write(root.join(".self-repair/config.json"), r#"{"fan_out": 20}"#).unwrap();
    let env = CommandEnv {
        cwd: root.clone(),
        now: 1_795_339_805,
        session: Some("measure".to_owned()),
        project_dir: None,
        home: None,
        project: Some(root.clone()),
        ..CommandEnv::default()
    };
    let started = start(
        &env,
        &StartOptions {
            files: vec![Path::new(CORPUS).join(input)],
            base: Some(PathBuf::from(base)),
            run_id: Some("r-measure".to_owned()),
            ..StartOptions::default()
        },
    )
    .unwrap();
    let project = Project::at(root.clone());
    let run_dir = project.run(&started.run).unwrap();
    let findings = read_findings(&run_dir).unwrap();
    let stdin = serde_json::json!({"session_id": "measure", "hook_event_name": "Stop",
        "stop_hook_active": true, "cwd": root, "background_tasks": []})
    .to_string();
    for _ in 0..100_000 {
        let answer = hook_stop(&env, stdin.as_bytes());
        let Some(stdout) = answer.stdout else { break };
        let value: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        let Some(dispatch) =
            self_repair_engine::continuation(&value).and_then(Dispatch::parse_reason)
        else {
            break;
        };
        let state = load_folded(&run_dir, false).unwrap();
        let agent = SimulatedAgent {
            state: &state,
            findings: &findings,
        };
        for launch in &dispatch.launch {
            let id = launch.prompt.split_whitespace().nth(2).unwrap_or_default();
            let shown = show(&project, &run_dir, &state, id).unwrap();
            if submit(&run_dir, id, &agent.answer(&shown), env.now).is_err() {
                // The simulated rule reviewer proposes one rule per rule id: more than the
                // schema's 50 on this corpus. No proposal changes the plan phase.
                submit(&run_dir, id, r#"{"rules": []}"#, env.now).unwrap();
            }
        }
    }
    let state = load_folded(&run_dir, false).unwrap();
    let planned: Vec<_> = state.groups.iter().filter(|g| g.planned).collect();
    let count = |d: PlanDepth| planned.iter().filter(|g| g.depth == d).count();
    let plan_items = state
        .items
        .iter()
        .filter(|i| i.kind.phase() == self_repair_engine::Phase::Plan)
        .count();
    let before = planned.len() * PlanDepth::Full.agent_items(&state.config) as usize;
    let agents: usize = state.items.len();
    // What other values of `full_plan_min` would have created, from the same groups.
    let security = |g: &self_repair_engine::Group| {
        g.members
            .iter()
            .any(|m| state.item(m).and_then(|i| i.route.as_deref()) == Some("security"))
    };
    let light = PlanDepth::Light.agent_items(&state.config) as usize;
    let full = PlanDepth::Full.agent_items(&state.config) as usize;
    let by_threshold: Vec<String> = [1, 3, 5, 10, 20, 50]
        .iter()
        .map(|&t| {
            let items: usize = planned
                .iter()
                .filter(|g| g.depth != PlanDepth::AnalyzerFix)
                .map(|g| {
                    if security(g) || g.members.len() >= t {
                        full
                    } else {
                        light
                    }
                })
                .sum();
            format!("{t}: {items}")
        })
        .collect();
    println!(
        "{input}: plan-phase agent items by full_plan_min: {}",
        by_threshold.join(", ")
    );
    println!(
        "{input}: status {}, {} unique findings, {} triage items, {} groups ({} full, {} light, {} by code), {} tasks; plan-phase agent items {plan_items} (full depth for every group: {before}); all agent items {agents} (with full depth: {})",
        state.status.as_str(),
        findings.len(),
        state.triage_items,
        planned.len(),
        count(PlanDepth::Full),
        count(PlanDepth::Light),
        count(PlanDepth::AnalyzerFix),
        state.tasks.len(),
        agents - plan_items + before,
    );
}

#[test]
#[ignore = "a measurement: minutes on the 2,221-finding corpus"]
fn plan_items_by_depth_on_the_corpus() {
    measure("ruff-0.17.6-select-all.json", "/tmp/corpus/jinja2-3.1.6");
}

#[test]
#[ignore = "a measurement: minutes on the 2,241-finding corpus"]
fn plan_items_by_depth_on_the_corpus_with_safe_fixes() {
    measure(
        "ruff-0.17.6-select-all-isolated.json",
        "/tmp/corpus/jinja2-3.1.6",
    );
}
