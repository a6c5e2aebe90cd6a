//! `self-repair show <item>`: the rendered task for the agent, and the schema of its answer.

use std::path::Path;

use self_repair_context::{ContextOptions, code_context, fenced_block};
use self_repair_engine::{
    FindingRecord, ItemKind, ItemStatus, PlanDepth, ROUTES, RunState, WorkItem, item_input,
    output_schema, route_names,
};
use self_repair_store::{Project, RunDir};
use serde::Serialize;
use serde_json::Value;

use crate::verdict_table::VerdictTable;
use crate::{AppError, read_findings};

/// Most findings listed in a planner's prompt.
const GROUP_FINDINGS: usize = 50;
/// Most findings listed in the prompts that also embed plans or reviews (synthesis, review,
/// task writing): the plans already say what the group is.
const GROUP_FINDINGS_WITH_PLANS: usize = 20;
/// Characters of other agents' documents (plans, reviews) one prompt embeds in all; each gets an
/// equal share, and a longer one is cut with a note naming its file (invariant 7: no prompt
/// grows with the size of the run or of a group).
const EMBEDDED_CHARS: usize = 18_000;
/// Most rows of the rule reviewer's verdict table (one row per rule and cause).
const RULE_REVIEW_ROWS: usize = 100;

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
    let schema = output_schema(&input, &routes, state.triage_items).to_json_schema(&format!(
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
        // One compact line: the same schema as `show --json`, without a third of a triage
        // prompt in indentation (issue 13: lean prompts).
        (
            "schema",
            fenced_block("json", &serde_json::to_string(&schema).unwrap_or_default()),
        ),
        (
            "submit",
            format!("self-repair submit {id} --run {}", state.run),
        ),
        ("show", format!("self-repair show {id} --run {}", state.run)),
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

/// Journals that a dispatched item's task was rendered: its agent ran, so if it then ends
/// without a result that is a failed attempt (a partly launched batch is not). Once per
/// dispatch; one unsynced journal line, nothing when the item is not in flight.
pub fn record_shown(dir: &RunDir, state: &RunState, id: &str, now: u64) -> Result<(), AppError> {
    let in_flight = state
        .item(id)
        .is_some_and(|i| i.status == ItemStatus::Dispatched && !i.seen_running);
    if !in_flight {
        return Ok(());
    }
    let _lock = dir.lock()?;
    dir.journal()
        .append_unsynced(&[self_repair_engine::JournalEntry {
            at: now,
            event: self_repair_engine::Event::Shown {
                item: id.to_owned(),
            },
        }])?;
    Ok(())
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
                let mut table = VerdictTable::default();
                let mut count = 0;
                for done in self.state.items[..self.state.triage_items as usize]
                    .iter()
                    .filter(|i| i.status == ItemStatus::Done)
                {
                    table.add(done, self.record(done).map(|r| &r.finding));
                    count += 1;
                }
                (
                    "rule-review.md".to_owned(),
                    vec![
                        ("count", count.to_string()),
                        (
                            "verdicts",
                            fenced_block("text", &table.render(RULE_REVIEW_ROWS)),
                        ),
                    ],
                )
            }
            ItemKind::Plan => {
                let n = item.id.rsplit('-').next().unwrap_or("1").to_owned();
                let mut vars = self.group_vars(item, GROUP_FINDINGS);
                vars.push(("planner", n));
                vars.push(("planners", self.planners(item).to_string()));
                ("plan.md".to_owned(), vars)
            }
            ItemKind::Synthesize => {
                let mut vars = self.group_vars(item, GROUP_FINDINGS_WITH_PLANS);
                let share = EMBEDDED_CHARS / item.inputs().len().max(1);
                let plans: Vec<String> = item
                    .inputs()
                    .iter()
                    .map(|p| match self.result_text(p, "md") {
                        Some(text) => format!("### {p}\n\n{}", self.embed(&text, p, "md", share)),
                        None => format!("### {p}\n\n(no plan: this planner failed)\n"),
                    })
                    .collect();
                vars.push(("plans", plans.join("\n")));
                ("synthesize.md".to_owned(), vars)
            }
            ItemKind::Review => {
                let mut vars = self.group_vars(item, GROUP_FINDINGS_WITH_PLANS);
                let angle = crate::show_angle(self.state, item);
                vars.push(("angle", angle));
                vars.push(("plan", self.merged_plan(item, EMBEDDED_CHARS)));
                ("review.md".to_owned(), vars)
            }
            ItemKind::WriteTask => {
                let mut vars = self.group_vars(item, GROUP_FINDINGS_WITH_PLANS);
                let share = EMBEDDED_CHARS / item.depends_on().len().max(1);
                vars.push(("plan", self.merged_plan(item, share)));
                let reviews: Vec<String> = item
                    .depends_on()
                    .iter()
                    .skip(1)
                    .filter_map(|r| {
                        let review = self.state.item(r)?;
                        let angle = crate::show_angle(self.state, review);
                        Some(match self.result_text(r, "md") {
                            Some(text) => {
                                format!(
                                    "### {angle} ({r})\n\n{}",
                                    self.embed(&text, r, "md", share)
                                )
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

    /// The analyzer's own description of the rule (agents have no network: a docs URL alone
    /// tells them nothing), as a data section; empty when the analyzer gave none.
    fn rule_section(&self, tool: &str, rule_id: &str) -> String {
        crate::run_inputs::rule_text(self.dir, tool, rule_id).map_or_else(String::new, |text| {
            format!(
                "## What {tool} says about {rule_id} (data)\n\n{}\n",
                fenced_block("markdown", &text)
            )
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
        let mut options = ContextOptions::default();
        options
            .references
            .skip_paths
            .extend(crate::run_input_paths(Some(self.dir)));
        let context = code_context(
            self.root,
            &f.path,
            f.line.unwrap_or(0),
            f.symbol.as_deref(),
            &options,
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
                ("rule", self.rule_section(&f.tool, &f.rule_id)),
                ("occurrences", occurrences),
                ("context", context.render_markdown()),
                ("routes", routes.join("\n")),
            ],
        ))
    }

    fn group_vars(&self, item: &WorkItem, most: usize) -> Vars {
        let Some(group) = item
            .group
            .and_then(|g| self.state.groups.get(g as usize - 1))
        else {
            return vec![("group", String::new()), ("findings", String::new())];
        };
        let mut lines: Vec<String> = group
            .members
            .iter()
            .take(most)
            .map(|id| self.verdict_line(id))
            .collect();
        if group.members.len() > most {
            lines.push(format!("... and {} more", group.members.len() - most));
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

    /// Planners of the item's group: one for a light group (design note 22).
    fn planners(&self, item: &WorkItem) -> u32 {
        let group = item
            .group
            .and_then(|g| self.state.groups.get((g as usize).checked_sub(1)?));
        match group.map(|g| g.depth) {
            Some(PlanDepth::Light) => 1,
            _ => self.state.config.planners,
        }
    }

    /// The synthesizer's merged plan, or for a light group (one plan, no synthesis) its plan.
    fn merged_plan(&self, item: &WorkItem, share: usize) -> String {
        let Some(syn) = item.depends_on().first() else {
            return "(no merged plan)".to_owned();
        };
        if ItemKind::of_id(syn) == Some(ItemKind::Plan) {
            return self.result_text(syn, "md").map_or_else(
                || "(no plan: the planner failed)".to_owned(),
                |text| {
                    format!(
                        "The group's only plan ({syn}): a group this small gets one planner and \
                         no synthesis.\n\n{}",
                        self.embed(&text, syn, "md", share)
                    )
                },
            );
        }
        self.result_json(syn)
            .and_then(|v| {
                v["plan"]
                    .as_str()
                    .map(|p| self.embed(p, syn, "json", share))
            })
            .unwrap_or_else(|| "(no merged plan: the synthesizer failed)".to_owned())
    }

    /// Another agent's document as a fenced block of at most `share` characters; a longer one
    /// is cut at a line end, with a note naming the file that holds all of it.
    fn embed(&self, text: &str, id: &str, ext: &str, share: usize) -> String {
        let total = text.chars().count();
        if total <= share {
            return fenced_block("markdown", text);
        }
        let head: String = text.chars().take(share).collect();
        let head = head.rsplit_once('\n').map_or(head.as_str(), |(h, _)| h);
        let file = self.dir.item_file(id, ext).map_or_else(
            || format!("the result of {id}"),
            |path| {
                path.strip_prefix(self.root)
                    .unwrap_or(&path)
                    .display()
                    .to_string()
            },
        );
        format!(
            "{}(cut after {} of {total} characters: the whole text is in `{file}`; read it with \
             Read when the part above is not enough)\n",
            fenced_block("markdown", head),
            head.chars().count()
        )
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
