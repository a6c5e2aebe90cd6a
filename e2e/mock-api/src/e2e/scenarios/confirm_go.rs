//! Issue 23 item 4, the user's go on the real client: a run whose likely cost is above
//! `confirm_above_usd` dispatches nothing, its session ends with the estimate line; after
//! `self-repair resume --confirm` (the user, from a terminal) the same session resumed
//! completes the run.

use serde_json::Value;

use crate::e2e::claude_run::ClaudeOptions;
use crate::e2e::e2e_error::E2eError;
use crate::e2e::e2e_project::{E2eProject, InstallMode};
use crate::e2e::records::launched_items;
use crate::e2e::run_files::field;
use crate::e2e::scenarios::ScenarioContext;
use crate::e2e::scenarios::pipeline_checks::{
    check_complete_once, check_no_duplicate_launch, pipeline_scenario,
};
use crate::mock_server::MockServer;

const RUN: &str = "r-go";
const FINDINGS: usize = 6;
/// A threshold every run passes: the 6 findings are likely about $1.5.
const CONFIG: &str = "{\"launch_mode\": \"foreground\", \"confirm_above_usd\": 0.5}\n";

/// Waits for the go, then completes after `resume --confirm`.
pub(crate) fn run(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let project = E2eProject::new(&ctx.tools, "confirm-go", InstallMode::Project, FINDINGS)?;
    project.write(".self-repair/config.json", CONFIG)?;
    let server1 = MockServer::start_recording(pipeline_scenario(), &project.records_path(1))?;
    let prompt =
        format!("Start the self-repair run.\n$ self-repair start findings.jsonl --run-id {RUN}");
    let first = project
        .claude(&server1.base_url(), &prompt, &ClaudeOptions::default())?
        .wait(ctx.claude_timeout())?;
    ctx.checks.that(first.succeeded(), || {
        format!("claude -p (session 1): {}", first.describe())
    });
    let result = first
        .json
        .get("result")
        .and_then(Value::as_str)
        .unwrap_or("");
    ctx.checks.that(
        result.contains(&format!("self-repair run {RUN} waits for your go"))
            && result.contains("likely")
            && result.contains("self-repair resume --confirm"),
        || format!("session 1 did not end with the estimate and the go: {result:?}"),
    );
    let files = project.run(RUN);
    let state = files.state()?;
    ctx.checks
        .equal("status before the go", &field(&state, "/status"), &"paused");
    ctx.checks
        .equal("paused by", &field(&state, "/pause/by"), &"confirm");
    let launched1 = launched_items(&server1.requests());
    ctx.checks
        .equal("agents launched before the go", &launched1.len(), &0);
    ctx.checks.that(files.submitted().is_empty(), || {
        "a submission before the go".to_owned()
    });

    // The model tries the go itself, headless: nothing pre-approves it (not SKILL.md, not
    // `install`), the gate leaves it to the client, and `-p` has no one to ask, so the client
    // refuses it and the run keeps waiting (issue 41).
    let session = first.session_id().unwrap_or_default();
    let server_try = MockServer::start_recording(pipeline_scenario(), &project.records_path(3))?;
    let tried = project
        .claude(
            &server_try.base_url(),
            &format!("Go ahead.\n$ self-repair resume --confirm --run {RUN}"),
            &ClaudeOptions {
                resume: Some(session.clone()),
                ..ClaudeOptions::default()
            },
        )?
        .wait(ctx.claude_timeout())?;
    let denied: Vec<String> = tried
        .json
        .get("permission_denials")
        .and_then(Value::as_array)
        .map(|all| all.iter().map(Value::to_string).collect())
        .unwrap_or_default();
    ctx.checks.that(
        denied.iter().any(|d| d.contains("resume --confirm")),
        || format!("the model's headless `resume --confirm` was not refused: {denied:?}"),
    );
    let state = files.state()?;
    ctx.checks.equal(
        "paused by, after the model's own go",
        &field(&state, "/pause/by"),
        &"confirm",
    );
    ctx.checks.equal(
        "agents launched after the model's own go",
        &launched_items(&server_try.requests()).len(),
        &0,
    );

    // The user's go, from a terminal; then the same session carries on.
    let go = project.self_repair_ok(&["resume", "--confirm", "--run", RUN])?;
    ctx.checks.that(go.contains("confirmed"), || {
        format!("resume --confirm said: {go:?}")
    });
    let server2 = MockServer::start_recording(pipeline_scenario(), &project.records_path(2))?;
    let second = project
        .claude(
            &server2.base_url(),
            "Carry on.",
            &ClaudeOptions {
                resume: Some(session),
                ..ClaudeOptions::default()
            },
        )?
        .wait(ctx.claude_timeout())?;
    ctx.checks.that(second.succeeded(), || {
        format!("claude -p (session 1, resumed): {}", second.describe())
    });
    check_complete_once(ctx, &project, RUN, FINDINGS, &[])?;
    let launched = launched_items(&server2.requests());
    check_no_duplicate_launch(ctx, &launched);
    ctx.notes.push(format!(
        "confirm-go: session 1 {:.1} s with 0 launches, after resume --confirm {} launches, {:.1} s",
        first.wall.as_secs_f64(),
        launched.len(),
        second.wall.as_secs_f64()
    ));
    Ok(())
}
