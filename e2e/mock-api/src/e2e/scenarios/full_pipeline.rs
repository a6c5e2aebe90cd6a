//! Full pipeline on 14 findings, in both launch modes: background agents (the client's
//! default; loaded as a plugin) and foreground agents (`launch_mode: foreground` in
//! `.self-repair/config.json`, so every dispatch entry carries `run_in_background: false`;
//! installed with `self-repair install --project`).

use std::time::{Duration, SystemTime};

use serde_json::Value;

use crate::conversation::Conversation;
use crate::e2e::e2e_error::E2eError;
use crate::e2e::e2e_project::{E2eProject, InstallMode};
use crate::e2e::figures::Figures;
use crate::e2e::records::{agent_launches, item_models, launched_items};
use crate::e2e::run_files::items_of;
use crate::e2e::scenarios::ScenarioContext;
use crate::e2e::scenarios::pipeline_checks::{
    MUST_FIX_POINT, check_complete_once, check_no_duplicate_launch, check_ran_model_recorded,
    pipeline_scenario, start_and_wait,
};
use crate::recorded_request::RecordedRequest;

const RUN: &str = "r-full";
const FINDINGS: usize = 14;

/// The project config that makes the hook dispatch foreground launches (the default).
pub(crate) const FOREGROUND_CONFIG: (&str, &str) = (
    ".self-repair/config.json",
    "{\"launch_mode\": \"foreground\"}\n",
);

/// Foreground launches, one triage agent per finding (`triage_batch: 1`) in waves of 8
/// (`fan_out: 8`), no rule survey (`survey_min: 0`): for the scenarios whose habit or fault is
/// scripted on one triage item
/// (`t-00003`) or on the second wave.
pub(crate) const PER_ITEM_FOREGROUND_CONFIG: (&str, &str) = (
    ".self-repair/config.json",
    "{\"launch_mode\": \"foreground\", \"triage_batch\": 1, \"fan_out\": 8, \"survey_min\": 0}\n",
);

/// Background launches, one triage agent per finding, waves of 8.
pub(crate) const PER_ITEM_BACKGROUND_CONFIG: (&str, &str) = (
    ".self-repair/config.json",
    "{\"launch_mode\": \"background\", \"triage_batch\": 1, \"fan_out\": 8, \"survey_min\": 0}\n",
);

/// The project config that makes the hook dispatch background launches.
pub(crate) const BACKGROUND_CONFIG: (&str, &str) = (
    ".self-repair/config.json",
    "{\"launch_mode\": \"background\"}\n",
);

/// Every recorded `Agent` input has `run_in_background: false` in foreground mode and no
/// `run_in_background` in background mode.
pub(crate) fn check_launch_mode(
    ctx: &mut ScenarioContext,
    records: &[crate::recorded_request::RecordedRequest],
    foreground: bool,
) {
    let want = foreground.then_some(Value::Bool(false));
    let launches = agent_launches(records);
    let wrong: Vec<&Value> = launches
        .iter()
        .filter(|input| input.get("run_in_background") != want.as_ref())
        .collect();
    ctx.checks.that(wrong.is_empty(), || {
        format!(
            "{} of {} Agent inputs do not have run_in_background {want:?}; first: {}",
            wrong.len(),
            launches.len(),
            wrong[0]
        )
    });
}

/// Background launches, plugin mode.
pub(crate) fn background(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    full_pipeline(ctx, "full-pipeline-background", InstallMode::Plugin, false).map(drop)
}

/// Foreground launches, `install --project` mode.
pub(crate) fn foreground(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    full_pipeline(ctx, "full-pipeline-foreground", InstallMode::Project, true).map(drop)
}

/// Background launches, `install --project` mode.
pub(crate) fn background_installed(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    full_pipeline(
        ctx,
        "full-pipeline-background-install",
        InstallMode::Project,
        false,
    )
    .map(drop)
}

/// Foreground launches, plugin mode.
pub(crate) fn foreground_plugin(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    full_pipeline(
        ctx,
        "full-pipeline-foreground-plugin",
        InstallMode::Plugin,
        true,
    )
    .map(drop)
}

/// The tools the client offers our read-only agents (their definitions name exactly these).
const AGENT_TOOLS: [&str; 2] = ["Bash", "Read"];

/// Every sub-agent request offered exactly the tools the agent definitions name.
fn check_agent_tools(ctx: &mut ScenarioContext, records: &[RecordedRequest]) {
    for record in records.iter().filter(|r| r.thread.starts_with("item:")) {
        let tools = Conversation::new(&record.body).tool_names();
        ctx.checks.that(tools == AGENT_TOOLS, || {
            format!(
                "{} was offered {tools:?}, its definition names {AGENT_TOOLS:?}",
                record.thread
            )
        });
    }
}

/// Runs the full pipeline of `FINDINGS` findings in a new project `name` and checks it; returns
/// when the first dispatch reached the model (the request after the first Stop hook block,
/// whose answer launches agents), `None` when none did.
pub(crate) fn full_pipeline(
    ctx: &mut ScenarioContext,
    name: &str,
    mode: InstallMode,
    foreground: bool,
) -> Result<Option<SystemTime>, E2eError> {
    let project = E2eProject::new(&ctx.tools, name, mode, FINDINGS)?;
    let (path, config) = if foreground {
        FOREGROUND_CONFIG
    } else {
        BACKGROUND_CONFIG
    };
    project.write(path, config)?;
    let server_started = SystemTime::now();
    let (server, outcome) = start_and_wait(ctx, &project, pipeline_scenario(), RUN)?;

    let state = check_complete_once(ctx, &project, RUN, FINDINGS, &[])?;
    let records = server.requests();
    let launched = launched_items(&records);
    check_no_duplicate_launch(ctx, &launched);
    check_launch_mode(ctx, &records, foreground);
    check_agent_tools(ctx, &records);
    let items = items_of(&state);
    // Triage items are stored as columns: read them through the engine's own state type.
    let dispatches: u64 = serde_json::from_value::<self_repair_engine::RunState>(state.clone())
        .map_or(0, |s| s.items.iter().map(|i| u64::from(i.dispatches)).sum());
    ctx.checks.equal(
        "Agent launches (recorded) vs dispatches (state)",
        &(launched.len() as u64),
        &dispatches,
    );
    // A batch is one launch for its findings; a revise step no review asked for has none.
    let no_launch = crate::e2e::run_files::decided_without_a_launch(&state);
    ctx.checks.equal(
        "Agent launches vs agent items (batches, not the findings they decided)",
        &launched.len(),
        &(items.len() - no_launch.len()),
    );
    ctx.checks
        .that(no_launch.iter().any(|id| id.starts_with("t-")), || {
            "no finding was decided by a triage batch (triage_batch defaults to 8)".to_owned()
        });
    ctx.checks.equal(
        "subagent_stats.spawned vs Agent launches",
        &outcome.spawned(),
        &Some(launched.len() as u64),
    );

    check_revised(ctx, &project, &records, &state);
    // Issue 24: a foreground batch answers before its launch is read; its findings still
    // record the model it ran on.
    check_ran_model_recorded(ctx, &project, RUN)?;

    let hooks = outcome.hooks();
    let stops: Vec<_> = hooks.iter().filter(|h| h.event == "Stop").collect();
    let blocks = stops.iter().filter(|h| h.blocked()).count();
    let launching = records
        .iter()
        .filter(|r| r.thread == "main" && r.answer.contains("Agent"))
        .count();
    let first_dispatch = records
        .iter()
        .find(|r| r.thread == "main" && r.answer.contains("Agent"))
        .map(|r| server_started + Duration::from_millis(r.at_ms));
    // Every block launches agents, but the closing line's: it asks the session to end its turn
    // with the run's summary, which is how a `claude -p` user sees how the run ended. It is
    // said once, and once more per notification turn that displaced it (an agent that ended
    // just before the announcing stop: its notification was still queued).
    let closing = stops
        .iter()
        .filter(|h| {
            h.blocked()
                && h.output
                    .contains(&format!("self-repair run {RUN} complete:"))
        })
        .count();
    ctx.checks.equal(
        "Stop hook blocks vs main-thread answers that launch agents, plus the closing lines",
        &blocks,
        &(launching + closing),
    );
    ctx.checks.that(closing >= 1, || {
        "the closing line was never said".to_owned()
    });
    // The run's cost, read by `status` from the session's transcripts, is what the client
    // itself says the session cost (issue 15).
    let client_usd = outcome.json.get("total_cost_usd").and_then(Value::as_f64);
    let status: Value = serde_json::from_str(&project.self_repair_ok(&["status", "--json"])?)
        .unwrap_or(Value::Null);
    let ours = status.pointer("/cost/total_usd").and_then(Value::as_f64);
    ctx.checks.that(
        matches!((client_usd, ours), (Some(c), Some(o)) if (c - o).abs() < 0.005),
        || {
            format!(
                "status --json cost {ours:?} differs from claude -p's total_cost_usd {client_usd:?}"
            )
        },
    );
    let result = outcome
        .json
        .get("result")
        .and_then(Value::as_str)
        .unwrap_or("");
    ctx.checks.that(
        result.contains(&format!("self-repair run {RUN} complete:")),
        || format!("claude -p's result does not say how the run ended: {result:?}"),
    );
    for hook in &hooks {
        ctx.checks.that(hook.status == 0, || {
            format!(
                "hook {} {} exited {}",
                hook.event, hook.command, hook.status
            )
        });
    }
    let label = format!(
        "full pipeline, {} agents ({})",
        if foreground {
            "foreground"
        } else {
            "background"
        },
        mode.label()
    );
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
    Ok(first_dispatch)
}

/// Each group's first review asked for one change: its revise step ran on opus (the
/// synthesizer's tier), and every task's plan section quotes the point with what became of it.
fn check_revised(
    ctx: &mut ScenarioContext,
    project: &E2eProject,
    records: &[RecordedRequest],
    state: &Value,
) {
    let groups = state
        .get("groups")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let mut revised = 0;
    for n in 1..=groups {
        let id = format!("rv-g{n}");
        let models = item_models(records, &id);
        if models.is_empty() {
            continue;
        }
        revised += 1;
        ctx.checks
            .that(models.iter().all(|m| m.contains("opus")), || {
                format!("{id} ran on {models:?}, not on the synthesizer's opus")
            });
    }
    ctx.checks.that(revised > 0, || {
        "no revise step ran, though every group's first review asked for a change".to_owned()
    });
    let dir = project.path().join("backlog/tasks");
    let plans: Vec<String> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .filter(|text| text.contains("## Implementation Plan"))
        .collect();
    ctx.checks.that(!plans.is_empty(), || {
        format!("no task in {} has an Implementation Plan", dir.display())
    });
    for text in &plans {
        let answered = text
            .split_once(MUST_FIX_POINT)
            .is_some_and(|(_, after)| after.trim_start().starts_with("*Applied"));
        ctx.checks.that(answered, || {
            format!("a task's plan does not quote the review's point answered Applied:\n{text}")
        });
    }
}
