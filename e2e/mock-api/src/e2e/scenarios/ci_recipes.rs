//! The GitHub Actions recipes of `examples/github-actions/` run as they are (issue 26 item 5):
//! each workflow file is read, and its job's `run:` steps execute in order in a scratch clone
//! of the `shop` fixture (tests/fixtures/fix-loop) against the scripted Messages API and the
//! real client, with the local stand-ins of `e2e/workflow_job.rs` for what a hosted runner
//! downloads, so a recipe that stops working fails here. The `${{ ... }}` expressions the
//! recipes may use and their values are [`context`]'s.

use std::fs;

use serde_json::Value;

use crate::e2e::e2e_error::E2eError;
use crate::e2e::e2e_project::{E2eProject, InstallMode};
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

/// The values of the expressions the recipes use: the API key the scripted server accepts
/// (the `ANTHROPIC_API_KEY` secret), the pull request's base branch, a run id.
fn context() -> Vec<(&'static str, String)> {
    vec![
        ("secrets.ANTHROPIC_API_KEY", "e2e-not-a-key".to_owned()),
        ("github.base_ref", BASE.to_owned()),
        ("github.run_id", RUN_ID.to_owned()),
    ]
}

/// The recipe `examples/github-actions/NAME`, read.
fn recipe(ctx: &mut ScenarioContext, name: &str) -> Result<Workflow, E2eError> {
    let path = ctx
        .tools
        .plugin_dir
        .join("examples/github-actions")
        .join(name);
    let text = fs::read_to_string(&path).map_err(E2eError::io(&path))?;
    Workflow::parse(&text).map_err(|message| E2eError::Unexpected { path, message })
}

/// A clone of a repository holding the `shop` package, its tests and the analyzers' config
/// (`.self-repair/config.json`, as a team commits it), on branch `main`, with `origin` a bare
/// repository beside it, as `actions/checkout` leaves a runner's workspace.
fn scratch_clone(ctx: &ScenarioContext, name: &str) -> Result<E2eProject, E2eError> {
    let project = E2eProject::new(&ctx.tools, name, InstallMode::Plugin, 0)?;
    let findings = project.path().join("findings.jsonl");
    fs::remove_file(&findings).map_err(E2eError::io(&findings))?;
    project.copy_in(&ctx.tools.plugin_dir.join(FIXTURE), ".")?;
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

/// Runs the job and checks the steps went as `want` says (`None`: every step passed).
fn run_job(
    ctx: &mut ScenarioContext,
    project: &E2eProject,
    server: &MockServer,
    workflow: &Workflow,
    job: &str,
) -> Result<Vec<StepRun>, E2eError> {
    let runner = WorkflowJobRun {
        project,
        base_url: server.base_url(),
        context: context(),
        step_timeout: ctx.claude_timeout() * 3,
    };
    let steps = runner.run(workflow, job)?;
    let total: f64 = steps.iter().map(|s| s.wall.as_secs_f64()).sum();
    ctx.notes.push(format!(
        "{} / {job}: {} steps in {total:.1} s ({})",
        workflow.name,
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

fn check_all_passed(ctx: &mut ScenarioContext, steps: &[StepRun]) {
    for step in steps {
        ctx.checks.that(step.passed(), || step.describe());
    }
}

/// The one triage run the job made.
fn only_run(project: &E2eProject) -> Result<String, E2eError> {
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
    ctx.checks.that(
        workflow
            .permissions
            .contains(&("security-events".to_owned(), "write".to_owned())),
        || "triage.yml: upload-sarif needs `permissions: security-events: write`".to_owned(),
    );
    let project = scratch_clone(ctx, "ci-recipe-triage")?;
    let scenario = Scenario::new().results(|show| triage_results(show, false));
    let server = MockServer::start_recording(scenario, &project.records_path(1))?;
    let steps = run_job(ctx, &project, &server, &workflow, "triage")?;
    check_all_passed(ctx, &steps);
    // Every Ruff result is in the upload with its verdict and, being real, its task.
    let read_json = |relative: &str| -> Result<Value, E2eError> {
        let path = project.path().join(relative);
        let text = fs::read_to_string(&path).map_err(E2eError::io(&path))?;
        serde_json::from_str(&text).map_err(|e| E2eError::Unexpected {
            path,
            message: e.to_string(),
        })
    };
    let ruff = read_json("ruff.sarif")?;
    let triaged = read_json("triaged.sarif")?;
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
    let run = only_run(&project)?;
    let state = project.run(&run).state()?;
    ctx.checks.equal(
        "the triage run's status",
        &state["status"].as_str(),
        &Some("complete"),
    );
    Ok(())
}

/// `ci-recipe-pull-request`: `pull-request.yml` on a pull request that brings back a `== None`
/// comparison: only that finding reaches triage, `drive --fail-on-real` fails the job with
/// exit 24, and the `if: failure()` step says why.
pub(crate) fn pull_request(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let workflow = recipe(ctx, "pull-request.yml")?;
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
    let steps = run_job(ctx, &project, &server, &workflow, "new-findings")?;
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
/// task fixed, one commit each, pushed to a branch of `origin`.
pub(crate) fn fix(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let workflow = recipe(ctx, "fix.yml")?;
    let project = scratch_clone(ctx, "ci-recipe-fix")?;
    let scenario = shop_fixes(&project).into_iter().fold(
        Scenario::new().results(|show| triage_results(show, false)),
        Scenario::fix_script,
    );
    let server = MockServer::start_recording(scenario, &project.records_path(1))?;
    let steps = run_job(ctx, &project, &server, &workflow, "fix")?;
    check_all_passed(ctx, &steps);
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
    let branch = format!("self-repair/fixes-{RUN_ID}");
    let origin = project.root().join("origin.git");
    let pushed = project
        .git(&[
            "--git-dir",
            &origin.display().to_string(),
            "log",
            "--format=%s",
            &branch,
        ])
        .unwrap_or_default();
    let fixes = pushed
        .lines()
        .filter(|l| l.starts_with("fix: TASK-"))
        .count();
    ctx.checks.that(
        fixes == 4 && pushed.contains("self-repair: triage tasks"),
        || format!("origin's {branch}: {pushed:?}"),
    );
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
