//! A scripted agent that speaks the sub-agent protocol through the real binary: `show --json`,
//! build an answer from the prompt and the output schema, `submit --file`.

use serde_json::{Value, json};

use crate::harness::{Outcome, TestProject};

/// Answers items of one run.
pub(crate) struct ScriptedAgent<'a> {
    pub project: &'a TestProject,
    pub run: String,
}

impl ScriptedAgent<'_> {
    /// `show --json` of an item.
    pub(crate) fn show(&self, item: &str) -> Value {
        self.project
            .cmd(&["show", item, "--json"])
            .run()
            .success()
            .json()
    }

    /// Shows, answers and submits one item; returns the submit outcome.
    pub(crate) fn work(&self, item: &str) -> Outcome {
        let shown = self.show(item);
        let answer = self.answer(&shown);
        self.submit(item, &answer)
    }

    /// Submits text through a file.
    pub(crate) fn submit(&self, item: &str, text: &str) -> Outcome {
        let file = self.project.path().join(format!(".answer-{item}"));
        std::fs::write(&file, text).expect("write answer");
        let out = self
            .project
            .cmd(&["submit", item, "--file", file.to_str().expect("utf-8 path")])
            .run();
        let _ = std::fs::remove_file(file);
        out
    }

    /// The answer for a shown item.
    pub(crate) fn answer(&self, shown: &Value) -> String {
        let prompt = shown["prompt"].as_str().unwrap_or_default();
        let schema = &shown["output_schema"];
        match shown["kind"].as_str().unwrap_or_default() {
            "triage" => {
                let item = shown["item"].as_str().unwrap_or_default();
                Self::verdict(prompt, item).to_string()
            }
            // A second opinion: an independent one agrees with the first answer; one asked to
            // check a low-confidence claim finds the finding right.
            "verify" => {
                let item = shown["item"].as_str().unwrap_or_default();
                let first = item.replacen("vf-", "t-", 1);
                let mut verdict = Self::verdict(prompt, &first);
                if prompt.contains("## A claim to check") {
                    verdict["verdict"] = json!("real");
                    verdict["reason"] = json!("scripted: the code does what the rule says");
                }
                verdict.to_string()
            }
            "triage_batch" => {
                let ids = enum_of(&schema["properties"]["verdicts"]["items"]["properties"]["item"]);
                let verdicts: Vec<Value> = ids
                    .iter()
                    .map(|id| {
                        let mut verdict = Self::verdict(prompt, id);
                        verdict["item"] = json!(id);
                        verdict
                    })
                    .collect();
                json!({ "verdicts": verdicts }).to_string()
            }
            "aggregate" => {
                let ids = enum_of(
                    &schema["properties"]["groups"]["items"]["properties"]["items"]["items"],
                );
                let mut groups: Vec<(String, Vec<String>)> = Vec::new();
                for id in ids {
                    let cause = self.root_cause(&id);
                    match groups.iter_mut().find(|(c, _)| *c == cause) {
                        Some((_, members)) => members.push(id),
                        None => groups.push((cause, vec![id])),
                    }
                }
                json!({"groups": groups.into_iter().map(|(c, items)| json!({
                    "label": c, "root_cause": format!("scripted: {c}"), "items": items})).collect::<Vec<_>>()})
                .to_string()
            }
            "rule_survey" => Self::policy(prompt).to_string(),
            "rule_review" => json!({"rules": []}).to_string(),
            "merge_labels" => json!({"merges": []}).to_string(),
            "plan" | "review" => format!(
                "## {}\n\nScripted markdown long enough to pass the schema's minimum.",
                shown["item"]
            ),
            "synthesize" => {
                let plans = enum_of(&schema["properties"]["scores"]["items"]["properties"]["plan"]);
                json!({"scores": plans.iter().map(|p| json!({"plan": p, "correctness": 4, "simplicity": 4,
                    "scope": 4, "tests": 3, "regression_risk": 4})).collect::<Vec<_>>(),
                    "plan": "## Merged\n\nScripted merged plan text, long enough for the schema."})
                .to_string()
            }
            "revise" => {
                let points =
                    enum_of(&schema["properties"]["points"]["items"]["properties"]["point"]);
                json!({"plan": "## Summary\n\nScripted revised plan: every point of the reviews applied.",
                    "points": points.iter().map(|p| json!({"point": p, "outcome": "applied",
                        "how": format!("scripted: {p} is in step 1 now")})).collect::<Vec<_>>()})
                .to_string()
            }
            "write_task" => {
                let label = field(prompt, "label: ");
                json!({"title": format!("Fix {label}"), "description": format!("Scripted task for the group {label}."),
                    "acceptance_criteria": ["The analyzer reports nothing for the group", "A regression test covers it"],
                    "labels": ["scripted"]})
                .to_string()
            }
            other => panic!("unknown kind {other}"),
        }
    }

    /// The scripted verdict for the finding `id` of a triage task, by its rule (the finding's
    /// line in the task reads `t-00001 path:line tool RULE (level)`).
    fn verdict(prompt: &str, id: &str) -> Value {
        let rule = rule_of(prompt, id);
        let (verdict, cause) = match rule.as_str() {
            "eqeqeq" => ("false_positive", "loose equality on purpose"),
            "F401" => ("real", "unused import"),
            "E711" => ("real", "comparison to None"),
            "unused-function" => ("real", "dead function"),
            _ => ("real", "zero-length check"),
        };
        json!({"confidence": 0.9, "verdict": verdict, "root_cause": cause,
               "reason": format!("scripted: {rule} reported where the code really does it")})
    }

    /// The scripted policy for a rule survey, by its rule (the title reads `# self-repair rule
    /// survey rs-00001: tool RULE, N findings`): what [`Self::verdict`] would answer for each of
    /// its findings, so the spot checks agree.
    fn policy(prompt: &str) -> Value {
        let title = prompt.lines().next().unwrap_or_default();
        let rule = title
            .split_whitespace()
            .nth(6)
            .unwrap_or_default()
            .trim_end_matches(',');
        let line = format!("t-00000 x:1 tool {rule} (warning)");
        let verdict = Self::verdict(&line, "t-00000");
        if verdict["verdict"] == "false_positive" {
            return json!({"policy": "suppress", "verdict": "false_positive",
                "config_change": format!(".eslintrc.json: \"rules\": {{\"{rule}\": \"off\"}}"),
                "reason": format!("scripted: {rule} is how this project compares on purpose")});
        }
        json!({"policy": "fix_all", "root_cause": verdict["root_cause"],
               "reason": format!("scripted: every sampled {rule} finding is real")})
    }

    fn root_cause(&self, id: &str) -> String {
        let path = self
            .project
            .run_dir(&self.run)
            .join("items")
            .join(format!("{id}.json"));
        let text = std::fs::read_to_string(path).expect("triage result");
        let value: Value = serde_json::from_str(&text).expect("json");
        value["root_cause"].as_str().unwrap_or_default().to_owned()
    }
}

/// The rule of finding `id` in a triage task: the fourth word of the line that starts with it.
pub(crate) fn rule_of(prompt: &str, id: &str) -> String {
    prompt
        .lines()
        .find(|l| l.split_whitespace().next() == Some(id))
        .and_then(|l| l.split_whitespace().nth(3))
        .unwrap_or_default()
        .to_owned()
}

/// The text after `prefix` on the first line that starts with it.
pub(crate) fn field(prompt: &str, prefix: &str) -> String {
    prompt
        .lines()
        .find_map(|l| l.strip_prefix(prefix))
        .unwrap_or_default()
        .trim()
        .to_owned()
}

fn enum_of(node: &Value) -> Vec<String> {
    node["enum"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// The items the next stop of session `s1` (nothing running) launches; `None` once the hook
/// allows or only asks the session to end its turn.
pub(crate) fn next_wave(project: &TestProject) -> Option<Vec<String>> {
    let out = project.stop("s1", &[]);
    let answer: Value = serde_json::from_str(&out.stdout).ok()?;
    dispatch_reason(&answer).map(|reason| launched(reason).1)
}

/// The block reason of a hook answer that dispatches agents; `None` for an allow and for the
/// one block that asks the session to end its turn with the run's closing line.
pub(crate) fn dispatch_reason(answer: &Value) -> Option<&str> {
    self_repair_engine::continuation(answer)
        .filter(|r| r.contains(self_repair_engine::DISPATCH_START))
}

/// The phase and item ids of a block reason's dispatch.
pub(crate) fn launched(reason: &str) -> (String, Vec<String>) {
    let start = reason
        .find(self_repair_engine::DISPATCH_START)
        .expect("dispatch json");
    let dispatch: Value = serde_json::Deserializer::from_str(&reason[start..])
        .into_iter()
        .next()
        .expect("dispatch json")
        .expect("dispatch json parses");
    let ids: Vec<String> = dispatch["launch"]
        .as_array()
        .expect("launch")
        .iter()
        .map(|l| {
            // `self-repair item <id> --run <run>`
            l["prompt"]
                .as_str()
                .expect("prompt")
                .split_whitespace()
                .nth(2)
                .expect("item id")
                .to_owned()
        })
        .collect();
    (phase_of(&ids), ids)
}

/// The phase a dispatch's items belong to (a dispatch names its launches only): `repair` for a
/// repair run's `fix-N`.
fn phase_of(ids: &[String]) -> String {
    ids.first()
        .and_then(|id| self_repair_engine::ItemKind::of_id(id))
        .map_or("repair", |kind| kind.phase().as_str())
        .to_owned()
}
