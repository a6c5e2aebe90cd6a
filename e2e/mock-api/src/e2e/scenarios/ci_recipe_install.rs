//! `ci-recipe-install`: how the recipes install `self-repair` and the client (issues 42 and 46):
//! every job that runs `self-repair` caches and installs it with the same steps, pinned (a
//! released version, and until it is released a commit), and pins Claude Code to the tested
//! newest. `pull-request.yml`'s steps up to its install run four times, each on a fresh runner
//! (its own clone and `HOME`) against the release served on 127.0.0.1
//! (`e2e/release_server.rs`): a cold cache (the installer downloads the archive and checks its
//! SHA-256), a warm one (restored, nothing downloaded), a tampered archive (refused, nothing
//! installed or cached), and no release yet (the pinned commit from source, by the `cargo` shim).

use std::fs;

use crate::e2e::e2e_error::E2eError;
use crate::e2e::e2e_project::E2eProject;
use crate::e2e::release_server::{ReleaseServer, package_version, packed_release};
use crate::e2e::scenarios::ScenarioContext;
use crate::e2e::scenarios::ci_recipes::{job_runner, recipe, scratch_clone};
use crate::e2e::workflow::{Workflow, WorkflowStep};
use crate::e2e::workflow_job::{StepRun, newest_client};
use crate::mock_server::MockServer;
use crate::scenario::Scenario;

const RECIPES: [&str; 5] = [
    "alerts.yml",
    "fix.yml",
    "partitions.yml",
    "pull-request.yml",
    "triage.yml",
];

/// The folder the recipes install `self-repair` into and cache.
const BIN: &str = "~/.self-repair/bin";

/// The install step: the one that puts the folder on `PATH`.
fn is_install(step: &WorkflowStep) -> bool {
    step.run
        .as_deref()
        .is_some_and(|run| run.contains(">> \"$GITHUB_PATH\""))
}

/// The install step's text up to the client's install (the lines after it install the job's
/// own analyzers).
fn install_text(step: &WorkflowStep) -> String {
    let run = step.run.as_deref().unwrap_or_default();
    run.lines()
        .take_while(|line| !line.trim_start().starts_with("pip install"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The recipes' pins and their install steps, read: each job that runs `self-repair` has the
/// cache step of `BIN` keyed by both pins, then an install step of the same text as
/// `pull-request.yml`'s; each workflow pins this version and a full commit; no step builds a
/// moving HEAD or installs an unpinned client.
fn check_every_recipe(ctx: &mut ScenarioContext, reference: &str) -> Result<(), E2eError> {
    let version = package_version(&ctx.tools.repo)?;
    let client = format!(
        "npm install -g @anthropic-ai/claude-code@{}",
        newest_client(&ctx.tools.repo)?
    );
    for name in RECIPES {
        let workflow = recipe(ctx, name)?;
        let env = |key: &str| {
            workflow
                .env
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.clone())
        };
        let rev = env("SELF_REPAIR_REV").unwrap_or_default();
        ctx.checks.that(
            env("SELF_REPAIR_VERSION").as_deref() == Some(version.as_str())
                && rev.len() == 40
                && rev.chars().all(|c| c.is_ascii_hexdigit()),
            || format!("{name}: env pins SELF_REPAIR_VERSION {version} and a full commit SELF_REPAIR_REV: {:?}", workflow.env),
        );
        for job in &workflow.jobs {
            // A command line that runs it (not a notice that names it).
            let runs_it = job.steps.iter().any(|s| {
                s.run.as_deref().is_some_and(|r| {
                    r.lines()
                        .any(|l| l.trim_start().starts_with("self-repair "))
                })
            });
            let install = job.steps.iter().position(is_install);
            let cached = install
                .and_then(|i| i.checked_sub(1))
                .map(|i| &job.steps[i]);
            let with = |step: &WorkflowStep, key: &str| {
                step.with
                    .iter()
                    .find(|(k, _)| k == key)
                    .map(|(_, v)| v.clone())
                    .unwrap_or_default()
            };
            let good = match (install, cached) {
                (Some(i), Some(cache)) => {
                    let key = with(cache, "key");
                    cache.uses.as_deref() == Some("actions/cache@v4")
                        && with(cache, "path") == BIN
                        && key.contains("${{ env.SELF_REPAIR_VERSION }}")
                        && key.contains("${{ env.SELF_REPAIR_REV }}")
                        && install_text(&job.steps[i]) == reference
                        && install_text(&job.steps[i]).contains(&client)
                }
                _ => !runs_it,
            };
            ctx.checks.that(good, || {
                format!(
                    "{name}, job {}: self-repair is not installed by the cache step of {BIN} and the pinned install step pull-request.yml has",
                    job.id
                )
            });
        }
    }
    Ok(())
}

/// `pull-request.yml`'s job cut after its install step, plus a step that runs what it put on
/// `PATH`.
fn install_only(workflow: &Workflow) -> Option<Workflow> {
    let mut workflow = workflow.clone();
    workflow.jobs.retain(|job| job.id == "new-findings");
    let job = workflow.jobs.first_mut()?;
    let install = job.steps.iter().position(is_install)?;
    job.steps.truncate(install + 1);
    job.steps.push(WorkflowStep {
        name: "probe".to_owned(),
        run: Some("command -v self-repair\nself-repair --version\ncommand -v claude\n".to_owned()),
        ..WorkflowStep::default()
    });
    Some(workflow)
}

/// One fresh runner: a clone, the job run with `release` (`good`, `tampered`, `none`) and the
/// shared `cache`; its steps.
fn fresh_runner(
    ctx: &mut ScenarioContext,
    workflow: &Workflow,
    name: &str,
    server: &ReleaseServer,
    release: &str,
    cache: &std::path::Path,
) -> Result<(E2eProject, Vec<StepRun>), E2eError> {
    let project = scratch_clone(ctx, &format!("ci-recipe-install-{name}"))?;
    let api = MockServer::start_recording(Scenario::new(), &project.records_path(1))?;
    let artifacts = project.root().join("ci-artifacts");
    let mut runner = job_runner(ctx, &project, &api, &[], &artifacts)?;
    runner.releases = format!("{}/{release}", server.url());
    cache.clone_into(&mut runner.cache);
    let steps = runner.run(workflow, "new-findings")?;
    Ok((project, steps))
}

fn describe(steps: &[StepRun]) -> String {
    steps
        .iter()
        .map(StepRun::describe)
        .collect::<Vec<_>>()
        .join("\n")
}

/// The installed binary, in the runner's `HOME`.
fn installed(project: &E2eProject) -> std::path::PathBuf {
    project.root().join("ci-home/.self-repair/bin/self-repair")
}

pub(crate) fn run(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let workflow = recipe(ctx, "pull-request.yml")?;
    let Some(workflow) = install_only(&workflow) else {
        ctx.checks
            .fail("pull-request.yml: no job new-findings with an install step".to_owned());
        return Ok(());
    };
    let reference = install_text(&workflow.jobs[0].steps[workflow.jobs[0].steps.len() - 2]);
    check_every_recipe(ctx, &reference)?;
    let version = package_version(&ctx.tools.repo)?;
    let server = ReleaseServer::start(packed_release(&ctx.tools)?)?;
    let scratch = ctx.tools.work.join("ci-recipe-install-cache");
    let _ = fs::remove_dir_all(&scratch);
    let install_step = |steps: &[StepRun]| steps.iter().rev().nth(1).cloned();
    // The cache step's outcome: `cache hit ...` or `cache miss ...`.
    let cache_said = |steps: &[StepRun]| {
        steps
            .iter()
            .find(|s| s.name.starts_with("Cache self-repair"))
            .map(|s| s.output.clone())
            .unwrap_or_default()
    };

    // A cold cache: the release's installer, the archive's SHA-256 checked, then cached.
    let cache = scratch.join("cache");
    let (cold, steps) = fresh_runner(ctx, &workflow, "cold", &server, "good", &cache)?;
    let all_passed = steps.iter().all(StepRun::passed);
    let probe = steps.last().map(|s| s.output.clone()).unwrap_or_default();
    ctx.checks.that(
        all_passed
            && cache_said(&steps).starts_with("cache miss")
            && install_step(&steps).is_some_and(|s| {
                s.output
                    .contains("self-repair-installer: checksum verified")
            })
            && probe.contains(&installed(&cold).display().to_string())
            && probe.contains(&format!("self-repair {version}"))
            && probe.contains("ci-bin/claude"),
        || format!("a cold cache: {}", describe(&steps)),
    );
    let downloads = server.requests();
    ctx.checks.that(
        downloads.iter().any(|p| p.ends_with(".tar.gz"))
            && downloads.iter().any(|p| p.ends_with(".tar.gz.sha256")),
        || format!("a cold cache downloaded {downloads:?}"),
    );
    let cold_wall = install_step(&steps).map(|s| s.wall.as_secs_f64());

    // A warm cache on another runner: restored, nothing downloaded.
    let (warm, steps) = fresh_runner(ctx, &workflow, "warm", &server, "good", &cache)?;
    let probe = steps.last().map(|s| s.output.clone()).unwrap_or_default();
    ctx.checks.that(
        steps.iter().all(StepRun::passed)
            && cache_said(&steps).starts_with("cache hit")
            && probe.contains(&installed(&warm).display().to_string())
            && probe.contains(&format!("self-repair {version}")),
        || format!("a warm cache: {}", describe(&steps)),
    );
    ctx.checks.equal(
        "downloads with a warm cache",
        &server.requests().len(),
        &downloads.len(),
    );
    let warm_wall = install_step(&steps).map(|s| s.wall.as_secs_f64());
    ctx.notes.push(format!(
        "install step (download from 127.0.0.1, SHA-256, install; npm and pip are shims): cold cache {:.2} s, warm cache {:.2} s",
        cold_wall.unwrap_or_default(),
        warm_wall.unwrap_or_default()
    ));

    // A tampered archive: refused, nothing installed, nothing cached.
    let tampered_cache = scratch.join("tampered-cache");
    let (tampered, steps) = fresh_runner(
        ctx,
        &workflow,
        "tampered",
        &server,
        "tampered",
        &tampered_cache,
    )?;
    let step = install_step(&steps);
    ctx.checks.that(
        step.as_ref().is_some_and(|s| {
            !s.passed()
                && s.output.contains("checksum mismatch")
                && s.output.contains("nothing was installed")
        }) && !installed(&tampered).exists()
            && fs::read_dir(&tampered_cache).map_or(true, |mut d| d.next().is_none()),
        || format!("a tampered archive: {}", describe(&steps)),
    );

    // No release yet: the pinned commit from source, with a notice.
    let rev = workflow
        .env
        .iter()
        .find(|(k, _)| k == "SELF_REPAIR_REV")
        .map(|(_, v)| v.clone())
        .unwrap_or_default();
    let (source, steps) = fresh_runner(
        ctx,
        &workflow,
        "unreleased",
        &server,
        "none",
        &scratch.join("source-cache"),
    )?;
    let cargo = fs::read_to_string(source.root().join("ci-cargo.log")).unwrap_or_default();
    ctx.checks.that(
        steps.iter().all(StepRun::passed)
            && install_step(&steps).is_some_and(|s| {
                s.output
                    .contains("::notice title=self-repair built from source::")
            })
            && cargo.contains("--locked")
            && cargo.contains(&format!("--rev {rev}"))
            && installed(&source).exists(),
        || format!("no release yet: cargo saw {cargo:?}; {}", describe(&steps)),
    );
    Ok(())
}
