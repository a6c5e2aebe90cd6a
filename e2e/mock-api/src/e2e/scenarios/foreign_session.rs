//! A second, unrelated session in a project whose run is bound to another session is never
//! blocked and writes nothing: the state folder is byte-for-byte and mtime-for-mtime unchanged.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::e2e::claude_run::ClaudeOptions;
use crate::e2e::e2e_error::E2eError;
use crate::e2e::e2e_project::{E2eProject, InstallMode};
use crate::e2e::records::agent_launches;
use crate::e2e::scenarios::ScenarioContext;
use crate::mock_server::MockServer;
use crate::scenario::Scenario;

const RUN: &str = "r-foreign";
const OWNER: &str = "the-session-that-owns-the-run";

type Snapshot = BTreeMap<PathBuf, (Vec<u8>, Option<SystemTime>)>;

fn snapshot(dir: &Path, into: &mut Snapshot) -> Result<(), E2eError> {
    for entry in fs::read_dir(dir).map_err(E2eError::io(dir))? {
        let path = entry.map_err(E2eError::io(dir))?.path();
        let meta = fs::metadata(&path).map_err(E2eError::io(&path))?;
        if meta.is_dir() {
            into.insert(path.clone(), (Vec::new(), meta.modified().ok()));
            snapshot(&path, into)?;
        } else {
            let bytes = fs::read(&path).map_err(E2eError::io(&path))?;
            into.insert(path, (bytes, meta.modified().ok()));
        }
    }
    Ok(())
}

pub(crate) fn run(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let project = E2eProject::new(&ctx.tools, "foreign-session", InstallMode::Project, 4)?;
    project.self_repair_ok(&["start", "findings.jsonl", "--run-id", RUN])?;
    project.self_repair_ok(&["adopt", "--session", OWNER])?;
    let state_dir = project.path().join(".self-repair");
    let mut before = Snapshot::new();
    snapshot(&state_dir, &mut before)?;

    let server = MockServer::start_recording(Scenario::new(), &project.records_path(1))?;
    let outcome = project
        .claude(
            &server.base_url(),
            "Hello; nothing to run.",
            &ClaudeOptions::default(),
        )?
        .wait(ctx.claude_timeout())?;
    ctx.checks.that(outcome.succeeded(), || {
        format!("claude -p: {}", outcome.describe())
    });
    let hooks = outcome.hooks();
    let stops: Vec<_> = hooks.iter().filter(|h| h.event == "Stop").collect();
    ctx.checks
        .that(!stops.is_empty(), || "no Stop hook ran".to_owned());
    for stop in &stops {
        ctx.checks.that(stop.output.is_empty(), || {
            format!("the foreign session's Stop hook printed {:?}", stop.output)
        });
    }
    let records = server.requests();
    ctx.checks
        .equal("Agent launches", &agent_launches(&records).len(), &0);
    let main_calls = records
        .iter()
        .filter(|r| r.thread == "main" && r.status == 200)
        .count();
    ctx.checks.equal("main-thread model calls", &main_calls, &1);

    let mut after = Snapshot::new();
    snapshot(&state_dir, &mut after)?;
    let changed: Vec<String> = before
        .keys()
        .chain(after.keys())
        .filter(|p| before.get(*p) != after.get(*p))
        .map(|p| p.display().to_string())
        .collect();
    ctx.checks.that(changed.is_empty(), || {
        format!("the foreign session changed the state folder: {changed:?}")
    });
    Ok(())
}
