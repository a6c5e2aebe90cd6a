//! The claude process is killed mid-triage (its second batch hangs on the server); a new
//! session runs `self-repair adopt` from its main thread and completes the run with no item
//! run twice and no task written twice.

use std::collections::BTreeSet;

use crate::e2e::claude_run::ClaudeOptions;
use crate::e2e::e2e_error::E2eError;
use crate::e2e::e2e_project::{E2eProject, InstallMode};
use crate::e2e::records::launched_items;
use crate::e2e::run_files::field;
use crate::e2e::scenarios::ScenarioContext;
use crate::e2e::scenarios::pipeline_checks::{
    check_complete_once, check_no_duplicate_launch, pipeline_scenario, start_prompt,
};
use crate::e2e::scenarios::scenario_context::wait_for;
use crate::fault::{Fault, ThreadSelector};
use crate::mock_server::MockServer;

const RUN: &str = "r-killed";
const FINDINGS: usize = 14;

pub(crate) fn run(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let project = E2eProject::new(
        &ctx.tools,
        "killed-then-adopted",
        InstallMode::Project,
        FINDINGS,
    )?;
    // One agent per finding: the hung agents are scripted per triage item.
    let (path, config) = crate::e2e::scenarios::full_pipeline::PER_ITEM_FOREGROUND_CONFIG;
    project.write(path, config)?;
    // The first batch (8, the fan-out) finishes; the second batch's agents hang.
    let mut first = pipeline_scenario();
    for n in 9..=FINDINGS {
        first = first.fault(Fault::hang(
            ThreadSelector::Item(format!("t-{n:05}")),
            120_000,
            1,
        ));
    }
    let server1 = MockServer::start_recording(first, &project.records_path(1))?;
    let mut claude1 = project.claude(
        &server1.base_url(),
        &start_prompt(RUN),
        &ClaudeOptions::default(),
    )?;
    let files = project.run(RUN);
    let debug = project.root().join("claude-1.debug.log");
    wait_for(
        "8 triage submissions and a hung second batch in session 1",
        90,
        || {
            if !claude1.running()? {
                return Err(E2eError::Unexpected {
                    path: debug.clone(),
                    message: "session 1 exited before it could be killed".to_owned(),
                });
            }
            Ok(files.submitted().len() >= 8
                && server1
                    .requests()
                    .iter()
                    .any(|r| r.answer.starts_with("hang")))
        },
    )?;
    let killed = claude1.kill()?;
    ctx.checks
        .that(killed.killed, || "session 1 was not killed".to_owned());
    let done_before: BTreeSet<String> = files.submitted().into_keys().collect();
    let state1 = files.state()?;
    let session1 = field(&state1, "/session").to_owned();
    ctx.checks.that(done_before.len() < FINDINGS, || {
        format!(
            "session 1 finished triage before the kill ({} submitted)",
            done_before.len()
        )
    });
    ctx.checks.equal(
        "status after the kill",
        &field(&state1, "/status"),
        &"active",
    );

    let server2 = MockServer::start_recording(pipeline_scenario(), &project.records_path(2))?;
    let outcome = project
        .claude(
            &server2.base_url(),
            "Adopt the interrupted self-repair run.\n$ self-repair adopt",
            &ClaudeOptions::default(),
        )?
        .wait(ctx.claude_timeout())?;
    ctx.checks.that(outcome.succeeded(), || {
        format!("claude -p (session 2): {}", outcome.describe())
    });
    let state = check_complete_once(ctx, &project, RUN, FINDINGS, &[])?;
    let session2 = outcome.session_id().unwrap_or_default();
    ctx.checks
        .that(!session2.is_empty() && session2 != session1, || {
            format!("session 2 id {session2:?} vs session 1 {session1:?}")
        });
    ctx.checks.equal(
        "run bound to session 2",
        &field(&state, "/session"),
        &session2.as_str(),
    );
    ctx.checks.that(files.has_event("adopt"), || {
        "the journal has no `adopt` event (session 2's main thread ran `self-repair adopt`)"
            .to_owned()
    });
    let launched2 = launched_items(&server2.requests());
    check_no_duplicate_launch(ctx, &launched2);
    for id in &done_before {
        ctx.checks.that(!launched2.contains(id), || {
            format!("{id} was submitted in session 1 and launched again in session 2")
        });
    }
    ctx.notes.push(format!(
        "killed session 1 after {:.1} s with {} items submitted; session 2 launched {} agents",
        killed.wall.as_secs_f64(),
        done_before.len(),
        launched2.len()
    ));
    Ok(())
}
