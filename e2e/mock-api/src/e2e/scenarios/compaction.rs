//! A run that outgrows the main session's context: the scripted server reports the main
//! thread's input tokens at a rate that crosses the client's auto-compaction threshold
//! mid-run (`CLAUDE_CODE_AUTO_COMPACT_WINDOW` at its 100k minimum), the client asks for a
//! summary and compacts, the `SessionStart` hook (source `compact`) puts the run back in the
//! new context, and the run completes with no manual step.

use crate::e2e::claude_run::ClaudeOptions;
use crate::e2e::e2e_error::E2eError;
use crate::e2e::e2e_project::{E2eProject, InstallMode};
use crate::e2e::figures::Figures;
use crate::e2e::records::launched_items;
use crate::e2e::scenarios::ScenarioContext;
use crate::e2e::scenarios::full_pipeline::PER_ITEM_FOREGROUND_CONFIG;
use crate::e2e::scenarios::pipeline_checks::{
    check_complete_once, check_no_duplicate_launch, pipeline_scenario, start_prompt,
};
use crate::mock_server::MockServer;

const RUN: &str = "r-compact";
/// One agent per finding, waves of 8: the main thread grows by about 70 KB over the run (the
/// batched default grows it too little to cross the threshold on a run this small).
const FINDINGS: usize = 30;

/// The smallest window the client accepts (it reads anything below as 100k).
pub(crate) const COMPACT_WINDOW: &str = "100000";

/// Tokens per KiB of main-thread request that put the client's threshold (about 67k tokens
/// for a 100k window) at about 85 KB of request: the run starts near 53 KB and would end past
/// 120 KB; one wave of 8 adds about 10 KB, well inside what a compaction frees.
const TOKENS_PER_KIB: u64 = 800;

/// How the `SessionStart` hook's context starts (crates/app/src/hook.rs).
const REINJECTED: &str = "A self-repair run is in progress in this project: run r-compact";

/// The main session compacts mid-run and still finishes it.
pub(crate) fn run(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let project = E2eProject::new(
        &ctx.tools,
        "compaction-mid-run",
        InstallMode::Project,
        FINDINGS,
    )?;
    let (path, config) = PER_ITEM_FOREGROUND_CONFIG;
    project.write(path, config)?;
    let scenario = pipeline_scenario().main_tokens_per_kib(TOKENS_PER_KIB);
    let server = MockServer::start_recording(scenario, &project.records_path(1))?;
    let options = ClaudeOptions {
        env: vec![(
            "CLAUDE_CODE_AUTO_COMPACT_WINDOW".to_owned(),
            COMPACT_WINDOW.to_owned(),
        )],
        ..ClaudeOptions::default()
    };
    let outcome = project
        .claude(&server.base_url(), &start_prompt(RUN), &options)?
        .wait(ctx.claude_timeout())?;
    ctx.checks.that(outcome.succeeded(), || {
        format!("claude -p: {}", outcome.describe())
    });
    check_complete_once(ctx, &project, RUN, FINDINGS, &[])?;
    let records = server.requests();
    check_no_duplicate_launch(ctx, &launched_items(&records));
    let compactions = records.iter().filter(|r| r.thread == "compaction").count();
    ctx.checks.that(compactions >= 1, || {
        "the client never asked to compact the main session".to_owned()
    });
    // The first main-thread request after the summary carries the hook's run summary (the
    // client puts `SessionStart` context into the system prompt).
    let after = records
        .iter()
        .skip_while(|r| r.thread != "compaction")
        .find(|r| r.thread == "main");
    ctx.checks.that(
        after.is_some_and(|r| r.body.to_string().contains(REINJECTED)),
        || format!("no main-thread request after the compaction carries {REINJECTED:?}"),
    );
    // Blocks are bare JSON dispatches: the standing protocol must come back with the summary.
    ctx.checks.that(
        after.is_some_and(|r| r.body.to_string().contains(self_repair_engine::PROTOCOL)),
        || "no main-thread request after the compaction carries the standing protocol".to_owned(),
    );
    let hooks = outcome.hooks();
    let reinjected = hooks
        .iter()
        .filter(|h| h.event == "SessionStart" && h.detail == "compact")
        .count();
    ctx.checks.that(reinjected >= compactions, || {
        format!("{compactions} compactions but {reinjected} SessionStart:compact hook runs")
    });
    ctx.notes.push(format!(
        "{compactions} compaction(s) of the main session, {reinjected} SessionStart:compact hook run(s), claude -p {:.1} s",
        outcome.wall.as_secs_f64()
    ));
    ctx.figures.push(Figures::measure(
        "compaction mid-run, foreground agents (install --project)",
        &records,
        &hooks,
        FINDINGS,
        outcome.wall,
    ));
    Ok(())
}
