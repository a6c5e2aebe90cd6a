//! Issue 14 item 1 on the real client: a low-confidence `false_positive` and a security
//! dismissal are both checked by a second agent at a higher tier (the server sees the model the
//! dispatch asked for), the disputed one stays `real`, the confirmed security dismissal stands,
//! and `known.json` applies neither until `known accept`.

use serde_json::{Value, json};

use crate::e2e::e2e_error::E2eError;
use crate::e2e::e2e_project::{E2eProject, InstallMode};
use crate::e2e::records::launched_items;
use crate::e2e::scenarios::ScenarioContext;
use crate::e2e::scenarios::full_pipeline::PER_ITEM_FOREGROUND_CONFIG;
use crate::e2e::scenarios::pipeline_checks::{check_complete_once, start_and_wait};
use crate::scenario::Scenario;
use crate::show_output::ShowOutput;

const RUN: &str = "r-verified";
const FINDINGS: usize = 10;

/// eqeqeq findings (t-00003, t-00008) go to the security route.
const RULES: &str = r#"{"schema_version": 1, "rules": [{"id": "eq-sec",
    "name": "eqeqeq gets a security look", "when": {"rule_id": "eqeqeq"}, "route": "security"}]}"#;

/// t-00001 is dismissed with confidence 0.5 and t-00003 (security) with 0.95; a verifier shown
/// a claim to check finds the finding right, an independent one agrees with the dismissal.
fn answers(show: &ShowOutput) -> Option<Value> {
    let answer = |verdict: &str, confidence: f64, reason: &str| {
        json!({"verdict": verdict, "root_cause": "loose comparison", "confidence": confidence,
               "reason": format!("scripted: {reason}")})
    };
    match (show.kind.as_str(), show.item.as_str()) {
        ("triage", "t-00001") => Some(answer(
            "false_positive",
            0.5,
            "the import may be used by a plugin loader",
        )),
        ("triage", "t-00003") => Some(answer(
            "intended",
            0.95,
            "the comparison is on two constants",
        )),
        ("verify", _) => {
            let prompt = show.raw.get("prompt")?.as_str()?;
            Some(if prompt.contains("## A claim to check") {
                answer(
                    "real",
                    0.9,
                    "nothing loads the module by name; the import is dead",
                )
            } else {
                answer(
                    "false_positive",
                    0.9,
                    "both operands are literals; no input reaches it",
                )
            })
        }
        _ => None,
    }
}

pub(crate) fn run(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let project = E2eProject::new(
        &ctx.tools,
        "verified-dismissals",
        InstallMode::Project,
        FINDINGS,
    )?;
    let (path, config) = PER_ITEM_FOREGROUND_CONFIG;
    project.write(path, config)?;
    project.write(".self-repair/rules.json", RULES)?;
    let (server, outcome) = start_and_wait(ctx, &project, Scenario::new().results(answers), RUN)?;
    check_complete_once(ctx, &project, RUN, FINDINGS, &[])?;
    let records = server.requests();
    let launched = launched_items(&records);
    let mut verifiers: Vec<&String> = launched.iter().filter(|i| i.starts_with("vf-")).collect();
    verifiers.sort();
    ctx.checks.equal(
        "verifiers launched",
        &verifiers,
        &vec![&"vf-00001".to_owned(), &"vf-00003".to_owned()],
    );
    // The server saw each verifier's requests at the tier its dispatch asked for.
    for (item, tier) in [("vf-00001", "sonnet"), ("vf-00003", "opus")] {
        let models: Vec<&str> = records
            .iter()
            .filter(|r| r.thread == format!("item:{item}"))
            .filter_map(|r| r.model.as_deref())
            .collect();
        ctx.checks.that(
            !models.is_empty() && models.iter().all(|m| m.contains(tier)),
            || format!("{item} should run on {tier}; the server saw {models:?}"),
        );
    }
    let read = |project: &E2eProject, relative: &str| -> Value {
        std::fs::read_to_string(project.path().join(relative))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or(Value::Null)
    };
    let report = read(&project, &format!(".self-repair/runs/{RUN}/report.json"));
    let finding = |item: &str| {
        report["findings"]
            .as_array()
            .and_then(|all| all.iter().find(|f| f["item"] == item))
            .cloned()
            .unwrap_or(Value::Null)
    };
    for (item, verdict, outcome) in [
        ("t-00001", "real", "kept_real"),
        ("t-00003", "false_positive", "confirmed"),
    ] {
        let f = finding(item);
        ctx.checks.that(
            f["verdict"] == verdict && f["verification"]["outcome"] == outcome,
            || format!("{item}: expected {verdict} ({outcome}), report.json has {f}"),
        );
    }
    // known.json holds neither dismissal until a person accepts it.
    // One entry a line after the header: as `{"entries": {fingerprint: entry}}`.
    let known = |project: &E2eProject| {
        let text = std::fs::read_to_string(project.path().join(".self-repair/known.json"))
            .unwrap_or_default();
        let entries: serde_json::Map<String, Value> = text
            .lines()
            .skip(1)
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter_map(|entry| Some((entry["fingerprint"].as_str()?.to_owned(), entry)))
            .collect();
        json!({ "entries": entries })
    };
    let entry = |known: &Value, item: &str| {
        known["entries"]
            .as_object()
            .and_then(|all| all.values().find(|e| e["item"] == item))
            .cloned()
            .unwrap_or(Value::Null)
    };
    let before = known(&project);
    for item in ["t-00001", "t-00003"] {
        let e = entry(&before, item);
        ctx.checks.that(e["proposed"] == true, || {
            format!("{item} should be only proposed in known.json: {e}")
        });
    }
    project.self_repair_ok(&["known", "accept", "t-00003"])?;
    let after = entry(&known(&project), "t-00003");
    ctx.checks.that(
        after["verdict"] == "false_positive" && after.get("proposed") != Some(&Value::Bool(true)),
        || format!("t-00003 after known accept: {after}"),
    );
    ctx.notes.push(format!(
        "verified dismissals: {} agents ({} verifiers), claude -p {:.1} s",
        launched.len(),
        verifiers.len(),
        outcome.wall.as_secs_f64()
    ));
    Ok(())
}
