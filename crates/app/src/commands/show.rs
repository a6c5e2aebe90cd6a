//! `self-repair show <item>`: the rendered task for the agent, and the schema of its answer.

use clap::Args;
use self_repair_context::fenced_block;
use self_repair_engine::{ItemKind, ItemStatus, RunState, item_input, output_schema, route_names};
use self_repair_store::{Project, RunDir};
use serde::Serialize;
use serde_json::Value;

use crate::app_error::AppError;
use crate::command_env::CommandEnv;
use crate::commands::RunArg;
use crate::output::Output;
use crate::prompts::context::PromptContext;
use crate::prompts::finding_listing::{FindingListing, FindingsPage};
use crate::run::finalize::read_findings;
use crate::run::handle::RunHandle;
use crate::run::load::load_folded;

/// `self-repair show` (and `item`, its other name).
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// Item id, e.g. tb-00003 (`self-repair status --items` lists them).
    pub item: String,
    #[command(flatten)]
    pub run: RunArg,
    #[command(flatten)]
    pub view: ShowView,
}

/// What `show` prints.
#[derive(Debug, Args)]
pub struct ShowView {
    /// `{item, kind, agent, model, status, prompt, output_schema}` as JSON.
    #[arg(long)]
    pub json: bool,
    /// Every finding the item works on (its slice, its group), 40 a page, instead of the task.
    #[arg(long)]
    pub findings: bool,
    /// The page of `--findings` (from 1).
    #[arg(long, value_name = "N", default_value_t = 1, requires = "findings")]
    pub page: usize,
}

/// Runs `show`: the item's task for its agent (a repair run's fix task too), or its findings.
pub fn run(env: &CommandEnv, args: ShowArgs) -> Result<Output, AppError> {
    let ShowArgs { item, run, view } = args;
    let (project, handle) = run.open(env)?;
    if view.findings {
        let dir = handle.triage("`show --findings`")?;
        let state = load_folded(&dir, false)?;
        let page = show_findings(&dir, &state, &item, view.page)?;
        return Output::json_or(view.json, &page, FindingsPage::render);
    }
    let dir = match handle {
        RunHandle::Triage(dir) => dir,
        RunHandle::Repair(dir) => {
            let shown = self_repair_repair::show_fix(&project, &dir, &item)?;
            return Output::json_or(view.json, &shown, |s| s.prompt.clone());
        }
    };
    let state = load_folded(&dir, false)?;
    let shown = show(&project, &dir, &state, &item)?;
    record_shown(&dir, &state, &item, env.now)?;
    Output::json_or(view.json, &shown, |s| s.prompt.clone())
}

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
            "no item `{id}` in run {}; ids look like t-00001, tb-00002, agg-1, plan-g2-3; `self-repair status --items` lists them",
            state.run
        ))
    })?;
    let input = item_input(state, item);
    let routes = route_names();
    let shape = output_schema(&input, &routes, state.triage_items);
    let schema = shape.to_json_schema(&format!(
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
        // One compact line: the same contract as `show --json`'s JSON Schema (issue 13: lean
        // prompts; an aggregator's per-member rules alone would double its prompt).
        ("schema", fenced_block("text", &shape.to_compact_line())),
        (
            "submit",
            format!("self-repair submit {id} --run {}", state.run),
        ),
        ("show", format!("self-repair show {id} --run {}", state.run)),
        ("format", format.to_owned()),
    ]);
    self_repair_engine::debug_assert_placeholders(&template, &vars);
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

/// Page `page` (from 1) of every finding `id` works on (`show ID --findings --page N`):
/// read-only, and bounded like every prompt, however large the group or slice.
pub fn show_findings(
    dir: &RunDir,
    state: &RunState,
    id: &str,
    page: usize,
) -> Result<FindingsPage, AppError> {
    let item = state.item(id).ok_or_else(|| {
        AppError::NotFound(format!(
            "no item `{id}` in run {}; ids look like t-00001, tb-00002, agg-1, plan-g2-3; `self-repair status --items` lists them",
            state.run
        ))
    })?;
    let findings = read_findings(dir)?;
    Ok(FindingListing::of(state, &findings, dir, item).page(id, page))
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
