//! Issue 34, item 1: `scripts/eval-drive.sh`, the one command from a labelled corpus to its
//! quality table, run as a user runs it (with the self-repair plugin, against the scripted
//! API): it copies the shipped Bandit-on-Bottle corpus into a new project, starts the run,
//! drives it with `claude -p` sessions, and prints `eval`'s table. Asserts: it exits 0, the
//! table names the corpus and all 15 findings labelled, its protocol line read the launches
//! from the transcripts, and eval.md and eval.svg are in the run folder.

use std::process::{Command, Stdio};

use crate::e2e::e2e_error::E2eError;
use crate::e2e::e2e_project::{E2eProject, InstallMode};
use crate::e2e::scenarios::ScenarioContext;
use crate::e2e::scenarios::pipeline_checks::pipeline_scenario;
use crate::mock_server::MockServer;

const API_KEY: (&str, &str) = ("ANTHROPIC_API_KEY", "e2e-not-a-key");

pub(crate) fn run(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let project = E2eProject::new(&ctx.tools, "eval-drive", InstallMode::Plugin, 0)?;
    let server = MockServer::start_recording(pipeline_scenario(), &project.records_path(1))?;
    let tools = project.tools();
    let script = tools.repo.join("scripts/eval-drive.sh");
    let corpus = tools.repo.join("tests/fixtures/eval/bandit-bottle-0.13.2");
    let into = project.root().join("eval-project");
    let mut command = Command::new("bash");
    project.isolated(&mut command);
    command
        .env("ANTHROPIC_BASE_URL", server.base_url())
        .env(API_KEY.0, API_KEY.1)
        .arg(&script)
        .arg(&corpus)
        .arg("--into")
        .arg(&into)
        .args(["--budget", "20", "--", "--claude"])
        .arg(&tools.claude)
        .arg("--")
        .arg("--plugin-dir")
        .arg(&tools.plugin_dir)
        .stdin(Stdio::null());
    let out = command.output().map_err(|source| E2eError::Spawn {
        program: script.display().to_string(),
        source,
    })?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    ctx.checks.that(out.status.success(), || {
        format!(
            "eval-drive.sh should exit 0: {:?}; stdout {stdout}; stderr {}",
            out.status.code(),
            stderr
                .chars()
                .rev()
                .take(1500)
                .collect::<String>()
                .chars()
                .rev()
                .collect::<String>()
        )
    });
    ctx.checks.that(
        stdout.contains("corpus bandit 1.9.4 on Bottle 0.13.2")
            && stdout.contains("15 of 15 findings labelled"),
        || format!("the table should name the corpus and its 15 labelled findings: {stdout}"),
    );
    ctx.checks.that(
        stdout.contains("protocol: ") && !stdout.contains("launches not read"),
        || format!("the protocol line should read the launches from the transcripts: {stdout}"),
    );
    let run_dir = into.join(".self-repair/runs/r-eval");
    for file in ["eval.md", "eval.svg"] {
        ctx.checks.that(run_dir.join(file).is_file(), || {
            format!("{} should exist", run_dir.join(file).display())
        });
    }
    ctx.notes.push(format!(
        "eval-drive: {}",
        stdout
            .lines()
            .find(|l| l.starts_with("all "))
            .unwrap_or("")
            .trim()
    ));
    Ok(())
}
