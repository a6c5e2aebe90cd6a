//! Issue 34, item 2, on the real client: the second looks on one rule's security dismissals go
//! out as one agent. Ten Bandit findings of one rule (B608) in two first-look batches (8 and 2,
//! sonnet); the scripted model dismisses every one, then, asked for independent second opinions,
//! confirms nine and keeps one real. Asserts: the three triage-phase agents are the two
//! first-look batches and one batch of the ten `vf-` second looks, which the server saw at opus
//! and whose task shows no first answer; each finding settled by its own second opinion (nine
//! `false_positive` confirmed, one `real` kept); the run completes with every item done once.

use serde_json::{Value, json};

use crate::e2e::e2e_error::E2eError;
use crate::e2e::e2e_project::{E2eProject, InstallMode};
use crate::e2e::records::launched_items;
use crate::e2e::scenarios::ScenarioContext;
use crate::e2e::scenarios::pipeline_checks::{check_complete_once, start_and_wait};
use crate::scenario::Scenario;
use crate::show_output::ShowOutput;

const RUN: &str = "r-second-looks";
pub(crate) const FINDINGS: usize = 10;
/// The finding whose second opinion disagrees with its dismissal.
const KEPT: &str = "vf-00007";

/// Ten B608 findings, one file each.
pub(crate) fn findings() -> String {
    (1..=FINDINGS)
        .map(|n| {
            json!({"tool": "bandit", "rule_id": "B608", "level": "warning",
                "message": "Possible SQL injection vector through string-based query construction.",
                "path": format!("app/q{n}.py"), "line": 2})
            .to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every member of a batch: dismissed at the first look; at the second, confirmed but
/// [`KEPT`].
fn answers(show: &ShowOutput) -> Option<Value> {
    if show.kind != "triage_batch" {
        return None;
    }
    let ids = show
        .output_schema
        .pointer("/properties/verdicts/items/properties/item/enum")?;
    // A batch of second looks lists its members by their `vf-` ids; its task is blind (it says
    // nothing of a first answer), so the ids are how the script tells.
    let second = ids
        .as_array()?
        .iter()
        .any(|id| id.as_str().is_some_and(|id| id.starts_with("vf-")));
    let verdicts: Vec<Value> = ids
        .as_array()?
        .iter()
        .map(|id| {
            let verdict = if second && id == KEPT {
                "real"
            } else {
                "false_positive"
            };
            json!({"item": id, "verdict": verdict, "root_cause": "query built from constants",
                   "confidence": 0.9, "reason": "scripted: only module constants reach the query"})
        })
        .collect();
    Some(json!({ "verdicts": verdicts }))
}

/// The plugin project of [`findings`], each file's query built from module constants,
/// foreground, surveys off.
pub(crate) fn b608_project(ctx: &ScenarioContext, name: &str) -> Result<E2eProject, E2eError> {
    let project = E2eProject::new(&ctx.tools, name, InstallMode::Plugin, 0)?;
    project.write("findings.jsonl", &findings())?;
    for n in 1..=FINDINGS {
        project.write(
            &format!("app/q{n}.py"),
            "TABLE = \"users\"\nQUERY = \"SELECT * FROM \" + TABLE\n",
        )?;
    }
    project.write(
        ".self-repair/config.json",
        "{\"launch_mode\": \"foreground\", \"survey_min\": 0}\n",
    )?;
    Ok(project)
}

pub(crate) fn run(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let project = b608_project(ctx, "security-second-looks")?;
    let (server, _) = start_and_wait(ctx, &project, Scenario::new().results(answers), RUN)?;
    check_complete_once(ctx, &project, RUN, FINDINGS, &[])?;
    check_one_batch_of_second_looks(ctx, &server.requests());
    let report = project.run(RUN).report();
    let outcomes: Vec<(String, String)> = report["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| {
            (
                f["verdict"].as_str().unwrap_or_default().to_owned(),
                f["verification"]["outcome"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
            )
        })
        .collect();
    let count = |verdict: &str, outcome: &str| {
        outcomes
            .iter()
            .filter(|(v, o)| v == verdict && o == outcome)
            .count()
    };
    ctx.checks.equal(
        "findings confirmed false_positive, kept real",
        &(
            count("false_positive", "confirmed"),
            count("real", "kept_real"),
        ),
        &(FINDINGS - 1, 1),
    );
    check_protocol(ctx, &project)
}

/// The triage phase's agents were the two first-look batches and one batch of second looks
/// (`tb-00003`, on opus); no second look went out on its own.
pub(crate) fn check_one_batch_of_second_looks(
    ctx: &mut ScenarioContext,
    records: &[crate::recorded_request::RecordedRequest],
) {
    let launched = launched_items(records);
    let triage: Vec<&String> = launched.iter().filter(|i| i.starts_with("tb-")).collect();
    ctx.checks.equal(
        "triage-phase agents: two first-look batches, one batch of second looks",
        &triage,
        &vec![
            &"tb-00001".to_owned(),
            &"tb-00002".to_owned(),
            &"tb-00003".to_owned(),
        ],
    );
    ctx.checks
        .that(!launched.iter().any(|i| i.starts_with("vf-")), || {
            format!("no second look went out on its own: {launched:?}")
        });
    let models: Vec<&str> = records
        .iter()
        .filter(|r| r.thread == "item:tb-00003")
        .filter_map(|r| r.model.as_deref())
        .collect();
    ctx.checks.that(
        !models.is_empty() && models.iter().all(|m| m.contains("opus")),
        || format!("the second looks should run on opus; the server saw {models:?}"),
    );
}

/// `eval`'s protocol figures, read from the real client's transcripts: every launch the three
/// dispatches asked for was made as asked (the scripted main session follows the dispatch).
fn check_protocol(ctx: &mut ScenarioContext, project: &E2eProject) -> Result<(), E2eError> {
    let labels: String = std::iter::once("path,line,rule,label".to_owned())
        .chain((1..=FINDINGS).map(|n| format!("app/q{n}.py,2,B608,false")))
        .collect::<Vec<_>>()
        .join("\n");
    let protocol = crate::e2e::scenarios::pipeline_checks::eval_protocol(project, RUN, &labels)?;
    let p = &protocol;
    let at = |k: &str| p[k].as_u64().unwrap_or(u64::MAX);
    ctx.checks.that(
        p["launches_read"] == true
            && at("entries") >= 3
            && at("verbatim") == at("entries")
            && [
                "model_changed",
                "model_dropped",
                "not_launched",
                "refused_by_user",
                "launched_twice",
            ]
            .iter()
            .all(|k| at(k) == 0),
        || format!("eval's protocol figures should show every dispatch launched verbatim: {p}"),
    );
    ctx.notes.push(format!("eval protocol: {p}"));
    Ok(())
}
