//! Corrupt state: the session's own run has an unreadable `state.json`; its next stop ends
//! with a message naming `self-repair doctor`, nothing is blocked, and doctor repairs it.

use std::fs;

use crate::e2e::claude_run::ClaudeOptions;
use crate::e2e::e2e_error::E2eError;
use crate::e2e::e2e_project::{E2eProject, InstallMode};
use crate::e2e::records::agent_launches;
use crate::e2e::run_files::field;
use crate::e2e::scenarios::ScenarioContext;
use crate::mock_server::MockServer;
use crate::scenario::Scenario;

const RUN: &str = "r-corrupt";

pub(crate) fn run(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let project = E2eProject::new(&ctx.tools, "corrupt-state", InstallMode::Plugin, 3)?;
    let files = project.run(RUN);
    let server1 = MockServer::start_recording(Scenario::new(), &project.records_path(1))?;
    let first = project
        .claude(
            &server1.base_url(),
            &format!(
                "Start a run, then pause it.\n$ self-repair start findings.jsonl --run-id {RUN}\n$ self-repair pause"
            ),
            &ClaudeOptions::default(),
        )?
        .wait(ctx.claude_timeout())?;
    ctx.checks.that(first.succeeded(), || {
        format!("claude -p (start and pause): {}", first.describe())
    });
    let session = first.session_id().unwrap_or_default();
    let state = files.state()?;
    ctx.checks
        .equal("status after pause", &field(&state, "/status"), &"paused");
    ctx.checks.equal(
        "run bound to the session that started it",
        &field(&state, "/session"),
        &session.as_str(),
    );

    let state_path = files.dir().join("state.json");
    fs::write(&state_path, "{\"schema_version\": 1, \"status\": \"act")
        .map_err(E2eError::io(&state_path))?;

    let server2 = MockServer::start_recording(Scenario::new(), &project.records_path(2))?;
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
        format!("claude -p --resume: {}", second.describe())
    });
    let hooks = second.hooks();
    let stops: Vec<_> = hooks.iter().filter(|h| h.event == "Stop").collect();
    ctx.checks
        .that(!stops.is_empty(), || "no Stop hook ran".to_owned());
    ctx.checks.that(stops.iter().all(|h| !h.blocked()), || {
        "a Stop hook blocked on a corrupt state".to_owned()
    });
    ctx.checks.that(
        stops.iter().any(|h| {
            h.output.contains("systemMessage") && h.output.contains("self-repair doctor")
        }),
        || {
            format!(
                "no Stop hook output with a systemMessage naming `self-repair doctor`; outputs: {:?}",
                stops.iter().map(|h| &h.output).collect::<Vec<_>>()
            )
        },
    );
    let records = server2.requests();
    ctx.checks
        .equal("Agent launches", &agent_launches(&records).len(), &0);
    let main_calls = records
        .iter()
        .filter(|r| r.thread == "main" && r.status == 200)
        .count();
    ctx.checks.equal("main-thread model calls", &main_calls, &1);
    ctx.checks
        .that(files.dir().join("state.json.corrupt").is_file(), || {
            "no state.json.corrupt copy".to_owned()
        });

    let doctor = project.self_repair(&["doctor", "--runs-only"])?;
    ctx.checks.that(doctor.status.success(), || {
        format!(
            "self-repair doctor exited {:?}: {}",
            doctor.status.code(),
            String::from_utf8_lossy(&doctor.stderr)
        )
    });
    let repaired = files.state()?;
    ctx.checks.equal(
        "status after doctor",
        &field(&repaired, "/status"),
        &"paused",
    );
    Ok(())
}
