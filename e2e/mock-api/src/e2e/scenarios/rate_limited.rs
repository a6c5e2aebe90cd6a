//! The server answers the main thread with 429s right after the first dispatch: the client's
//! `StopFailure` pauses the run (`by: api_error`) and nothing re-blocks; a next prompt in the
//! same session (`claude -p --resume`) lifts the pause and the run goes on to complete.

use crate::e2e::claude_run::ClaudeOptions;
use crate::e2e::e2e_error::E2eError;
use crate::e2e::e2e_project::{E2eProject, InstallMode};
use crate::e2e::records::{agent_launches, launched_items};
use crate::e2e::run_files::field;
use crate::e2e::scenarios::ScenarioContext;
use crate::e2e::scenarios::pipeline_checks::{
    check_complete_once, check_no_duplicate_launch, pipeline_scenario, start_prompt,
};
use crate::fault::{Fault, ThreadSelector};
use crate::mock_server::MockServer;

const RUN: &str = "r-ratelimit";
const FINDINGS: usize = 4;

pub(crate) fn run(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let project = E2eProject::new(
        &ctx.tools,
        "rate-limited-main-thread",
        InstallMode::Plugin,
        FINDINGS,
    )?;
    // Main calls: 1 runs `start`, 2 ends the turn (the Stop hook blocks with the dispatch),
    // 3 onwards: 429.
    let limited =
        pipeline_scenario().fault(Fault::status(ThreadSelector::Main, 429, 1_000).after(2));
    let server1 = MockServer::start_recording(limited, &project.records_path(1))?;
    let retries = ClaudeOptions {
        env: vec![("CLAUDE_CODE_MAX_RETRIES".to_owned(), "1".to_owned())],
        ..ClaudeOptions::default()
    };
    let first = project
        .claude(&server1.base_url(), &start_prompt(RUN), &retries)?
        .wait(ctx.claude_timeout())?;
    ctx.checks
        .that(!first.timed_out && first.code == Some(1), || {
            format!(
                "claude -p on a rate-limited API should end with exit 1: {}",
                first.describe()
            )
        });
    let files = project.run(RUN);
    let state = files.state()?;
    ctx.checks.equal(
        "status after the 429s",
        &field(&state, "/status"),
        &"paused",
    );
    ctx.checks
        .equal("paused by", &field(&state, "/pause/by"), &"api_error");
    ctx.checks.that(files.has_event("stop_failure"), || {
        "no `stop_failure` journal event".to_owned()
    });
    let records1 = server1.requests();
    let faults = records1.iter().filter(|r| r.status == 429).count();
    ctx.checks.that(faults >= 2, || {
        format!("only {faults} 429 answers recorded")
    });
    ctx.checks.equal(
        "Agent launches while rate-limited",
        &agent_launches(&records1).len(),
        &0,
    );
    let hooks = first.hooks();
    let failure_at = hooks.iter().position(|h| h.event == "StopFailure");
    ctx.checks.that(failure_at.is_some(), || {
        "no StopFailure hook ran".to_owned()
    });
    if let Some(at) = failure_at {
        ctx.checks.that(
            hooks[at..]
                .iter()
                .all(|h| !h.blocked() && (h.event != "StopFailure" || h.output.is_empty())),
            || "a hook blocked or printed after the StopFailure".to_owned(),
        );
    }
    let session = first
        .session_id()
        .unwrap_or_else(|| field(&state, "/session").to_owned());

    let server2 = MockServer::start_recording(pipeline_scenario(), &project.records_path(2))?;
    let second = project
        .claude(
            &server2.base_url(),
            "Carry on.",
            &ClaudeOptions {
                resume: Some(session.clone()),
                ..ClaudeOptions::default()
            },
        )?
        .wait(ctx.claude_timeout())?;
    ctx.checks.that(second.succeeded(), || {
        format!("claude -p --resume: {}", second.describe())
    });
    let done = check_complete_once(ctx, &project, RUN, FINDINGS, &[])?;
    ctx.checks.equal(
        "run still bound to the session",
        &field(&done, "/session"),
        &session.as_str(),
    );
    let launched = launched_items(&server2.requests());
    check_no_duplicate_launch(ctx, &launched);
    ctx.notes.push(format!(
        "rate-limited session: exit {:?} after {:.1} s, {faults} answers of 429; resumed session launched {} agents",
        first.code,
        first.wall.as_secs_f64(),
        launched.len()
    ));
    Ok(())
}
