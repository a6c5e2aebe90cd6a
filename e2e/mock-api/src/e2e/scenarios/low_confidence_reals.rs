//! Issue 48 on the real client: a `real` answered below `verify_below` gets a blind second look
//! in the batch of its rule's second looks. Ten Bandit B608 findings in two first-look batches
//! (8 and 2, sonnet); the scripted model dismisses t-00001..4 (0.9), calls t-00005..7 real with
//! confidence 0.6 and t-00008..10 real with 0.9; asked for independent second opinions, it
//! dismisses t-00001..5 and calls t-00006..7 real. Asserts: the triage-phase agents are the two
//! first-look batches and one batch of exactly the seven `vf-` second looks (the four
//! dismissals and the three low-confidence reals; the confident reals get none), which the
//! server saw at opus and whose task shows no first answer; `report.json` has four
//! `false_positive` (`confirmed`), two `real` (`confirmed`), t-00005 `unsure` (`disputed`: one
//! dismissal never closes a real) and three `real` with no second look; the run completes with
//! every item done once.

use serde_json::{Value, json};

use crate::e2e::e2e_error::E2eError;
use crate::e2e::e2e_project::E2eProject;
use crate::e2e::scenarios::ScenarioContext;
use crate::e2e::scenarios::pipeline_checks::{check_complete_once, start_and_wait};
use crate::e2e::scenarios::security_second_looks::{
    FINDINGS, b608_project, check_one_batch_of_second_looks,
};
use crate::scenario::Scenario;
use crate::show_output::ShowOutput;

const RUN: &str = "r-low-reals";

/// The number of `t-0000N` or `vf-0000N`.
fn number(id: &str) -> u32 {
    id.rsplit('-')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// First looks: 1-4 dismissed (0.9), 5-7 real at 0.6, 8-10 real at 0.9. Second looks: 1-5
/// dismissed, 6-7 real.
fn answers(show: &ShowOutput) -> Option<Value> {
    if show.kind != "triage_batch" {
        return None;
    }
    let ids = show
        .output_schema
        .pointer("/properties/verdicts/items/properties/item/enum")?;
    let verdicts: Vec<Value> = ids
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .map(|id| {
            let n = number(id);
            let (verdict, confidence) = if id.starts_with("vf-") {
                (if n <= 5 { "false_positive" } else { "real" }, 0.9)
            } else if n <= 4 {
                ("false_positive", 0.9)
            } else if n <= 7 {
                ("real", 0.6)
            } else {
                ("real", 0.9)
            };
            json!({"item": id, "verdict": verdict, "root_cause": "query built from constants",
                   "confidence": confidence, "reason": "scripted: what reaches the query decides"})
        })
        .collect();
    Some(json!({ "verdicts": verdicts }))
}

pub(crate) fn run(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let project = b608_project(ctx, "low-confidence-reals")?;
    let (server, _) = start_and_wait(ctx, &project, Scenario::new().results(answers), RUN)?;
    check_complete_once(ctx, &project, RUN, FINDINGS, &[])?;
    check_one_batch_of_second_looks(ctx, &server.requests());
    check_report(ctx, &project);
    Ok(())
}

/// Each finding's verdict and second-look outcome, in finding order.
fn check_report(ctx: &mut ScenarioContext, project: &E2eProject) {
    let report = project.run(RUN).report();
    let mut outcomes: Vec<(String, String, String)> = report["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| {
            let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
            (
                text(&f["item"]),
                text(&f["verdict"]),
                text(&f["verification"]["outcome"]),
            )
        })
        .collect();
    outcomes.sort();
    let expected: Vec<(String, String, String)> = (1..=FINDINGS)
        .map(|n| {
            let (verdict, outcome) = match n {
                1..=4 => ("false_positive", "confirmed"),
                5 => ("unsure", "disputed"),
                6 | 7 => ("real", "confirmed"),
                _ => ("real", ""),
            };
            (format!("t-{n:05}"), verdict.to_owned(), outcome.to_owned())
        })
        .collect();
    ctx.checks.equal(
        "each finding's verdict and second-look outcome",
        &outcomes,
        &expected,
    );
}
