//! `self-repair submit`: validate an agent's result and append it to the journal. Its cost does
//! not depend on the run's size: it reads `run.json` or the item's input file, never the state.

use self_repair_engine::{Event, ItemInput, ItemKind, JournalEntry, parse_submission, route_names};
use self_repair_store::{RunDir, is_safe_item_id, write_atomic};
use serde_json::Value;

use crate::AppError;

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
        Err(rejection) => {
            let _lock = dir.lock()?;
            dir.journal().append(&[JournalEntry {
                at: now,
                event: Event::Rejected {
                    item: item.to_owned(),
                    error: rejection.problems.join("; "),
                },
            }])?;
            return Err(AppError::Rejected {
                item: item.to_owned(),
                problems: rejection.problems,
            });
        }
    };
    let what = describe(item, input.kind, &submission);
    let markdown = input.kind.takes_markdown();
    let ext = if markdown { "md" } else { "json" };
    let result_path = dir
        .item_file(item, ext)
        .ok_or_else(|| AppError::NotFound(format!("no item `{item}`")))?;
    let stored = if markdown {
        canonical.as_str().unwrap_or_default().to_owned() + "\n"
    } else {
        serde_json::to_string_pretty(&canonical).unwrap_or_default() + "\n"
    };
    let _lock = dir.lock()?;
    if let Ok(existing) = std::fs::read_to_string(&result_path) {
        let same = if markdown {
            existing.trim() == stored.trim()
        } else {
            serde_json::from_str::<Value>(&existing).is_ok_and(|v| v == canonical)
        };
        if same {
            return Ok(Submitted::AlreadyRecorded(what));
        }
        if let Some(earlier) = rerouted_answer(dir, item, &existing, &canonical)? {
            return Ok(earlier);
        }
    }
    if result_path.exists() {
        return Err(AppError::Conflict(format!(
            "{item} already has a different result ({}); a result is final once recorded. If it \
             was wrong, say so in your reply instead of resubmitting.",
            result_path.display()
        )));
    }
    // The journal line is the commit point; the result file is a readable copy of it.
    dir.journal().append(&[JournalEntry {
        at: now,
        event: Event::Submitted {
            item: item.to_owned(),
            result: canonical,
        },
    }])?;
    write_atomic(&result_path, stored.as_bytes())?;
    Ok(Submitted::Recorded(what))
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
    Err(AppError::NotDispatched(format!(
        "{item} was never dispatched in run {run}: no agent of this run works on it, so nothing \
         was recorded. An agent answers the run its prompt names: your prompt is \
         `self-repair item <ID> --run <RUN>`, so submit with `self-repair submit <ID> --run \
         <RUN>`. `self-repair runs` lists the runs; `self-repair status --run {run}` shows which \
         items of {run} are dispatched."
    )))
}

/// A triage answer that asked for a re-route (`unsure` + `reroute`) is not final: the item is
/// dispatched again on the new route, and that agent's answer replaces it. The first answer is
/// kept as `items/<id>.reroute.json` (report.json lists it) and `Ok(None)` lets the new result
/// be recorded. Only one re-route is honoured, as in the engine: once the history file exists,
/// the current result is final. Resubmitting the first answer again is "already recorded".
fn rerouted_answer(
    dir: &RunDir,
    item: &str,
    existing: &str,
    new: &Value,
) -> Result<Option<Submitted>, AppError> {
    if ItemKind::of_id(item) != Some(ItemKind::Triage) {
        return Ok(None);
    }
    let Some(history) = dir.item_file(item, "reroute.json") else {
        return Ok(None);
    };
    if let Ok(earlier) = std::fs::read_to_string(&history) {
        if serde_json::from_str::<Value>(&earlier).is_ok_and(|v| v == *new) {
            return Ok(Some(Submitted::AlreadyRecorded(format!(
                "{item}: the answer that asked for a re-route (superseded by the re-routed agent's)"
            ))));
        }
        return Ok(None);
    }
    let asked_reroute = serde_json::from_str::<Value>(existing)
        .is_ok_and(|v| v.get("reroute").is_some_and(Value::is_string));
    if asked_reroute {
        write_atomic(&history, existing.as_bytes())?;
        let current = dir
            .item_file(item, "json")
            .ok_or_else(|| AppError::NotFound(format!("no item `{item}`")))?;
        std::fs::remove_file(&current).map_err(AppError::io("remove", &current))?;
    }
    Ok(None)
}

/// What an item works on, read cheaply: triage ids are checked against `run.json`, other items
/// have an `items/<id>.input.json` written when the engine created them.
pub fn item_input(dir: &RunDir, item: &str) -> Result<ItemInput, AppError> {
    let not_found = || {
        AppError::NotFound(format!(
            "no item `{item}` in run {}; item ids look like t-00001, agg-1, plan-g2-3 (see `self-repair status`)",
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
    let text = std::fs::read_to_string(&path).map_err(|_| {
        AppError::NotFound(format!(
            "no item `{item}` in run {} yet: it is created when its phase starts (see `self-repair status`)",
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
        Submission::Aggregate(a) => format!("{item}: {} group(s)", a.groups.len()),
        Submission::RuleReview(v) => format!(
            "{item}: {} rule proposal(s)",
            v["rules"].as_array().map_or(0, Vec::len)
        ),
        Submission::WriteTask(t) => format!("{item}: task \"{}\"", t.title),
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
