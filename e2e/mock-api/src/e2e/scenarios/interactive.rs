//! Issue 24 item 3: the real client's interactive terminal UI, driven in tmux as a user would
//! (`TerminalSession`): the user types `/self-repair ruff.json` in a trusted project with the
//! plugin loaded, answers what the client asks, and reads the screen. Screens are saved at the
//! first dispatch on screen (`screen-middle.txt`) and at the end (`screen-end.txt`) in the
//! scenario's `screens-N/`.
//!
//! - `interactive-manual`: `--permission-mode default`; no permission dialog at all, no
//!   "problem" wording for a dispatch, the closing line on the last screen once.
//! - `interactive-auto`: no mode flag (auto mode is these clients' interactive default); with the
//!   scripted server on 127.0.0.1 the client's server-side safety check cannot run, so the client
//!   asks before each `Agent` launch: the user approves each, the run completes. Counts the
//!   prompts per launch.
//! - `interactive-refused-continue`: auto mode; the user answers "No" to the first launch
//!   prompt (the cursor's default), then types "continue" and approves: no attempt charged, the
//!   refusal said once, the run completes.
//! - `interactive-confirm`: a run above `confirm_above_usd` waits for the user's go with nothing
//!   dispatched; the user types "go" (the session runs `self-repair resume --confirm`) and the
//!   run completes.

use std::fs;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::e2e::claude_run::ClaudeOptions;
use crate::e2e::e2e_error::E2eError;
use crate::e2e::e2e_project::{E2eProject, InstallMode};
use crate::e2e::figures::Figures;
use crate::e2e::hook_log::parse_hook_log;
use crate::e2e::records::launched_items;
use crate::e2e::run_files::field;
use crate::e2e::scenarios::ScenarioContext;
use crate::e2e::scenarios::pipeline_checks::{check_complete_once, pipeline_scenario};
use crate::e2e::scenarios::refused_launch::check_nothing_charged;
use crate::e2e::terminal_session::{TerminalSession, occurrences};
use crate::mock_server::MockServer;

/// Findings in `ruff.json`: one triage batch (the default `triage_batch: 8`).
const FINDINGS: usize = 6;

/// How long each agent of `interactive-manual` thinks before it answers: longer than the
/// status line's refresh interval (5 s), so the client's timed refresh draws the row at least
/// once while an agent works and the run is still going. Without it a run of about 9 s could
/// end between two refreshes, and a complete run's row is empty (one CI run on 2.1.332).
const AGENT_THINKS: Duration = Duration::from_secs(6);

/// What the client's permission dialog asks.
const PERMISSION_QUESTION: &str = "Do you want to proceed?";

/// The client's one-time notice when auto mode's server-side check cannot run; Enter stays in
/// auto mode.
const AUTO_CHECK_NOTICE: &str = "Enter to stay in auto mode";

/// How the client shows a Stop hook's `decision: block` (and its footer while it is shown).
const PROBLEM_WORDING: [&str; 2] = ["Stop hook reported a problem", "stop hook problem"];

/// The footer while a turn runs.
const BUSY: &str = "esc to interrupt";

/// The client's empty input line, once it has drawn its UI.
const READY: &str = "❯";

/// What the user does at an `Agent` permission prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answer {
    Yes,
    /// "No" to the first prompt, "Yes" to every later one.
    NoOnce,
}

/// What the scenario saw on screen while it polled.
#[derive(Debug, Default)]
struct Seen {
    /// Permission dialogs (each counted once, when it appears).
    prompts: usize,
    /// Of those, the ones answered "No".
    refused: usize,
    /// Auto mode's "can't check actions" notices.
    auto_notices: usize,
    notice_up: bool,
    /// The most "problem" phrases on one screen.
    problem_wording: usize,
    /// Whether a dispatch was on screen (the middle screen was saved then).
    middle_saved: bool,
    /// Each dialog's text, in order.
    prompt_texts: Vec<String>,
    /// Status line rows seen under the prompt while the run went on (distinct texts).
    status_rows: Vec<String>,
    /// The dialog up at the last look, and when it was answered.
    dialog: Option<(String, Instant)>,
}

pub(crate) fn manual(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let project = ruff_project(ctx, "interactive-manual", None)?;
    add_status_line(&project)?;
    let server = MockServer::start_recording(
        pipeline_scenario().sub_agent_delay(AGENT_THINKS),
        &project.records_path(1),
    )?;
    let (session, debug) =
        project.claude_terminal(&server.base_url(), &["--permission-mode", "default"])?;
    start_run(&session)?;
    let mut seen = Seen::default();
    let run = drive_to_complete(ctx, &project, &session, &mut seen, Answer::Yes)?;
    let end = finish(&session, &run)?;
    ctx.checks
        .equal("permission dialogs in manual mode", &seen.prompts, &0);
    check_screen_story(ctx, &seen, &end, &run, 1);
    check_status_line(ctx, &seen, &run);
    check_complete_once(ctx, &project, &run, FINDINGS, &[])?;
    note_hooks(ctx, "interactive-manual", &debug, &seen, &session);
    let hooks = parse_hook_log(&fs::read_to_string(&debug).unwrap_or_default());
    ctx.figures.push(Figures::measure(
        "interactive UI, foreground agents (plugin)",
        &server.requests(),
        &hooks,
        FINDINGS,
        session.elapsed(),
    ));
    session.end()?;
    headless_twin(ctx)
}

/// The same project and start in `claude -p`, measured beside the interactive run: what the
/// interactive client's own handling of the agents (it lists them as backgrounded) does to the
/// main session's context.
fn headless_twin(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let project = ruff_project(ctx, "interactive-manual-headless", None)?;
    let server = MockServer::start_recording(pipeline_scenario(), &project.records_path(1))?;
    let outcome = project
        .claude(
            &server.base_url(),
            "/self-repair ruff.json",
            &ClaudeOptions::default(),
        )?
        .wait(ctx.claude_timeout())?;
    ctx.checks.that(outcome.succeeded(), || {
        format!("claude -p /self-repair ruff.json: {}", outcome.describe())
    });
    ctx.figures.push(Figures::measure(
        "claude -p, same project (plugin)",
        &server.requests(),
        &outcome.hooks(),
        FINDINGS,
        outcome.wall,
    ));
    Ok(())
}

pub(crate) fn auto(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let project = ruff_project(ctx, "interactive-auto", None)?;
    let server = MockServer::start_recording(pipeline_scenario(), &project.records_path(1))?;
    let (session, debug) = project.claude_terminal(&server.base_url(), &[])?;
    start_run(&session)?;
    let mut seen = Seen::default();
    let run = drive_to_complete(ctx, &project, &session, &mut seen, Answer::Yes)?;
    let end = finish(&session, &run)?;
    let launches = launched_items(&server.requests()).len();
    ctx.checks
        .that(launches > 0, || "no agent launched".to_owned());
    ctx.checks.equal(
        "approval prompts per Agent launch",
        &seen.prompts,
        &launches,
    );
    check_screen_story(ctx, &seen, &end, &run, 1);
    check_complete_once(ctx, &project, &run, FINDINGS, &[])?;
    ctx.notes.push(format!(
        "interactive-auto: {} approval prompts for {launches} Agent launches, {} auto-mode notice(s)",
        seen.prompts, seen.auto_notices
    ));
    note_hooks(ctx, "interactive-auto", &debug, &seen, &session);
    session.end()
}

pub(crate) fn refused_then_continue(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let project = ruff_project(ctx, "interactive-refused-continue", None)?;
    let server = MockServer::start_recording(pipeline_scenario(), &project.records_path(1))?;
    let (session, debug) = project.claude_terminal(&server.base_url(), &[])?;
    start_run(&session)?;
    let mut seen = Seen::default();
    // The "No" interrupts the turn: the client asks "What should Claude do instead?" and no
    // Stop hook runs until the user answers.
    session.poll("the client's question after the No", 90, |screen| {
        observe(&session, screen, &mut seen, Answer::NoOnce)?;
        let asked = seen.refused > 0 && screen.contains(INTERRUPTED) && !screen.contains(BUSY);
        Ok(asked.then_some(()))
    })?;
    let refused_screen = session.save("refused")?;
    ctx.checks.equal("launches answered No", &seen.refused, &1);
    let launched_before = launched_items(&server.requests()).len();
    session.submit("continue")?;
    let mut extra_continues = 0;
    let run = session.poll(
        "the run to complete on screen",
        ctx.tools.claude_timeout,
        |screen| {
            observe(&session, screen, &mut seen, Answer::NoOnce)?;
            let Some(run) = only_run(&project) else {
                return Ok(None);
            };
            let state = project.run(&run).state()?;
            let idle = !screen.contains(BUSY);
            if idle && field(&state, "/status") == "paused" && screen.contains(REFUSAL_LINE) {
                // The hook asks for a new prompt: the user gives it.
                session.save("paused")?;
                extra_continues += 1;
                session.submit("continue")?;
                return Ok(None);
            }
            let complete = field(&state, "/status") == "complete";
            Ok((complete && idle && screen.contains(&closing(&run))).then_some(run))
        },
    )?;
    let end = finish(&session, &run)?;
    ctx.checks.equal(
        "prompts the user needed after the refusal",
        &(1 + extra_continues),
        &1,
    );
    ctx.checks.that(refused_screen.contains(INTERRUPTED), || {
        format!("the refusal screen:\n{refused_screen}")
    });
    check_screen_story(ctx, &seen, &end, &run, 1);
    let state = check_complete_once(ctx, &project, &run, FINDINGS, &[])?;
    check_nothing_charged(ctx, &state, "at the end");
    let ran = state
        .pointer("/items")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|i| {
            i.get("tier")
                .and_then(Value::as_str)
                .is_some_and(|t| t != "haiku")
                && i.get("kind").and_then(Value::as_str) == Some("triage")
        })
        .count();
    ctx.checks
        .equal("triage items escalated after the refusal", &ran, &0);
    ctx.notes.push(format!(
        "interactive-refused-continue: {launched_before} launch(es) before the No, {} after \"continue\", {extra_continues} extra prompt(s) asked by the hook",
        launched_items(&server.requests()).len() - launched_before
    ));
    note_hooks(ctx, "interactive-refused-continue", &debug, &seen, &session);
    session.end()
}

/// What the client shows when the user answers "No" at a permission prompt.
const INTERRUPTED: &str = "What should Claude do instead?";

pub(crate) fn confirm(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let config = json!({"confirm_above_usd": 0.5});
    let project = ruff_project(ctx, "interactive-confirm", Some(config))?;
    let server = MockServer::start_recording(pipeline_scenario(), &project.records_path(1))?;
    let (session, debug) =
        project.claude_terminal(&server.base_url(), &["--permission-mode", "default"])?;
    start_run(&session)?;
    let mut seen = Seen::default();
    let run = session.poll("the run waiting for the go", 60, |screen| {
        observe(&session, screen, &mut seen, Answer::Yes)?;
        let Some(run) = only_run(&project) else {
            return Ok(None);
        };
        let waiting = screen.contains(&format!("self-repair run {run} waits for your go"));
        Ok((waiting && !screen.contains(BUSY)).then_some(run))
    })?;
    // A user reads the estimate before answering: nothing may start meanwhile.
    std::thread::sleep(Duration::from_secs(3));
    let waiting = session.save("waiting")?;
    let state = project.run(&run).state()?;
    ctx.checks
        .equal("paused by", &field(&state, "/pause/by"), &"confirm");
    ctx.checks.equal(
        "agents launched before the go",
        &launched_items(&server.requests()).len(),
        &0,
    );
    ctx.checks.that(waiting.contains("likely"), || {
        format!("the waiting screen shows no estimate:\n{waiting}")
    });
    session.submit("go")?;
    // The model's `resume --confirm` shows the client's dialog; until the user answers it the
    // run still waits and nothing is launched (issue 41: the go is the user's click).
    session.poll("the dialog for the go", 60, |screen| {
        Ok(dialog_text(screen).filter(|d| d.contains("resume --confirm")))
    })?;
    std::thread::sleep(Duration::from_secs(3));
    let state = project.run(&run).state()?;
    ctx.checks.equal(
        "paused by, while the dialog is up",
        &field(&state, "/pause/by"),
        &"confirm",
    );
    ctx.checks.equal(
        "agents launched while the dialog is up",
        &launched_items(&server.requests()).len(),
        &0,
    );
    let run = drive_to_complete(ctx, &project, &session, &mut seen, Answer::Yes)?;
    let end = finish(&session, &run)?;
    // The gate leaves `resume --confirm` to the client's prompt on purpose (a model cannot give
    // the user's go): exactly that one dialog, the user's second yes.
    ctx.checks
        .equal("permission dialogs in manual mode", &seen.prompts, &1);
    ctx.checks.that(
        seen.prompt_texts
            .iter()
            .all(|t| t.contains("self-repair resume --confirm")),
        || {
            format!(
                "a dialog for something else than the go: {:?}",
                seen.prompt_texts
            )
        },
    );
    check_screen_story(ctx, &seen, &end, &run, 1);
    check_complete_once(ctx, &project, &run, FINDINGS, &[])?;
    note_hooks(ctx, "interactive-confirm", &debug, &seen, &session);
    session.end()
}

/// A session that follows neither dispatch channel (design note 63), in the terminal: the run
/// stalls after a few dispatches and the user reads the stall line on screen (the hook's
/// `systemMessage`), with no permission dialog on the way.
pub(crate) fn ignore_dispatches(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let project = ruff_project(ctx, "interactive-ignore-dispatches", None)?;
    let scenario = pipeline_scenario().habit(crate::scenario::MainHabit::IgnoreDispatches);
    let server = MockServer::start_recording(scenario, &project.records_path(1))?;
    let (session, debug) =
        project.claude_terminal(&server.base_url(), &["--permission-mode", "default"])?;
    start_run(&session)?;
    let mut seen = Seen::default();
    let run = session.poll("the stall line on screen", 120, |screen| {
        observe(&session, screen, &mut seen, Answer::Yes)?;
        let Some(run) = only_run(&project) else {
            return Ok(None);
        };
        // The line may wrap: read the screen as one line, joined both ways.
        let lines: Vec<&str> = screen.lines().map(str::trim).collect();
        let line = format!("self-repair run {run}: stalled");
        let shown = lines.join(" ").contains(&line) || lines.join("").contains(&line);
        Ok((shown && !screen.contains(BUSY)).then_some(run))
    })?;
    session.save("end")?;
    let state = project.run(&run).state()?;
    ctx.checks
        .equal("run status", &field(&state, "/status"), &"stalled");
    ctx.checks
        .equal("permission dialogs in manual mode", &seen.prompts, &0);
    ctx.checks.equal(
        "agents launched",
        &launched_items(&server.requests()).len(),
        &0,
    );
    note_hooks(
        ctx,
        "interactive-ignore-dispatches",
        &debug,
        &seen,
        &session,
    );
    session.end()
}

/// The refusal line's words that say how to go on (`decide_stop.rs`, `pause_for_refused`).
const REFUSAL_LINE: &str = "send a new prompt such as \"continue\"";

/// A plugin project with `FINDINGS` findings in `ruff.json` (Ruff's JSON output) and the
/// project config `config` (if any).
fn ruff_project(
    ctx: &ScenarioContext,
    name: &str,
    config: Option<Value>,
) -> Result<E2eProject, E2eError> {
    let project = E2eProject::new(&ctx.tools, name, InstallMode::Plugin, 0)?;
    let root = project.path();
    let findings: Vec<Value> = (0..FINDINGS)
        .map(|i| {
            json!({"code": "F401", "message": format!("`mod{i}` imported but unused"),
                "filename": root.join(format!("src/m{}.py", i / 3)), "severity": "error",
                "location": {"row": i + 1, "column": 8}, "end_location": {"row": i + 1, "column": 12},
                "url": "https://docs.astral.sh/ruff/rules/unused-import"})
        })
        .collect();
    project.write("ruff.json", &Value::from(findings).to_string())?;
    if let Some(config) = config {
        project.write(".self-repair/config.json", &format!("{config}\n"))?;
    }
    Ok(project)
}

/// The status line as a plugin user adds it (issue 24 item 1): `self-repair install
/// --status-line` from the project, with the scenario's `CLAUDE_CONFIG_DIR` set as the client
/// gets it: `statusLine` goes into `$CLAUDE_CONFIG_DIR/settings.json`, where the client reads
/// the user's settings, and `~/.claude` is never made. The status line showing up under the
/// prompt is the real client's proof that it reads what was written there.
fn add_status_line(project: &E2eProject) -> Result<(), E2eError> {
    let config = project.root().join("config");
    let out = project.self_repair_ok(&["install", "--status-line"])?;
    let written = config.join("settings.json");
    let home_claude = project.root().join("home/.claude");
    let named = ["created", "updated"]
        .iter()
        .any(|verb| out.contains(&format!("{verb} {}\n", written.display())));
    if !named || home_claude.exists() {
        return Err(E2eError::Unexpected {
            path: written,
            message: format!(
                "`self-repair install --status-line` under CLAUDE_CONFIG_DIR should write this \
                 file, name it, and leave {} absent; it said: {out}",
                home_claude.display()
            ),
        });
    }
    Ok(())
}

/// The status line showed the run's progress under the prompt while it ran: a row naming the
/// run, its phase and the bar over the whole run. Each agent thinks `AGENT_THINKS`, past one
/// refresh interval, so at least one row is drawn while the run goes on. That the row moves is
/// not asserted (the refresh may land in the same phase twice), so the count is a note. That the row follows the state is `statusline`'s CLI tests.
fn check_status_line(ctx: &mut ScenarioContext, seen: &Seen, run: &str) {
    let ours =
        |row: &String| row.contains(&format!("self-repair {run} · ")) && row.contains("% of ~");
    let rows: Vec<&String> = seen.status_rows.iter().filter(|r| ours(r)).collect();
    ctx.checks.that(!rows.is_empty(), || {
        format!(
            "the status line showed {} progress rows of run {run} (1 or more expected): {:?}",
            rows.len(),
            seen.status_rows
        )
    });
    ctx.notes.push(format!(
        "status line: {} distinct rows while the run went on, first `{}`, last `{}`",
        rows.len(),
        rows.first().map_or("", |r| r.trim()),
        rows.last().map_or("", |r| r.trim())
    ));
}

/// Waits for the client's prompt, then types `/self-repair ruff.json`.
fn start_run(session: &TerminalSession) -> Result<(), E2eError> {
    session.poll("the client's prompt", 30, |screen| {
        if screen.contains(AUTO_CHECK_NOTICE) {
            session.press(&["Enter"])?;
        }
        Ok(screen.lines().any(|l| l.trim() == READY).then_some(()))
    })?;
    session.save("start")?;
    session.submit("/self-repair ruff.json")
}

/// Reads one screen: answers a permission dialog (`answer`) or auto mode's notice (stay),
/// counts what it shows, saves the middle screen at the first dispatch.
fn observe(
    session: &TerminalSession,
    screen: &str,
    seen: &mut Seen,
    answer: Answer,
) -> Result<(), E2eError> {
    seen.problem_wording = seen
        .problem_wording
        .max(PROBLEM_WORDING.iter().map(|w| occurrences(screen, w)).sum());
    for row in screen
        .lines()
        .filter(|l| l.contains("self-repair r-") && l.contains("% of ~"))
    {
        let row = row.trim().to_owned();
        if !seen.status_rows.contains(&row) {
            seen.status_rows.push(row);
        }
    }
    if !seen.middle_saved && screen.contains(self_repair_engine::DISPATCH_START) {
        session.save("middle")?;
        seen.middle_saved = true;
    }
    if screen.contains(AUTO_CHECK_NOTICE) {
        if !seen.notice_up {
            seen.auto_notices += 1;
        }
        seen.notice_up = true;
        session.press(&["Enter"])?;
        return Ok(());
    }
    seen.notice_up = false;
    let Some(dialog) = dialog_text(screen) else {
        seen.dialog = None;
        return Ok(());
    };
    // The same dialog still up 1.5 s after an answer: the keys came before it took input.
    let again = seen
        .dialog
        .as_ref()
        .is_some_and(|(text, at)| *text == dialog && at.elapsed() > Duration::from_millis(1500));
    if seen
        .dialog
        .as_ref()
        .is_some_and(|(text, _)| *text == dialog)
        && !again
    {
        return Ok(());
    }
    if !again {
        seen.prompts += 1;
        session.save(&format!("prompt-{}", seen.prompts))?;
        seen.prompt_texts.push(dialog.clone());
    }
    let yes = answer == Answer::Yes || seen.refused > usize::from(again);
    // Auto mode's prompt puts the cursor on "No" with "Yes" below it; manual mode's on "1. Yes".
    let cursor_on_no = screen.lines().any(|l| l.trim_start().starts_with("❯ No"));
    match (yes, cursor_on_no) {
        (true, true) => session.press(&["Down", "Enter"])?,
        (true, false) | (false, true) => session.press(&["Enter"])?,
        (false, false) => session.press(&["Up", "Enter"])?,
    }
    if !yes && !again {
        seen.refused += 1;
    }
    seen.dialog = Some((dialog, Instant::now()));
    Ok(())
}

/// The permission dialog on `screen` (from its top rule to the end), if one is up.
fn dialog_text(screen: &str) -> Option<String> {
    if !screen.contains(PERMISSION_QUESTION) {
        return None;
    }
    let lines: Vec<&str> = screen.lines().collect();
    let top = lines
        .iter()
        .rposition(|l| l.starts_with('─'))
        .unwrap_or_default();
    // Up to the question: the options below it change as the cursor moves.
    let question = lines
        .iter()
        .rposition(|l| l.contains(PERMISSION_QUESTION))
        .unwrap_or(lines.len());
    Some(lines[top..question.max(top)].join("\n"))
}

/// Polls until the run is complete and the client idle with its closing line on screen;
/// returns the run id.
fn drive_to_complete(
    ctx: &ScenarioContext,
    project: &E2eProject,
    session: &TerminalSession,
    seen: &mut Seen,
    answer: Answer,
) -> Result<String, E2eError> {
    let deadline = ctx.tools.claude_timeout;
    session.poll("the run to complete on screen", deadline, |screen| {
        observe(session, screen, seen, answer)?;
        let Some(run) = only_run(project) else {
            return Ok(None);
        };
        let complete = project
            .run(&run)
            .state()
            .is_ok_and(|s| field(&s, "/status") == "complete");
        let shown = screen.contains(&closing(&run)) && !screen.contains(BUSY);
        Ok((complete && shown).then_some(run))
    })
}

/// Waits a moment for late output, then saves and returns the end screen.
fn finish(session: &TerminalSession, run: &str) -> Result<String, E2eError> {
    let settled = Instant::now();
    while settled.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(200));
    }
    let end = session.save("end")?;
    if !end.contains(&closing(run)) {
        return Err(E2eError::Unexpected {
            path: "screen-end.txt".into(),
            message: format!("the closing line left the screen:\n{end}"),
        });
    }
    Ok(end)
}

/// The start of run `run`'s closing line.
fn closing(run: &str) -> String {
    format!("self-repair run {run} complete")
}

/// No "problem" wording for the dispatches, the closing line `closing_lines` times at the end.
fn check_screen_story(
    ctx: &mut ScenarioContext,
    seen: &Seen,
    end: &str,
    run: &str,
    closing_lines: usize,
) {
    ctx.checks.that(seen.middle_saved, || {
        "no dispatch was ever on screen".to_owned()
    });
    ctx.checks.equal(
        "\"problem\" wording on screen for a normal run",
        &seen.problem_wording,
        &0,
    );
    ctx.checks.equal(
        "the closing line on the last screen",
        &occurrences(end, &closing(run)),
        &closing_lines,
    );
}

/// The one run of the project (the user typed no run id).
fn only_run(project: &E2eProject) -> Option<String> {
    let runs = fs::read_dir(project.path().join(".self-repair/runs")).ok()?;
    runs.filter_map(Result::ok)
        .filter(|e| e.path().join("state.json").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .next()
}

/// One note per scenario: Stop hook runs and their median time, prompts, wall time.
fn note_hooks(
    ctx: &mut ScenarioContext,
    name: &str,
    debug: &std::path::Path,
    seen: &Seen,
    session: &TerminalSession,
) {
    let runs = parse_hook_log(&fs::read_to_string(debug).unwrap_or_default());
    let mut stops: Vec<u64> = runs
        .iter()
        .filter(|r| r.event == "Stop")
        .filter_map(|r| r.millis)
        .collect();
    stops.sort_unstable();
    let median = stops.get(stops.len() / 2).copied().unwrap_or_default();
    ctx.notes.push(format!(
        "{name}: {} Stop hook runs (median {median} ms), {} permission prompt(s), {:.1} s in the terminal",
        stops.len(),
        seen.prompts,
        session.elapsed().as_secs_f64()
    ));
}
