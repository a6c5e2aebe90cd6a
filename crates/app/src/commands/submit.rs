//! `self-repair submit`: validate an agent's result and append it to the journal. Its cost does
//! not depend on the run's size: it reads `run.json` or the item's input file, never the state.

use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};

use clap::Args;
use self_repair_engine::{ItemInput, ItemKind, parse_submission, route_names};
use self_repair_store::{CommitError, Committed, NewResult, RunDir, is_safe_item_id};

use crate::app_error::AppError;
use crate::command_env::CommandEnv;
use crate::commands::RunArg;
use crate::output::Output;

/// `self-repair submit`.
#[derive(Debug, Args)]
pub struct SubmitArgs {
    /// The item your prompt names (`self-repair item ID --run RUN`), e.g. tb-00003.
    pub item: String,
    /// Read the result from this file instead of standard input.
    #[arg(long, value_name = "FILE")]
    pub file: Option<PathBuf>,
    #[command(flatten)]
    pub run: RunArg,
}

/// Runs `submit`: the result from `--file`, else standard input.
pub fn run(env: &CommandEnv, args: &SubmitArgs) -> Result<Output, AppError> {
    let (_, dir) = args.run.open_triage(env, "`submit`")?;
    let content = read_result(args.file.as_deref())?;
    submit_repaired(&dir, &args.item, &content, env.now).map(Output::text)
}

/// The most `submit` reads: 8 MiB. The schema bounds every field, so the largest valid result
/// (a 500-item aggregate with every character escaped) is about 1.5 MB; a body past the limit
/// is refused before it is read further (1.35 GB of it once ran 20 s and 2.6 GB of memory).
pub const MAX_RESULT_BYTES: u64 = 8 * 1024 * 1024;

/// The submission text: from `--file`, else standard input; refused past [`MAX_RESULT_BYTES`].
fn read_result(file: Option<&Path>) -> Result<String, AppError> {
    let cannot_read =
        |from: &str, e: &dyn std::fmt::Display| AppError::Usage(format!("cannot read {from}: {e}"));
    let (from, bytes) = if let Some(path) = file {
        let from = path.display().to_string();
        let file = std::fs::File::open(path).map_err(|e| cannot_read(&from, &e))?;
        // A regular file says its size: a large one is refused without reading a byte.
        if file
            .metadata()
            .is_ok_and(|m| m.is_file() && m.len() > MAX_RESULT_BYTES)
        {
            return Err(too_large(&from));
        }
        let bytes = read_bounded(file).map_err(|e| cannot_read(&from, &e))?;
        (from, bytes)
    } else {
        if std::io::stdin().is_terminal() {
            return Err(AppError::Usage(
                "give the result with --file FILE or on standard input".to_owned(),
            ));
        }
        let bytes =
            read_bounded(std::io::stdin()).map_err(|e| cannot_read("standard input", &e))?;
        ("standard input".to_owned(), bytes)
    };
    let Some(bytes) = bytes else {
        return Err(too_large(&from));
    };
    String::from_utf8(bytes).map_err(|_| {
        AppError::Usage(format!(
            "{from} is not UTF-8 text: submit the JSON object (or the markdown) your task asks for"
        ))
    })
}

/// At most [`MAX_RESULT_BYTES`] of `source`; `None` when it holds more.
fn read_bounded(source: impl Read) -> std::io::Result<Option<Vec<u8>>> {
    let mut bytes = Vec::new();
    source.take(MAX_RESULT_BYTES + 1).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= MAX_RESULT_BYTES).then_some(bytes))
}

fn too_large(from: &str) -> AppError {
    AppError::Usage(format!(
        "the result ({from}) is larger than 8 MiB, the most `submit` reads; nothing was \
         recorded. A valid result is far smaller (the schema bounds every field): submit only \
         the JSON object (or the markdown) your task asks for"
    ))
}

/// What `submit` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Submitted {
    /// Recorded; the text says what.
    Recorded(String),
    /// The identical result was already recorded: nothing changed.
    AlreadyRecorded(String),
}

impl Submitted {
    /// The one line `submit` prints.
    pub fn render(&self) -> String {
        match self {
            Submitted::Recorded(what) => format!("recorded {what}"),
            Submitted::AlreadyRecorded(what) => format!("already recorded, identical: {what}"),
        }
    }
}

/// Validates `content` for `item` and records it (the store's commit protocol,
/// [`RunDir::commit_result`]). On a validation error the rejection is journaled too (so
/// identical failures across agents are recognised) and returned.
pub fn submit(dir: &RunDir, item: &str, content: &str, now: u64) -> Result<Submitted, AppError> {
    let input = item_input(dir, item)?;
    ensure_dispatched(dir, item)?;
    let manifest = dir.manifest()?;
    let routes = route_names();
    let parsed = parse_submission(&input, content, &routes, manifest.triage_items);
    let (submission, canonical) = match parsed {
        Ok(ok) => ok,
        Err(rejection) => return Err(reject(dir, item, rejection.problems, now)),
    };
    let problems = crate::run::test_code_claim::refused_test_code_claims(dir, item, &submission)?;
    if !problems.is_empty() {
        return Err(reject(dir, item, problems, now));
    }
    let result = NewResult {
        item,
        kind: input.kind,
        markdown: input.kind.takes_markdown(),
        what: describe(item, input.kind, &submission),
        canonical,
    };
    match dir.commit_result(result, now) {
        Ok(Committed::Recorded(what)) => Ok(Submitted::Recorded(what)),
        Ok(Committed::AlreadyRecorded(what)) => Ok(Submitted::AlreadyRecorded(what)),
        Err(CommitError::Conflict(message)) => Err(AppError::Conflict(message)),
        Err(CommitError::NotRecorded { item, source }) => {
            Err(AppError::NotRecorded { item, source })
        }
        Err(CommitError::Store(e)) => Err(e.into()),
    }
}

/// Journals a rejection (identical failures across agents are recognised by it) and returns
/// the error that tells the agent what to fix.
fn reject(dir: &RunDir, item: &str, problems: Vec<String>, now: u64) -> AppError {
    match dir.record_rejection(item, problems.join("; "), now) {
        Ok(()) => AppError::Rejected {
            item: item.to_owned(),
            run: dir.id(),
            problems,
        },
        Err(e) => e.into(),
    }
}

/// Refuses a result for an item this run never dispatched: no agent of this run works on it,
/// so the submission is most likely meant for another run's item of the same id (the project's
/// active run changed under a running agent). One `stat` of the marker the hook leaves.
fn ensure_dispatched(dir: &RunDir, item: &str) -> Result<(), AppError> {
    let dispatched = dir
        .item_file(item, "dispatched")
        .is_some_and(|marker| marker.exists());
    if dispatched {
        return Ok(());
    }
    let run = dir.id();
    if let Some(batch) = batch_holding(dir, item) {
        return Err(AppError::NotDispatched(format!(
            "{item} was not dispatched on its own in run {run}: it went out in batch {batch}, \
             so nothing was recorded. Answer it in the batch's submission: `self-repair submit \
             {batch} --run {run}` with one verdict for {item} among the others \
             (`self-repair show {batch} --run {run}` shows the batch)."
        )));
    }
    let batch = if ItemKind::of_id(item) == Some(ItemKind::Triage) {
        format!(
            " A finding that went out in a batch is answered in the batch's submission: \
             `self-repair submit tb-<N> --run {run}` with one verdict for {item} among the others."
        )
    } else {
        String::new()
    };
    Err(AppError::NotDispatched(format!(
        "{item} was never dispatched in run {run}: no agent of this run works on it, so nothing \
         was recorded. An agent answers the run its prompt names: your prompt is \
         `self-repair item <ID> --run <RUN>`, so submit with `self-repair submit <ID> --run \
         <RUN>`.{batch} `self-repair runs` lists the runs; `self-repair status --items --run \
         {run}` lists the items of {run} that are out (running)."
    )))
}

/// The latest triage batch (`tb-N`) that holds triage item `item`, when one does.
fn batch_holding(dir: &RunDir, item: &str) -> Option<String> {
    if ItemKind::of_id(item) != Some(ItemKind::Triage) {
        return None;
    }
    let state = crate::run::load::load_folded(dir, false).ok()?;
    state.items[state.triage_items as usize..]
        .iter()
        .rev()
        .filter(|b| b.kind == ItemKind::TriageBatch)
        .find(|b| b.inputs().iter().any(|m| m == item))
        .map(|b| b.id.to_string())
}

/// What an item works on, read cheaply: triage ids are checked against `run.json`, other items
/// have an `items/<id>.input.json` written when the engine created them.
pub fn item_input(dir: &RunDir, item: &str) -> Result<ItemInput, AppError> {
    let not_found = || {
        AppError::NotFound(format!(
            "no item `{item}` in run {}; item ids look like t-00001, tb-00002, agg-1, plan-g2-3; `self-repair status --items` lists them",
            dir.id()
        ))
    };
    if !is_safe_item_id(item) {
        return Err(not_found());
    }
    let kind = ItemKind::of_id(item).ok_or_else(not_found)?;
    if kind == ItemKind::Triage {
        let n: u32 = item[2..].parse().map_err(|_| not_found())?;
        let manifest = dir.manifest()?;
        if n == 0 || n > manifest.triage_items || item != self_repair_engine::triage_id(n as usize)
        {
            return Err(not_found());
        }
        return Ok(ItemInput {
            item: item.to_owned(),
            kind,
            inputs: Vec::new(),
            group: None,
            angle: None,
        });
    }
    let path = dir.item_file(item, "input.json").ok_or_else(not_found)?;
    if matches!(kind, ItemKind::TriageBatch | ItemKind::Revise) && !path.exists() {
        // A batch's input, and a revise step's, is written when it is dispatched.
        ensure_dispatched(dir, item)?;
    }
    let text = std::fs::read_to_string(&path).map_err(|_| {
        AppError::NotFound(format!(
            "no item `{item}` in run {} yet: it is created when its phase starts (`self-repair status --items` lists the items so far)",
            dir.id()
        ))
    })?;
    read_input(&text, item).map_err(|e| {
        AppError::NotFound(format!(
            "{}: unreadable ({e}); run `self-repair doctor`",
            path.display()
        ))
    })
}

/// An input file's text: one item's input, or the list the items of one dispatch share (each
/// of their files a hard link of one, `RunDir::ensure_inputs`), in which `item`'s is found.
fn read_input(text: &str, item: &str) -> Result<ItemInput, String> {
    if !text.trim_start().starts_with('[') {
        return serde_json::from_str(text).map_err(|e| e.to_string());
    }
    let inputs: Vec<ItemInput> = serde_json::from_str(text).map_err(|e| e.to_string())?;
    inputs
        .into_iter()
        .find(|input| input.item == item)
        .ok_or_else(|| format!("its list of inputs has none for {item}"))
}

fn describe(item: &str, kind: ItemKind, submission: &self_repair_engine::Submission) -> String {
    use self_repair_engine::Submission;
    match submission {
        Submission::Triage(t) => match &t.reroute {
            Some(route) => format!("{item}: unsure, re-route to {route}"),
            None => format!("{item}: {} ({})", t.verdict.as_str(), t.root_cause),
        },
        Submission::TriageBatch(b) => {
            let verdicts: Vec<String> = b
                .verdicts
                .iter()
                .map(|v| match &v.result.reroute {
                    Some(route) => format!("{} unsure, re-route to {route}", v.item),
                    None => format!("{} {}", v.item, v.result.verdict.as_str()),
                })
                .collect();
            format!("{item}: {}", verdicts.join(", "))
        }
        Submission::RuleSurvey(s) => format!("{item}: {}", s.policy.as_str()),
        Submission::Verify(t) => format!(
            "{item}: {} ({}), a second opinion on {}",
            t.verdict.as_str(),
            t.root_cause,
            self_repair_engine::triage_id_of_verify(item)
        ),
        Submission::Aggregate(a) => format!("{item}: {} group(s)", a.groups.len()),
        Submission::MergeLabels(m) => format!(
            "{item}: {} merge(s) of {} label(s)",
            m.merges.len(),
            m.merges.iter().map(|m| m.labels.len()).sum::<usize>()
        ),
        Submission::RuleReview(v) => format!(
            "{item}: {} rule proposal(s)",
            v["rules"].as_array().map_or(0, Vec::len)
        ),
        Submission::WriteTask(t) => format!("{item}: task \"{}\"", t.title),
        Submission::Revise(r) => {
            let applied = r
                .points
                .iter()
                .filter(|p| p.outcome == self_repair_engine::PointOutcome::Applied)
                .count();
            format!(
                "{item}: revised plan, {applied} of {} point(s) applied",
                r.points.len()
            )
        }
        Submission::Markdown(_) | Submission::Synthesize(_) => {
            format!("{item}: {}", kind.as_str())
        }
    }
}

/// `submit` forgiving the two commonest slips of a model writing JSON (a code fence around it,
/// raw newlines inside strings): the repaired text is submitted, and the printed line says what
/// was repaired so the agent does not repeat it. Markdown results are taken as they are.
pub fn submit_repaired(
    dir: &RunDir,
    item: &str,
    content: &str,
    now: u64,
) -> Result<String, AppError> {
    let markdown = ItemKind::of_id(item).is_some_and(ItemKind::takes_markdown);
    if markdown {
        return Ok(submit(dir, item, content, now)?.render());
    }
    let fixed = self_repair_engine::lenient_json(content);
    let line = submit(dir, item, &fixed.text, now)?.render();
    if fixed.repairs.is_empty() {
        return Ok(line);
    }
    Ok(format!(
        "{line}\nnote: your input was not valid JSON as sent; self-repair {} before reading it. \
         Send plain JSON next time.",
        fixed.repairs.join(" and ")
    ))
}

#[cfg(test)]
mod tests {
    use super::read_input;

    #[test]
    fn an_input_is_read_alone_or_found_in_its_dispatch_s_list() {
        let alone = r#"{"item": "tb-00001", "kind": "triage_batch", "inputs": ["t-00001"]}"#;
        assert_eq!(read_input(alone, "tb-00001").unwrap().inputs, ["t-00001"]);
        let listed = r#"
            [{"item": "tb-00001", "kind": "triage_batch", "inputs": ["t-00001"]},
             {"item": "tb-00002", "kind": "triage_batch", "inputs": ["t-00002", "t-00003"]}]"#;
        assert_eq!(
            read_input(listed, "tb-00002").unwrap().inputs,
            ["t-00002", "t-00003"]
        );
        assert_eq!(read_input(listed, "tb-00001").unwrap().item, "tb-00001");
        let missing = read_input(listed, "tb-00009").unwrap_err();
        assert_eq!(missing, "its list of inputs has none for tb-00009");
        assert!(read_input("[{", "tb-00001").is_err());
        assert!(read_input("{", "tb-00001").is_err());
    }
}
