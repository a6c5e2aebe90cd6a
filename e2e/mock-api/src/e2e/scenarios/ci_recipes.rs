//! The GitHub Actions recipes of `examples/github-actions/` run as they are (issue 26 item 5):
//! each workflow file is read, and its job's `run:` steps execute in order in a scratch clone
//! of the `shop` fixture (tests/fixtures/fix-loop) against the scripted Messages API and the
//! real client, with the local stand-ins of `e2e/workflow_job.rs` for what a hosted runner
//! downloads, so a recipe that stops working fails here. A matrix job runs once per
//! combination, each in its own clone as separate machines would, the jobs sharing only a
//! scratch artifacts folder (issue 27 item 4). The `${{ ... }}` expressions the recipes may
//! use and their values are [`context`]'s, plus each combination's `matrix.*` and `strategy.*`.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::e2e::e2e_error::E2eError;
use crate::e2e::e2e_project::{E2eProject, InstallMode};
use crate::e2e::release_server::ReleaseServer;
use crate::e2e::scenarios::ScenarioContext;
use crate::e2e::scenarios::fix_loop::CONFIG;
use crate::e2e::scenarios::shop_triage::triage_results;
use crate::e2e::workflow::Workflow;
use crate::e2e::workflow_job::{StepRun, WorkflowJobRun};
use crate::fix_script::{FixScript, FixStep};
use crate::mock_server::MockServer;
use crate::scenario::Scenario;

const FIXTURE: &str = "tests/fixtures/fix-loop/shop";
/// The base branch of the pull request, and of every clone.
const BASE: &str = "main";
/// `github.run_id` in the recipes.
const RUN_ID: &str = "4242";
/// `github.repository`, and the head repository of a pull request made from it.
const REPOSITORY: &str = "o/shop";
/// The expression naming a pull request's head repository (a fork's differs).
const HEAD_REPO: &str = "github.event.pull_request.head.repo.full_name";
/// The expression naming a pull request's author (Dependabot's is `dependabot[bot]`).
const AUTHOR: &str = "github.event.pull_request.user.login";

/// The values of the expressions the recipes use: the API key the scripted server accepts
/// (the `ANTHROPIC_API_KEY` secret), the pull request's base branch and head repository (this
/// one), a run id.
fn context() -> Vec<(String, String)> {
    [
        ("secrets.ANTHROPIC_API_KEY", "e2e-not-a-key"),
        ("github.base_ref", BASE),
        ("github.run_id", RUN_ID),
        ("github.ref_name", BASE),
        ("github.token", "e2e-not-a-token"),
        ("github.repository", REPOSITORY),
        (HEAD_REPO, REPOSITORY),
        (AUTHOR, "a-maintainer"),
        ("github.workflow", "self-repair pull request"),
        ("github.event.pull_request.number", "7"),
        ("runner.os", "Linux"),
        ("runner.arch", "X64"),
    ]
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .to_vec()
}

/// The recipe `examples/github-actions/NAME`, read.
pub(super) fn recipe(ctx: &mut ScenarioContext, name: &str) -> Result<Workflow, E2eError> {
    let path = ctx.tools.repo.join("examples/github-actions").join(name);
    let text = fs::read_to_string(&path).map_err(E2eError::io(&path))?;
    Workflow::parse(&text).map_err(|message| E2eError::Unexpected { path, message })
}

/// A clone of a repository holding the `shop` package, its tests and the analyzers' config
/// (`.self-repair/config.json`, as a team commits it), on branch `main`, with `origin` a bare
/// repository beside it, as `actions/checkout` leaves a runner's workspace.
pub(super) fn scratch_clone(ctx: &ScenarioContext, name: &str) -> Result<E2eProject, E2eError> {
    let project = E2eProject::new(&ctx.tools, name, InstallMode::Plugin, 0)?;
    let findings = project.path().join("findings.jsonl");
    fs::remove_file(&findings).map_err(E2eError::io(&findings))?;
    project.copy_in(&ctx.tools.repo.join(FIXTURE), ".")?;
    project.write(".self-repair/config.json", CONFIG)?;
    let origin = project.root().join("origin.git");
    project.git(&[
        "init",
        "-q",
        "--bare",
        "-b",
        BASE,
        &origin.display().to_string(),
    ])?;
    project.git(&["init", "-q", "-b", BASE])?;
    project.git(&["add", "-A"])?;
    project.git(&["commit", "-qm", "shop"])?;
    project.git(&["remote", "add", "origin", &origin.display().to_string()])?;
    project.git(&["push", "-q", "origin", BASE])?;
    Ok(project)
}

/// Runs the job (no matrix) in the project's clone; every step's outcome.
fn run_job(
    ctx: &mut ScenarioContext,
    project: &E2eProject,
    server: &MockServer,
    workflow: &Workflow,
    job: &str,
) -> Result<Vec<StepRun>, E2eError> {
    let artifacts = project.root().join("ci-artifacts");
    run_job_with(ctx, project, server, workflow, job, &[], &artifacts)
}

/// The runner of a job in `project`: the expressions of [`context`] after `matrix` (the first
/// value of a name wins, so a scenario can also give one that replaces a documented value: a
/// fork's head repository), the release server's `good` release, a cache of its own.
pub(super) fn job_runner<'a>(
    ctx: &ScenarioContext,
    project: &'a E2eProject,
    server: &MockServer,
    matrix: &[(String, String)],
    artifacts: &Path,
) -> Result<WorkflowJobRun<'a>, E2eError> {
    let releases = ReleaseServer::shared(&ctx.tools)?;
    Ok(WorkflowJobRun {
        project,
        base_url: server.base_url(),
        context: matrix.iter().cloned().chain(context()).collect(),
        artifacts: artifacts.to_owned(),
        step_timeout: ctx.claude_timeout() * 3,
        releases: format!("{}/good", releases.url()),
        cache: project.root().join("ci-cache"),
    })
}

/// Runs the job with one matrix combination's values (`matrix`), its artifacts in
/// `artifacts`, and notes how its steps went.
pub(super) fn run_job_with(
    ctx: &mut ScenarioContext,
    project: &E2eProject,
    server: &MockServer,
    workflow: &Workflow,
    job: &str,
    matrix: &[(String, String)],
    artifacts: &Path,
) -> Result<Vec<StepRun>, E2eError> {
    let runner = job_runner(ctx, project, server, matrix, artifacts)?;
    let steps = runner.run(workflow, job)?;
    let total: f64 = steps.iter().map(|s| s.wall.as_secs_f64()).sum();
    let values: Vec<String> = matrix
        .iter()
        .filter(|(k, _)| k.starts_with("matrix."))
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    ctx.notes.push(format!(
        "{} / {job}{}: {} steps in {total:.1} s ({})",
        workflow.name,
        if values.is_empty() {
            String::new()
        } else {
            format!(" [{}]", values.join(", "))
        },
        steps.len(),
        steps
            .iter()
            .map(|s| match (s.skipped, s.code) {
                (true, _) => "skipped".to_owned(),
                (false, code) => format!("{:?}", code.unwrap_or(-1)),
            })
            .collect::<Vec<_>>()
            .join(" ")
    ));
    Ok(steps)
}

/// The workflow grants `security-events: write`, which `what` needs.
pub(super) fn check_permission(
    ctx: &mut ScenarioContext,
    workflow: &Workflow,
    file: &str,
    what: &str,
) {
    ctx.checks.that(
        workflow
            .permissions
            .contains(&("security-events".to_owned(), "write".to_owned())),
        || format!("{file}: {what} needs `permissions: security-events: write`"),
    );
}

fn check_all_passed(ctx: &mut ScenarioContext, steps: &[StepRun]) {
    for step in steps {
        ctx.checks.that(step.passed(), || step.describe());
    }
}

/// The one triage run the job made.
pub(super) fn only_run(project: &E2eProject) -> Result<String, E2eError> {
    let dir = project.path().join(".self-repair/runs");
    let mut runs: Vec<String> = fs::read_dir(&dir)
        .map_err(E2eError::io(&dir))?
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| !name.starts_with("fix-"))
        .collect();
    runs.sort();
    runs.pop().ok_or_else(|| E2eError::Unexpected {
        path: dir,
        message: "no run".to_owned(),
    })
}

/// `ci-recipe-triage`: `triage.yml`: Ruff's SARIF triaged by `drive`, exported, validated as
/// code scanning's upload would need it, the run folder kept.
pub(crate) fn triage(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let workflow = recipe(ctx, "triage.yml")?;
    check_permission(ctx, &workflow, "triage.yml", "upload-sarif");
    let project = scratch_clone(ctx, "ci-recipe-triage")?;
    let scenario = Scenario::new().results(|show| triage_results(show, false));
    let server = MockServer::start_recording(scenario, &project.records_path(1))?;
    let gh_state = install_scripted_gh(&project)?;
    let steps = run_job(ctx, &project, &server, &workflow, "triage")?;
    check_all_passed(ctx, &steps);
    check_installed_from_release(ctx, &steps);
    // The registries come back as the recipe's default says: a branch and its pull request.
    let branch = format!("self-repair/registries-{RUN_ID}");
    let calls = fs::read_to_string(gh_state.join("calls.log")).unwrap_or_default();
    ctx.checks.that(
        calls.contains(&format!("gh pr create --head {branch} --base {BASE}")),
        || format!("triage.yml opened no pull request of the registries: {calls:?}"),
    );
    check_registries_pushed(ctx, &project, &branch);
    // Every Ruff result is in the upload with its verdict and, being real, its task.
    let read_json = |relative: &str| -> Result<Value, E2eError> {
        let path = project.path().join(relative);
        let text = fs::read_to_string(&path).map_err(E2eError::io(&path))?;
        serde_json::from_str(&text).map_err(|e| E2eError::Unexpected {
            path,
            message: e.to_string(),
        })
    };
    let ruff = read_json(".self-repair/ruff.sarif")?;
    let triaged = read_json(".self-repair/triaged.sarif")?;
    let results = |log: &Value| -> Vec<Value> {
        log["runs"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|run| run["results"].as_array().cloned().unwrap_or_default())
            .collect()
    };
    let read = results(&ruff).len();
    let with_task = results(&triaged)
        .iter()
        .filter(|r| {
            r.pointer("/properties/self-repair/verdict") == Some(&Value::from("real"))
                && r.pointer("/properties/self-repair/task").is_some()
        })
        .count();
    ctx.checks.that(read >= 3 && with_task == read, || {
        format!("triaged.sarif: {with_task} of Ruff's {read} results are real with a task")
    });
    check_next_run_pays_nothing(ctx, &project, &branch, read)?;
    let run = only_run(&project)?;
    let state = project.run(&run).state()?;
    ctx.checks.equal(
        "the triage run's status",
        &state["status"].as_str(),
        &Some("complete"),
    );
    Ok(())
}

/// The commit at the tip of `origin`'s `branch` holds the run's `known.json` with an entry per
/// decided finding, and no findings file (they stay ignored under `.self-repair/`).
fn check_registries_pushed(ctx: &mut ScenarioContext, project: &E2eProject, branch: &str) {
    let git_dir = project.root().join("origin.git").display().to_string();
    let files = project
        .git(&[
            "--git-dir",
            &git_dir,
            "show",
            "--name-only",
            "--format=",
            branch,
        ])
        .unwrap_or_default();
    let known = project
        .git(&[
            "--git-dir",
            &git_dir,
            "show",
            &format!("{branch}:.self-repair/known.json"),
        ])
        .unwrap_or_default();
    // known.json: a header line, then one entry a line.
    let entries = known
        .lines()
        .skip(1)
        .filter(|l| l.contains("fingerprint"))
        .count();
    ctx.checks.that(
        files.lines().any(|f| f == ".self-repair/known.json")
            && entries >= 3
            && !files.contains("ruff.sarif"),
        || {
            format!(
                "origin's {branch}: the commit's files {files:?}, known.json's entries {entries}"
            )
        },
    );
    ctx.notes.push(format!(
        "registries on origin's {branch}: {entries} entries in known.json"
    ));
}

/// Next week's run, on a fresh clone of the registries' `branch` (as `main` once its pull request
/// is merged): this week's `read` findings are all decided by the committed `known.json`, and
/// none goes to an agent (`start --dry-run`).
fn check_next_run_pays_nothing(
    ctx: &mut ScenarioContext,
    project: &E2eProject,
    branch: &str,
    read: usize,
) -> Result<(), E2eError> {
    let next = project.root().join("next-week");
    let origin = project.root().join("origin.git").display().to_string();
    let next_text = next.display().to_string();
    project.git(&["clone", "-q", "-b", branch, &origin, &next_text])?;
    let report = project.path().join(".self-repair/ruff.sarif");
    let out = std::process::Command::new(&project.tools().self_repair)
        .arg("start")
        .arg(&report)
        .arg("--dry-run")
        .current_dir(&next)
        .env("HOME", project.root().join("ci-home"))
        .env_remove("CLAUDE_CODE_SESSION_ID")
        .env_remove("CLAUDE_PROJECT_DIR")
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|source| E2eError::Spawn {
            program: project.tools().self_repair.display().to_string(),
            source,
        })?;
    let text = String::from_utf8_lossy(&out.stdout);
    ctx.checks.that(
        out.status.success()
            && text.contains(&format!("known registry decided {read},"))
            && text.contains(" 0 go to triage agents"),
        || {
            format!(
                "next week's run on {branch}: {:?} {text}{}",
                out.status.code(),
                String::from_utf8_lossy(&out.stderr)
            )
        },
    );
    Ok(())
}

/// `ci-recipe-pull-request`: `pull-request.yml` on a pull request that brings back a `== None`
/// comparison: only that finding reaches triage, `drive --fail-on-real` fails the job with
/// exit 24, and the `if: failure()` step says why.
pub(crate) fn pull_request(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let workflow = recipe(ctx, "pull-request.yml")?;
    check_concurrency(ctx, &workflow);
    skipped_pull_request(ctx, &workflow, HEAD_REPO, "someone/shop", "someone/shop")?;
    skipped_pull_request(ctx, &workflow, AUTHOR, "dependabot[bot]", "Dependabot's")?;
    let project = scratch_clone(ctx, "ci-recipe-pull-request")?;
    // The base branch has the comparison right; the pull request's commit makes it `== None`.
    let pricing = project.path().join("shop/pricing.py");
    let text = fs::read_to_string(&pricing).map_err(E2eError::io(&pricing))?;
    project.write(
        "shop/pricing.py",
        &text.replace("if discount == None:", "if discount is None:"),
    )?;
    project.git(&["commit", "-qam", "pricing: compare with is None"])?;
    project.git(&["push", "-q", "origin", BASE])?;
    project.git(&["checkout", "-q", "-b", "feature"])?;
    project.write("shop/pricing.py", &text)?;
    project.git(&["commit", "-qam", "pricing: simplify"])?;
    let scenario = Scenario::new().results(|show| triage_results(show, false));
    let server = MockServer::start_recording(scenario, &project.records_path(1))?;
    let skipped_job = run_job(ctx, &project, &server, &workflow, "skipped")?;
    ctx.checks.that(skipped_job.iter().all(|s| s.skipped), || {
        "the `skipped` job ran on the repository's own pull request".to_owned()
    });
    let steps = run_job(ctx, &project, &server, &workflow, "new-findings")?;
    check_installed_from_release(ctx, &steps);
    let gate = steps
        .iter()
        .position(|s| s.output.contains("exit 24 (--fail-on-real)"));
    match gate {
        Some(i) => {
            ctx.checks
                .equal("the gate step's exit", &steps[i].code, &Some(24));
            check_all_passed(ctx, &steps[..i]);
            let why = steps.get(i + 1);
            ctx.checks.that(
                why.is_some_and(|s| s.passed() && s.output.contains("E711")),
                || format!("the `if: failure()` step: {:?}", why.map(StepRun::describe)),
            );
        }
        None => ctx.checks.fail(format!(
            "no step failed with `drive --fail-on-real`'s exit 24: {}",
            steps
                .iter()
                .map(StepRun::describe)
                .collect::<Vec<_>>()
                .join("\n")
        )),
    }
    let run = only_run(&project)?;
    let state = project.run(&run).state()?;
    ctx.checks.equal(
        "findings out of the pull request's scope (F541, E712)",
        &state.pointer("/scope/out_of_scope").and_then(Value::as_u64),
        &Some(2),
    );
    ctx.checks.equal(
        "findings triaged",
        &state["triage_items"].as_u64(),
        &Some(1),
    );
    Ok(())
}

/// `ci-recipe-pull-request-clean`: `pull-request.yml` on a repository Ruff has no complaint
/// about, the goal state: every step that runs passes (no `--fail-on-real` exit, no `if:
/// failure()` step), the run is complete with nothing to triage, and no model is called.
pub(crate) fn pull_request_clean(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let workflow = recipe(ctx, "pull-request.yml")?;
    let project = scratch_clone(ctx, "ci-recipe-pull-request-clean")?;
    for file in [
        "shop/pricing.py",
        "shop/report.py",
        "shop/inventory.py",
        "tests/test_inventory.py",
        "tests/test_pricing.py",
        "tests/test_report.py",
    ] {
        let path = project.path().join(file);
        fs::remove_file(&path).map_err(E2eError::io(&path))?;
    }
    project.write("shop/__init__.py", "\"\"\"The shop.\"\"\"\n")?;
    project.git(&["add", "-A"])?;
    project.git(&["commit", "-qm", "shop: nothing left to flag"])?;
    project.git(&["push", "-q", "origin", BASE])?;
    project.git(&["checkout", "-q", "-b", "feature"])?;
    project.write(
        "shop/__init__.py",
        "\"\"\"The shop.\"\"\"\n\nVERSION = \"0.1.0\"\n",
    )?;
    project.git(&["commit", "-qam", "shop: its version"])?;
    let server = MockServer::start_recording(Scenario::new(), &project.records_path(1))?;
    let steps = run_job(ctx, &project, &server, &workflow, "new-findings")?;
    check_installed_from_release(ctx, &steps);
    let ran: Vec<StepRun> = steps.into_iter().filter(|s| !s.skipped).collect();
    check_all_passed(ctx, &ran);
    let run = only_run(&project)?;
    let state = project.run(&run).state()?;
    ctx.checks.equal(
        "the clean run's status",
        &state["status"].as_str(),
        &Some("complete"),
    );
    ctx.checks.equal(
        "findings triaged",
        &state["triage_items"].as_u64(),
        &Some(0),
    );
    let calls = server.requests().len();
    ctx.checks.that(calls == 0, || {
        format!("{calls} request(s) to the model on a clean repository")
    });
    Ok(())
}

/// `concurrency`: one group per pull request (two pushes of it share one, another pull
/// request has its own), and a new run cancels the one in progress.
fn check_concurrency(ctx: &mut ScenarioContext, workflow: &Workflow) {
    let Some(concurrency) = &workflow.concurrency else {
        ctx.checks
            .fail("pull-request.yml has no `concurrency` group".to_owned());
        return;
    };
    let group = |number: &str| {
        let values: Vec<(String, String)> = std::iter::once((
            "github.event.pull_request.number".to_owned(),
            number.to_owned(),
        ))
        .chain(context())
        .collect();
        crate::e2e::workflow::substitute(&concurrency.group, &values)
    };
    ctx.checks.that(
        concurrency.cancel_in_progress
            && group("7").is_ok()
            && group("7") == group("7")
            && group("7") != group("8"),
        || format!("pull-request.yml's concurrency: {concurrency:?}: one group per pull request, cancel-in-progress"),
    );
}

/// The same recipe on a pull request the triage cannot pay for, `expression` having `value`
/// (a fork's head repository, Dependabot as the author), in its own clone: the triage job is
/// skipped whole (no run, no API call), and the `skipped` job passes with a notice naming
/// `named` and why (no secrets).
fn skipped_pull_request(
    ctx: &mut ScenarioContext,
    workflow: &Workflow,
    expression: &str,
    value: &str,
    named: &str,
) -> Result<(), E2eError> {
    let slug: String = value.chars().filter(char::is_ascii_alphanumeric).collect();
    let project = scratch_clone(ctx, &format!("ci-recipe-pull-request-{slug}"))?;
    let server = MockServer::start_recording(Scenario::new(), &project.records_path(1))?;
    let artifacts = project.root().join("ci-artifacts");
    let values = [(expression.to_owned(), value.to_owned())];
    let triage = run_job_with(
        ctx,
        &project,
        &server,
        workflow,
        "new-findings",
        &values,
        &artifacts,
    )?;
    ctx.checks.that(
        !triage.is_empty() && triage.iter().all(|s| s.skipped),
        || {
            format!(
                "{expression} = {value}: the pull request ran the triage: {}",
                triage
                    .iter()
                    .map(StepRun::describe)
                    .collect::<Vec<_>>()
                    .join("\n")
            )
        },
    );
    ctx.checks
        .that(!project.path().join(".self-repair/runs").exists(), || {
            format!("{expression} = {value}: the pull request made a run")
        });
    let said = run_job_with(
        ctx, &project, &server, workflow, "skipped", &values, &artifacts,
    )?;
    check_all_passed(ctx, &said);
    ctx.checks.that(
        said.iter().any(|s| {
            s.output.contains("::notice title=self-repair skipped::")
                && s.output.contains(named)
                && s.output.contains("no ANTHROPIC_API_KEY")
        }),
        || {
            format!(
                "{expression} = {value}: the `skipped` job's notice: {:?}",
                said.iter().map(|s| &s.output).collect::<Vec<_>>()
            )
        },
    );
    Ok(())
}

/// The job's install step took `self-repair` from the (local) release, its checksum verified
/// by the installer, and did not build it.
pub(super) fn check_installed_from_release(ctx: &mut ScenarioContext, steps: &[StepRun]) {
    ctx.checks.that(
        steps.iter().any(|s| {
            s.passed()
                && s.output
                    .contains("self-repair-installer: checksum verified")
        }),
        || {
            format!(
                "no step installed self-repair from the release with its checksum verified: {}",
                steps
                    .iter()
                    .map(StepRun::describe)
                    .collect::<Vec<_>>()
                    .join("\n")
            )
        },
    );
}

fn file_step(project: &E2eProject, relative: &str) -> String {
    project.path().join(relative).display().to_string()
}

/// The scripted fixes of the `shop` tasks the model fixes (F541's is Ruff's own): the main
/// session reads the file and edits it, as in `fix-loop-verified`.
fn shop_fixes(project: &E2eProject) -> Vec<FixScript> {
    let fix = |when: &str, file: &str, old: &str, new: &str| FixScript {
        when: when.to_owned(),
        attempt: None,
        steps: vec![
            FixStep::Read {
                file_path: file_step(project, file),
            },
            FixStep::Edit {
                file_path: file_step(project, file),
                old_string: old.to_owned(),
                new_string: new.to_owned(),
            },
        ],
    };
    vec![
        fix(
            "E711",
            "shop/pricing.py",
            "if discount == None:",
            "if discount is None:",
        ),
        fix(
            "E712",
            "shop/inventory.py",
            "item[\"active\"] == True",
            "item[\"active\"] is True",
        ),
        fix(
            "legacy_summary",
            "shop/report.py",
            crate::e2e::scenarios::fix_loop::LEGACY,
            "",
        ),
    ]
}

/// `ci-recipe-fix`: `fix.yml`: the detectors' findings triaged into tasks by `drive`, then the
/// fix queue driven headless by `drive` under the user's own rules (`Edit`, `Write`): every
/// task fixed, one commit each, then a draft pull request per task through a scripted `gh`
/// (each branch its task's commit alone on `main`); run again, it edits them and opens none.
pub(crate) fn fix(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let workflow = recipe(ctx, "fix.yml")?;
    let project = scratch_clone(ctx, "ci-recipe-fix")?;
    let scenario = shop_fixes(&project).into_iter().fold(
        Scenario::new().results(|show| triage_results(show, false)),
        Scenario::fix_script,
    );
    let server = MockServer::start_recording(scenario, &project.records_path(1))?;
    let gh_state = install_scripted_gh(&project)?;
    let steps = run_job(ctx, &project, &server, &workflow, "fix")?;
    check_all_passed(ctx, &steps);
    check_installed_from_release(ctx, &steps);
    let run = only_run(&project)?;
    let path = project
        .path()
        .join(format!(".self-repair/runs/{run}/fix.json"));
    let queue: Value = fs::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    let statuses: Vec<&str> = queue["tasks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["status"].as_str())
        .collect();
    ctx.checks.equal(
        "fix.json: the four real root causes fixed",
        &statuses,
        &vec!["fixed"; 4],
    );
    check_pull_requests(ctx, &project, &run, &gh_state)?;
    // The fix queue ran in sessions `drive` started: lines of the triage run's drive log.
    let log = fs::read_to_string(project.run(&run).dir().join("drive.jsonl")).unwrap_or_default();
    let fix_sessions = log
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| {
            v["phase_before"]
                .as_str()
                .is_some_and(|p| p.starts_with("fix "))
        })
        .count();
    ctx.checks.that(fix_sessions >= 1, || {
        format!("no fix session in drive.jsonl: {log}")
    });
    ctx.notes
        .push(format!("fix queue: {fix_sessions} drive session(s)"));
    Ok(())
}

/// The scripted GitHub CLI of the fix recipe, in the runner's `ci-bin`: every call appended to
/// `gh-state/calls.log` (each argument cut to 60 characters, on one line); `pr list --head
/// BRANCH` answered from the branches `pr create` saw (`gh-state/prs`, one a line: the line
/// number is the pull request's number). Returns the state folder.
fn install_scripted_gh(project: &E2eProject) -> Result<std::path::PathBuf, E2eError> {
    use std::os::unix::fs::PermissionsExt;
    let state = project.root().join("gh-state");
    let bin = project.root().join("ci-bin");
    for dir in [&state, &bin] {
        fs::create_dir_all(dir).map_err(E2eError::io(dir))?;
    }
    let script = format!(
        r#"#!/bin/sh
# The recipe test's `gh` (e2e/mock-api/src/e2e/scenarios/ci_recipes.rs): records, never the network.
state="{state}"
{{ printf 'gh'; for a in "$@"; do printf ' %s' "$(printf '%s' "$a" | head -c 60 | tr '\n' ' ')"; done; printf '\n'; }} >> "$state/calls.log"
case "$1 $2" in
  "pr list")
    n=$(grep -F -x -n -- "$4" "$state/prs" 2>/dev/null | head -n 1 | cut -d: -f1)
    if [ -n "$n" ]; then printf '[{{"number":%s,"url":"https://github.com/o/r/pull/%s"}}]\n' "$n" "$n"; else echo '[]'; fi ;;
  "pr create")
    echo "$5" >> "$state/prs"
    n=$(wc -l < "$state/prs" | tr -d ' ')
    echo "https://github.com/o/r/pull/$n" ;;
  "pr edit") echo "https://github.com/o/r/pull/$3" ;;
  *) echo "scripted gh: unexpected call: $*" >&2; exit 1 ;;
esac
"#,
        state = state.display()
    );
    let gh = bin.join("gh");
    fs::write(&gh, script).map_err(E2eError::io(&gh))?;
    fs::set_permissions(&gh, fs::Permissions::from_mode(0o755)).map_err(E2eError::io(&gh))?;
    Ok(state)
}

/// The fix recipe's pull requests: one draft per fixed task, each on its branch of `origin`
/// with its commit alone on `main`; `pull-requests` run again (as the step runs it) edits them
/// and opens none.
fn check_pull_requests(
    ctx: &mut ScenarioContext,
    project: &E2eProject,
    run: &str,
    gh_state: &Path,
) -> Result<(), E2eError> {
    let calls = fs::read_to_string(gh_state.join("calls.log")).unwrap_or_default();
    let creates: Vec<&str> = calls
        .lines()
        .filter(|l| l.starts_with("gh pr create --draft --head self-repair/"))
        .collect();
    ctx.checks.that(creates.len() == 4, || {
        format!("4 draft pull requests (one per fixed task): {calls}")
    });
    let origin = project.root().join("origin.git");
    let git_dir = origin.display().to_string();
    for n in 1..=4 {
        let branch = format!("self-repair/{run}/task-{n}");
        let parent = project
            .git(&["--git-dir", &git_dir, "rev-parse", &format!("{branch}^")])
            .unwrap_or_default();
        let main = project
            .git(&["--git-dir", &git_dir, "rev-parse", BASE])
            .unwrap_or_default();
        ctx.checks.that(!parent.is_empty() && parent == main, || {
            format!("origin's {branch} is its task's commit alone on {BASE}: parent {parent:?}, {BASE} {main:?}")
        });
    }
    // Run again: the same step, as the recipe runs it.
    let path = format!(
        "{}:/usr/local/bin:/usr/bin:/bin",
        project.root().join("ci-bin").display()
    );
    let again = std::process::Command::new(&project.tools().self_repair)
        .args(["pull-requests", "--base", BASE])
        .current_dir(project.path())
        .env("PATH", &path)
        .env("HOME", project.root().join("ci-home"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|source| E2eError::Spawn {
            program: project.tools().self_repair.display().to_string(),
            source,
        })?;
    ctx.checks.that(again.status.success(), || {
        format!(
            "pull-requests again: {:?} {}",
            again.status.code(),
            String::from_utf8_lossy(&again.stderr)
        )
    });
    let calls = fs::read_to_string(gh_state.join("calls.log")).unwrap_or_default();
    ctx.checks.equal(
        "pull requests opened after the rerun (none added)",
        &calls.matches("gh pr create").count(),
        &4,
    );
    ctx.checks.equal(
        "pull requests edited by the rerun",
        &calls.matches("gh pr edit").count(),
        &4,
    );
    Ok(())
}

/// The workflow with `SELF_REPAIR_REGISTRIES: push`: the other way the registries come back
/// (triage.yml's scenario takes the default, a pull request), a push to the branch the
/// workflow ran on.
fn registries_pushed(ctx: &mut ScenarioContext, mut workflow: Workflow) -> Workflow {
    let mode = workflow
        .env
        .iter_mut()
        .find(|(name, _)| name == "SELF_REPAIR_REGISTRIES");
    match mode {
        Some((_, value)) => "push".clone_into(value),
        None => ctx
            .checks
            .fail("partitions.yml: no SELF_REPAIR_REGISTRIES in its env".to_owned()),
    }
    workflow
}

/// The verdict column of a run's triage items (`items.triage.verdict`, one character each).
fn verdict_column(state: &Value) -> String {
    state
        .pointer("/items/triage/verdict")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// `ci-recipe-partitions`: `partitions.yml`: the matrix job once per share, each in its own
/// clone as separate machines run it (`start --partition hash:K/N --until triage`, `drive`,
/// the run folder uploaded to a scratch artifacts folder), then the merge job in a third clone
/// (every share downloaded, `merge`, `drive`, `export sarif`, upload-sarif): one run, every
/// finding decided once, its groups and tasks formed across both shares.
pub(crate) fn partitions(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let workflow = recipe(ctx, "partitions.yml")?;
    check_permission(ctx, &workflow, "partitions.yml", "upload-sarif");
    let Some(triage_job) = workflow.job("triage") else {
        ctx.checks
            .fail("partitions.yml: no job `triage`".to_owned());
        return Ok(());
    };
    let matrix = triage_job.matrix_runs();
    ctx.checks.equal("the matrix's shares", &matrix.len(), &2);
    ctx.checks.equal(
        "the merge job's needs",
        &workflow.job("merge").map(|j| j.needs.clone()),
        &Some(vec!["triage".to_owned()]),
    );
    // The merge job's machine, and beside it the workflow run's artifact store.
    let merge_clone = scratch_clone(ctx, "ci-recipe-partitions-merge")?;
    let artifacts = merge_clone.root().join("ci-artifacts");
    fs::create_dir_all(&artifacts).map_err(E2eError::io(&artifacts))?;
    let mut triaged_in_shares = 0;
    for (index, values) in matrix.iter().enumerate() {
        let share = index + 1;
        let project = scratch_clone(ctx, &format!("ci-recipe-partitions-share-{share}"))?;
        let scenario = Scenario::new().results(|show| triage_results(show, false));
        let server = MockServer::start_recording(scenario, &project.records_path(1))?;
        let steps = run_job_with(
            ctx, &project, &server, &workflow, "triage", values, &artifacts,
        )?;
        check_all_passed(ctx, &steps);
        check_installed_from_release(ctx, &steps);
        let state = project.run(&only_run(&project)?).state()?;
        ctx.checks.equal(
            &format!("share {share}: status and until"),
            &(state["status"].as_str(), state["until"].as_str()),
            &(Some("complete"), Some("triage")),
        );
        ctx.checks.equal(
            &format!("share {share}: scope.partition.share"),
            &state
                .pointer("/scope/partition/share")
                .and_then(Value::as_u64),
            &Some(share as u64),
        );
        let triaged = state["triage_items"].as_u64().unwrap_or_default();
        ctx.notes.push(format!(
            "share {share}/{}: {triaged} triage item(s)",
            matrix.len()
        ));
        triaged_in_shares += triaged;
    }
    let project = merge_clone;
    let workflow = registries_pushed(ctx, workflow);
    let scenario = Scenario::new().results(|show| triage_results(show, false));
    let server = MockServer::start_recording(scenario, &project.records_path(1))?;
    let steps = run_job_with(ctx, &project, &server, &workflow, "merge", &[], &artifacts)?;
    check_all_passed(ctx, &steps);
    check_installed_from_release(ctx, &steps);
    check_registries_pushed(ctx, &project, BASE);
    let run = project.run(&only_run(&project)?);
    let state = run.state()?;
    ctx.checks.equal(
        "the merged run's status",
        &state["status"].as_str(),
        &Some("complete"),
    );
    let shares: Vec<u64> = state["merged_from"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["share"].as_u64())
        .collect();
    ctx.checks
        .equal("the merged run's partitions", &shares, &vec![1, 2]);
    // Every finding decided once: in the shares, each triage item with a verdict, and none
    // triaged again in the merged run.
    let verdicts = verdict_column(&state);
    ctx.checks.that(
        triaged_in_shares >= 3
            && verdicts.len() as u64 == triaged_in_shares
            && !verdicts.contains('-'),
        || {
            format!(
                "merged verdicts {verdicts:?}: one decided verdict for each of the shares' {triaged_in_shares} triage items"
            )
        },
    );
    let triaged_again: Vec<String> = run
        .submitted()
        .into_keys()
        .filter(|item| item.starts_with("t-") || item.starts_with("tb-") || item.starts_with("rs-"))
        .collect();
    ctx.checks.that(triaged_again.is_empty(), || {
        format!("the merged run triaged again: {triaged_again:?}")
    });
    ctx.checks.that(
        state["tasks"].as_array().is_some_and(|t| !t.is_empty()),
        || format!("the merged run wrote no task: {}", state["tasks"]),
    );
    // The upload holds each Ruff result once, real with its task (the SARIF was validated by
    // the upload-sarif step's Multitool).
    let path = project.path().join(".self-repair/triaged.sarif");
    let triaged: Value = fs::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    let results: Vec<&Value> = triaged["runs"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|r| r["results"].as_array().into_iter().flatten())
        .collect();
    let with_task = results
        .iter()
        .filter(|r| {
            r.pointer("/properties/self-repair/verdict") == Some(&Value::from("real"))
                && r.pointer("/properties/self-repair/task").is_some()
        })
        .count();
    ctx.checks
        .that(!results.is_empty() && with_task == results.len(), || {
            format!(
                "triaged.sarif: {with_task} of {} results are real with a task",
                results.len()
            )
        });
    Ok(())
}
