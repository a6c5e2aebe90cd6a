//! `ci-recipe-alerts`: `examples/github-actions/alerts.yml` run as it is, twice: started without
//! and then with its `dismiss` input. A scripted `gh` in the runner's `ci-bin` serves the
//! recorded pages of the `shop` fixture's open code scanning alerts
//! (tests/fixtures/github-alerts/shop-three-pages.json) to `gh api --paginate` and records
//! every call; the alerts are triaged by `drive` on the real client against the scripted model,
//! which dismisses two of them. Without `dismiss` the dismissal calls are printed by alert
//! number and nothing is sent; with it, the scripted `gh` sees exactly those `PATCH` calls.

use std::collections::BTreeSet;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::e2e::e2e_error::E2eError;
use crate::e2e::e2e_project::E2eProject;
use crate::e2e::scenarios::ScenarioContext;
use crate::e2e::scenarios::ci_recipes::{
    check_installed_from_release, check_permission, only_run, recipe, run_job_with, scratch_clone,
};
use crate::e2e::scenarios::shop_triage::{Cause, triage_results};
use crate::e2e::workflow_job::StepRun;
use crate::mock_server::MockServer;
use crate::scenario::Scenario;
use crate::show_output::ShowOutput;

/// The recorded pages: the shop's five open alerts, two a page (three pages back to back).
const PAGES: &str = "tests/fixtures/github-alerts/shop-three-pages.json";
/// The open alerts the pages hold.
const ALERTS: usize = 5;
/// The alerts the scripted triage dismisses, with the reason GitHub is sent: `csv_report`
/// (vulture; a false positive, `render()` reaches it by name) and `legacy_summary` (vulture;
/// kept on purpose).
const DISMISSED: [(u64, &str); 2] = [(24, "false positive"), (25, "won't fix")];
/// The recipe's step that sends the calls, skipped unless started with `dismiss`.
const DISMISS_STEP: &str = "Dismiss the alerts (only when started with `dismiss`)";

/// The scripted model: the shop's triage, with `legacy_summary` kept on purpose (`intended`)
/// so the two dismissals differ in reason.
fn alerts_results(show: &ShowOutput) -> Option<Value> {
    let mut result = triage_results(show, false)?;
    let prompt = show.raw.get("prompt")?.as_str()?;
    let intended = |v: &mut Value| {
        v["verdict"] = json!("intended");
        v["reason"] =
            json!("scripted: the old report format is kept on purpose for one customer's import");
    };
    match show.kind.as_str() {
        "triage" if Cause::of_finding(prompt, &show.item) == Some(Cause::LegacyReport) => {
            intended(&mut result);
        }
        "triage_batch" => {
            for v in result["verdicts"].as_array_mut().into_iter().flatten() {
                let id = v["item"].as_str().unwrap_or_default().to_owned();
                if Cause::of_finding(prompt, &id) == Some(Cause::LegacyReport) {
                    intended(v);
                }
            }
        }
        _ => {}
    }
    Some(result)
}

/// The scripted GitHub CLI, in the runner's `ci-bin`: every call appended to
/// `gh-state/calls.log`, one a line, its arguments tab-separated after whether `GH_TOKEN` was
/// set; `gh api --paginate` on the open alerts prints the recorded pages; `gh api --method
/// PATCH` on one alert answers as GitHub does (the dismissal script sends its output to
/// /dev/null); anything else fails. Returns the state folder.
fn install_alerts_gh(ctx: &ScenarioContext, project: &E2eProject) -> Result<PathBuf, E2eError> {
    let state = project.root().join("gh-state");
    let bin = project.root().join("ci-bin");
    for dir in [&state, &bin] {
        fs::create_dir_all(dir).map_err(E2eError::io(dir))?;
    }
    let pages = ctx.tools.repo.join(PAGES);
    fs::copy(&pages, state.join("pages.json")).map_err(E2eError::io(&pages))?;
    let script = format!(
        r#"#!/bin/sh
# The alerts recipe test's `gh` (e2e/mock-api/src/e2e/scenarios/ci_recipe_alerts.rs): serves
# recorded pages and records every call, never the network.
state="{state}"
{{ printf 'GH_TOKEN=%s' "${{GH_TOKEN:+set}}"; for a in "$@"; do printf '\t%s' "$a" | tr '\n' ' '; done; printf '\n'; }} >> "$state/calls.log"
if [ "$1" = api ] && [ "$2" = --paginate ]; then
  case "$3" in
    'repos/{{owner}}/{{repo}}/code-scanning/alerts?'*state=open*) cat "$state/pages.json"; exit 0 ;;
  esac
fi
if [ "$1" = api ] && [ "$2" = --method ] && [ "$3" = PATCH ]; then
  case "$4" in
    'repos/{{owner}}/{{repo}}/code-scanning/alerts/'[0-9]*)
      printf '{{"number":%s,"state":"dismissed"}}\n' "${{4##*/}}"; exit 0 ;;
  esac
fi
echo "scripted gh: unexpected call: $*" >&2
exit 1
"#,
        state = state.display()
    );
    let gh = bin.join("gh");
    fs::write(&gh, script).map_err(E2eError::io(&gh))?;
    fs::set_permissions(&gh, fs::Permissions::from_mode(0o755)).map_err(E2eError::io(&gh))?;
    Ok(state)
}

/// One call the scripted `gh` recorded: whether `GH_TOKEN` was set, and its arguments.
fn recorded_calls(gh_state: &Path) -> Vec<(bool, Vec<String>)> {
    fs::read_to_string(gh_state.join("calls.log"))
        .unwrap_or_default()
        .lines()
        .map(|line| {
            let mut fields = line.split('\t');
            let token = fields.next() == Some("GH_TOKEN=set");
            (token, fields.map(str::to_owned).collect())
        })
        .collect()
}

/// A `PATCH` call's alert number and its `-f` fields, or `None` for another call.
fn dismissal(args: &[String]) -> Option<(u64, Vec<(String, String)>)> {
    let [api, method, verb, endpoint, rest @ ..] = args else {
        return None;
    };
    if (api.as_str(), method.as_str(), verb.as_str()) != ("api", "--method", "PATCH") {
        return None;
    }
    let number = endpoint
        .strip_prefix("repos/{owner}/{repo}/code-scanning/alerts/")?
        .parse()
        .ok()?;
    let fields = rest
        .chunks(2)
        .filter(|pair| pair[0] == "-f")
        .filter_map(|pair| pair.get(1)?.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
    Some((number, fields))
}

/// The alert numbers of the `dismiss_alert NUMBER ...` lines `text` holds.
fn printed_dismissals(text: &str) -> BTreeSet<u64> {
    text.lines()
        .filter_map(|l| {
            l.strip_prefix("dismiss_alert ")?
                .split(' ')
                .next()?
                .parse()
                .ok()
        })
        .collect()
}

/// `ci-recipe-alerts`: the recipe without `dismiss` (the calls printed, none sent), then with
/// it (exactly the printed calls sent), each in its own clone.
pub(crate) fn run(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let workflow = recipe(ctx, "alerts.yml")?;
    check_permission(ctx, &workflow, "alerts.yml", "dismissing alerts");
    let expected: BTreeSet<u64> = DISMISSED.iter().map(|(n, _)| *n).collect();
    for dismiss in [false, true] {
        let name = if dismiss {
            "ci-recipe-alerts-dismiss"
        } else {
            "ci-recipe-alerts"
        };
        let project = scratch_clone(ctx, name)?;
        let gh_state = install_alerts_gh(ctx, &project)?;
        let server = MockServer::start_recording(
            Scenario::new().results(alerts_results),
            &project.records_path(1),
        )?;
        let artifacts = project.root().join("ci-artifacts");
        let input = [("inputs.dismiss".to_owned(), dismiss.to_string())];
        let steps = run_job_with(
            ctx, &project, &server, &workflow, "alerts", &input, &artifacts,
        )?;
        check_steps(ctx, &steps, dismiss);
        check_installed_from_release(ctx, &steps);
        check_triage(ctx, &project, dismiss)?;
        let printed = steps
            .iter()
            .find(|s| s.name == "Print the dismissal calls for review")
            .map(|s| printed_dismissals(&s.output))
            .unwrap_or_default();
        ctx.checks.equal(
            &format!("dismiss={dismiss}: the alert numbers of the printed dismissal calls"),
            &printed,
            &expected,
        );
        check_gh_calls(ctx, &gh_state, dismiss);
    }
    Ok(())
}

/// Every step passed, but the dismissing one, which is skipped unless started with `dismiss`.
fn check_steps(ctx: &mut ScenarioContext, steps: &[StepRun], dismiss: bool) {
    let mut saw_dismiss_step = false;
    for step in steps {
        if step.name == DISMISS_STEP {
            saw_dismiss_step = true;
            ctx.checks
                .that(if dismiss { step.passed() } else { step.skipped }, || {
                    format!("dismiss={dismiss}: {}", step.describe())
                });
        } else {
            ctx.checks.that(step.passed(), || {
                format!("dismiss={dismiss}: {}", step.describe())
            });
        }
    }
    ctx.checks.that(saw_dismiss_step, || {
        format!("alerts.yml has no step {DISMISS_STEP:?}")
    });
}

/// The alerts were read (all five, from three pages) and triaged to the end, each decided.
fn check_triage(
    ctx: &mut ScenarioContext,
    project: &E2eProject,
    dismiss: bool,
) -> Result<(), E2eError> {
    let run = project.run(&only_run(project)?);
    let state = run.state()?;
    ctx.checks.equal(
        &format!("dismiss={dismiss}: the triage run's status"),
        &state["status"].as_str(),
        &Some("complete"),
    );
    let path = run.dir().join("report.json");
    let report: Value = fs::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    let findings = report["findings"].as_array().cloned().unwrap_or_default();
    ctx.checks.equal(
        &format!("dismiss={dismiss}: alerts read (report.json's intake)"),
        &report.pointer("/intake/findings").and_then(Value::as_u64),
        &Some(ALERTS as u64),
    );
    let decided = findings.iter().filter(|f| f["verdict"].is_string()).count();
    ctx.checks.that(findings.len() == ALERTS && decided == ALERTS, || {
        format!(
            "dismiss={dismiss}: {decided} of report.json's {} findings decided, {ALERTS} expected",
            findings.len()
        )
    });
    Ok(())
}

/// The scripted `gh`'s calls: the one fetch, then, only with `dismiss`, one `PATCH` per
/// dismissed alert (state `dismissed`, its reason, a comment) and nothing else; every call with
/// `GH_TOKEN` set, as the recipe's steps give it.
fn check_gh_calls(ctx: &mut ScenarioContext, gh_state: &Path, dismiss: bool) {
    let calls = recorded_calls(gh_state);
    let fetches = calls
        .iter()
        .filter(|(_, args)| {
            args.first().is_some_and(|a| a == "api")
                && args.get(1).is_some_and(|a| a == "--paginate")
        })
        .count();
    ctx.checks.equal(
        &format!("dismiss={dismiss}: `gh api --paginate` calls"),
        &fetches,
        &1,
    );
    ctx.checks.that(calls.iter().all(|(token, _)| *token), || {
        format!("dismiss={dismiss}: a gh call without GH_TOKEN: {calls:?}")
    });
    let mut sent: Vec<(u64, Option<String>, Option<String>, bool)> = calls
        .iter()
        .filter_map(|(_, args)| dismissal(args))
        .map(|(number, fields)| {
            let field = |k: &str| {
                fields
                    .iter()
                    .find(|(key, _)| key == k)
                    .map(|(_, v)| v.clone())
            };
            let comment = field("dismissed_comment").is_some_and(|c| !c.is_empty());
            (number, field("state"), field("dismissed_reason"), comment)
        })
        .collect();
    sent.sort();
    let wanted: Vec<(u64, Option<String>, Option<String>, bool)> = if dismiss {
        DISMISSED
            .iter()
            .map(|(n, reason)| {
                (
                    *n,
                    Some("dismissed".to_owned()),
                    Some((*reason).to_owned()),
                    true,
                )
            })
            .collect()
    } else {
        Vec::new()
    };
    ctx.checks.equal(
        &format!("dismiss={dismiss}: the PATCH calls (alert, state, reason, a comment)"),
        &sent,
        &wanted,
    );
    ctx.checks.equal(
        &format!("dismiss={dismiss}: gh calls in all (the fetch and the PATCH calls)"),
        &calls.len(),
        &(1 + wanted.len()),
    );
}
