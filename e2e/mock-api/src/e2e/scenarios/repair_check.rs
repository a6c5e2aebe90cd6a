//! The repair pipeline (issue 6) on the real client: a toy git project whose check fails until
//! `state.txt` says `fixed`. The session runs `self-repair check` itself; attempt 1 (the main
//! session, fed the hook's feedback) does not fix it; attempt 2 is a `fixer` sub-agent on the
//! next tier, which does; every attempt is rechecked by the binary inside the Stop hook, and the
//! session ends with the hook's one-line outcome.

use std::fs;

use serde_json::Value;

use crate::e2e::claude_run::ClaudeOptions;
use crate::e2e::e2e_error::E2eError;
use crate::e2e::e2e_project::{E2eProject, InstallMode};
use crate::e2e::records::{agent_launches, item_models};
use crate::e2e::run_files::field;
use crate::e2e::scenarios::ScenarioContext;
use crate::mock_server::MockServer;
use crate::recorded_request::RecordedRequest;
use crate::scenario::Scenario;

const RUN: &str = "r";
/// The check as the session's Bash call runs it, with the default 120 s timeout: the check is
/// fast, so the Stop hook runs every recheck itself from the measured durations, and the
/// session never runs `self-repair tick` (before issue 12 it did, once per fix attempt).
const CHECK: &str = "self-repair check --run-id r -- sh -c 'grep -q fixed state.txt'";
/// Attempt 1, the main session: changes the file, does not fix it.
const MAIN_FIX: &str = "echo 'still broken' > state.txt";
/// Attempt 2, the fixer sub-agent: fixes it.
const FIXER_FIX: &str = "echo fixed > state.txt";

/// The Bash commands the server had `thread` run, in order.
fn bash_commands(records: &[RecordedRequest], thread: &str) -> Vec<String> {
    let mut mine: Vec<&RecordedRequest> = records
        .iter()
        .filter(|r| r.thread == thread && r.status == 200)
        .collect();
    mine.sort_by_key(|r| r.seq);
    mine.iter()
        .flat_map(|r| r.tool_inputs.iter())
        .filter_map(|i| i.get("command").and_then(Value::as_str))
        .map(str::to_owned)
        .collect()
}

fn str_of<'a>(value: &'a Value, pointer: &str) -> &'a str {
    value
        .pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// Every `fix_ended` is followed by the recheck of that attempt before anything else is asked;
/// returns the attempts that ended, in order, or the first violation.
fn rechecked_attempts(journal: &[Value]) -> Result<Vec<u64>, String> {
    let mut ended = Vec::new();
    for (i, entry) in journal.iter().enumerate() {
        if str_of(entry, "/event") != "fix_ended" {
            continue;
        }
        let attempt = entry.get("attempt").and_then(Value::as_u64).unwrap_or(0);
        let next = journal[i + 1..].iter().find(|e| {
            matches!(
                str_of(e, "/event"),
                "check_finished" | "fix_asked" | "announced"
            )
        });
        let Some(next) = next else {
            return Err(format!("attempt {attempt} was never rechecked"));
        };
        let ok = str_of(next, "/event") == "check_finished"
            && str_of(next, "/record/purpose") == "recheck"
            && next.pointer("/record/attempt").and_then(Value::as_u64) == Some(attempt);
        if !ok {
            return Err(format!(
                "attempt {attempt}: the next event is {next}, not its recheck"
            ));
        }
        ended.push(attempt);
    }
    Ok(ended)
}

pub(crate) fn run(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let project = E2eProject::new(&ctx.tools, "repair-check", InstallMode::Plugin, 0)?;
    project.write("state.txt", "broken\n")?;
    // The user's own rules for their own check and its fixes (what a user who runs repairs
    // unattended allows in `.claude/settings.local.json`): self-repair's gate never approves
    // `check` (it runs a command) or the fixer's edits.
    project.write(
        ".claude/settings.local.json",
        "{\"permissions\": {\"allow\": [\"Bash(self-repair check:*)\", \"Bash(echo:*)\", \"Edit(state.txt)\"]}}\n",
    )?;
    project.git(&["init", "-q"])?;
    project.git(&["add", "."])?;
    project.git(&["commit", "-qm", "start"])?;
    let files = project.run(RUN);

    let scenario = Scenario::new()
        .on_fix_request_run(MAIN_FIX)
        .fixer_runs(FIXER_FIX);
    let server = MockServer::start_recording(scenario, &project.records_path(1))?;
    let outcome = project
        .claude(
            &server.base_url(),
            &format!("Make the check pass.\n$ {CHECK}"),
            &ClaudeOptions::default(),
        )?
        .wait(ctx.claude_timeout())?;
    ctx.checks.that(outcome.succeeded(), || {
        format!("claude -p: {}", outcome.describe())
    });
    let session = outcome.session_id().unwrap_or_default();

    // Files: the fixer's change is in the tree.
    let state_txt = project.path().join("state.txt");
    let text = fs::read_to_string(&state_txt).map_err(E2eError::io(&state_txt))?;
    ctx.checks.equal("state.txt", &text.as_str(), &"fixed\n");

    // The run's state.
    let state = files.state()?;
    ctx.checks
        .equal("run status", &field(&state, "/status"), &"success");
    ctx.checks
        .equal("pipeline", &field(&state, "/pipeline"), &"repair");
    ctx.checks.equal(
        "run bound to the session that ran `check`",
        &field(&state, "/session"),
        &session.as_str(),
    );
    ctx.checks
        .that(state["announced"] == Value::Bool(true), || {
            "the outcome was not announced".to_owned()
        });
    let attempts = state["attempts"].as_array().cloned().unwrap_or_default();
    let tiers: Vec<&str> = attempts.iter().map(|a| str_of(a, "/tier")).collect();
    ctx.checks
        .equal("attempt tiers", &tiers, &vec!["main", "sonnet"]);
    let items: Vec<&str> = attempts.iter().map(|a| str_of(a, "/item")).collect();
    ctx.checks
        .equal("attempt items", &items, &vec!["fix-1", "fix-2"]);
    for attempt in &attempts {
        let changed = attempt["files_changed"].clone();
        ctx.checks
            .that(changed == serde_json::json!(["state.txt"]), || {
                format!(
                    "{}: files_changed {changed}, expected [\"state.txt\"]",
                    str_of(attempt, "/item")
                )
            });
    }
    let checks = state["checks"].as_array().cloned().unwrap_or_default();
    let runs: Vec<(String, u64, i64)> = checks
        .iter()
        .map(|c| {
            (
                str_of(c, "/purpose").to_owned(),
                c["attempt"].as_u64().unwrap_or(99),
                c["exit_code"].as_i64().unwrap_or(-1),
            )
        })
        .collect();
    ctx.checks.equal(
        "check runs (purpose, attempt, exit)",
        &runs,
        &vec![
            ("baseline".to_owned(), 0, 1),
            ("recheck".to_owned(), 1, 1),
            ("recheck".to_owned(), 2, 0),
        ],
    );
    for log in [
        "summary.md",
        "attempts/0.log",
        "attempts/1.log",
        "attempts/2.log",
    ] {
        ctx.checks.that(files.dir().join(log).is_file(), || {
            format!("no {log} in the run folder")
        });
    }

    // The journal: every fix attempt followed by the binary's recheck.
    let journal = files.journal();
    match rechecked_attempts(&journal) {
        Ok(ended) => ctx.checks.equal("rechecked attempts", &ended, &vec![1, 2]),
        Err(e) => ctx.checks.that(false, || e),
    };
    let events: Vec<&str> = journal.iter().map(|e| str_of(e, "/event")).collect();
    ctx.checks.equal(
        "journal events",
        &events,
        &vec![
            "started",
            "check_finished",
            "fix_asked",
            "fix_ended",
            "check_finished",
            "fix_asked",
            "fix_ended",
            "check_finished",
            "announced",
        ],
    );

    // The recorded requests: the main thread ran the check and its own (failed) fix, then
    // launched one fixer on the next tier, which read its task and fixed the file.
    let records = server.requests();
    ctx.checks.equal(
        "main-thread Bash commands",
        &bash_commands(&records, "main"),
        &vec![CHECK.to_owned(), MAIN_FIX.to_owned()],
    );
    let launches = agent_launches(&records);
    ctx.checks.equal("Agent launches", &launches.len(), &1);
    if let Some(launch) = launches.first() {
        let agent = str_of(launch, "/subagent_type");
        ctx.checks.that(agent.ends_with("fixer"), || {
            format!("the launch's subagent_type is {agent:?}, not a fixer")
        });
        ctx.checks.equal(
            "the launch's model and prompt",
            &(str_of(launch, "/model"), str_of(launch, "/prompt")),
            &("sonnet", "self-repair item fix-2 --run r"),
        );
        ctx.checks.equal(
            "the fixer runs in the foreground",
            &launch.get("run_in_background"),
            &Some(&Value::Bool(false)),
        );
    }
    ctx.checks.equal(
        "fix-2's model ids",
        &item_models(&records, "fix-2"),
        &vec!["claude-sonnet-5-5".to_owned()],
    );
    ctx.checks.equal(
        "fix-2's Bash commands",
        &bash_commands(&records, "item:fix-2"),
        &vec![
            "self-repair show fix-2 --run r".to_owned(),
            FIXER_FIX.to_owned(),
        ],
    );
    let fixer_read_its_task = records.iter().any(|r| {
        r.thread == "item:fix-2"
            && r.body.to_string().contains("fix attempt 2 of 5")
            && r.body.to_string().contains("Attempts so far")
    });
    ctx.checks.that(fixer_read_its_task, || {
        "no fixer request carries the output of `self-repair show fix-2`".to_owned()
    });
    // Kept going as the Stop event's additional context, never as a block (design note 48).
    let main_got_feedback = records.iter().any(|r| {
        r.thread == "main"
            && r.body.to_string().contains(&format!(
                "{}{}",
                crate::STOP_CONTEXT,
                " self-repair check: attempt 1 of 5"
            ))
    });
    ctx.checks.that(main_got_feedback, || {
        "the main thread never received attempt 1's feedback".to_owned()
    });

    // The Stop hooks: two blocks (attempt 1's feedback, attempt 2's dispatch), then one block
    // that relays the one-line outcome (also as systemMessage), then a silent allow; the
    // outcome is `claude -p`'s result.
    let hooks = outcome.hooks();
    ctx.checks.that(hooks.iter().all(|h| h.status == 0), || {
        format!(
            "a hook exited non-zero: {:?}",
            hooks.iter().filter(|h| h.status != 0).collect::<Vec<_>>()
        )
    });
    let stops: Vec<_> = hooks.iter().filter(|h| h.event == "Stop").collect();
    let blocks = stops.iter().filter(|h| h.blocked()).count();
    ctx.checks.equal("Stop hook blocks", &blocks, &3);
    let messages: Vec<&str> = stops
        .iter()
        .filter(|h| h.output.contains("systemMessage"))
        .map(|h| h.output.as_str())
        .collect();
    ctx.checks.that(
        messages.len() == 1
            && messages[0].contains("success")
            && messages[0].contains("after 2 fix attempts")
            && stops.iter().rev().nth(1).is_some_and(|h| h.output == messages[0])
            && stops.last().is_some_and(|h| h.output.is_empty()),
        || format!("expected one relayed outcome announcing success after 2 fix attempts, then a silent stop; Stop outputs: {:?}",
            stops.iter().map(|h| &h.output).collect::<Vec<_>>()),
    );
    let result = outcome
        .json
        .get("result")
        .and_then(Value::as_str)
        .unwrap_or("");
    ctx.checks.that(result.contains("success"), || {
        format!("claude -p's result does not say how the repair ended: {result:?}")
    });

    let status = project.self_repair_ok(&["status"])?;
    ctx.checks.that(status.contains("success"), || {
        format!("`self-repair status` does not say success: {status}")
    });
    ctx.notes.push(format!(
        "repair session: claude -p {:.1} s, {} Stop hooks ({} ms max)",
        outcome.wall.as_secs_f64(),
        stops.len(),
        stops.iter().filter_map(|h| h.millis).max().unwrap_or(0)
    ));
    Ok(())
}
