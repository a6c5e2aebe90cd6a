//! Assertions shared by the scenarios that drive a run to the end: complete, every item
//! submitted once, tasks written once and listed by the real backlog CLI.

use std::collections::BTreeSet;
use std::fs;

use serde_json::{Value, json};

use crate::e2e::claude_run::{ClaudeOptions, ClaudeOutcome};
use crate::e2e::e2e_error::E2eError;
use crate::e2e::e2e_project::E2eProject;
use crate::e2e::run_files::{field, items_of};
use crate::e2e::scenarios::ScenarioContext;
use crate::mock_server::MockServer;
use crate::scenario::Scenario;
use crate::show_output::ShowOutput;

/// The prompt that starts run `run` in the session (the main thread runs the `$` line).
pub(crate) fn start_prompt(run: &str) -> String {
    format!("Start the self-repair run.\n$ self-repair start findings.jsonl --run-id {run}")
}

/// Serves `scenario`, runs `claude -p` with the start prompt of `run` in `project` until it
/// exits, and checks it exited 0; returns the server (its records) and the outcome.
pub(crate) fn start_and_wait(
    ctx: &mut ScenarioContext,
    project: &E2eProject,
    scenario: Scenario,
    run: &str,
) -> Result<(MockServer, ClaudeOutcome), E2eError> {
    let server = MockServer::start_recording(scenario, &project.records_path(1))?;
    let outcome = project
        .claude(
            &server.base_url(),
            &start_prompt(run),
            &ClaudeOptions::default(),
        )?
        .wait(ctx.claude_timeout())?;
    ctx.checks.that(outcome.succeeded(), || {
        format!("claude -p: {}", outcome.describe())
    });
    Ok((server, outcome))
}

/// Which scripted answer a rule gets, from its id alone (the byte sum mod 8), so a rule survey
/// and the triage of the same rule's spot checks agree or disagree by design: 0 to 4
/// `fix_all`; 5 `suppress` (`intended`), and triage answers `intended` too; 6 `suppress`, but
/// triage finds them `real` (the policy is dropped); 7 `triage_each`.
fn rule_class(rule: &str) -> u32 {
    rule.bytes().map(u32::from).sum::<u32>() % 8
}

/// The rule of finding `id` in a triage task: the line that starts with the id reads
/// `t-00001 path:line tool RULE (level)`.
fn rule_in_task(prompt: &str, id: &str) -> Option<String> {
    prompt
        .lines()
        .find(|l| l.split_whitespace().next() == Some(id))
        .and_then(|l| l.split_whitespace().nth(3))
        .map(str::to_owned)
}

/// A rule survey's scripted policy, by [`rule_class`] of the rule its title names
/// (`# self-repair rule survey rs-00001: ruff D205, 12 findings`).
fn survey_policy(prompt: &str) -> Option<Value> {
    let rule = prompt
        .lines()
        .next()?
        .split_whitespace()
        .nth(6)?
        .trim_end_matches(',')
        .to_owned();
    Some(match rule_class(&rule) {
        0..=4 => json!({"policy": "fix_all", "root_cause": "unused imports and code",
            "reason": format!("scripted: every sampled {rule} finding is real")}),
        5 | 6 => json!({"policy": "suppress", "verdict": "intended",
            "config_change": format!("pyproject.toml: [tool.ruff.lint] ignore = [\"{rule}\"]"),
            "reason": format!("scripted: {rule} is this project's convention")}),
        _ => json!({"policy": "triage_each",
            "reason": format!("scripted: {rule} findings differ from file to file")}),
    })
}

/// A scripted triage verdict: `intended` for the rules a survey suppresses for good (class 5),
/// `real` otherwise.
fn scripted_verdict(rule: &str) -> Value {
    let verdict = if rule_class(rule) == 5 {
        "intended"
    } else {
        "real"
    };
    json!({"confidence": 0.9, "verdict": verdict, "root_cause": "mock root cause",
        "reason": format!("scripted: read the code {rule} points at")})
}

/// A triage task's verdicts when one of its findings is of a class-5 rule; `None` (the
/// generated default, every finding `real`) otherwise.
fn triage_answer(show: &ShowOutput) -> Option<Value> {
    let prompt = show.raw.get("prompt")?.as_str()?;
    let ids: Vec<String> = match show.kind.as_str() {
        "triage" => vec![show.item.clone()],
        _ => show
            .output_schema
            .pointer("/properties/verdicts/items/properties/item/enum")?
            .as_array()?
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect(),
    };
    let rules: Vec<String> = ids
        .iter()
        .map(|id| rule_in_task(prompt, id).unwrap_or_default())
        .collect();
    if !rules.iter().any(|r| rule_class(r) == 5) {
        return None;
    }
    if show.kind == "triage" {
        return Some(scripted_verdict(&rules[0]));
    }
    let verdicts: Vec<Value> = ids
        .iter()
        .zip(&rules)
        .map(|(id, rule)| {
            let mut verdict = scripted_verdict(rule);
            verdict["item"] = json!(id);
            verdict
        })
        .collect();
    Some(json!({ "verdicts": verdicts }))
}

/// What the first angle's review of each group says: approve with one must-fix point.
pub(crate) const REVIEW_WITH_A_POINT: &str = "## Verdict\napprove with changes, the plan names no test.\n\n\
     ## Must fix\n1. The Tests step: name a test that fails before the change and passes after it.\n\n\
     ## Checked\nThe files the plan names.";

/// The must-fix point of [`REVIEW_WITH_A_POINT`], as the task's plan section quotes it.
pub(crate) const MUST_FIX_POINT: &str =
    "The Tests step: name a test that fails before the change and passes after it.";

/// The aggregate item's slice split into two root-cause groups (so the run writes two tasks),
/// task titles that name their writer item, and rule-survey policies (with the triage verdicts
/// that confirm or contradict them) chosen by rule.
fn two_groups(show: &ShowOutput) -> Option<Value> {
    match show.kind.as_str() {
        "rule_survey" => survey_policy(show.raw.get("prompt")?.as_str()?),
        "triage" | "triage_batch" => triage_answer(show),
        "aggregate" => {
            let ids: Vec<Value> = show
                .output_schema
                .pointer("/properties/groups/items/properties/items/items/enum")?
                .as_array()?
                .clone();
            let half = ids.len().div_ceil(2);
            let (first, second) = ids.split_at(half);
            let mut groups = vec![json!({"label": "unused imports and code",
                "root_cause": "code left behind by refactors", "items": first})];
            if !second.is_empty() {
                groups.push(json!({"label": "loose comparisons",
                    "root_cause": "comparisons written without the idiom", "items": second}));
            }
            Some(json!({ "groups": groups }))
        }
        // The first angle's review of each group asks for one change, so the revise step runs
        // (on the synthesizer's tier) and its plan reaches the task.
        "review" if show.item.ends_with("-1") => Some(json!(REVIEW_WITH_A_POINT)),
        "write_task" => Some(json!({
            "title": format!("Fix the root cause of {}", show.item),
            "description": format!("What to change for {}, and why it matters.", show.item),
            "acceptance_criteria": ["the analyzer reports none of these findings"],
        })),
        _ => None,
    }
}

/// The default scripted model plus [`two_groups`].
pub(crate) fn pipeline_scenario() -> Scenario {
    Scenario::new().results(two_groups)
}

/// Checks the run reached `complete` with `findings` triage items, every item `done` but
/// those in `quarantined` (which must be quarantined), each submitted at most once (done
/// ones exactly once), and tasks written once. Returns the final state.
pub(crate) fn check_complete_once(
    ctx: &mut ScenarioContext,
    project: &E2eProject,
    run: &str,
    findings: usize,
    quarantined: &[&str],
) -> Result<Value, E2eError> {
    check_complete(ctx, project, run, findings, quarantined, &[])
}

/// [`check_complete_once`], where each item of `rerouted` has exactly two `submitted` events:
/// its `unsure` + `reroute` answer and the re-routed agent's verdict.
pub(crate) fn check_complete(
    ctx: &mut ScenarioContext,
    project: &E2eProject,
    run: &str,
    findings: usize,
    quarantined: &[&str],
    rerouted: &[&str],
) -> Result<Value, E2eError> {
    let files = project.run(run);
    let state = files.state()?;
    ctx.checks
        .equal("run status", &field(&state, "/status"), &"complete");
    let items = items_of(&state);
    let triage = items.iter().filter(|(_, _, kind)| kind == "triage").count();
    ctx.checks.equal("triage items", &triage, &findings);
    let submitted = files.submitted();
    let by_batch = crate::e2e::run_files::decided_without_a_launch(&state);
    for (id, status, _) in &items {
        let want = if quarantined.contains(&id.as_str()) {
            "quarantined"
        } else {
            "done"
        };
        ctx.checks.that(status == want, || {
            format!("item {id} is {status}, expected {want}")
        });
        let n = submitted.get(id).copied().unwrap_or(0);
        // Two for a re-routed item; none for a finding its batch's result decided, or a revise
        // step code settled.
        let once = if rerouted.contains(&id.as_str()) {
            2
        } else {
            usize::from(!by_batch.contains(id))
        };
        let ok = if want == "done" { n == once } else { n == 0 };
        ctx.checks.that(ok, || {
            format!("item {id} ({status}) has {n} `submitted` journal events")
        });
    }
    let known: BTreeSet<&str> = items.iter().map(|(id, _, _)| id.as_str()).collect();
    for id in submitted.keys() {
        ctx.checks.that(known.contains(id.as_str()), || {
            format!("journal has a submission for unknown item {id}")
        });
    }
    check_tasks(ctx, project, &state)?;
    Ok(state)
}

/// Tasks: the state's list, the files in `backlog/tasks/` and the backlog CLI's list agree,
/// with no title twice.
pub(crate) fn check_tasks(
    ctx: &mut ScenarioContext,
    project: &E2eProject,
    state: &Value,
) -> Result<(), E2eError> {
    let state_tasks = state
        .get("tasks")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    ctx.checks
        .that(state_tasks > 0, || "the run wrote no task".to_owned());
    if state_tasks == 0 {
        return Ok(());
    }
    let dir = project.path().join("backlog/tasks");
    // No folder: no task was written (the count check below says so).
    let files = fs::read_dir(&dir).map_or(0, |entries| {
        entries
            .filter_map(Result::ok)
            .filter(|e| e.path().extension().is_some_and(|x| x == "md"))
            .count()
    });
    ctx.checks
        .equal("task files in backlog/tasks", &files, &state_tasks);
    let listed = project.backlog_tasks()?;
    ctx.checks.equal(
        "tasks listed by `backlog task list --json`",
        &listed.len(),
        &state_tasks,
    );
    let titles: Vec<&str> = listed
        .iter()
        .filter_map(|t| t.get("title").and_then(Value::as_str))
        .collect();
    let unique: BTreeSet<&&str> = titles.iter().collect();
    ctx.checks
        .equal("distinct task titles", &unique.len(), &titles.len());
    Ok(())
}

/// Checks no item was launched twice; returns the launched ids.
pub(crate) fn check_no_duplicate_launch(ctx: &mut ScenarioContext, launched: &[String]) {
    let mut seen = BTreeSet::new();
    for id in launched {
        ctx.checks.that(seen.insert(id), || {
            format!("item {id} was launched twice (Agent tool_use in the recorded requests)")
        });
    }
}

/// Every "`ID` MUST keep "model": "T" (its last launch dropped it and ran on R)" a block told
/// the main thread is true: the last `Agent` call for `ID` before that block had no `model`
/// (issue 24: after an ordinary escalation the block claimed a drop that never happened).
/// Returns how many claims the blocks made.
pub(crate) fn check_must_keep_claims(
    ctx: &mut ScenarioContext,
    records: &[crate::recorded_request::RecordedRequest],
) -> usize {
    const CLAIM: &str = " MUST keep \"model\": ";
    let mut claims = 0;
    let mut false_claims = Vec::new();
    let mut seen = BTreeSet::new();
    for record in records.iter().filter(|r| r.thread == "main") {
        let conversation = crate::conversation::Conversation::new(&record.body);
        let Some(last) = conversation.last_user_index() else {
            continue;
        };
        let text = conversation.text_at(last);
        if !seen.insert(text.clone()) {
            continue;
        }
        let calls = conversation.calls_since(0);
        for (before, _) in text.match_indices(CLAIM) {
            let id = text[..before]
                .rsplit(|c: char| c.is_whitespace() || c == ';' || c == ':')
                .next()
                .unwrap_or_default();
            claims += 1;
            let dropped = calls
                .iter()
                .rev()
                .find(|(call, _)| {
                    call.name == "Agent"
                        && call
                            .input
                            .get("description")
                            .and_then(Value::as_str)
                            .is_some_and(|d| d.split_whitespace().last() == Some(id))
                })
                .is_some_and(|(call, _)| call.input.get("model").is_none());
            if !dropped {
                let end = text[before..]
                    .find(')')
                    .map_or(text.len(), |e| before + e + 1);
                false_claims.push(format!("{id}{}", &text[before..end]));
            }
        }
    }
    ctx.checks.that(false_claims.is_empty(), || {
        format!("blocks claimed launches dropped `model` that kept it: {false_claims:?}")
    });
    claims
}

/// Every finding an agent decided names the model its launch ran on (`ran_model` in
/// report.json, issue 24: missing for the findings a foreground batch decided); returns the
/// `(item, ran_model)` pairs.
pub(crate) fn check_ran_model_recorded(
    ctx: &mut ScenarioContext,
    project: &E2eProject,
    run: &str,
) -> Result<Vec<(String, String)>, E2eError> {
    let path = project.run(run).dir().join("report.json");
    let text = fs::read_to_string(&path).map_err(E2eError::io(&path))?;
    let report: Value = serde_json::from_str(&text).map_err(|e| E2eError::Unexpected {
        path: path.clone(),
        message: format!("not JSON: {e}"),
    })?;
    let findings = report["findings"].as_array().cloned().unwrap_or_default();
    let by_agent: Vec<&Value> = findings
        .iter()
        .filter(|f| f["decided_by"] == "agent")
        .collect();
    ctx.checks.that(!by_agent.is_empty(), || {
        "report.json has no finding an agent decided".to_owned()
    });
    let missing: Vec<String> = by_agent
        .iter()
        .filter(|f| f["ran_model"].as_str().is_none())
        .map(|f| field(f, "/item").to_owned())
        .collect();
    ctx.checks.that(missing.is_empty(), || {
        format!(
            "{} of {} agent-decided findings have no ran_model in report.json: {missing:?}",
            missing.len(),
            by_agent.len()
        )
    });
    Ok(findings
        .iter()
        .map(|f| {
            (
                field(f, "/item").to_owned(),
                field(f, "/ran_model").to_owned(),
            )
        })
        .collect())
}

/// `eval`'s protocol figures of run `run` (`eval --json`'s `protocol`), scored against the
/// labels `labels` (CSV, written to `labels.csv`; the protocol figures do not read them).
pub(crate) fn eval_protocol(
    project: &E2eProject,
    run: &str,
    labels: &str,
) -> Result<Value, E2eError> {
    project.write("labels.csv", labels)?;
    let out = project.self_repair_ok(&[
        "eval",
        run,
        "--labels",
        "labels.csv",
        "--model",
        "scripted:e2e",
        "--json",
    ])?;
    let eval: Value = serde_json::from_str(&out).unwrap_or(Value::Null);
    Ok(eval["protocol"].clone())
}
