//! `self-repair submit`: validate an agent's result and append it to the journal. Its cost does
//! not depend on the run's size: it reads `run.json` or the item's input file, never the state.

use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};

use self_repair_engine::{Event, ItemInput, ItemKind, JournalEntry, parse_submission, route_names};
use self_repair_store::{RunDir, is_safe_item_id, write_atomic};
use serde_json::Value;

use clap::Args;

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

/// Validates `content` for `item` and records it. On a validation error the rejection is
/// journaled too (so identical failures across agents are recognised) and returned.
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
    let markdown = input.kind.takes_markdown();
    let ext = if markdown { "md" } else { "json" };
    let result = Submission {
        item,
        kind: input.kind,
        markdown,
        what: describe(item, input.kind, &submission),
        path: dir
            .item_file(item, ext)
            .ok_or_else(|| AppError::NotFound(format!("no item `{item}`")))?,
        stored: render_stored(&canonical, markdown),
        comparable: normalize(canonical.clone(), markdown),
    };
    let _lock = dir.lock()?;
    // Whether a result already counts is decided by the journal (the commit point): the result
    // file is its copy, and a submit that died between the two left a marker saying where its
    // line went. Exit 0 if and only if this exact result is the one that counts.
    if let Some(recorded) = result_that_counts(dir, &result)? {
        return answer_to_recorded(dir, &result, &recorded);
    }
    commit(dir, result, canonical, now)
}

/// A submission that validated, ready to be compared and recorded.
struct Submission<'a> {
    item: &'a str,
    kind: ItemKind,
    markdown: bool,
    /// What it says, in words, for the reply.
    what: String,
    /// `items/<id>.json` or `.md`: the readable copy.
    path: PathBuf,
    /// The copy's text.
    stored: String,
    /// The canonical value, as results are compared.
    comparable: Value,
}

/// Journals a rejection (identical failures across agents are recognised by it) and returns
/// the error that tells the agent what to fix.
fn reject(dir: &RunDir, item: &str, problems: Vec<String>, now: u64) -> AppError {
    let journaled = dir.lock().map_err(AppError::from).and_then(|_lock| {
        dir.journal()
            .append(&[JournalEntry {
                at: now,
                event: Event::Rejected {
                    item: item.to_owned(),
                    error: problems.join("; "),
                },
            }])
            .map_err(AppError::from)
    });
    match journaled {
        Ok(_) => AppError::Rejected {
            item: item.to_owned(),
            run: dir.id(),
            problems,
        },
        Err(e) => e,
    }
}

/// The result that already counts for the item, if any. A first result that asked for another
/// route does not: the fold sent the item back to triage, and the next result is its answer.
fn result_that_counts(dir: &RunDir, result: &Submission<'_>) -> Result<Option<Recorded>, AppError> {
    let item = result.item;
    let recorded = recorded_result(dir, item, &result.path, result.markdown)?;
    let Some(reroute) = recorded
        .as_ref()
        .filter(|r| r.value != result.comparable)
        .map(|r| r.value.clone())
        .filter(|reroute| is_open_reroute(dir, item, result.kind, reroute))
    else {
        return Ok(recorded);
    };
    // Keep the re-route aside (for `status` and a later submit), then judge by what an
    // interrupted submit may have committed since.
    let text = render_stored(&reroute, false);
    for path in [&result.path, &rerouted_path(dir, item)] {
        write_atomic(path, text.as_bytes()).map_err(|source| AppError::NotRecorded {
            item: item.to_owned(),
            source,
        })?;
    }
    Ok(dir
        .committed_without_copy(item)?
        .filter(|v| *v != reroute)
        .map(|value| Recorded {
            value,
            copy_missing: true,
        }))
}

/// A result already counts: the same one is acknowledged again (its missing copies written),
/// a different one is refused.
fn answer_to_recorded(
    dir: &RunDir,
    result: &Submission<'_>,
    recorded: &Recorded,
) -> Result<Submitted, AppError> {
    let (item, what) = (result.item, result.what.clone());
    let batch = result.kind == ItemKind::TriageBatch;
    if recorded.value == result.comparable {
        if recorded.copy_missing {
            write_result_copy(dir, item, &result.path, &result.stored);
        }
        if batch {
            write_member_copies(dir, &result.comparable);
        }
        return Ok(Submitted::AlreadyRecorded(what));
    }
    if recorded.copy_missing {
        if batch {
            write_member_copies(dir, &recorded.value);
        }
        let copy = render_stored(&recorded.value, result.markdown);
        write_result_copy(dir, item, &result.path, &copy);
    }
    // A late copy of the answer that asked for the re-route: it is recorded, as history.
    let first_answer = std::fs::read_to_string(rerouted_path(dir, item))
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(&text).ok());
    if first_answer.is_some_and(|first| first == result.comparable) {
        return Ok(Submitted::AlreadyRecorded(what));
    }
    Err(AppError::Conflict(format!(
        "{item} already has a different result, and that one counts: {} ({}). A result is \
         final once recorded; this one was not recorded. If the recorded one is wrong, say \
         so in your reply instead of resubmitting.",
        summarize(&recorded.value),
        result.path.display()
    )))
}

/// Records a new result: the journal line is the commit point, the result file its readable
/// copy (a marker left before the append lets `doctor` finish a submit killed in between).
fn commit(
    dir: &RunDir,
    result: Submission<'_>,
    canonical: Value,
    now: u64,
) -> Result<Submitted, AppError> {
    let item = result.item;
    let journal = dir.journal();
    let offset = journal.byte_len()?;
    dir.mark_submitting(item, offset)
        .map_err(|source| AppError::NotRecorded {
            item: item.to_owned(),
            source,
        })?;
    let entry = JournalEntry {
        at: now,
        event: Event::Submitted {
            item: item.to_owned(),
            result: canonical,
        },
    };
    if let Err(source) = journal.append(&[entry]) {
        // The append cuts a failed line back out; if even that failed, the line may be there
        // and count: then this result is recorded after all.
        let landed = matches!(dir.committed_without_copy(item),
            Ok(Some(v)) if normalize(v.clone(), result.markdown) == result.comparable);
        if !landed {
            dir.clear_submitting(item);
            return Err(AppError::NotRecorded {
                item: item.to_owned(),
                source,
            });
        }
    }
    if result.kind == ItemKind::TriageBatch {
        write_member_copies(dir, &result.comparable);
    }
    match write_atomic(&result.path, result.stored.as_bytes()) {
        Ok(()) => {
            dir.clear_submitting(item);
            Ok(Submitted::Recorded(result.what))
        }
        // The result counts; only its readable copy is missing, and the marker left behind
        // lets the next `submit` of this item or `doctor` write it.
        Err(e) => Ok(Submitted::Recorded(format!(
            "{} (its copy {} could not be written: {e}; `self-repair doctor` writes it)",
            result.what,
            result.path.display()
        ))),
    }
}

/// `items/<id>.reroute.json`: a triage item's first result when it asked for another route
/// (report.json lists it as `rerouted_from`).
fn rerouted_path(dir: &RunDir, item: &str) -> PathBuf {
    dir.items_dir().join(format!("{item}.reroute.json"))
}

/// Whether `recorded` is a triage item's first result and a re-route request: then the item is
/// open again, and one more result counts (the fold re-routes an item once).
fn is_open_reroute(dir: &RunDir, item: &str, kind: ItemKind, recorded: &Value) -> bool {
    if kind != ItemKind::Triage || recorded.get("reroute").is_none_or(Value::is_null) {
        return false;
    }
    match std::fs::read_to_string(rerouted_path(dir, item)) {
        // Set aside by a submit that then died before its own line: still the first result.
        Ok(text) => serde_json::from_str::<Value>(&text).is_ok_and(|v| v == *recorded),
        Err(_) => true,
    }
}

/// A result that counts for an item.
struct Recorded {
    value: Value,
    /// Committed to the journal, but `items/<id>.*` does not hold it.
    copy_missing: bool,
}

/// The result that counts for `item`, if any: its result file when that reads, else the
/// journal line an interrupted submit left (found through its marker, one read).
fn recorded_result(
    dir: &RunDir,
    item: &str,
    result_path: &Path,
    markdown: bool,
) -> Result<Option<Recorded>, AppError> {
    let committed = match std::fs::read_to_string(result_path) {
        Ok(text) => {
            let value = if markdown {
                Some(Value::String(text.trim().to_owned()))
            } else {
                serde_json::from_str::<Value>(&text).ok()
            };
            if let Some(value) = value {
                return Ok(Some(Recorded {
                    value,
                    copy_missing: false,
                }));
            }
            // A damaged copy: the journal says what counts (a scan, on this rare path only).
            dir.journal().first_submission(item)?
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => dir.committed_without_copy(item)?,
        Err(_) => dir.journal().first_submission(item)?,
    };
    Ok(committed.map(|value| Recorded {
        value: normalize(value, markdown),
        copy_missing: true,
    }))
}

/// Markdown results compare trimmed, as their file holds them.
fn normalize(value: Value, markdown: bool) -> Value {
    match value {
        Value::String(text) if markdown => Value::String(text.trim().to_owned()),
        other => other,
    }
}

/// The text of `items/<id>.<ext>` for a result.
fn render_stored(value: &Value, markdown: bool) -> String {
    if markdown {
        value.as_str().unwrap_or_default().to_owned() + "\n"
    } else {
        serde_json::to_string_pretty(value).unwrap_or_default() + "\n"
    }
}

/// Writes the readable copy of a committed result and drops its marker. Best effort: the
/// journal already holds the result, and the marker stays until the copy is written.
fn write_result_copy(dir: &RunDir, item: &str, result_path: &Path, text: &str) {
    if write_atomic(result_path, text.as_bytes()).is_ok() {
        dir.clear_submitting(item);
    }
}

/// A batch's result, split into one readable copy per member (`items/t-00042.json`, what a
/// single triage item's result file holds), so reports, `status` and later prompts read a
/// member's verdict where they always have. A member that already has a file keeps it (it was
/// decided on its own); a member that asked for a re-route gets the request, which its own
/// later result replaces (as for a single item). Best effort: the journal line counts.
pub(crate) fn write_member_copies(dir: &RunDir, batch: &Value) {
    for entry in batch["verdicts"].as_array().into_iter().flatten() {
        let (Some(member), Value::Object(fields)) = (entry["item"].as_str(), entry) else {
            continue;
        };
        let Some(path) = dir.item_file(member, "json").filter(|p| !p.exists()) else {
            continue;
        };
        let mut copy = fields.clone();
        copy.remove("item");
        let _ = write_atomic(&path, render_stored(&Value::Object(copy), false).as_bytes());
    }
}

/// One line naming a recorded result.
fn summarize(value: &Value) -> String {
    match value {
        Value::Object(map) if map.contains_key("verdict") => format!(
            "verdict {} ({})",
            map["verdict"].as_str().unwrap_or("?"),
            map.get("root_cause")
                .and_then(Value::as_str)
                .unwrap_or("no root cause")
        ),
        Value::String(text) => format!(
            "\"{}\"",
            text.lines()
                .next()
                .unwrap_or_default()
                .chars()
                .take(80)
                .collect::<String>()
        ),
        other => other.to_string().chars().take(120).collect(),
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
    serde_json::from_str(&text).map_err(|e| {
        AppError::NotFound(format!(
            "{}: unreadable ({e}); run `self-repair doctor`",
            path.display()
        ))
    })
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
