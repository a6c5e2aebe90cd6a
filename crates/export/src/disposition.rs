//! What a finding's verdict adds to its SARIF result: a suppression for a dismissal, and the
//! verdict, who decided it and the real finding's task in the result's property bag.

use std::collections::HashMap;

use self_repair_engine::TaskRecord;
use self_repair_report::FindingOutcome;
use serde_json::{Map, Value, json};

/// The property-bag key everything self-repair adds sits under.
pub(crate) const PROPERTY_KEY: &str = "self-repair";

/// A finding's verdict, ready to be written onto each of its results.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Disposition {
    /// `kind: external`, `status: accepted`: set for `false_positive` and `intended`.
    pub(crate) suppression: Option<Value>,
    /// Goes under `properties["self-repair"]`.
    pub(crate) properties: Map<String, Value>,
}

impl Disposition {
    /// The disposition of `outcome` in run `run`; `tasks` by group id.
    pub(crate) fn of(
        run: &str,
        outcome: &FindingOutcome,
        tasks: &HashMap<&str, &TaskRecord>,
    ) -> Disposition {
        let mut properties = Map::new();
        properties.insert("run".into(), json!(run));
        properties.insert("fingerprint".into(), json!(outcome.fingerprint));
        properties.insert(
            "verdict".into(),
            json!(outcome.verdict.as_deref().unwrap_or("undecided")),
        );
        properties.insert("decidedBy".into(), json!(outcome.decided_by));
        if let Some(model) = &outcome.ran_model {
            properties.insert("model".into(), json!(model));
        }
        if let Some(reason) = &outcome.reason {
            properties.insert("reason".into(), json!(reason));
        }
        if let Some(item) = &outcome.item {
            properties.insert("item".into(), json!(item));
        }
        if let Some(target) = &outcome.duplicate_of {
            properties.insert("duplicateOf".into(), json!(target));
        }
        if let Some(group) = &outcome.group {
            properties.insert("group".into(), json!(group));
            if let Some(task) = tasks.get(&**group) {
                properties.insert("task".into(), json!(task.task_id));
                properties.insert("taskFile".into(), json!(task.file));
                properties.insert("taskTitle".into(), json!(task.title));
            }
        }
        let suppression = is_dismissal(outcome).then(|| {
            json!({
                "kind": "external",
                "status": "accepted",
                "justification": justification(run, outcome),
            })
        });
        Disposition {
            suppression,
            properties,
        }
    }

    /// A dismissal the audit gate holds back: no suppression, marked `audit: unaudited`.
    pub(crate) fn hold_unaudited(&mut self, note: &str) {
        if self.suppression.take().is_some() {
            self.properties.insert("audit".into(), json!("unaudited"));
            self.properties.insert("auditNote".into(), json!(note));
        }
    }

    /// The members [`Disposition::apply`] adds, as JSON text without braces
    /// (`"suppressions":[...],"properties":{"self-repair":{...}}`), for a result that has
    /// neither member.
    pub(crate) fn members_text(&self) -> String {
        let mut out = String::new();
        if let Some(suppression) = &self.suppression {
            out.push_str("\"suppressions\":[");
            out.push_str(&suppression.to_string());
            out.push_str("],");
        }
        out.push_str("\"properties\":{\"");
        out.push_str(PROPERTY_KEY);
        out.push_str("\":");
        out.push_str(&Value::Object(self.properties.clone()).to_string());
        out.push('}');
        out
    }

    /// Whether the verdict dismisses the finding.
    pub(crate) fn suppresses(&self) -> bool {
        self.suppression.is_some()
    }

    /// Whether the finding is real and has a task.
    pub(crate) fn links_a_task(&self) -> bool {
        self.properties.contains_key("task")
    }

    /// Adds the suppression and the properties to a SARIF result object; a result that is not
    /// an object is left as it is.
    pub(crate) fn apply(&self, result: &mut Value) {
        let Value::Object(result) = result else {
            return;
        };
        if let Some(suppression) = &self.suppression {
            match result.get_mut("suppressions") {
                Some(Value::Array(list)) => list.push(suppression.clone()),
                _ => {
                    result.insert("suppressions".into(), json!([suppression]));
                }
            }
        }
        let bag = result
            .entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(bag) = bag {
            bag.insert(PROPERTY_KEY.into(), Value::Object(self.properties.clone()));
        }
    }
}

/// `false_positive` and `intended` dismiss a finding; `real`, `duplicate` and `unsure` do not.
pub(crate) fn is_dismissal(outcome: &FindingOutcome) -> bool {
    matches!(
        outcome.verdict.as_deref(),
        Some("false_positive" | "intended")
    )
}

/// `false_positive: <reason> (decided by an agent, model sonnet; self-repair run R)`.
pub(crate) fn justification(run: &str, outcome: &FindingOutcome) -> String {
    let verdict = outcome.verdict.as_deref().unwrap_or("undecided");
    let reason = outcome
        .reason
        .as_deref()
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .unwrap_or("no reason given");
    let model = outcome
        .ran_model
        .as_deref()
        .map_or(String::new(), |m| format!(", model {m}"));
    let by = match &*outcome.decided_by {
        "agent" => "an agent",
        "survey" => "its rule's survey",
        "known" => "the known registry",
        "rule" => "a rules.json rule",
        "test_paths" => "the test_paths rule",
        other => other,
    };
    format!("{verdict}: {reason} (decided by {by}{model}; self-repair run {run})")
}
