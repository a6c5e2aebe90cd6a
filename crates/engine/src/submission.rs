//! What agents submit for each kind of item: the accepted shape, and its parsed form.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::schema::{Field, Pattern, Schema};
use crate::{ItemKind, ProposedGroup, Verdict};

/// What an item works on, beyond its kind: `items/<id>.input.json` for non-triage items.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ItemInput {
    pub item: String,
    pub kind: ItemKind,
    /// Item ids this item works on: the aggregator's slice, the synthesizer's plans, ...
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inputs: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// The reviewer's angle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub angle: Option<String>,
}

/// A triage verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TriageResult {
    pub verdict: Verdict,
    pub root_cause: String,
    pub reason: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplicate_of: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reroute: Option<String>,
}

/// An aggregator's groups for its slice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AggregateResult {
    pub groups: Vec<AggregateGroup>,
}

/// One group as an aggregator proposes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AggregateGroup {
    pub label: String,
    pub root_cause: String,
    pub items: Vec<String>,
}

/// What the task writer produces; finalize renders it as a Backlog.md task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskDraft {
    pub title: String,
    pub description: String,
    pub acceptance_criteria: Vec<String>,
    #[serde(default)]
    pub labels: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<String>,
}

/// A submission that passed validation.
#[derive(Debug, Clone, PartialEq)]
pub enum Submission {
    Triage(TriageResult),
    Aggregate(AggregateResult),
    /// Rule proposals, kept as submitted; they are evaluated against the run's verdicts later.
    RuleReview(Value),
    /// Plans and reviews.
    Markdown(String),
    /// Scores and the merged plan.
    Synthesize(Value),
    WriteTask(TaskDraft),
}

/// A submission that does not fit its schema: every problem, each naming its field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", .problems.join("\n"))]
pub struct Rejection {
    pub problems: Vec<String>,
}

impl Rejection {
    fn one(problem: String) -> Rejection {
        Rejection {
            problems: vec![problem],
        }
    }
}

const CRITERIA: [&str; 5] = [
    "correctness",
    "simplicity",
    "scope",
    "tests",
    "regression_risk",
];

/// The accepted shape for an item. `routes` are the diagnosis routes an investigator may ask
/// to be re-routed to.
pub fn output_schema(input: &ItemInput, routes: &[&str]) -> Schema {
    match input.kind {
        ItemKind::Triage => Schema::Object(vec![
            Field::required(
                "verdict",
                "real: a defect worth fixing; false_positive: the tool is wrong; intended: \
                 correct as written on purpose; duplicate: same issue as another finding \
                 (set duplicate_of); unsure: cannot decide (explain in reason)",
                Schema::one_of(Verdict::ALL.map(Verdict::as_str)),
            ),
            Field::required(
                "root_cause",
                "short label of the underlying cause, shared by findings with the same cause",
                Schema::text(3, 120),
            ),
            Field::required(
                "reason",
                "the evidence: what you read and why it leads to the verdict",
                Schema::text(10, 2000),
            ),
            Field::optional(
                "confidence",
                "0 to 1",
                Schema::Number { min: 0.0, max: 1.0 },
            ),
            Field::optional(
                "duplicate_of",
                "with verdict duplicate: the triage item this one duplicates",
                Schema::pattern(Pattern::TriageId, 20),
            ),
            Field::optional(
                "reroute",
                "with verdict unsure: a diagnosis route that fits this finding better",
                Schema::one_of(routes.iter().copied()),
            ),
        ]),
        ItemKind::Aggregate => {
            let slice = input.inputs.len().max(1);
            Schema::Object(vec![Field::required(
                "groups",
                "root-cause groups; every item of the slice in exactly one group",
                Schema::array(
                    Schema::Object(vec![
                        Field::required(
                            "label",
                            "short name of the root cause",
                            Schema::text(3, 80),
                        ),
                        Field::required(
                            "root_cause",
                            "one or two sentences on the shared cause",
                            Schema::text(3, 400),
                        ),
                        Field::required(
                            "items",
                            "triage item ids in this group",
                            Schema::array(Schema::one_of(input.inputs.clone()), 1, slice),
                        ),
                    ]),
                    1,
                    slice,
                ),
            )])
        }
        ItemKind::RuleReview => Schema::Object(vec![Field::required(
            "rules",
            "proposed deterministic rules (may be empty)",
            Schema::array(
                Schema::Object(vec![
                    Field::required("name", "what the rule recognises", Schema::text(3, 80)),
                    Field::required(
                        "when",
                        "conditions, all of which must hold (at least one)",
                        Schema::Object(vec![
                            Field::optional("tool", "detector name", Schema::text(1, 100)),
                            Field::optional("rule_id", "detector rule id", Schema::text(1, 200)),
                            Field::optional(
                                "level",
                                "finding level",
                                Schema::one_of(["error", "warning", "note", "none"]),
                            ),
                            Field::optional(
                                "path_glob",
                                "glob over the project-relative path",
                                Schema::text(1, 300),
                            ),
                            Field::optional(
                                "message_regex",
                                "regex over the message",
                                Schema::text(1, 300),
                            ),
                            Field::optional(
                                "symbol_regex",
                                "regex over the symbol",
                                Schema::text(1, 300),
                            ),
                        ]),
                    ),
                    Field::required(
                        "verdict",
                        "verdict the rule gives",
                        Schema::one_of(Verdict::ALL.map(Verdict::as_str)),
                    ),
                    Field::required("reason", "why the rule is safe", Schema::text(10, 1000)),
                    Field::required(
                        "evidence",
                        "triage items the rule would have decided",
                        Schema::array(Schema::pattern(Pattern::TriageId, 20), 1, 500),
                    ),
                ]),
                0,
                50,
            ),
        )]),
        ItemKind::Plan | ItemKind::Review => Schema::Markdown {
            min: 40,
            max: 40_000,
        },
        ItemKind::Synthesize => {
            let plans = input.inputs.len().max(1);
            let mut score_fields = vec![Field::required(
                "plan",
                "the plan item scored",
                Schema::one_of(input.inputs.clone()),
            )];
            score_fields.extend(CRITERIA.map(|c| {
                Field::required(
                    c,
                    "1 (poor) to 5 (excellent)",
                    Schema::Integer { min: 1, max: 5 },
                )
            }));
            Schema::Object(vec![
                Field::required(
                    "scores",
                    "one entry per plan",
                    Schema::array(Schema::Object(score_fields), 1, plans),
                ),
                Field::required(
                    "plan",
                    "the merged plan, in markdown",
                    Schema::text(40, 40_000),
                ),
            ])
        }
        ItemKind::WriteTask => Schema::Object(vec![
            Field::required("title", "under 70 characters", Schema::text(5, 69)),
            Field::required(
                "description",
                "what to change and why, for the engineer who picks the task up",
                Schema::text(20, 8000),
            ),
            Field::required(
                "acceptance_criteria",
                "one checkable criterion per entry",
                Schema::array(Schema::text(5, 300), 1, 20),
            ),
            Field::optional(
                "labels",
                "lowercase labels",
                Schema::array(Schema::pattern(Pattern::Label, 40), 0, 10),
            ),
            Field::optional(
                "priority",
                "task priority",
                Schema::one_of(["high", "medium", "low"]),
            ),
        ]),
    }
}

/// Validates raw submitted text for an item and returns the parsed submission with its
/// canonical JSON form (what the journal stores and what idempotency compares).
pub fn parse_submission(
    input: &ItemInput,
    raw: &str,
    routes: &[&str],
    triage_items: u32,
) -> Result<(Submission, Value), Rejection> {
    let schema = output_schema(input, routes);
    if input.kind.takes_markdown() {
        let text = raw.trim().to_owned();
        let value = Value::String(text.clone());
        let problems = schema.violations(&value);
        if !problems.is_empty() {
            return Err(Rejection { problems });
        }
        return Ok((Submission::Markdown(text), value));
    }
    let value: Value = serde_json::from_str(raw).map_err(|e| {
        Rejection::one(format!(
            "the submission is not valid JSON ({e}); send one JSON object"
        ))
    })?;
    parse_value(input, value, routes, triage_items)
}

/// Like [`parse_submission`], for a value already parsed (the journal's form).
pub fn parse_value(
    input: &ItemInput,
    value: Value,
    routes: &[&str],
    triage_items: u32,
) -> Result<(Submission, Value), Rejection> {
    let schema = output_schema(input, routes);
    let problems = schema.violations(&value);
    if !problems.is_empty() {
        return Err(Rejection { problems });
    }
    let decode = |e: serde_json::Error| Rejection::one(format!("the submission: {e}"));
    let submission = match input.kind {
        ItemKind::Triage => {
            let result: TriageResult = serde_json::from_value(value.clone()).map_err(decode)?;
            check_triage(input, &result, triage_items)?;
            Submission::Triage(result)
        }
        ItemKind::Aggregate => {
            let result: AggregateResult = serde_json::from_value(value.clone()).map_err(decode)?;
            check_aggregate(input, &result)?;
            Submission::Aggregate(result)
        }
        ItemKind::RuleReview => {
            check_rules(&value)?;
            Submission::RuleReview(value.clone())
        }
        ItemKind::Plan | ItemKind::Review => {
            Submission::Markdown(value.as_str().unwrap_or_default().to_owned())
        }
        ItemKind::Synthesize => Submission::Synthesize(value.clone()),
        ItemKind::WriteTask => {
            let draft: TaskDraft = serde_json::from_value(value.clone()).map_err(decode)?;
            if draft.title.contains('\n') {
                return Err(Rejection::one("field `title`: must be one line".to_owned()));
            }
            Submission::WriteTask(draft)
        }
    };
    Ok((submission, value))
}

fn check_triage(
    input: &ItemInput,
    result: &TriageResult,
    triage_items: u32,
) -> Result<(), Rejection> {
    match (&result.verdict, &result.duplicate_of) {
        (Verdict::Duplicate, None) => {
            return Err(Rejection::one(
                "field `duplicate_of` is missing: with verdict duplicate, name the triage item \
                 this finding duplicates (e.g. \"t-00007\")"
                    .to_owned(),
            ));
        }
        (Verdict::Duplicate, Some(other)) => {
            let n: u32 = other
                .strip_prefix("t-")
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            if other == &input.item || n == 0 || n > triage_items {
                return Err(Rejection::one(format!(
                    "field `duplicate_of`: {other} is not another triage item of this run \
                     (t-1 to t-{triage_items})"
                )));
            }
        }
        (_, Some(_)) => {
            return Err(Rejection::one(
                "field `duplicate_of` is only allowed with verdict duplicate".to_owned(),
            ));
        }
        (_, None) => {}
    }
    if result.reroute.is_some() && result.verdict != Verdict::Unsure {
        return Err(Rejection::one(
            "field `reroute` is only allowed with verdict unsure".to_owned(),
        ));
    }
    Ok(())
}

fn check_aggregate(input: &ItemInput, result: &AggregateResult) -> Result<(), Rejection> {
    let mut seen: Vec<&str> = Vec::new();
    let mut problems = Vec::new();
    for group in &result.groups {
        for item in &group.items {
            if seen.contains(&item.as_str()) {
                problems.push(format!("item {item} appears in more than one group"));
            }
            seen.push(item);
        }
    }
    let missing: Vec<&str> = input
        .inputs
        .iter()
        .map(String::as_str)
        .filter(|id| !seen.contains(id))
        .collect();
    if !missing.is_empty() {
        problems.push(format!(
            "every item of the slice must be in exactly one group; missing: {}",
            missing.join(", ")
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(Rejection { problems })
    }
}

fn check_rules(value: &Value) -> Result<(), Rejection> {
    let empty = Vec::new();
    let rules = value["rules"].as_array().unwrap_or(&empty);
    let problems: Vec<String> = rules
        .iter()
        .enumerate()
        .filter(|(_, rule)| {
            rule["when"]
                .as_object()
                .is_none_or(serde_json::Map::is_empty)
        })
        .map(|(i, _)| format!("field `rules[{i}].when`: give at least one condition"))
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(Rejection { problems })
    }
}

impl AggregateResult {
    /// The groups as proposals for the merge at the end of the phase.
    pub fn proposals(&self) -> Vec<ProposedGroup> {
        self.groups
            .iter()
            .map(|g| ProposedGroup {
                label: g.label.clone(),
                root_cause: g.root_cause.clone(),
                members: g.items.clone(),
            })
            .collect()
    }
}
