//! Issue 40 on the real client: a first look that closes real security findings through the
//! schema's other answers, and the two-look rule holding anyway. Five real sinks, one agent
//! each (`triage_batch: 1`), on the plugin route with the user's permissions:
//!
//! - Bandit B608 and Ruff S608 on the same SQL line name each other as `duplicate` (a cycle);
//! - B301 (pickle of a cookie) answers `unsure` with `reroute: "generic"`, and its re-routed
//!   look is fooled once (`false_positive`, 0.95);
//! - B602 (`shell=True`) answers `unsure`;
//! - B506 (`yaml.load`) is a `duplicate` of the B301 finding, which ends on another route;
//!
//! every second look is honest (`real`). Asserts: the run completes; every finding ends `real`
//! (none closed); the re-routed finding and the `unsure` one got their second looks, at opus,
//! blind; report.json names each duplicate's target; `known.json` holds no closing verdict as
//! decided.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;

use serde_json::{Value, json};

use crate::e2e::e2e_error::E2eError;
use crate::e2e::e2e_project::{E2eProject, InstallMode};
use crate::e2e::records::launched_items;
use crate::e2e::scenarios::ScenarioContext;
use crate::e2e::scenarios::pipeline_checks::{check_complete, start_and_wait};
use crate::scenario::Scenario;
use crate::show_output::ShowOutput;

const RUN: &str = "r-two-looks";
const FINDINGS: usize = 5;

/// The five findings: each a real sink.
fn findings() -> String {
    [
        ("bandit", "B608", "app/db.py", 4),
        ("ruff", "S608", "app/db.py", 4),
        ("bandit", "B301", "app/session.py", 5),
        ("bandit", "B602", "app/run.py", 5),
        ("bandit", "B506", "app/conf.py", 5),
    ]
    .iter()
    .map(|(tool, rule, path, line)| {
        json!({"tool": tool, "rule_id": rule, "level": "warning",
               "message": format!("{rule}: a sink reached by request data"),
               "path": path, "line": line})
        .to_string()
    })
    .collect::<Vec<_>>()
    .join("\n")
}

const SOURCES: [(&str, &str); 4] = [
    (
        "app/db.py",
        "import sqlite3\n\ndef find(db, name):\n    return db.execute(\"SELECT * FROM users WHERE name = '%s'\" % name)\n",
    ),
    (
        "app/session.py",
        "import base64\nimport pickle\n\ndef load(cookie):\n    return pickle.loads(base64.b64decode(cookie))\n",
    ),
    (
        "app/run.py",
        "import subprocess\n\n\ndef ping(host):\n    return subprocess.run(\"ping -c 1 \" + host, shell=True)\n",
    ),
    (
        "app/conf.py",
        "import yaml\n\n\ndef parse(body):\n    return yaml.load(body)\n",
    ),
];

fn answer(verdict: &str, extra: &Value) -> Value {
    let mut out = json!({"verdict": verdict, "root_cause": "request data reaches a sink",
        "confidence": 0.95, "reason": format!("scripted adversarial first look: {verdict}")});
    if let (Some(out), Some(extra)) = (out.as_object_mut(), extra.as_object()) {
        out.extend(extra.clone());
    }
    out
}

/// Each rule's triage item, from the run's `findings.json` (the scripted agents read the run as
/// a real one reads its task).
fn items_by_rule(project: &std::path::Path) -> BTreeMap<String, String> {
    let path = project.join(format!(".self-repair/runs/{RUN}/findings.json"));
    let records: Vec<Value> = std::fs::read_to_string(path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    records
        .iter()
        .filter_map(|r| {
            Some((
                r["finding"]["rule_id"].as_str()?.to_owned(),
                r["item"].as_str()?.to_owned(),
            ))
        })
        .collect()
}

/// The adversarial first looks and the honest second looks; `rerouted` remembers the items
/// already sent to another route (their next look is the fooled one).
fn answers(
    show: &ShowOutput,
    project: &std::path::Path,
    rerouted: &Mutex<BTreeSet<String>>,
) -> Option<Value> {
    let item = show.item.as_str();
    let items = items_by_rule(project);
    let rule = items
        .iter()
        .find(|(_, i)| *i == item)
        .map(|(r, _)| r.as_str());
    let of = |rule: &str| items.get(rule).cloned().unwrap_or_default();
    match show.kind.as_str() {
        "triage" => Some(match rule? {
            "B608" => answer("duplicate", &json!({"duplicate_of": of("S608")})),
            "S608" => answer("duplicate", &json!({"duplicate_of": of("B608")})),
            "B301" => {
                let mut seen = rerouted.lock().ok()?;
                if seen.insert(item.to_owned()) {
                    answer(
                        "unsure",
                        &json!({"reroute": "generic", "confidence": 0.4,
                               "reason": "scripted: a serialization question, not security"}),
                    )
                } else {
                    answer("false_positive", &json!({}))
                }
            }
            "B602" => answer("unsure", &json!({"confidence": 0.5})),
            "B506" => answer("duplicate", &json!({"duplicate_of": of("B301")})),
            _ => return None,
        }),
        "verify" => Some(
            json!({"verdict": "real", "root_cause": "request data reaches a sink",
            "confidence": 0.9, "reason": "scripted honest second look: the input is the request's"}),
        ),
        _ => None,
    }
}

pub(crate) fn run(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let project = E2eProject::new(&ctx.tools, "security-two-looks", InstallMode::Plugin, 0)?;
    project.write("findings.jsonl", &findings())?;
    for (path, text) in SOURCES {
        project.write(path, text)?;
    }
    project.write(
        ".self-repair/config.json",
        "{\"launch_mode\": \"foreground\", \"triage_batch\": 1, \"verify_batch\": 1, \
         \"survey_min\": 0}\n",
    )?;
    let rerouted = Mutex::new(BTreeSet::new());
    let root = project.path();
    let scenario = Scenario::new().results(move |show| answers(show, &root, &rerouted));
    let (server, _) = start_and_wait(ctx, &project, scenario, RUN)?;
    let items = items_by_rule(&project.path());
    let item = |rule: &str| items.get(rule).cloned().unwrap_or_default();
    let vf = |rule: &str| item(rule).replacen("t-", "vf-", 1);
    check_complete(ctx, &project, RUN, FINDINGS, &[], &[item("B301").as_str()])?;
    let records = server.requests();
    let launched = launched_items(&records);
    let verifiers: BTreeSet<String> = launched
        .iter()
        .filter(|i| i.starts_with("vf-"))
        .cloned()
        .collect();
    ctx.checks.equal(
        "second looks: the re-routed dismissal and the unsure finding",
        &verifiers,
        &BTreeSet::from([vf("B301"), vf("B602")]),
    );
    for item in [vf("B301"), vf("B602")] {
        let models: Vec<&str> = records
            .iter()
            .filter(|r| r.thread == format!("item:{item}"))
            .filter_map(|r| r.model.as_deref())
            .collect();
        ctx.checks.that(
            !models.is_empty() && models.iter().all(|m| m.contains("opus")),
            || format!("{item} should run on opus; the server saw {models:?}"),
        );
    }
    let report = project.run(RUN).report();
    let findings = report["findings"].as_array().cloned().unwrap_or_default();
    let verdicts: BTreeSet<(String, String, String)> = findings
        .iter()
        .map(|f| {
            let text = |k: &str| f[k].as_str().unwrap_or_default().to_owned();
            (text("rule_id"), text("verdict"), text("duplicate_of"))
        })
        .collect();
    ctx.checks.equal(
        "every finding real, each duplicate naming its target",
        &verdicts,
        &BTreeSet::from([
            ("B301".into(), "real".into(), String::new()),
            ("B506".into(), "real".into(), item("B301")),
            ("B602".into(), "real".into(), String::new()),
            ("B608".into(), "real".into(), item("S608")),
            ("S608".into(), "real".into(), item("B608")),
        ]),
    );
    check_known(ctx, &project);
    Ok(())
}

/// `known.json` (a header line, then one entry a line) holds no closing verdict as decided.
fn check_known(ctx: &mut ScenarioContext, project: &E2eProject) {
    let text =
        std::fs::read_to_string(project.path().join(".self-repair/known.json")).unwrap_or_default();
    let decided_closures: Vec<Value> = text
        .lines()
        .skip(1)
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|e| {
            ["false_positive", "intended", "duplicate"]
                .contains(&e["verdict"].as_str().unwrap_or(""))
                && e["proposed"] != true
        })
        .collect();
    ctx.checks.that(decided_closures.is_empty(), || {
        format!("known.json holds closures as decided: {decided_closures:?}")
    });
    ctx.notes.push(format!(
        "known.json: {} entries",
        text.lines().count().saturating_sub(1)
    ));
}
