//! Issue 34, item 3, on the real client: the scripted API refuses one agent of a wave of
//! security findings (`stop_reason: "refusal"` after it read its item, at every request, so the
//! client's own retry and model fallback are spent) and, once, the main session (three refused
//! requests in a row: the client's own two retries spent). `self-repair drive` runs it: the
//! refused session is logged `refused` and the next one finishes the run; the refused finding
//! is quarantined "refused by the model provider", launched once, on its first tier only, and
//! report.md names it.

use std::fs;

use serde_json::Value;

use crate::e2e::e2e_error::E2eError;
use crate::e2e::e2e_project::{E2eProject, InstallMode};
use crate::e2e::run_files::{field, items_of};
use crate::e2e::scenarios::ScenarioContext;
use crate::e2e::scenarios::pipeline_checks::pipeline_scenario;
use crate::fault::{Fault, ThreadSelector};
use crate::mock_server::MockServer;
use crate::scenario::{Behaviour, ItemRule};

const RUN: &str = "r-refusal";
/// The finding whose agent the provider refuses.
const REFUSED: &str = "t-00002";
/// Backoffs at 1%.
const SCALE: (&str, &str) = ("SELF_REPAIR_DRIVE_BACKOFF_SCALE", "0.01");
const API_KEY: (&str, &str) = ("ANTHROPIC_API_KEY", "e2e-not-a-key");
/// Main-thread requests of session 1 answered before the refusal: the adopt, its end of turn,
/// the triage wave's launch (four foreground agents at once) and its end of turn, whose stop
/// reads the refused agent. The next main request (the next wave's launch) is refused, and so
/// are the client's retry "with that noted" and its fallback model's.
const MAIN_BEFORE: usize = 4;
/// The client's own tries at one refused request (measured on 2.1.330: the request, once
/// "with that noted", once on a fallback model).
const CLIENT_TRIES: usize = 3;

/// Four bandit findings (the security route), one agent each, launched in one wave.
fn security_findings() -> String {
    [
        (
            "B602",
            "app/run.py",
            3,
            "subprocess call with shell=True identified, security issue.",
        ),
        (
            "B608",
            "app/db.py",
            7,
            "Possible SQL injection vector through string-based query construction.",
        ),
        (
            "B105",
            "app/settings.py",
            2,
            "Possible hardcoded password: 'hunter2'",
        ),
        (
            "B303",
            "app/hash.py",
            4,
            "Use of insecure MD2, MD4, MD5, or SHA1 hash function.",
        ),
    ]
    .iter()
    .map(|(rule, path, line, message)| {
        serde_json::json!({"tool": "bandit", "rule_id": rule, "level": "error",
            "message": message, "path": path, "line": line})
        .to_string()
    })
    .collect::<Vec<_>>()
    .join("\n")
}

fn lines_of(path: &std::path::Path) -> Vec<Value> {
    fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .collect()
}

pub(crate) fn run(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let project = E2eProject::new(&ctx.tools, "provider-refusal", InstallMode::Plugin, 0)?;
    project.write("findings.jsonl", &security_findings())?;
    project.write(
        "app/run.py",
        "import subprocess\ndef run(cmd):\n    subprocess.call(cmd, shell=True)\n",
    )?;
    project.write(
        ".self-repair/config.json",
        "{\"launch_mode\": \"foreground\", \"triage_batch\": 1, \"fan_out\": 4, \"survey_min\": 0}\n",
    )?;
    project.self_repair_ok(&["start", "findings.jsonl", "--run-id", RUN])?;
    let scenario = pipeline_scenario()
        .item(ItemRule {
            item: Some(REFUSED.to_owned()),
            behaviour: Behaviour::Refused,
            ..ItemRule::default()
        })
        .fault(Fault::refusal(ThreadSelector::Main, CLIENT_TRIES).after(MAIN_BEFORE));
    let server = MockServer::start_recording(scenario, &project.records_path(1))?;
    let outcome = project
        .drive(&server.base_url(), RUN, &[], &[API_KEY, SCALE])?
        .wait(ctx.claude_timeout() * 2)?;
    ctx.checks.that(outcome.code == Some(0), || {
        format!("self-repair drive should exit 0: {}", outcome.describe())
    });
    let files = project.run(RUN);
    let state = files.state()?;
    ctx.checks
        .equal("run status", &field(&state, "/status"), &"complete");
    // The refused finding: quarantined as refused, never escalated, never charged.
    let run_state: Option<self_repair_engine::RunState> =
        serde_json::from_value(state.clone()).ok();
    if let Some(item) = run_state.as_ref().and_then(|s| s.item(REFUSED)) {
        ctx.checks.that(item.refused_by_provider(), || {
            format!(
                "{REFUSED} did not end refused by the provider: {:?}",
                item.errors()
            )
        });
        ctx.checks
            .equal("attempts charged to it", &item.attempts, &0);
        ctx.checks.equal("its tier", &item.tier.as_str(), &"sonnet");
    } else {
        ctx.checks.fail(format!("no item {REFUSED} in the state"));
    }
    ctx.checks.equal(
        "provider refusals in state.json",
        &run_state.as_ref().map_or(0, |s| s.provider_refusals),
        &1,
    );
    let others_done = items_of(&state)
        .iter()
        .filter(|(id, _, kind)| kind == "triage" && id != REFUSED)
        .all(|(_, status, _)| status == "done");
    ctx.checks.that(others_done, || {
        "a finding other than the refused one is not done".to_owned()
    });
    // No tier escalation: every request of its agent ran on sonnet (the client's own fallback,
    // `claude-sonnet-5`, included); one show.
    let records = server.requests();
    let thread = format!("item:{REFUSED}");
    let tiers: Vec<String> = records
        .iter()
        .filter(|r| r.thread == thread)
        .filter_map(|r| r.model.clone())
        .collect();
    ctx.checks.that(
        !tiers.is_empty() && tiers.iter().all(|m| m.contains("sonnet")),
        || format!("{REFUSED}'s agent ran on {tiers:?}, expected sonnet only"),
    );
    let shows = records
        .iter()
        .filter(|r| r.thread == thread && r.answer.contains("Bash"))
        .count();
    ctx.checks
        .equal("launches of the refused agent", &shows, &1);
    // The main session refused once: drive logged it and the next session finished.
    let sessions: Vec<Value> = lines_of(&files.dir().join("drive.jsonl"))
        .into_iter()
        .filter(|v| v.get("event").is_none())
        .collect();
    let reasons: Vec<&str> = sessions.iter().map(|s| field(s, "/reason")).collect();
    ctx.checks
        .equal("session reasons", &reasons, &vec!["refused", "ended"]);
    let refused_catalogued = lines_of(&files.dir().join("errors.jsonl"))
        .iter()
        .any(|e| field(e, "/category") == "refused");
    ctx.checks.that(refused_catalogued, || {
        "errors.jsonl has no `refused` entry".to_owned()
    });
    let report = fs::read_to_string(files.dir().join("report.md")).unwrap_or_default();
    ctx.checks.that(
        report.contains("## Refused by the model provider")
            && report.contains(&format!("- `{REFUSED}` ")),
        || format!("report.md does not name {REFUSED} as refused:\n{report}"),
    );
    let refused_requests = records
        .iter()
        .filter(|r| r.answer.starts_with("refusal"))
        .count();
    ctx.notes.push(format!(
        "{refused_requests} refused requests ({} by the main thread); {} sessions; drive {:.1} s",
        records
            .iter()
            .filter(|r| r.thread == "main" && r.answer.starts_with("refusal"))
            .count(),
        sessions.len(),
        outcome.wall.as_secs_f64()
    ));
    Ok(())
}
