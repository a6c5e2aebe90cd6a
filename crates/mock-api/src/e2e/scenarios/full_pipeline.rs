//! Full pipeline on 14 findings, in both launch modes: background agents (the client's
//! default; loaded as a plugin) and foreground agents (`run_in_background: false` in every
//! launch; installed with `self-repair install --project`).

use serde_json::{Value, json};

use crate::e2e::claude_run::ClaudeOptions;
use crate::e2e::e2e_error::E2eError;
use crate::e2e::e2e_project::{E2eProject, InstallMode};
use crate::e2e::figures::Figures;
use crate::e2e::records::launched_items;
use crate::e2e::run_files::items_of;
use crate::e2e::scenarios::ScenarioContext;
use crate::e2e::scenarios::pipeline_checks::{
    check_complete_once, check_no_duplicate_launch, pipeline_scenario, start_prompt,
};
use crate::mock_server::MockServer;

const RUN: &str = "r-full";
const FINDINGS: usize = 14;

/// Background launches, plugin mode.
pub(crate) fn background(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    full_pipeline(ctx, false)
}

/// Foreground launches, `install --project` mode.
pub(crate) fn foreground(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    full_pipeline(ctx, true)
}

fn full_pipeline(ctx: &mut ScenarioContext, foreground: bool) -> Result<(), E2eError> {
    let (name, mode) = if foreground {
        ("full-pipeline-foreground", InstallMode::Project)
    } else {
        ("full-pipeline-background", InstallMode::Plugin)
    };
    let project = E2eProject::new(&ctx.tools, name, mode, FINDINGS)?;
    let mut scenario = pipeline_scenario();
    if foreground {
        scenario.agent_extra = Some(json!({"run_in_background": false}));
    }
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

    let state = check_complete_once(ctx, &project, RUN, FINDINGS, &[])?;
    let records = server.requests();
    let launched = launched_items(&records);
    check_no_duplicate_launch(ctx, &launched);
    let items = items_of(&state);
    let dispatches: u64 = state
        .get("items")
        .and_then(Value::as_array)
        .map_or(0, |items| {
            items
                .iter()
                .filter_map(|i| i.get("dispatches").and_then(Value::as_u64))
                .sum()
        });
    ctx.checks.equal(
        "Agent launches (recorded) vs dispatches (state)",
        &(launched.len() as u64),
        &dispatches,
    );
    ctx.checks.equal(
        "Agent launches vs agent items",
        &launched.len(),
        &items.len(),
    );
    ctx.checks.equal(
        "subagent_stats.spawned vs Agent launches",
        &outcome.spawned(),
        &Some(launched.len() as u64),
    );

    let hooks = outcome.hooks();
    let stops: Vec<_> = hooks.iter().filter(|h| h.event == "Stop").collect();
    let blocks = stops.iter().filter(|h| h.blocked()).count();
    let launching = records
        .iter()
        .filter(|r| r.thread == "main" && r.answer.contains("Agent"))
        .count();
    ctx.checks.equal(
        "Stop hook blocks vs main-thread answers that launch agents",
        &blocks,
        &launching,
    );
    for hook in &hooks {
        ctx.checks.that(hook.status == 0, || {
            format!(
                "hook {} {} exited {}",
                hook.event, hook.command, hook.status
            )
        });
    }
    let label = if foreground {
        "full pipeline, foreground agents (install --project)"
    } else {
        "full pipeline, background agents (plugin)"
    };
    ctx.notes.push(format!(
        "{label}: {} agents, {} Stop hook runs ({blocks} blocks), claude -p {:.1} s",
        launched.len(),
        stops.len(),
        outcome.wall.as_secs_f64()
    ));
    ctx.figures.push(Figures::measure(
        label,
        &records,
        &hooks,
        FINDINGS,
        outcome.wall,
    ));
    Ok(())
}
