//! What agents submit for each kind of item: the accepted shape, and its parsed form.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::schema::{Field, Pattern, Rule, Schema, trim_markdown};
use crate::{ItemKind, ProposedGroup, SurveyPolicy, SurveyResult, Verdict};

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

/// A triage batch's verdicts: one per member finding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TriageBatchResult {
    pub verdicts: Vec<BatchVerdict>,
}

/// One member's verdict in a batch result: today's triage result, naming its item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchVerdict {
    pub item: String,
    #[serde(flatten)]
    pub result: TriageResult,
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

/// The label-merge agent's answer: sets of group labels that name one root cause.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LabelMergeResult {
    pub merges: Vec<LabelMerge>,
}

/// Labels (as listed) whose groups become one, under a new label and root cause.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LabelMerge {
    pub labels: Vec<String>,
    pub label: String,
    pub root_cause: String,
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

/// The revise step's result: the whole plan, revised, and what became of each ask of the
/// reviews (a must-fix point, or a rework verdict).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviseResult {
    pub plan: String,
    pub points: Vec<RevisedPoint>,
}

/// How one ask of the reviews was answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RevisedPoint {
    /// The ask's id, e.g. `rev-g1-2.3` or `rev-g1-2.rework`.
    pub point: String,
    pub outcome: PointOutcome,
    /// What changed in the plan, or why not.
    pub how: String,
}

/// Whether an ask was applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PointOutcome {
    Applied,
    Partly,
    NotApplied,
}

impl PointOutcome {
    /// Every outcome, for the schema.
    pub const ALL: [PointOutcome; 3] = [
        PointOutcome::Applied,
        PointOutcome::Partly,
        PointOutcome::NotApplied,
    ];

    /// The spelling used in files and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            PointOutcome::Applied => "applied",
            PointOutcome::Partly => "partly",
            PointOutcome::NotApplied => "not_applied",
        }
    }
}

/// A submission that passed validation.
#[derive(Debug, Clone, PartialEq)]
pub enum Submission {
    Triage(TriageResult),
    TriageBatch(TriageBatchResult),
    /// A second opinion on a triage verdict (no duplicate, no re-route).
    Verify(TriageResult),
    RuleSurvey(SurveyResult),
    Aggregate(AggregateResult),
    MergeLabels(LabelMergeResult),
    /// Rule proposals, kept as submitted; they are evaluated against the run's verdicts later.
    RuleReview(Value),
    /// Plans and reviews.
    Markdown(String),
    /// Scores and the merged plan.
    Synthesize(Value),
    Revise(ReviseResult),
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

/// The accepted shape for an item: the whole contract of `submit`. `routes` are the diagnosis
/// routes an investigator may ask to be re-routed to; `triage_items` is the run's number of
/// triage items (what `duplicate_of` and rule evidence may name).
pub fn output_schema(input: &ItemInput, routes: &[&str], triage_items: u32) -> Schema {
    let this_triage = (input.kind == ItemKind::Triage)
        .then(|| input.item.strip_prefix("t-")?.parse::<u32>().ok())
        .flatten();
    let any_triage = Schema::pattern(
        Pattern::TriageIdOf {
            count: triage_items,
            except: None,
        },
        20,
    );
    match input.kind {
        ItemKind::Triage => triage_object(None, routes, triage_items, this_triage),
        ItemKind::TriageBatch => {
            let members = input.inputs.len().max(1);
            let item = Field::required(
                "item",
                "the finding this verdict is for",
                Schema::one_of(input.inputs.clone()),
            );
            // A batch of second looks (`vf-` members) answers as second looks do: no
            // `duplicate`, no `reroute` (issue 40).
            let second_looks = input.inputs.iter().all(|m| m.starts_with("vf-"));
            let entry = if second_looks {
                verify_object(Some(item))
            } else {
                triage_object(Some(item), routes, triage_items, None)
            };
            Schema::object(vec![Field::required(
                "verdicts",
                "one verdict per finding of the batch",
                Schema::array(entry, members, members)
                    .with_one_entry_each("item", input.inputs.clone()),
            )])
        }
        ItemKind::RuleSurvey => survey_object(routes),
        ItemKind::Verify => verify_object(None),
        ItemKind::MergeLabels => {
            let labels = input.inputs.len().max(2);
            Schema::object(vec![Field::required(
                "merges",
                "groups of listed labels that name one root cause (may be empty)",
                Schema::array(
                    Schema::object(vec![
                        Field::required(
                            "labels",
                            "two or more labels exactly as listed, each naming the same cause",
                            Schema::array(Schema::one_of(input.inputs.clone()), 2, labels)
                                .with_unique_items(),
                        ),
                        Field::required(
                            "label",
                            "short name of the joined group's root cause",
                            Schema::line(3, 80),
                        ),
                        Field::required(
                            "root_cause",
                            "one or two sentences on the shared cause",
                            Schema::text(3, 400),
                        ),
                    ]),
                    0,
                    labels / 2,
                ),
            )])
        }
        ItemKind::Aggregate => {
            let slice = input.inputs.len().max(1);
            Schema::object(vec![Field::required(
                "groups",
                "root-cause groups; every item of the slice in exactly one group",
                Schema::array(
                    Schema::object(vec![
                        Field::required(
                            "label",
                            "short name of the root cause",
                            Schema::line(3, 80),
                        ),
                        Field::required(
                            "root_cause",
                            "one or two sentences on the shared cause",
                            Schema::text(3, 400),
                        ),
                        Field::required(
                            "items",
                            "triage item ids in this group, each once",
                            Schema::array(Schema::one_of(input.inputs.clone()), 1, slice)
                                .with_unique_items(),
                        ),
                    ]),
                    1,
                    slice,
                )
                .with_each_once("items", input.inputs.clone()),
            )])
        }
        ItemKind::RuleReview => Schema::object(vec![Field::required(
            "rules",
            "proposed deterministic rules (may be empty)",
            Schema::array(
                Schema::object(vec![
                    Field::required("name", "what the rule recognises", Schema::line(3, 80)),
                    Field::required(
                        "when",
                        "conditions, all of which must hold (at least one)",
                        Schema::object(vec![
                            Field::optional("tool", "detector name", Schema::line(1, 100)),
                            Field::optional("rule_id", "detector rule id", Schema::line(1, 200)),
                            Field::optional(
                                "level",
                                "finding level",
                                Schema::one_of(["error", "warning", "note", "none"]),
                            ),
                            Field::optional(
                                "path_glob",
                                "glob over the project-relative path",
                                Schema::line(1, 300),
                            ),
                            Field::optional(
                                "message_regex",
                                "regex over the message",
                                Schema::line(1, 300),
                            ),
                            Field::optional(
                                "symbol_regex",
                                "regex over the symbol",
                                Schema::line(1, 300),
                            ),
                        ])
                        .with_min_properties(1),
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
                        Schema::array(any_triage, 1, 500),
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
            Schema::object(vec![
                Field::required(
                    "scores",
                    "one entry per plan",
                    Schema::array(Schema::object(score_fields), 1, plans),
                ),
                Field::required(
                    "plan",
                    "the merged plan, in markdown",
                    Schema::text(40, 40_000),
                ),
            ])
        }
        ItemKind::Revise => {
            let asks = input.inputs.len().max(1);
            Schema::object(vec![
                Field::required(
                    "plan",
                    "the whole revised plan, in markdown (not a list of changes)",
                    Schema::text(40, 40_000),
                ),
                Field::required(
                    "points",
                    "one entry per point of the task",
                    Schema::array(
                        Schema::object(vec![
                            Field::required(
                                "point",
                                "the point answered",
                                Schema::one_of(input.inputs.clone()),
                            ),
                            Field::required(
                                "outcome",
                                "applied, partly (say what is left) or not_applied (say why)",
                                Schema::one_of(PointOutcome::ALL.map(PointOutcome::as_str)),
                            ),
                            Field::required(
                                "how",
                                "what changed in the plan, or why not",
                                Schema::text(5, 1000),
                            ),
                        ]),
                        asks,
                        asks,
                    )
                    .with_one_entry_each("point", input.inputs.clone()),
                ),
            ])
        }
        ItemKind::WriteTask => Schema::object(vec![
            Field::required(
                "title",
                "one line, under 70 characters",
                Schema::line(5, 69),
            ),
            Field::required(
                "description",
                "what to change and why, for the engineer who picks the task up",
                Schema::text(20, 8000),
            ),
            Field::required(
                "acceptance_criteria",
                "one checkable criterion per entry, each one line",
                Schema::array(Schema::line(5, 300), 1, 20),
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

/// A rule survey's answer: the policy, and what each policy needs.
fn survey_object(routes: &[&str]) -> Schema {
    Schema::object(vec![
        Field::required(
            "policy",
            "fix_all: real everywhere, one root cause; suppress: a false positive or intended \
             in this codebase, silenced by configuration; triage_each: needs judgement per finding",
            Schema::one_of(SurveyPolicy::ALL.map(SurveyPolicy::as_str)),
        ),
        Field::required(
            "reason",
            "the evidence: what the sample shows and why it holds for every finding of the rule",
            Schema::text(10, 2000),
        ),
        Field::optional(
            "root_cause",
            "with fix_all only: short label of the one root cause",
            Schema::line(3, 120),
        ),
        Field::optional(
            "verdict",
            "with suppress only: false_positive (the tool is wrong here) or intended (correct \
             as written on purpose)",
            Schema::one_of([Verdict::FalsePositive, Verdict::Intended].map(Verdict::as_str)),
        ),
        Field::optional(
            "config_change",
            "with suppress only: the exact analyzer configuration change that silences the \
             rule, with its file (e.g. pyproject.toml [tool.ruff.lint] ignore = [\"D205\"])",
            Schema::text(10, 1000),
        ),
        Field::optional(
            "route",
            "with triage_each only: a diagnosis route that fits the rule's findings better",
            Schema::one_of(routes.iter().copied()),
        ),
    ])
    .with_rule(Rule::RequiredWhen {
        field: "root_cause",
        when: "policy",
        value: "fix_all",
    })
    .with_rule(Rule::OnlyWhen {
        field: "root_cause",
        when: "policy",
        value: "fix_all",
    })
    .with_rule(Rule::RequiredWhen {
        field: "verdict",
        when: "policy",
        value: "suppress",
    })
    .with_rule(Rule::OnlyWhen {
        field: "verdict",
        when: "policy",
        value: "suppress",
    })
    .with_rule(Rule::RequiredWhen {
        field: "config_change",
        when: "policy",
        value: "suppress",
    })
    .with_rule(Rule::OnlyWhen {
        field: "config_change",
        when: "policy",
        value: "suppress",
    })
    .with_rule(Rule::OnlyWhen {
        field: "route",
        when: "policy",
        value: "triage_each",
    })
}

/// A triage verdict's object, with `first` before its fields (a batch entry's `item`).
/// `except` is the triage item that may not be named as its own duplicate.
fn triage_object(
    first: Option<Field>,
    routes: &[&str],
    triage_items: u32,
    except: Option<u32>,
) -> Schema {
    let mut fields: Vec<Field> = first.into_iter().collect();
    fields.push(Field::required(
        "verdict",
        "real: a defect worth fixing; false_positive: the tool is wrong; intended: correct as \
         written on purpose; duplicate: same issue as another finding (set duplicate_of); \
         unsure: cannot decide (explain in reason)",
        Schema::one_of(Verdict::ALL.map(Verdict::as_str)),
    ));
    fields.extend(evidence_fields());
    fields.extend([
        Field::optional(
            "duplicate_of",
            "the other triage item this one duplicates, e.g. \"t-00007\"; with verdict \
             duplicate only",
            Schema::pattern(
                Pattern::TriageIdOf {
                    count: triage_items,
                    except,
                },
                20,
            ),
        ),
        Field::optional(
            "reroute",
            "only with verdict unsure: a diagnosis route that fits this finding better",
            Schema::one_of(routes.iter().copied()),
        ),
    ]);
    Schema::object(fields)
        .with_rule(Rule::RequiredWhen {
            field: "duplicate_of",
            when: "verdict",
            value: "duplicate",
        })
        .with_rule(Rule::OnlyWhen {
            field: "duplicate_of",
            when: "verdict",
            value: "duplicate",
        })
        .with_rule(Rule::OnlyWhen {
            field: "reroute",
            when: "verdict",
            value: "unsure",
        })
}

/// What every verdict carries besides itself: the cause, the evidence, and how sure the agent
/// is (required, since a dismissal below `verify_below` is checked again).
fn evidence_fields() -> [Field; 3] {
    [
        Field::required(
            "root_cause",
            "short label of the underlying cause, shared by findings with the same cause",
            Schema::line(3, 120),
        ),
        Field::required(
            "reason",
            "the evidence: what you read and why it leads to the verdict",
            Schema::text(10, 2000),
        ),
        Field::required(
            "confidence",
            "0 to 1: how sure you are of the verdict",
            Schema::Number { min: 0.0, max: 1.0 },
        ),
    ]
}

/// A verifier's answer: a triage verdict on one finding, without `duplicate_of` or `reroute`
/// (its question is whether the finding is right, and it answers it on this route), with
/// `first` before its fields (a batch entry's `item`).
fn verify_object(first: Option<Field>) -> Schema {
    Schema::object(
        first
            .into_iter()
            .chain([Field::required(
                "verdict",
                "real: a defect worth fixing; false_positive: the tool is wrong; intended: \
                 correct as written on purpose; unsure: the evidence does not settle it \
                 (explain in reason)",
                Schema::one_of(SECOND_LOOK_VERDICTS),
            )])
            .chain(evidence_fields())
            .collect(),
    )
}

/// What a second look may answer: never `duplicate` (issue 40).
const SECOND_LOOK_VERDICTS: [&str; 4] = ["real", "false_positive", "intended", "unsure"];

/// Validates raw submitted text for an item and returns the parsed submission with its
/// canonical JSON form (what the journal stores and what idempotency compares).
pub fn parse_submission(
    input: &ItemInput,
    raw: &str,
    routes: &[&str],
    triage_items: u32,
) -> Result<(Submission, Value), Rejection> {
    if raw.trim().is_empty() {
        return Err(Rejection::one(
            "nothing came with the submission (standard input or the file was empty): pass the \
             result in a quoted heredoc (`<<'EOF'` ... `EOF`) or with --file FILE"
                .to_owned(),
        ));
    }
    let schema = output_schema(input, routes, triage_items);
    if input.kind.takes_markdown() {
        let problems = schema.violations(&Value::String(raw.to_owned()));
        if !problems.is_empty() {
            return Err(Rejection { problems });
        }
        let text = trim_markdown(raw).to_owned();
        return Ok((Submission::Markdown(text.clone()), Value::String(text)));
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
    mut value: Value,
    routes: &[&str],
    triage_items: u32,
) -> Result<(Submission, Value), Rejection> {
    let schema = output_schema(input, routes, triage_items);
    schema.normalize(&mut value);
    let problems = schema.violations(&value);
    if !problems.is_empty() {
        return Err(Rejection { problems });
    }
    let decode = |e: serde_json::Error| Rejection::one(format!("the submission: {e}"));
    let submission = match input.kind {
        ItemKind::Triage => {
            let result: TriageResult = Deserialize::deserialize(&value).map_err(decode)?;
            Submission::Triage(result)
        }
        ItemKind::TriageBatch => {
            let result: TriageBatchResult = Deserialize::deserialize(&value).map_err(decode)?;
            Submission::TriageBatch(result)
        }
        ItemKind::RuleSurvey => {
            let result: SurveyResult = Deserialize::deserialize(&value).map_err(decode)?;
            Submission::RuleSurvey(result)
        }
        ItemKind::Verify => {
            let result: TriageResult = Deserialize::deserialize(&value).map_err(decode)?;
            Submission::Verify(result)
        }
        ItemKind::MergeLabels => {
            let result: LabelMergeResult = Deserialize::deserialize(&value).map_err(decode)?;
            Submission::MergeLabels(result)
        }
        ItemKind::Aggregate => {
            let result: AggregateResult = Deserialize::deserialize(&value).map_err(decode)?;
            Submission::Aggregate(result)
        }
        ItemKind::RuleReview => Submission::RuleReview(value.clone()),
        ItemKind::Plan | ItemKind::Review => {
            Submission::Markdown(value.as_str().unwrap_or_default().to_owned())
        }
        ItemKind::Synthesize => Submission::Synthesize(value.clone()),
        ItemKind::Revise => {
            let result: ReviseResult = Deserialize::deserialize(&value).map_err(decode)?;
            Submission::Revise(result)
        }
        ItemKind::WriteTask => {
            let draft: TaskDraft = Deserialize::deserialize(&value).map_err(decode)?;
            Submission::WriteTask(draft)
        }
    };
    Ok((submission, value))
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
