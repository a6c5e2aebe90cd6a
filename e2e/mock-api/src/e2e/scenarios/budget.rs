//! Issue 15, the budget on the real client: every response of every thread reports the same
//! usage (the test controls it, so the run's dollars are known exactly), the run starts with
//! `--budget`, the budget is reached mid-triage, the session ends with the budget line and
//! nothing is dispatched past it; `self-repair resume --budget` in the same session then
//! finishes the run. A budget is the user's go (reference/permissions.md): the model gives it
//! here only because the user's own `.claude/settings.local.json` allows exactly these two
//! commands, as a user who runs budgeted sessions headless would.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::e2e::claude_run::{ClaudeOptions, ClaudeOutcome};
use crate::e2e::e2e_error::E2eError;
use crate::e2e::e2e_project::{E2eProject, InstallMode};
use crate::e2e::records::launched_items;
use crate::e2e::run_files::field;
use crate::e2e::scenarios::ScenarioContext;
use crate::e2e::scenarios::pipeline_checks::{
    check_complete_once, check_no_duplicate_launch, pipeline_scenario,
};
use crate::mock_server::MockServer;
use crate::recorded_request::RecordedRequest;

const RUN: &str = "r-budget";
const FINDINGS: usize = 6;
/// Foreground waves of 2, one agent per finding: three waves of triage.
const CONFIG: &str = "{\"launch_mode\": \"foreground\", \"triage_batch\": 1, \"fan_out\": 2}\n";
/// Every response: 10,000 input and 100 output tokens. On opus-5 (the main thread) that is
/// $0.042, on haiku-5 (a triage agent) $0.00105.
const INPUT: u64 = 10_000;
const OUTPUT: u64 = 100;
/// Room for the first wave (two main responses, $0.084, and two agents estimated at $0.005
/// each), not for the second: by then the main thread alone has spent $0.168.
const BUDGET: &str = "0.12";
/// The user's own rules: the budgeted start and the budget raise, nothing else. Without them the
/// client refuses both under `claude -p` (the gate leaves a budget to the user's prompt).
const USER_RULES: &str = r#"{"permissions": {"allow": ["Bash(self-repair start findings.jsonl:*)", "Bash(self-repair resume --budget:*)"]}}
"#;

/// USD per million input and output tokens of the model families the client calls.
fn price(model: &str) -> Option<(f64, f64)> {
    [
        ("claude-opus-5", 4.0, 20.0),
        ("claude-sonnet-5", 2.0, 10.0),
        ("claude-haiku-5", 0.10, 0.50),
    ]
    .into_iter()
    .find(|(prefix, _, _)| model.starts_with(prefix))
    .map(|(_, input, output)| (input, output))
}

/// What the transcripts hold: the main thread's and the agents' answered requests, each at
/// the fixed usage. Returns the dollars and the models no price is known for.
fn expected_usd(records: &[RecordedRequest]) -> (f64, Vec<String>) {
    let mut usd = 0.0;
    let mut unknown = Vec::new();
    for r in records
        .iter()
        .filter(|r| r.status == 200 && (r.thread == "main" || r.thread.starts_with("item:")))
    {
        let model = r.model.clone().unwrap_or_default();
        match price(&model) {
            Some((input, output)) => {
                usd += (input * INPUT as f64 + output * OUTPUT as f64) / 1e6;
            }
            None => unknown.push(model),
        }
    }
    (usd, unknown)
}

fn total_usd(project: &E2eProject) -> Result<Option<f64>, E2eError> {
    let status: Value =
        serde_json::from_str(&project.self_repair_ok(&["status", "--json"])?).unwrap_or_default();
    Ok(status.pointer("/cost/total_usd").and_then(Value::as_f64))
}

/// Session 1 of project `name` (6 findings, the user's rules): it starts run `RUN` with the
/// budget and runs until the budget stops it. The project, its server and the session's outcome.
fn to_the_budget(
    ctx: &mut ScenarioContext,
    name: &str,
) -> Result<(E2eProject, MockServer, ClaudeOutcome), E2eError> {
    let project = E2eProject::new(&ctx.tools, name, InstallMode::Project, FINDINGS)?;
    project.write(".self-repair/config.json", CONFIG)?;
    project.write(".claude/settings.local.json", USER_RULES)?;
    let scenario = pipeline_scenario().fixed_usage(INPUT, OUTPUT);
    let server = MockServer::start_recording(scenario, &project.records_path(1))?;
    let prompt = format!(
        "Start the self-repair run.\n$ self-repair start findings.jsonl --run-id {RUN} --budget {BUDGET}"
    );
    let first = project
        .claude(&server.base_url(), &prompt, &ClaudeOptions::default())?
        .wait(ctx.claude_timeout())?;
    ctx.checks.that(first.succeeded(), || {
        format!("claude -p (session 1): {}", first.describe())
    });
    Ok((project, server, first))
}

/// The budget is reached mid-triage; `resume --budget` finishes the run.
pub(crate) fn run(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let (project, server1, first) = to_the_budget(ctx, "budget-mid-triage")?;
    let scenario = || pipeline_scenario().fixed_usage(INPUT, OUTPUT);
    let result = first
        .json
        .get("result")
        .and_then(Value::as_str)
        .unwrap_or("");
    ctx.checks.that(
        result.contains(&format!(
            "self-repair run {RUN}: paused — the budget is reached"
        )),
        || format!("session 1 did not end with the budget line: {result:?}"),
    );
    ctx.checks
        .that(result.contains("self-repair resume --budget"), || {
            format!("the budget line does not say how to raise it: {result:?}")
        });
    let files = project.run(RUN);
    let state = files.state()?;
    ctx.checks
        .equal("status at the budget", &field(&state, "/status"), &"paused");
    ctx.checks
        .equal("paused by", &field(&state, "/pause/by"), &"budget");
    // Nothing past the budget: only the first wave was launched, and each of them finished.
    let records1 = server1.requests();
    let launched1 = launched_items(&records1);
    ctx.checks.equal(
        "items launched before the budget",
        &launched1,
        &vec!["t-00001".to_owned(), "t-00002".to_owned()],
    );
    let submitted: BTreeSet<String> = files.submitted().into_keys().collect();
    ctx.checks.equal(
        "items submitted in session 1",
        &submitted,
        &launched1.iter().cloned().collect(),
    );
    // The dollars are exact: the ledger's figure is what the scripted usage costs.
    let (want, unknown) = expected_usd(&records1);
    ctx.checks.that(unknown.is_empty(), || {
        format!("requests on models without a known price: {unknown:?}")
    });
    let ours = total_usd(&project)?;
    ctx.checks
        .that(ours.is_some_and(|o| (o - want).abs() < 1e-9), || {
            format!("status --json cost {ours:?}, the scripted usage costs {want}")
        });
    let client = first.json.get("total_cost_usd").and_then(Value::as_f64);
    ctx.notes.push(format!(
        "session 1: ${want:.6} expected, status ${:.6}, claude -p total_cost_usd {client:?}, {:.1} s",
        ours.unwrap_or(-1.0),
        first.wall.as_secs_f64()
    ));

    // The user raises the budget in the same session, as the line says.
    let session = first.session_id().unwrap_or_default();
    let server2 = MockServer::start_recording(scenario(), &project.records_path(2))?;
    let second = project
        .claude(
            &server2.base_url(),
            &format!("Continue the self-repair run.\n$ self-repair resume --budget 5 --run {RUN}"),
            &ClaudeOptions {
                resume: Some(session),
                ..ClaudeOptions::default()
            },
        )?
        .wait(ctx.claude_timeout())?;
    ctx.checks.that(second.succeeded(), || {
        format!("claude -p (session 1, resumed): {}", second.describe())
    });
    check_complete_once(ctx, &project, RUN, FINDINGS, &[])?;
    // The closing line says what the run cost and how long it took.
    let closing = second
        .json
        .get("result")
        .and_then(Value::as_str)
        .unwrap_or("");
    ctx.checks.that(
        closing.contains(&format!("self-repair run {RUN} complete:"))
            && closing.contains(" Cost $")
            && closing.contains("since start."),
        || format!("the closing line does not give the cost and duration: {closing:?}"),
    );
    let mut launched = launched1;
    launched.extend(launched_items(&server2.requests()));
    check_no_duplicate_launch(ctx, &launched);
    let (more, _) = expected_usd(&server2.requests());
    let total = total_usd(&project)?;
    ctx.checks.that(
        total.is_some_and(|t| (t - (want + more)).abs() < 1e-9),
        || {
            format!(
                "after the resume: status --json cost {total:?}, the scripted usage costs {}",
                want + more
            )
        },
    );
    // The reports carry the cost as finalize saw it (before the closing turn).
    let report: Value = std::fs::read_to_string(files.dir().join("report.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let reported = report.pointer("/spend/total_usd").and_then(Value::as_f64);
    ctx.checks.that(
        matches!((reported, total), (Some(r), Some(t)) if r > want && r <= t + 1e-9),
        || format!("report.json spend {reported:?}, status {total:?}, session 1 {want}"),
    );
    let markdown = std::fs::read_to_string(files.dir().join("report.md")).unwrap_or_default();
    ctx.checks.that(markdown.contains("\n## Cost\n"), || {
        "report.md has no Cost section".to_owned()
    });
    // The client's own figure for the resumed session is the whole session's.
    let client = second.json.get("total_cost_usd").and_then(Value::as_f64);
    ctx.checks.that(
        matches!((client, total), (Some(c), Some(t)) if (c - t).abs() < 1e-6),
        || format!("status --json cost {total:?}, claude -p total_cost_usd {client:?}"),
    );
    ctx.notes.push(format!(
        "after resume --budget 5: ${:.6} in all (claude -p {client:?}), {:.1} s",
        want + more,
        second.wall.as_secs_f64()
    ));
    Ok(())
}

/// `cancel-keeps-verdicts` (issue 41): the run stops at its budget after its first wave, two
/// agent verdicts paid for; the user cancels it from the terminal and starts again in a new
/// session: the new run decides those two from `known.json` without an agent, and only the
/// other four findings go to triage agents.
pub(crate) fn cancel_then_start(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    const AGAIN: &str = "r-again";
    let (project, _server1, _first) = to_the_budget(ctx, "cancel-keeps-verdicts")?;
    let scenario = || pipeline_scenario().fixed_usage(INPUT, OUTPUT);
    let paid = project.run(RUN).submitted().len();
    ctx.checks
        .equal("verdicts paid for before the budget", &paid, &2);
    let cancelled = project.self_repair_ok(&["cancel", "--run", RUN])?;
    ctx.checks
        .that(cancelled.contains("kept in known.json"), || {
            format!("cancel does not say it kept the verdicts: {cancelled:?}")
        });
    let server2 = MockServer::start_recording(scenario(), &project.records_path(2))?;
    let second = project
        .claude(
            &server2.base_url(),
            &format!(
                "Start the self-repair run again.\n$ self-repair start findings.jsonl --run-id {AGAIN} --budget 5"
            ),
            &ClaudeOptions::default(),
        )?
        .wait(ctx.claude_timeout())?;
    ctx.checks.that(second.succeeded(), || {
        format!("claude -p (session 2): {}", second.describe())
    });
    let state = project.run(AGAIN).state()?;
    ctx.checks.equal(
        "findings the new run's start decided from known.json",
        &state.pointer("/intake/known").and_then(Value::as_u64),
        &Some(paid as u64),
    );
    let triage_launched = launched_items(&server2.requests())
        .iter()
        .filter(|item| item.starts_with("t-"))
        .count();
    ctx.checks.equal(
        "triage agents the new run launched",
        &triage_launched,
        &(FINDINGS - paid),
    );
    ctx.checks.equal(
        "the new run's status",
        &field(&state, "/status"),
        &"complete",
    );
    ctx.notes.push(format!(
        "{paid} verdicts kept through the cancel; the new run launched {triage_launched} triage agents for {FINDINGS} findings"
    ));
    Ok(())
}
