//! Real models' habits (issue 11): each scenario gives the scripted model one habit and the
//! pipeline must still complete, every item decided once, in foreground mode with no
//! `--allowedTools` (the permission gate decides the agents' commands).

use crate::e2e::claude_run::ClaudeOptions;
use crate::e2e::e2e_error::E2eError;
use crate::e2e::e2e_project::{E2eProject, InstallMode};
use crate::e2e::records::{item_models, launched_items};
use crate::e2e::scenarios::ScenarioContext;
use crate::e2e::scenarios::full_pipeline::FOREGROUND_CONFIG;
use crate::e2e::scenarios::pipeline_checks::{
    check_complete_once, pipeline_scenario, start_prompt,
};
use crate::mock_server::MockServer;
use crate::scenario::{MainHabit, Scenario};

const RUN: &str = "r-habit";
const FINDINGS: usize = 10;

/// Runs the pipeline with `scenario` until it completes; returns the launched item ids.
pub(crate) fn complete_with(
    ctx: &mut ScenarioContext,
    name: &str,
    scenario: Scenario,
) -> Result<(E2eProject, Vec<crate::recorded_request::RecordedRequest>), E2eError> {
    let project = E2eProject::new(&ctx.tools, name, InstallMode::Project, FINDINGS)?;
    let (path, config) = FOREGROUND_CONFIG;
    project.write(path, config)?;
    let server = MockServer::start_recording(scenario, &project.records_path(1))?;
    let outcome = project
        .claude(
            &server.base_url(),
            &start_prompt(RUN),
            &ClaudeOptions::default(),
        )?
        .wait(ctx.claude_timeout())?;
    ctx.checks.that(outcome.succeeded(), || {
        format!("claude -p: {}", outcome.describe())
    });
    let denials = outcome
        .json
        .get("permission_denials")
        .and_then(serde_json::Value::as_array)
        .map_or(0, Vec::len);
    ctx.checks.equal("permission denials", &denials, &0);
    check_complete_once(ctx, &project, RUN, FINDINGS, &[])?;
    let records = server.requests();
    ctx.notes.push(format!(
        "{name}: {} agents launched, claude -p {:.1} s",
        launched_items(&records).len(),
        outcome.wall.as_secs_f64()
    ));
    Ok((project, records))
}

fn with_habit(ctx: &mut ScenarioContext, name: &str, habit: MainHabit) -> Result<(), E2eError> {
    complete_with(ctx, name, pipeline_scenario().habit(habit)).map(|_| ())
}

/// The main session launches each dispatch over two messages.
pub(crate) fn split_launch(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    with_habit(ctx, "habit-split-launch", MainHabit::SplitLaunch)
}

/// The main session rewrites every description, keeping the item id.
pub(crate) fn paraphrase(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    with_habit(ctx, "habit-paraphrase", MainHabit::Paraphrase)
}

/// The main session launches one entry twice in the same message.
pub(crate) fn launch_twice(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    with_habit(ctx, "habit-launch-twice", MainHabit::LaunchTwice)
}

/// The main session never launches part of its first batch; nothing is charged for it: the
/// skipped item runs later on its first tier, and no item is escalated.
pub(crate) fn skip_part(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let (project, records) = complete_with(
        ctx,
        "habit-skip-part",
        pipeline_scenario().habit(MainHabit::SkipLast),
    )?;
    let skipped = "t-00008";
    let models = item_models(&records, skipped);
    ctx.checks.that(
        !models.is_empty() && models.iter().all(|m| m.contains("haiku")),
        || format!("{skipped}, never launched at first, later ran on {models:?}, not haiku only"),
    );
    let state = project.run(RUN).state()?;
    let failed: Vec<String> = serde_json::from_value::<self_repair_engine::RunState>(state)
        .map(|s| {
            s.items
                .iter()
                .filter(|i| i.attempts > 0)
                .map(|i| i.id.to_string())
                .collect()
        })
        .unwrap_or_default();
    ctx.checks.that(failed.is_empty(), || {
        format!("items charged a failed attempt though no agent failed: {failed:?}")
    });
    Ok(())
}
