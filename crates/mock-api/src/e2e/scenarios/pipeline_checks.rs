//! Assertions shared by the scenarios that drive a run to the end: complete, every item
//! submitted once, tasks written once and listed by the real backlog CLI.

use std::collections::BTreeSet;
use std::fs;

use serde_json::{Value, json};

use crate::e2e::claude_run::{ClaudeOptions, ClaudeOutcome};
use crate::e2e::e2e_error::E2eError;
use crate::e2e::e2e_project::E2eProject;
use crate::e2e::run_files::{field, items_of};
use crate::e2e::scenarios::ScenarioContext;
use crate::mock_server::MockServer;
use crate::scenario::Scenario;
use crate::show_output::ShowOutput;

/// The prompt that starts run `run` in the session (the main thread runs the `$` line).
pub(crate) fn start_prompt(run: &str) -> String {
    format!("Start the self-repair run.\n$ self-repair start findings.jsonl --run-id {run}")
}

/// Serves `scenario`, runs `claude -p` with the start prompt of `run` in `project` until it
/// exits, and checks it exited 0; returns the server (its records) and the outcome.
pub(crate) fn start_and_wait(
    ctx: &mut ScenarioContext,
    project: &E2eProject,
    scenario: Scenario,
    run: &str,
) -> Result<(MockServer, ClaudeOutcome), E2eError> {
    let server = MockServer::start_recording(scenario, &project.records_path(1))?;
    let outcome = project
        .claude(
            &server.base_url(),
            &start_prompt(run),
            &ClaudeOptions::default(),
        )?
        .wait(ctx.claude_timeout())?;
    ctx.checks.that(outcome.succeeded(), || {
        format!("claude -p: {}", outcome.describe())
    });
    Ok((server, outcome))
}

/// The aggregate item's slice split into two root-cause groups (so the run writes two tasks),
/// and task titles that name their writer item.
fn two_groups(show: &ShowOutput) -> Option<Value> {
    match show.kind.as_str() {
        "aggregate" => {
            let ids: Vec<Value> = show
                .output_schema
                .pointer("/properties/groups/items/properties/items/items/enum")?
                .as_array()?
                .clone();
            let half = ids.len().div_ceil(2);
            let (first, second) = ids.split_at(half);
            let mut groups = vec![json!({"label": "unused imports and code",
                "root_cause": "code left behind by refactors", "items": first})];
            if !second.is_empty() {
                groups.push(json!({"label": "loose comparisons",
                    "root_cause": "comparisons written without the idiom", "items": second}));
            }
            Some(json!({ "groups": groups }))
        }
        "write_task" => Some(json!({
            "title": format!("Fix the root cause of {}", show.item),
            "description": format!("What to change for {}, and why it matters.", show.item),
            "acceptance_criteria": ["the analyzer reports none of these findings"],
        })),
        _ => None,
    }
}

/// The default scripted model plus [`two_groups`].
pub(crate) fn pipeline_scenario() -> Scenario {
    Scenario::new().results(two_groups)
}

/// Checks the run reached `complete` with `findings` triage items, every item `done` but
/// those in `quarantined` (which must be quarantined), each submitted at most once (done
/// ones exactly once), and tasks written once. Returns the final state.
pub(crate) fn check_complete_once(
    ctx: &mut ScenarioContext,
    project: &E2eProject,
    run: &str,
    findings: usize,
    quarantined: &[&str],
) -> Result<Value, E2eError> {
    check_complete(ctx, project, run, findings, quarantined, &[])
}

/// [`check_complete_once`], where each item of `rerouted` has exactly two `submitted` events:
/// its `unsure` + `reroute` answer and the re-routed agent's verdict.
pub(crate) fn check_complete(
    ctx: &mut ScenarioContext,
    project: &E2eProject,
    run: &str,
    findings: usize,
    quarantined: &[&str],
    rerouted: &[&str],
) -> Result<Value, E2eError> {
    let files = project.run(run);
    let state = files.state()?;
    ctx.checks
        .equal("run status", &field(&state, "/status"), &"complete");
    let items = items_of(&state);
    let triage = items.iter().filter(|(_, _, kind)| kind == "triage").count();
    ctx.checks.equal("triage items", &triage, &findings);
    let submitted = files.submitted();
    let by_batch = crate::e2e::run_files::decided_by_batch(&state);
    for (id, status, _) in &items {
        let want = if quarantined.contains(&id.as_str()) {
            "quarantined"
        } else {
            "done"
        };
        ctx.checks.that(status == want, || {
            format!("item {id} is {status}, expected {want}")
        });
        let n = submitted.get(id).copied().unwrap_or(0);
        // Two for a re-routed item; none for a finding its batch's result decided.
        let once = if rerouted.contains(&id.as_str()) {
            2
        } else {
            usize::from(!by_batch.contains(id))
        };
        let ok = if want == "done" { n == once } else { n == 0 };
        ctx.checks.that(ok, || {
            format!("item {id} ({status}) has {n} `submitted` journal events")
        });
    }
    let known: BTreeSet<&str> = items.iter().map(|(id, _, _)| id.as_str()).collect();
    for id in submitted.keys() {
        ctx.checks.that(known.contains(id.as_str()), || {
            format!("journal has a submission for unknown item {id}")
        });
    }
    check_tasks(ctx, project, &state)?;
    Ok(state)
}

/// Tasks: the state's list, the files in `backlog/tasks/` and the backlog CLI's list agree,
/// with no title twice.
pub(crate) fn check_tasks(
    ctx: &mut ScenarioContext,
    project: &E2eProject,
    state: &Value,
) -> Result<(), E2eError> {
    let state_tasks = state
        .get("tasks")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    ctx.checks
        .that(state_tasks > 0, || "the run wrote no task".to_owned());
    if state_tasks == 0 {
        return Ok(());
    }
    let dir = project.path().join("backlog/tasks");
    // No folder: no task was written (the count check below says so).
    let files = fs::read_dir(&dir).map_or(0, |entries| {
        entries
            .filter_map(Result::ok)
            .filter(|e| e.path().extension().is_some_and(|x| x == "md"))
            .count()
    });
    ctx.checks
        .equal("task files in backlog/tasks", &files, &state_tasks);
    let listed = project.backlog_tasks()?;
    ctx.checks.equal(
        "tasks listed by `backlog task list --json`",
        &listed.len(),
        &state_tasks,
    );
    let titles: Vec<&str> = listed
        .iter()
        .filter_map(|t| t.get("title").and_then(Value::as_str))
        .collect();
    let unique: BTreeSet<&&str> = titles.iter().collect();
    ctx.checks
        .equal("distinct task titles", &unique.len(), &titles.len());
    Ok(())
}

/// Checks no item was launched twice; returns the launched ids.
pub(crate) fn check_no_duplicate_launch(ctx: &mut ScenarioContext, launched: &[String]) {
    let mut seen = BTreeSet::new();
    for id in launched {
        ctx.checks.that(seen.insert(id), || {
            format!("item {id} was launched twice (Agent tool_use in the recorded requests)")
        });
    }
}
