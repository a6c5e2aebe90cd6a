//! The feedback for a fix attempt, generated from the check: the command, the output tail fenced
//! as data, what changed since the last attempt, the approach for this attempt, and the rules.
//! The main session reads it as the block reason; a fixer reads it through `self-repair show`.

use std::path::Path;

use self_repair_context::fenced_block;
use self_repair_engine::{DISPATCH_VERSION, Dispatch, Launch, THEN};

use crate::attempts_table::{attempts_table, format_duration};
use crate::repair_template::{load_template, render_template};
use crate::{CheckRecord, FixTier, RepairError, RepairState};

/// The agent that makes fix attempts after the first.
pub const FIXER_AGENT: &str = "fixer";

/// The failing check run that attempt `n` must fix: the last run before it.
pub fn failing_check(state: &RepairState, n: u32) -> Option<&CheckRecord> {
    state.checks.iter().rev().find(|c| c.attempt < n)
}

fn inline(text: &str) -> String {
    let ticks = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(ticks + 1);
    format!("{fence}{text}{fence}")
}

/// What changed since the last attempt, in a sentence or two.
fn changes(state: &RepairState, n: u32, failing: Option<&CheckRecord>) -> String {
    let Some(failing) = failing else {
        return "The check has not run yet.".to_owned();
    };
    if n <= 1 {
        let mut text = format!(
            "This is the first attempt. The check failed at the baseline ({}, signature {}).",
            failing.exit_label(),
            failing.signature
        );
        if let (Some(autofix), Some(command)) = (&state.autofix, &state.spec.autofix) {
            text.push_str(&format!(
                " The autofix {} ran first and changed {}; the check still fails.",
                inline(&crate::shell_words(command)),
                files_phrase(&autofix.files_changed)
            ));
        }
        return text;
    }
    let Some(previous) = state.attempt(n - 1) else {
        return "The previous attempt left no record.".to_owned();
    };
    let before = state
        .checks
        .iter()
        .rev()
        .find(|c| c.attempt < n - 1)
        .map(|c| c.signature.clone())
        .unwrap_or_default();
    let mut text = if previous.no_change {
        format!(
            "Attempt {} ({}) changed NO file, so the check failed exactly as before. This time, \
             make a change to the code.",
            previous.n, previous.tier
        )
    } else {
        format!(
            "Attempt {} ({}, {}) changed {}.",
            previous.n,
            previous.tier,
            previous.approach.as_str(),
            files_phrase(&previous.files_changed)
        )
    };
    if failing.signature == before {
        text.push_str(&format!(
            " The failure is unchanged (same signature {}): that change did not reach the cause.",
            failing.signature
        ));
    } else {
        text.push_str(&format!(
            " The failure changed (signature {before} → {}, now {}): read the new output.",
            failing.signature,
            failing.exit_label()
        ));
    }
    text
}

fn files_phrase(files: &[String]) -> String {
    match files.len() {
        0 => "no file".to_owned(),
        1..=5 => files
            .iter()
            .map(|f| inline(f))
            .collect::<Vec<_>>()
            .join(", "),
        n => format!("{n} files"),
    }
}

fn vars(state: &RepairState, n: u32) -> Vec<(&'static str, String)> {
    let failing = failing_check(state, n);
    let approach = state
        .attempts
        .iter()
        .find(|a| a.n == n)
        .map_or_else(|| crate::Approach::choose(state, n), |a| a.approach);
    let exit = failing.map_or_else(String::new, |c| {
        format!(
            "{}, signature {}, {}",
            c.exit_label(),
            c.signature,
            format_duration(c.duration_ms)
        )
    });
    let output = failing.map_or_else(String::new, |c| {
        let body = if c.tail.is_empty() {
            "(no output)"
        } else {
            c.tail.as_str()
        };
        fenced_block("text", body)
    });
    vec![
        ("run", state.run.clone()),
        ("item", format!("fix-{n}")),
        ("attempt", n.to_string()),
        ("max_attempts", state.spec.max_attempts.to_string()),
        ("command", inline(&state.spec.command_line())),
        ("exit", exit),
        ("output", output),
        ("changes", changes(state, n, failing)),
        (
            "approach",
            format!("{} — {}", approach.as_str(), approach.instruction()),
        ),
        ("history", attempts_table(state)),
    ]
}

/// The block reason for an attempt the main session makes itself.
pub fn render_feedback(
    store_dir: &Path,
    state: &RepairState,
    n: u32,
) -> Result<String, RepairError> {
    let template = load_template(store_dir, "fix-feedback.md")?;
    render_template("fix-feedback.md", &template, &vars(state, n))
}

/// The fixer's task for attempt `n` (what `self-repair show fix-N` prints).
pub fn render_fixer_task(
    store_dir: &Path,
    state: &RepairState,
    n: u32,
) -> Result<String, RepairError> {
    let template = load_template(store_dir, "fix-fixer.md")?;
    render_template("fix-fixer.md", &template, &vars(state, n))
}

/// The dispatch instruction that launches the fixer for attempt `n` (the triage pipeline's
/// contract: the description holds the item id, the prompt is `self-repair item <id>`).
pub fn render_dispatch(state: &RepairState, n: u32) -> Dispatch {
    let item = format!("fix-{n}");
    let model = match state.spec.tier_of(n) {
        FixTier::Agent(tier) => tier.as_str(),
        // A main-session attempt never dispatches; name the strongest tier if asked anyway.
        FixTier::Main => "opus",
    };
    Dispatch {
        self_repair: DISPATCH_VERSION,
        progress: None,
        launch: vec![Launch {
            subagent_type: format!("{}{FIXER_AGENT}", state.spec.agent_prefix),
            model: model.to_owned(),
            description: format!("fix {item}"),
            prompt: format!("self-repair item {item} --run {}", state.run),
            // Always in the foreground: one fixer, and the main session must not edit the same
            // files while it works (reference/repair.md, "The fixer runs in the foreground").
            run_in_background: Some(false),
            item: item.clone(),
        }],
        then: Some(THEN.to_owned()),
        summary: format!(
            "self-repair check: attempt {n} of {} for {} — launch the fixer ({model}) below; \
             self-repair reruns the check when it is done.",
            state.spec.max_attempts,
            inline(&state.spec.command_line())
        ),
    }
}
