//! `self-repair show <item>`: the rendered task for the agent, and the schema of its answer.

use std::path::Path;

use self_repair_context::{ContextOptions, code_context, fenced_block};
use self_repair_engine::{
    FindingRecord, ItemKind, ItemStatus, ROUTES, RunState, WorkItem, item_input, output_schema,
    route_names,
};
use self_repair_store::{Project, RunDir};
use serde::Serialize;
use serde_json::Value;

use crate::{AppError, read_findings};

/// Most findings listed in a group's prompt.
const GROUP_FINDINGS: usize = 50;
/// Most verdict lines the rule reviewer sees.
const RULE_REVIEW_LINES: usize = 2000;

/// What `show --json` prints.
#[derive(Debug, Clone, Serialize)]
pub struct ShowOutput {
    pub item: String,
    pub kind: ItemKind,
    pub agent: String,
    pub model: String,
    pub status: ItemStatus,
    pub prompt: String,
    pub output_schema: Value,
}

/// Renders the task of `id`.
pub fn show(
    project: &Project,
    dir: &RunDir,
    state: &RunState,
    id: &str,
) -> Result<ShowOutput, AppError> {
    let item = state.item(id).ok_or_else(|| {
        AppError::NotFound(format!(
            "no item `{id}` in run {}; ids look like t-00001, agg-1, plan-g2-3 (see `self-repair status`)",
            state.run
        ))
    })?;
    let input = item_input(state, item);
    let routes = route_names();
    let schema = output_schema(&input, &routes).to_json_schema(&format!(
        "self-repair {} result for {id}",
        item.kind.as_str()
    ));
    let findings = read_findings(dir)?;
    let context = PromptContext {
        root: project.root(),
        dir,
        state,
        findings: &findings,
    };
    let (template, mut vars) = context.vars(item)?;
    let format = if item.kind.takes_markdown() {
        "markdown"
    } else {
        "JSON"
    };
    vars.extend([
        ("run", state.run.clone()),
        ("item", id.to_owned()),
        ("kind", item.kind.as_str().to_owned()),
        (
            "schema",
            fenced_block(
                "json",
                &serde_json::to_string_pretty(&schema).unwrap_or_default(),
            ),
        ),
        ("submit", format!("self-repair submit {id}")),
        ("format", format.to_owned()),
    ]);
    let text = self_repair_install::load_template(&project.store_dir(), &template)
        .map_err(AppError::NotFound)?;
    let prompt = self_repair_engine::render_template(&text, &vars)
        .map_err(|e| AppError::Usage(format!("template {template}: {e}")))?;
    Ok(ShowOutput {
        item: id.to_owned(),
        kind: item.kind,
        agent: format!("{}{}", state.config.agent_prefix, item.kind.agent()),
        model: item.tier.as_str().to_owned(),
        status: item.status,
        prompt,
        output_schema: schema,
    })
}

struct PromptContext<'a> {
    root: &'a Path,
    dir: &'a RunDir,
    state: &'a RunState,
    findings: &'a [FindingRecord],
}

type Vars = Vec<(&'static str, String)>;

impl PromptContext<'_> {
    fn vars(&self, item: &WorkItem) -> Result<(String, Vars), AppError> {
        Ok(match item.kind {
            ItemKind::Triage => self.triage(item)?,
            ItemKind::Aggregate => {
                let lines: Vec<String> = item
                    .inputs()
                    .iter()
                    .map(|id| self.verdict_line(id))
                    .collect();
                (
                    "aggregate.md".to_owned(),
                    vec![
                        ("count", item.inputs().len().to_string()),
                        ("slice", fenced_block("text", &lines.join("\n"))),
                    ],
                )
            }
            ItemKind::RuleReview => {
                let done: Vec<&WorkItem> = self.state.items[..self.state.triage_items as usize]
                    .iter()
                    .filter(|i| i.status == ItemStatus::Done)
                    .collect();
                let mut lines: Vec<String> = done
                    .iter()
                    .take(RULE_REVIEW_LINES)
                    .map(|i| self.rule_line(i))
                    .collect();
                if done.len() > RULE_REVIEW_LINES {
                    lines.push(format!("... and {} more", done.len() - RULE_REVIEW_LINES));
                }
                (
                    "rule-review.md".to_owned(),
                    vec![
                        ("count", done.len().to_string()),
                        (
                            "verdicts",
                            fenced_block(
                                "text",
                                &format!(
                                    "item | tool | rule | level | path | symbol | verdict | root cause\n{}",
                                    lines.join("\n")
                                ),
                            ),
                        ),
                    ],
                )
            }
            ItemKind::Plan => {
                let n = item.id.rsplit('-').next().unwrap_or("1").to_owned();
                let mut vars = self.group_vars(item);
                vars.push(("planner", n));
                vars.push(("planners", self.state.config.planners.to_string()));
                ("plan.md".to_owned(), vars)
            }
            ItemKind::Synthesize => {
                let mut vars = self.group_vars(item);
                let plans: Vec<String> = item
                    .inputs()
                    .iter()
                    .map(|p| match self.result_text(p, "md") {
                        Some(text) => format!("### {p}\n\n{}", fenced_block("markdown", &text)),
                        None => format!("### {p}\n\n(no plan: this planner failed)\n"),
                    })
                    .collect();
                vars.push(("plans", plans.join("\n")));
                ("synthesize.md".to_owned(), vars)
            }
            ItemKind::Review => {
                let mut vars = self.group_vars(item);
                let angle = crate::show_angle(self.state, item);
                vars.push(("angle", angle));
                vars.push(("plan", self.merged_plan(item)));
                ("review.md".to_owned(), vars)
            }
            ItemKind::WriteTask => {
                let mut vars = self.group_vars(item);
                vars.push(("plan", self.merged_plan(item)));
                let reviews: Vec<String> = item
                    .depends_on()
                    .iter()
                    .skip(1)
                    .filter_map(|r| {
                        let review = self.state.item(r)?;
                        let angle = crate::show_angle(self.state, review);
                        Some(match self.result_text(r, "md") {
                            Some(text) => {
                                format!("### {angle} ({r})\n\n{}", fenced_block("markdown", &text))
                            }
                            None => {
                                format!("### {angle} ({r})\n\n(no review: this reviewer failed)\n")
                            }
                        })
                    })
                    .collect();
                vars.push(("reviews", reviews.join("\n")));
                ("write-task.md".to_owned(), vars)
            }
        })
    }

    fn record(&self, item: &WorkItem) -> Option<&FindingRecord> {
        self.findings.get(item.finding? as usize)
    }

    fn triage(&self, item: &WorkItem) -> Result<(String, Vars), AppError> {
        let record = self.record(item).ok_or_else(|| {
            AppError::NotFound(format!(
                "{}: its finding is missing from findings.json",
                item.id
            ))
        })?;
        let f = &record.finding;
        let mut lines = vec![
            format!("tool: {}", f.tool),
            format!("rule: {}", f.rule_id),
            format!("level: {}", f.level.as_str()),
            format!("location: {}", location(&f.path, f.line, f.column)),
        ];
        if let Some(symbol) = &f.symbol {
            lines.push(format!("symbol: {symbol}"));
        }
        lines.push(format!("message: {}", f.message));
        if let Some(uri) = &f.help_uri {
            lines.push(format!("help: {uri}"));
        }
        let occurrences = if record.occurrences.len() <= 1 {
            "none".to_owned()
        } else {
            let places: Vec<String> = record.occurrences[1..]
                .iter()
                .map(|o| location(&o.path, o.line, o.column))
                .collect();
            fenced_block("text", &places.join("\n"))
        };
        let context = code_context(
            self.root,
            &f.path,
            f.line.unwrap_or(0),
            f.symbol.as_deref(),
            &ContextOptions::default(),
        );
        let route = item.route.as_deref().unwrap_or("generic").to_owned();
        let routes: Vec<String> = ROUTES
            .iter()
            .map(|r| format!("- `{}`: {}", r.name, r.summary))
            .collect();
        Ok((
            format!("triage-{route}.md"),
            vec![
                ("route", route),
                ("finding", fenced_block("text", &lines.join("\n"))),
                ("occurrences", occurrences),
                ("context", context.render_markdown()),
                ("routes", routes.join("\n")),
            ],
        ))
    }

    fn group_vars(&self, item: &WorkItem) -> Vars {
        let Some(group) = item
            .group
            .and_then(|g| self.state.groups.get(g as usize - 1))
        else {
            return vec![("group", String::new()), ("findings", String::new())];
        };
        let mut lines: Vec<String> = group
            .members
            .iter()
            .take(GROUP_FINDINGS)
            .map(|id| self.verdict_line(id))
            .collect();
        if group.members.len() > GROUP_FINDINGS {
            lines.push(format!(
                "... and {} more",
                group.members.len() - GROUP_FINDINGS
            ));
        }
        vec![
            (
                "group",
                fenced_block(
                    "text",
                    &format!(
                        "group: {}\nlabel: {}\nroot cause: {}\nfindings: {}",
                        group.id,
                        group.label,
                        group.root_cause,
                        group.members.len()
                    ),
                ),
            ),
            ("findings", fenced_block("text", &lines.join("\n"))),
        ]
    }

    /// `t-00001 | ruff F401 | py/mod.py:1 | root cause | reason`.
    fn verdict_line(&self, id: &str) -> String {
        let Some(item) = self.state.item(id) else {
            return format!("{id} | (unknown item)");
        };
        let (what, at, message) = self.record(item).map_or_else(
            || (String::new(), String::new(), String::new()),
            |r| {
                let f = &r.finding;
                (
                    format!("{} {}", f.tool, f.rule_id),
                    location(&f.path, f.line, None),
                    one_line(&f.message, 160),
                )
            },
        );
        let reason = self
            .result_json(id)
            .and_then(|v| v["reason"].as_str().map(|r| one_line(r, 240)))
            .unwrap_or_default();
        format!(
            "{id} | {what} | {at} | {message} | {} | {reason}",
            item.root_cause.as_deref().unwrap_or("-")
        )
    }

    fn rule_line(&self, item: &WorkItem) -> String {
        let (tool, rule, level, path, symbol) =
            self.record(item).map_or_else(Default::default, |r| {
                let f = &r.finding;
                (
                    f.tool.clone(),
                    f.rule_id.clone(),
                    f.level.as_str().to_owned(),
                    f.path.clone(),
                    f.symbol.clone().unwrap_or_else(|| "-".to_owned()),
                )
            });
        format!(
            "{} | {tool} | {rule} | {level} | {path} | {symbol} | {} | {}",
            item.id,
            item.verdict.map_or("-", |v| v.as_str()),
            item.root_cause.as_deref().unwrap_or("-")
        )
    }

    fn merged_plan(&self, item: &WorkItem) -> String {
        let Some(syn) = item.depends_on().first() else {
            return "(no merged plan)".to_owned();
        };
        self.result_json(syn)
            .and_then(|v| v["plan"].as_str().map(|p| fenced_block("markdown", p)))
            .unwrap_or_else(|| "(no merged plan: the synthesizer failed)".to_owned())
    }

    fn result_text(&self, id: &str, ext: &str) -> Option<String> {
        self.dir.read_result(id, ext)
    }

    fn result_json(&self, id: &str) -> Option<Value> {
        serde_json::from_str(&self.result_text(id, "json")?).ok()
    }
}

/// The reviewer angle of a review item (`rev-g1-2` → the second configured angle).
pub fn show_angle(state: &RunState, item: &WorkItem) -> String {
    item_input(state, item).angle.unwrap_or_default()
}

fn location(path: &str, line: Option<u32>, column: Option<u32>) -> String {
    match (line, column) {
        (Some(l), Some(c)) => format!("{path}:{l}:{c}"),
        (Some(l), None) => format!("{path}:{l}"),
        _ => path.to_owned(),
    }
}

fn one_line(text: &str, max: usize) -> String {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if joined.chars().count() > max {
        format!("{}…", joined.chars().take(max).collect::<String>())
    } else {
        joined
    }
}
