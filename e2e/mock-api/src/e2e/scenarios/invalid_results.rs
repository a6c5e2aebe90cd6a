//! A sub-agent submits an invalid result, gets the validation message and fixes it; an item
//! whose every result is invalid escalates haiku -> sonnet -> opus and is quarantined while the
//! run completes.

use crate::conversation::Conversation;
use crate::e2e::e2e_error::E2eError;
use crate::e2e::e2e_project::{E2eProject, InstallMode};
use crate::e2e::records::{item_models, launched_items};
use crate::e2e::scenarios::ScenarioContext;
use crate::e2e::scenarios::full_pipeline::{
    PER_ITEM_BACKGROUND_CONFIG, PER_ITEM_FOREGROUND_CONFIG, check_launch_mode,
};
use crate::e2e::scenarios::pipeline_checks::{
    check_complete_once, pipeline_scenario, start_and_wait,
};
use crate::recorded_request::RecordedRequest;
use crate::scenario::{Behaviour, ItemRule};

const RUN: &str = "r-invalid";
const FINDINGS: usize = 6;
const FIXES: &str = "t-00002";
const FAILS: &str = "t-00003";

fn rule(item: &str, behaviour: Behaviour) -> ItemRule {
    ItemRule {
        item: Some(item.to_owned()),
        behaviour,
        ..ItemRule::default()
    }
}

/// The `submit` results (error flag, text) of the last request of item `id`.
fn submit_results(records: &[RecordedRequest], id: &str) -> Vec<(bool, String)> {
    let label = format!("item:{id}");
    let Some(last) = records
        .iter()
        .filter(|r| r.thread == label && r.status == 200)
        .max_by_key(|r| r.seq)
    else {
        return Vec::new();
    };
    Conversation::new(&last.body)
        .calls_since(0)
        .into_iter()
        .filter(|(call, _)| call.command().contains("self-repair submit"))
        .filter_map(|(_, outcome)| outcome.map(|o| (o.is_error, o.text)))
        .collect()
}

/// Background launches (plugin mode).
pub(crate) fn background(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    invalid_results(ctx, false)
}

/// Foreground launches (`launch_mode: foreground`, `install --project` mode): the hook never
/// sees the agents running and infers a failure from an answered sibling in the same batch or
/// from the item's own `rejected` submissions.
pub(crate) fn foreground(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    invalid_results(ctx, true)
}

fn invalid_results(ctx: &mut ScenarioContext, foreground: bool) -> Result<(), E2eError> {
    let (name, mode) = if foreground {
        (
            "invalid-results-and-escalation-foreground",
            InstallMode::Project,
        )
    } else {
        ("invalid-results-and-escalation", InstallMode::Plugin)
    };
    let project = E2eProject::new(&ctx.tools, name, mode, FINDINGS)?;
    let (path, config) = if foreground {
        PER_ITEM_FOREGROUND_CONFIG
    } else {
        PER_ITEM_BACKGROUND_CONFIG
    };
    project.write(path, config)?;
    let scenario = pipeline_scenario()
        .item(rule(FIXES, Behaviour::InvalidFirst))
        .item(rule(FAILS, Behaviour::AlwaysInvalid));
    let (server, _) = start_and_wait(ctx, &project, scenario, RUN)?;
    check_complete_once(ctx, &project, RUN, FINDINGS, &[FAILS])?;
    let records = server.requests();

    // The agent that fixes its result: rejected once with the validation message, then accepted.
    let results = submit_results(&records, FIXES);
    let kinds: Vec<bool> = results.iter().map(|(err, _)| *err).collect();
    ctx.checks.equal(
        &format!("{FIXES} submit results (is_error)"),
        &kinds,
        &vec![true, false],
    );
    if let Some((_, message)) = results.first() {
        ctx.checks.that(
            message.contains("verdict") && message.contains("unexpected_field"),
            || format!("{FIXES}'s rejection does not name the missing and the unknown field: {message:?}"),
        );
        ctx.notes.push(format!(
            "validation message the agent saw: {}",
            message.lines().take(4).collect::<Vec<_>>().join(" | ")
        ));
    }
    let rejected = project.run(RUN).events_per_item("rejected");
    ctx.checks
        .that(rejected.get(FIXES).copied().unwrap_or(0) >= 1, || {
            format!("no `rejected` journal event for {FIXES}")
        });

    // The item that always fails: one agent per tier, then quarantined.
    ctx.checks.equal(
        &format!("models {FAILS} ran on, in order"),
        &item_models(&records, FAILS),
        &vec![
            "claude-haiku-5-5".to_owned(),
            "claude-sonnet-5-5".to_owned(),
            "claude-opus-5-5".to_owned(),
        ],
    );
    let launches = launched_items(&records)
        .iter()
        .filter(|id| *id == FAILS)
        .count();
    // In foreground mode too: its `rejected` events prove each lone re-dispatch ran, so every
    // launch is a counted attempt (reference/e2e.md, finding 2).
    ctx.checks
        .equal(&format!("Agent launches of {FAILS}"), &launches, &3);
    check_launch_mode(ctx, &records, foreground);
    Ok(())
}
