//! A main session that does not follow the dispatch channel, and a client that alters the
//! launches (design note 63), on the real client through the plugin with the user's own
//! permissions, one agent per finding in the foreground:
//!
//! - `habit-ignore-context`: every `additionalContext` dispatch is left alone, every block is
//!   followed: the session moves to `block` after its first dispatch and the run completes.
//! - `habit-ignore-dispatches`: neither channel is followed: the run stalls within the
//!   client's continuation cap, and `claude -p`'s result is the stall line.
//! - `habit-fork-launch`: each item's first launch names no `subagent_type` (a fork, which
//!   does nothing of the item): no fork counts as the item's agent, the run completes.
//! - `habit-other-model`: every agent runs on opus whatever its launch asked: counted.

use serde_json::Value;

use crate::e2e::claude_run::ClaudeOutcome;
use crate::e2e::e2e_error::E2eError;
use crate::e2e::e2e_project::{E2eProject, InstallMode};
use crate::e2e::scenarios::ScenarioContext;
use crate::e2e::scenarios::full_pipeline::PER_ITEM_FOREGROUND_CONFIG;
use crate::e2e::scenarios::pipeline_checks::{
    check_complete, eval_protocol, pipeline_scenario, start_and_wait,
};
use crate::scenario::{MainHabit, Scenario};

const RUN: &str = "r-habit";
const FINDINGS: usize = 6;

/// A plugin project of [`FINDINGS`] findings, one foreground agent each, run with `scenario`.
fn run_with(
    ctx: &mut ScenarioContext,
    name: &str,
    scenario: Scenario,
) -> Result<(E2eProject, ClaudeOutcome), E2eError> {
    let project = E2eProject::new(&ctx.tools, name, InstallMode::Plugin, FINDINGS)?;
    let (path, config) = PER_ITEM_FOREGROUND_CONFIG;
    project.write(path, config)?;
    let (_server, outcome) = start_and_wait(ctx, &project, scenario, RUN)?;
    Ok((project, outcome))
}

/// `eval`'s protocol figures (labels: every finding a false positive; the figures do not read
/// them).
fn protocol(project: &E2eProject) -> Result<Value, E2eError> {
    let labels: String = std::iter::once("path,line,rule,label".to_owned())
        .chain(
            self_repair_test_support::jsonl_findings(FINDINGS)
                .lines()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                .map(|f| {
                    format!(
                        "{},{},{},false",
                        f["path"].as_str().unwrap_or(""),
                        f["line"],
                        f["rule_id"].as_str().unwrap_or("")
                    )
                }),
        )
        .collect::<Vec<_>>()
        .join("\n");
    eval_protocol(project, RUN, &labels)
}

/// The one session's channel record in `status --json`.
fn channel(project: &E2eProject) -> Result<Value, E2eError> {
    let status: Value = serde_json::from_str(&project.self_repair_ok(&["status", "--json"])?)
        .unwrap_or(Value::Null);
    Ok(status["channels"][0].clone())
}

fn count(value: &Value, key: &str) -> u64 {
    value[key].as_u64().unwrap_or(0)
}

/// The session ignores `additionalContext` and follows a block: it moves to `block` at its
/// second dispatch, for good, and the run completes.
pub(crate) fn ignore_context(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let scenario = pipeline_scenario().habit(MainHabit::IgnoreContext);
    let (project, _) = run_with(ctx, "habit-ignore-context", scenario)?;
    check_complete(ctx, &project, RUN, FINDINGS, &[], &[])?;
    let c = channel(&project)?;
    ctx.checks.that(
        c["channel"] == "block"
            && c["reason"] == "ignored"
            && count(&c, "by_context") == 1
            && count(&c, "by_block") >= 1
            && count(&c, "ignored") == 1
            && count(&c, "switches") == 1,
        || format!("one additionalContext dispatch ignored, then block for good: {c}"),
    );
    let p = protocol(&project)?;
    let line = p["channels"][0].as_str().unwrap_or_default().to_owned();
    ctx.checks.that(
        line.contains("block (an additionalContext dispatch was never launched)")
            && count(&p, "forks") == 0
            && count(&p, "not_launched") >= 1,
        || format!("eval's protocol should name the switch and the unlaunched entries: {p}"),
    );
    let timeline = project.self_repair_ok(&["timeline", RUN])?;
    ctx.checks.that(
        timeline.contains(
            "dispatches go by decision: block: an additionalContext dispatch was never launched",
        ),
        || format!("the timeline should say when and why the channel changed:\n{timeline}"),
    );
    ctx.notes
        .push(format!("habit-ignore-context: {c}; eval protocol: {p}"));
    Ok(())
}

/// The session follows neither channel: the run stalls after a few dispatches, within the
/// client's continuation cap (8), and `claude -p`'s result is the stall line.
pub(crate) fn ignore_dispatches(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let scenario = pipeline_scenario().habit(MainHabit::IgnoreDispatches);
    let (project, outcome) = run_with(ctx, "habit-ignore-dispatches", scenario)?;
    let status: Value = serde_json::from_str(&project.self_repair_ok(&["status", "--json"])?)
        .unwrap_or(Value::Null);
    ctx.checks
        .equal("run status", &status["status"].as_str(), &Some("stalled"));
    let c = &status["channels"][0];
    let sent = count(c, "by_context") + count(c, "by_block");
    ctx.checks.that(
        sent >= 2 && sent < u64::from(self_repair_engine::CLIENT_CONTINUATION_CAP),
        || format!("dispatches before the stall, both channels tried, under the cap: {c}"),
    );
    let result = outcome.json["result"].as_str().unwrap_or_default();
    ctx.checks.that(
        result.contains(&format!("self-repair run {RUN}: stalled")),
        || format!("claude -p's result should be the stall line: {result:?}"),
    );
    let p = protocol(&project)?;
    ctx.checks.that(
        count(&p, "not_launched") >= sent && count(&p, "verbatim") == 0,
        || format!("eval's protocol should count every entry never launched: {p}"),
    );
    ctx.notes
        .push(format!("habit-ignore-dispatches: {c}; result {result:?}"));
    Ok(())
}

/// Each item's first launch names no `subagent_type`: the client runs a fork, which does
/// nothing of the item. No fork is taken as the item's agent (no attempt charged), each item
/// goes out again with its `subagent_type`, and the run completes.
pub(crate) fn fork_launch(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let scenario = pipeline_scenario().habit(MainHabit::ForkFirst);
    let (project, _) = run_with(ctx, "habit-fork-launch", scenario)?;
    check_complete(ctx, &project, RUN, FINDINGS, &[], &[])?;
    let state =
        serde_json::from_value::<self_repair_engine::RunState>(project.run(RUN).state()?).ok();
    let charged: Vec<String> = state
        .iter()
        .flat_map(|s| &s.items)
        .filter(|i| i.attempts > 0)
        .map(|i| i.id.to_string())
        .collect();
    ctx.checks.that(state.is_some() && charged.is_empty(), || {
        format!("items charged an attempt for a fork launch: {charged:?}")
    });
    let p = protocol(&project)?;
    ctx.checks.that(count(&p, "forks") >= FINDINGS as u64, || {
        format!("eval should count each item's fork launch: {p}")
    });
    let timeline = project.self_repair_ok(&["timeline", RUN])?;
    ctx.checks.that(
        timeline.contains("without `subagent_type` (a fork of the main session"),
        || format!("the timeline should show the fork launches:\n{timeline}"),
    );
    ctx.notes
        .push(format!("habit-fork-launch: eval protocol: {p}"));
    Ok(())
}

/// Every agent's answers name opus, whatever its launch asked (the client ignored `model`):
/// `eval` counts each such agent from its own transcript; the run completes.
pub(crate) fn other_model(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let scenario = pipeline_scenario().sub_agent_model("claude-opus-5-5");
    let (project, _) = run_with(ctx, "habit-other-model", scenario)?;
    check_complete(ctx, &project, RUN, FINDINGS, &[], &[])?;
    let p = protocol(&project)?;
    ctx.checks.that(
        count(&p, "ran_other_model") >= 1 && count(&p, "model_changed") == 0,
        || format!("eval should count the agents that ran on another model than asked: {p}"),
    );
    ctx.notes
        .push(format!("habit-other-model: eval protocol: {p}"));
    Ok(())
}
