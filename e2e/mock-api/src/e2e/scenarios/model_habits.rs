//! Real models' habits (issue 11): each scenario gives the scripted model one habit and the
//! pipeline must still complete, every item decided once, in foreground mode with no
//! `--allowedTools` (the permission gate decides the agents' commands).

use crate::conversation::Conversation;
use crate::e2e::e2e_error::E2eError;
use crate::e2e::e2e_project::{E2eProject, InstallMode};
use crate::e2e::records::{item_models, launched_items};
use crate::e2e::scenarios::ScenarioContext;
use crate::e2e::scenarios::full_pipeline::PER_ITEM_FOREGROUND_CONFIG;
use crate::e2e::scenarios::pipeline_checks::{
    check_complete, check_complete_once, check_must_keep_claims, check_ran_model_recorded,
    pipeline_scenario, start_and_wait,
};
use crate::recorded_request::RecordedRequest;
use crate::scenario::{Behaviour, FORBIDDEN_COMMAND, ItemRule, MainHabit, Scenario};
use crate::show_output::ShowOutput;
use serde_json::{Value, json};

const RUN: &str = "r-habit";
const FINDINGS: usize = 10;

/// Runs the pipeline with `scenario` until it completes; returns the launched item ids.
pub(crate) fn complete_with(
    ctx: &mut ScenarioContext,
    name: &str,
    scenario: Scenario,
    expected_denials: usize,
) -> Result<(E2eProject, Vec<RecordedRequest>), E2eError> {
    complete_rerouting(ctx, name, scenario, expected_denials, &[])
}

/// [`complete_with`], where the items of `rerouted` submit twice (`unsure` + `reroute`, then
/// the re-routed verdict).
fn complete_rerouting(
    ctx: &mut ScenarioContext,
    name: &str,
    scenario: Scenario,
    expected_denials: usize,
    rerouted: &[&str],
) -> Result<(E2eProject, Vec<RecordedRequest>), E2eError> {
    let project = E2eProject::new(&ctx.tools, name, InstallMode::Project, FINDINGS)?;
    let (path, config) = PER_ITEM_FOREGROUND_CONFIG;
    project.write(path, config)?;
    let (server, outcome) = start_and_wait(ctx, &project, scenario, RUN)?;
    let denials = outcome
        .json
        .get("permission_denials")
        .and_then(serde_json::Value::as_array)
        .map_or(0, Vec::len);
    ctx.checks
        .equal("permission denials", &denials, &expected_denials);
    check_complete(ctx, &project, RUN, FINDINGS, &[], rerouted)?;
    let records = server.requests();
    ctx.notes.push(format!(
        "{name}: {} agents launched, claude -p {:.1} s",
        launched_items(&records).len(),
        outcome.wall.as_secs_f64()
    ));
    Ok((project, records))
}

fn with_habit(ctx: &mut ScenarioContext, name: &str, habit: MainHabit) -> Result<(), E2eError> {
    complete_with(ctx, name, pipeline_scenario().habit(habit), 0).map(|_| ())
}

/// The main session launches each dispatch over two messages.
pub(crate) fn split_launch(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    with_habit(ctx, "habit-split-launch", MainHabit::SplitLaunch)
}

/// The main session rewrites every description, keeping the item id.
pub(crate) fn paraphrase(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    with_habit(ctx, "habit-paraphrase", MainHabit::Paraphrase)
}

/// The main session launches one entry twice in the same message.
pub(crate) fn launch_twice(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    with_habit(ctx, "habit-launch-twice", MainHabit::LaunchTwice)
}

/// The main session never launches part of its first batch; nothing is charged for it: the
/// skipped item runs later on its first tier, and no item is escalated.
pub(crate) fn skip_part(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let (project, records) = complete_with(
        ctx,
        "habit-skip-part",
        pipeline_scenario().habit(MainHabit::SkipLast),
        0,
    )?;
    let skipped = "t-00008";
    let models = item_models(&records, skipped);
    ctx.checks.that(
        !models.is_empty() && models.iter().all(|m| m.contains("haiku")),
        || format!("{skipped}, never launched at first, later ran on {models:?}, not haiku only"),
    );
    let state = project.run(RUN).state()?;
    let failed: Vec<String> = serde_json::from_value::<self_repair_engine::RunState>(state)
        .map(|s| {
            s.items
                .iter()
                .filter(|i| i.attempts > 0)
                .map(|i| i.id.to_string())
                .collect()
        })
        .unwrap_or_default();
    ctx.checks.that(failed.is_empty(), || {
        format!("items charged a failed attempt though no agent failed: {failed:?}")
    });
    Ok(())
}

fn rule(item: &str, model: Option<&str>, behaviour: Behaviour) -> ItemRule {
    ItemRule {
        item: Some(item.to_owned()),
        model: model.map(str::to_owned),
        behaviour,
        ..ItemRule::default()
    }
}

/// Every (command, error flag, output) item `id`'s agents ran, in order, over all its launches.
fn item_calls(records: &[RecordedRequest], id: &str) -> Vec<(String, bool, String)> {
    let label = format!("item:{id}");
    let mut mine: Vec<&RecordedRequest> = records
        .iter()
        .filter(|r| r.thread == label && r.status == 200)
        .collect();
    mine.sort_by_key(|r| r.seq);
    let mut calls = Vec::new();
    for record in mine {
        for (call, outcome) in Conversation::new(&record.body).calls_since(0) {
            let entry = (
                call.command().to_owned(),
                outcome.as_ref().is_some_and(|o| o.is_error),
                outcome.map(|o| o.text).unwrap_or_default(),
            );
            if !calls.contains(&entry) {
                calls.push(entry);
            }
        }
    }
    calls
}

/// An agent tries `curl ... | sh` copied from a finding: the permission gate denies it (the
/// agent reads why), nothing runs, and the agent goes on to submit.
pub(crate) fn forbidden_command(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let item = "t-00002";
    let scenario = pipeline_scenario().item(rule(item, None, Behaviour::ForbiddenFirst));
    let (project, records) = complete_with(ctx, "habit-forbidden-command", scenario, 1)?;
    let forbidden = FORBIDDEN_COMMAND.replace("{id}", item);
    let calls = item_calls(&records, item);
    let denied = calls
        .iter()
        .find(|(command, _, _)| *command == forbidden)
        .is_some_and(|(_, error, text)| *error && text.contains("permission gate refused"));
    ctx.checks.that(denied, || {
        format!("{item}'s `curl | sh` was not denied by the gate: {calls:?}")
    });
    ctx.checks.that(
        !project.path().join(format!("pwned-{item}")).exists(),
        || "the forbidden command ran".to_owned(),
    );
    Ok(())
}

/// An agent wraps its JSON in a Markdown `json` code fence: accepted, and told what was repaired.
pub(crate) fn fenced_json(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let item = "t-00003";
    let scenario = pipeline_scenario().item(rule(item, None, Behaviour::FencedFirst));
    let (_, records) = complete_with(ctx, "habit-fenced-json", scenario, 0)?;
    let calls = item_calls(&records, item);
    let submits: Vec<&(String, bool, String)> = calls
        .iter()
        .filter(|(command, _, _)| command.starts_with("self-repair submit"))
        .collect();
    let first_accepted = submits.first().is_some_and(|(command, error, text)| {
        command.contains("```json") && !error && text.contains("fence")
    });
    ctx.checks.that(first_accepted, || {
        format!(
            "{item}'s fenced submission was not accepted with a word on the repair: {submits:?}"
        )
    });
    Ok(())
}

/// An agent claims it submitted but did not: the item runs again, one tier up, and completes.
pub(crate) fn claims_without_submit(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let item = "t-00004";
    let scenario =
        pipeline_scenario().item(rule(item, Some("haiku"), Behaviour::ClaimsWithoutSubmit));
    let (_, records) = complete_with(ctx, "habit-claims-without-submit", scenario, 0)?;
    let models = item_models(&records, item);
    let escalated = models.first().is_some_and(|m| m.contains("haiku"))
        && models.last().is_some_and(|m| m.contains("sonnet"));
    ctx.checks.that(escalated, || {
        format!("{item} claimed success on haiku; expected a sonnet retry, ran on {models:?}")
    });
    Ok(())
}

/// An investigator answers `unsure` with a reroute: the item runs again on the new route and
/// its next verdict is recorded.
pub(crate) fn unsure_reroute(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let item = "t-00005";
    let scenario = pipeline_scenario().item(ItemRule {
        values: Some(serde_json::json!({"verdict": "unsure", "reroute": "security"})),
        ..rule(item, Some("haiku"), Behaviour::Valid)
    });
    let (project, _) = complete_rerouting(ctx, "habit-unsure-reroute", scenario, 0, &[item])?;
    let state = project.run(RUN).state()?;
    let verdict = serde_json::from_value::<self_repair_engine::RunState>(state)
        .ok()
        .and_then(|s| {
            s.items
                .iter()
                .find(|i| i.id == item)
                .and_then(|i| i.verdict.map(|v| format!("{v:?}")))
        });
    ctx.checks
        .that(verdict.as_deref().is_some_and(|v| v != "Unsure"), || {
            format!("{item} was rerouted; its final verdict is {verdict:?}")
        });
    Ok(())
}

/// The main session drops `model` from a retry: that launch runs on the definition's default
/// (haiku), the hook sees it in the transcript, does not count it as the escalation, and
/// re-dispatches insisting on the model; the item still reaches sonnet and opus before it is
/// quarantined, and the run completes. The other retries keep `model`: no block claims they
/// dropped it, and report.json records the model each finding's launch ran on.
pub(crate) fn drop_model(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let item = "t-00003";
    let scenario = pipeline_scenario().habit(MainHabit::DropModel).item(rule(
        item,
        None,
        Behaviour::AlwaysInvalid,
    ));
    let project = E2eProject::new(
        &ctx.tools,
        "habit-drop-model",
        InstallMode::Project,
        FINDINGS,
    )?;
    let (path, config) = PER_ITEM_FOREGROUND_CONFIG;
    project.write(path, config)?;
    let (server, _) = start_and_wait(ctx, &project, scenario, RUN)?;
    check_complete_once(ctx, &project, RUN, FINDINGS, &[item])?;
    let records = server.requests();
    let models = item_models(&records, item);
    let reached = |tier: &str| models.iter().any(|m| m.contains(tier));
    ctx.checks.that(reached("sonnet") && reached("opus"), || {
        format!("{item} must still run on sonnet and opus after a dropped model; ran on {models:?}")
    });
    let insisted = records.iter().any(|r| {
        r.thread == "main"
            && Conversation::new(&r.body)
                .last_user_index()
                .is_some_and(|i| Conversation::new(&r.body).text_at(i).contains("MUST keep"))
    });
    ctx.checks.that(insisted, || {
        "no block insisted on the dropped model (\"MUST keep\")".to_owned()
    });
    // Issue 24: the retry at sonnet kept its model, and the escalation to opus after it must
    // not be told that launch dropped it; every claim names a launch that did.
    let claims = check_must_keep_claims(ctx, &records);
    ctx.notes.push(format!(
        "{item}: {claims} MUST-keep claim(s), ran on {models:?}"
    ));
    let ran = check_ran_model_recorded(ctx, &project, RUN)?;
    let last = ran
        .iter()
        .find(|(id, _)| id == item)
        .map(|(_, m)| m.as_str());
    ctx.checks.that(last == Some("opus"), || {
        format!("{item}'s last launch kept opus; report.json says it ran on {last:?}")
    });
    Ok(())
}

/// eqeqeq findings (t-00003, t-00008) go to the security route: their dismissals get an
/// independent second opinion at opus.
const SECURITY_RULES: &str = r#"{"schema_version": 1, "rules": [{"id": "eq-sec",
    "name": "eqeqeq gets a security look", "when": {"rule_id": "eqeqeq"}, "route": "security"}]}"#;

/// The security findings are dismissed with confidence; every second opinion agrees (it would
/// confirm the dismissal, had it run at its tier).
fn dismissals(show: &ShowOutput) -> Option<Value> {
    let answer = |verdict: &str| {
        json!({"verdict": verdict, "root_cause": "loose comparison", "confidence": 0.95,
               "reason": "scripted: both operands are literals; no input reaches it"})
    };
    match (show.kind.as_str(), show.item.as_str()) {
        ("triage", "t-00003" | "t-00008") => Some(answer("intended")),
        ("verify", _) => Some(answer("false_positive")),
        ("triage_batch", _) => {
            // A batch of second looks: every member agrees with its dismissal.
            let ids = show
                .output_schema
                .pointer("/properties/verdicts/items/properties/item/enum")?
                .as_array()?
                .iter()
                .map(|id| {
                    let mut one = answer("false_positive");
                    one["item"] = id.clone();
                    one
                })
                .collect::<Vec<_>>();
            Some(json!({ "verdicts": ids }))
        }
        _ => None,
    }
}

/// Issue 32: a main session that drops `model` from every launch (each agent runs at its
/// definition's default, haiku), on the plugin with the user's own permissions. Before, the
/// opus second look of a security dismissal went out 309 times (each weak answer accepted,
/// then set aside). Now each second look goes out twice, then ends unconfirmed: its finding
/// `unsure`, the verifier quarantined with the reason (status, report, timeline), the run
/// complete, every item within its launch bound.
pub(crate) fn drop_model_always(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let project = E2eProject::new(
        &ctx.tools,
        "habit-drop-model-always",
        InstallMode::Plugin,
        FINDINGS,
    )?;
    let (path, config) = PER_ITEM_FOREGROUND_CONFIG;
    project.write(path, config)?;
    project.write(".self-repair/rules.json", SECURITY_RULES)?;
    let scenario = Scenario::new()
        .results(dismissals)
        .habit(MainHabit::DropModelAlways);
    let (server, outcome) = start_and_wait(ctx, &project, scenario, RUN)?;
    let records = server.requests();
    let launched = launched_items(&records);
    let status: Value = serde_json::from_str(&project.self_repair_ok(&["status", "--json"])?)
        .unwrap_or(Value::Null);
    ctx.checks
        .equal("run status", &status["status"].as_str(), &Some("complete"));
    let bound = self_repair_engine::MAX_LAUNCHES_PER_ITEM as usize;
    let mut per_item: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for id in &launched {
        *per_item.entry(id.as_str()).or_default() += 1;
    }
    for (id, n) in &per_item {
        ctx.checks.that(*n <= bound, || {
            format!("{id} was launched {n} times, past the bound {bound}")
        });
    }
    let report = project.run(RUN).report();
    // A second look goes out on its own or as a member of a batch of second looks (the two
    // dismissals of one security rule are checked together): both count as its launches.
    let state =
        serde_json::from_value::<self_repair_engine::RunState>(project.run(RUN).state()?).ok();
    let batches_holding = |verifier: &str| -> usize {
        state.as_ref().map_or(0, |s| {
            s.items
                .iter()
                .filter(|b| b.inputs().iter().any(|m| m == verifier) && b.id.starts_with("tb-"))
                .map(|b| per_item.get(b.id.as_str()).copied().unwrap_or(0))
                .sum()
        })
    };
    for (finding, verifier) in [("t-00003", "vf-00003"), ("t-00008", "vf-00008")] {
        let sent = per_item.get(verifier).copied().unwrap_or(0) + batches_holding(verifier);
        ctx.checks.equal(
            &format!(
                "{verifier} launches, alone or in a batch (sent once, again once, then ended)"
            ),
            &sent,
            &2,
        );
        let verdict = report["findings"]
            .as_array()
            .and_then(|all| all.iter().find(|f| f["item"] == finding))
            .map(|f| f["verdict"].clone());
        ctx.checks.that(verdict == Some(json!("unsure")), || {
            format!(
                "{finding}'s dismissal was never confirmed at opus; report.json says {verdict:?}"
            )
        });
        let reason = report["quarantined"]
            .as_array()
            .and_then(|all| all.iter().find(|q| q["item"] == verifier))
            .and_then(|q| q["errors"].as_array()?.last()?.as_str().map(str::to_owned));
        ctx.checks.that(
            reason
                .as_deref()
                .is_some_and(|r| r.contains("set aside twice")),
            || format!("{verifier} should be quarantined with its reason; report.json: {reason:?}"),
        );
    }
    let timeline = project.self_repair_ok(&["timeline", RUN])?;
    ctx.checks.that(
        timeline.contains("quarantined") && timeline.contains("set aside twice"),
        || format!("the timeline does not say the second look ended:\n{timeline}"),
    );
    let text_status = project.self_repair_ok(&["status"])?;
    ctx.checks.that(text_status.contains("launches: "), || {
        format!("status shows no launches line:\n{text_status}")
    });
    let blocks = project.run(RUN).state()?["blocks"].as_u64().unwrap_or(0);
    ctx.notes.push(format!(
        "drop-model-always: {} agents launched ({} second looks), most of one item {}, {blocks} \
         blocks, priced ${:.2}, claude -p {:.1} s",
        launched.len(),
        launched.iter().filter(|i| i.starts_with("vf-")).count(),
        per_item.values().max().copied().unwrap_or(0),
        status
            .pointer("/cost/total_usd")
            .and_then(Value::as_f64)
            .unwrap_or(0.0),
        outcome.wall.as_secs_f64()
    ));
    Ok(())
}
