//! Issue 17 on the real client: the fix loop from raw analyzer output to verified fixes. A small
//! real Python project (`tests/fixtures/fix-loop/shop`, its README says what is wrong where) in a
//! git project, with the pinned Ruff, vulture and pytest on the PATH. Session 1 runs
//! `self-repair start --detect` (the detectors of `.self-repair/config.json`) and the scripted
//! model triages the findings to Backlog.md tasks; session 2 runs `self-repair fix`, the scripted
//! fixer (the main session, then a `fixer` sub-agent) changes the files with the client's Read,
//! Edit and Write tools, and the Stop hook rechecks each attempt with `verify-task` (the real
//! analyzers re-run, the real pytest, the weakening guard) and moves the queue on.

use std::collections::BTreeMap;
use std::fs;

use serde_json::Value;

use crate::conversation::{Conversation, ToolCall, ToolOutcome};
use crate::e2e::claude_run::{ClaudeOptions, ClaudeOutcome};
use crate::e2e::e2e_error::E2eError;
use crate::e2e::e2e_project::{E2eProject, InstallMode};
use crate::e2e::scenarios::ScenarioContext;
use crate::e2e::scenarios::pipeline_checks::check_complete_once;
use crate::e2e::scenarios::shop_triage::{Cause, triage_results};
use crate::fix_script::{FixScript, FixStep};
use crate::mock_server::MockServer;
use crate::recorded_request::RecordedRequest;
use crate::scenario::Scenario;

pub(super) const RUN: &str = "r-fix";
const FIXTURE: &str = "tests/fixtures/fix-loop/shop";
/// The fixture's findings: Ruff F541, E711, E712; vulture `csv_report`, `legacy_summary`.
const FINDINGS: usize = 5;

/// The analyzers and the tests, as a user configures them (reference/config.md). Ruff exits 1
/// and vulture 3 when they find something.
pub(super) const CONFIG: &str = r#"{"detectors": [
  {"name": "ruff", "argv": ["ruff", "check", "--output-format", "json", "."], "ok_exit_codes": [0, 1], "format": "ruff"},
  {"name": "vulture", "argv": ["vulture", "."], "ok_exit_codes": [0, 3], "format": "vulture"}
 ],
 "checks": {"test": {"command": ["pytest", "-q"]}}}
"#;

/// The user's own rules (`.claude/settings.local.json`): the two self-repair commands that run
/// the project's programs (the permission gate never approves those), and file edits, which a
/// user who lets Claude fix code allows (on Claude Code 2.1.330 an `Edit` rule does not cover
/// the `Write` tool: measured, a Write was refused with only `Edit` allowed). Nothing else: no
/// `--allowedTools`, the default permission mode.
const USER_RULES: &str = r#"{"permissions": {"allow": ["Bash(self-repair start --detect:*)", "Bash(self-repair fix:*)", "Edit", "Write"]}}
"#;

/// The project: the fixture, the config, the user's rules and git identity, all committed.
pub(super) fn setup(
    ctx: &ScenarioContext,
    name: &str,
    mode: InstallMode,
) -> Result<E2eProject, E2eError> {
    let project = E2eProject::new(&ctx.tools, name, mode, 0)?;
    project.link_python_tools()?;
    // The user's git identity: `fix --commit` commits as them.
    let gitconfig = project.root().join("home/.gitconfig");
    fs::write(
        &gitconfig,
        "[user]\n\tname = e2e\n\temail = e2e@localhost\n",
    )
    .map_err(E2eError::io(&gitconfig))?;
    fs::remove_file(project.path().join("findings.jsonl"))
        .map_err(E2eError::io(project.path().join("findings.jsonl")))?;
    project.copy_in(&ctx.tools.repo.join(FIXTURE), ".")?;
    project.write(".self-repair/config.json", CONFIG)?;
    project.write(".claude/settings.local.json", USER_RULES)?;
    project.git(&["init", "-q"])?;
    project.git(&["add", "-A"])?;
    project.git(&["commit", "-qm", "shop"])?;
    Ok(project)
}

/// Session 1: `start --detect`, triaged to tasks. Checks the run completed with its tasks listed
/// by the real backlog CLI, commits them (as a user would before fixing), and returns each
/// cause's task id.
pub(super) fn triage(
    ctx: &mut ScenarioContext,
    project: &E2eProject,
    csv_is_real: bool,
) -> Result<BTreeMap<Cause, String>, E2eError> {
    let scenario = Scenario::new().results(move |show| triage_results(show, csv_is_real));
    let server = MockServer::start_recording(scenario, &project.records_path(1))?;
    let prompt = format!(
        "Run the analyzers and work through every finding with self-repair.\n$ self-repair start --detect --run-id {RUN}"
    );
    let outcome = project
        .claude(&server.base_url(), &prompt, &ClaudeOptions::default())?
        .wait(ctx.claude_timeout())?;
    ctx.checks.that(outcome.succeeded(), || {
        format!("triage session: claude -p: {}", outcome.describe())
    });
    check_hooks(ctx, "triage session", &outcome);
    let state = check_complete_once(ctx, project, RUN, FINDINGS, &[])?;
    let mut tasks = BTreeMap::new();
    for task in state["tasks"].as_array().into_iter().flatten() {
        let title = task["title"].as_str().unwrap_or_default();
        if let Some(cause) = Cause::ALL.into_iter().find(|c| title.contains(c.marker())) {
            tasks.insert(
                cause,
                task["task_id"].as_str().unwrap_or_default().to_owned(),
            );
        }
    }
    let mut want = vec![
        Cause::FString,
        Cause::NoneCompare,
        Cause::TrueCompare,
        Cause::LegacyReport,
    ];
    if csv_is_real {
        want.push(Cause::CsvReport);
    }
    ctx.checks.equal(
        "a task per real root cause",
        &tasks.keys().copied().collect::<Vec<_>>(),
        &want,
    );
    ctx.notes.push(format!(
        "triage session: {FINDINGS} findings from the real Ruff and vulture, {} tasks, claude -p {:.1} s",
        tasks.len(),
        outcome.wall.as_secs_f64()
    ));
    project.git(&["add", "-A"])?;
    project.git(&["commit", "-qm", "self-repair: triage tasks"])?;
    Ok(tasks)
}

/// Session 2: `$ self-repair fix ARGS` with the scripted fixes. Checks the session's last
/// message (all a `claude -p` user sees) is the fix loop's closing line, saying `done`.
fn fix_session(
    ctx: &mut ScenarioContext,
    project: &E2eProject,
    scripts: Vec<FixScript>,
    args: &str,
    done: &str,
) -> Result<(Vec<RecordedRequest>, ClaudeOutcome), E2eError> {
    let scenario = scripts
        .into_iter()
        .fold(Scenario::new(), Scenario::fix_script);
    let server = MockServer::start_recording(scenario, &project.records_path(2))?;
    let prompt = format!("Fix the tasks self-repair wrote.\n$ self-repair fix {args}");
    let outcome = project
        .claude(&server.base_url(), &prompt, &ClaudeOptions::default())?
        .wait(ctx.claude_timeout())?;
    ctx.checks.that(outcome.succeeded(), || {
        format!("fix session: claude -p: {}", outcome.describe())
    });
    check_hooks(ctx, "fix session", &outcome);
    let result = outcome
        .json
        .get("result")
        .and_then(Value::as_str)
        .unwrap_or_default();
    ctx.checks.that(
        result.starts_with("self-repair fix: ") && result.contains(done),
        || format!("fix session: claude -p's result does not say {done:?}: {result:?}"),
    );
    let stops = outcome.hooks().iter().filter(|h| h.event == "Stop").count();
    ctx.notes.push(format!(
        "fix session: claude -p {:.1} s, {stops} Stop hooks",
        outcome.wall.as_secs_f64()
    ));
    Ok((server.requests(), outcome))
}

fn check_hooks(ctx: &mut ScenarioContext, session: &str, outcome: &ClaudeOutcome) {
    for hook in outcome.hooks() {
        ctx.checks.that(hook.status == 0, || {
            format!(
                "{session}: hook {} {} exited {}",
                hook.event, hook.command, hook.status
            )
        });
    }
}

/// The fixture file `relative` as committed.
pub(super) fn fixture_text(ctx: &ScenarioContext, relative: &str) -> Result<String, E2eError> {
    let path = ctx.tools.repo.join(FIXTURE).join(relative);
    fs::read_to_string(&path).map_err(E2eError::io(&path))
}

/// A scripted fix for `task` at `attempt` (attempt 1 is the main session, 2 the fixer).
pub(super) fn script(task: &str, attempt: u32, steps: Vec<FixStep>) -> FixScript {
    FixScript {
        when: format!("verify-task {task} "),
        attempt: Some(attempt),
        steps,
    }
}

pub(super) fn read(project: &E2eProject, relative: &str) -> FixStep {
    FixStep::Read {
        file_path: project.path().join(relative).display().to_string(),
    }
}

pub(super) fn edit(project: &E2eProject, relative: &str, old: &str, new: &str) -> FixStep {
    FixStep::Edit {
        file_path: project.path().join(relative).display().to_string(),
        old_string: old.to_owned(),
        new_string: new.to_owned(),
    }
}

/// `legacy_summary` as the fixture has it, with the blank lines before it.
pub(super) const LEGACY: &str = "\n\ndef legacy_summary(sales):\n    \"\"\"The report before summary_report() existed; nothing calls it any more.\"\"\"\n    return \";\".join(f\"{name}={_money(amount)}\" for name, amount in sales)\n";
/// `csv_report` as the fixture has it, with the blank lines before it.
const CSV: &str = "\n\ndef csv_report(sales):\n    \"\"\"One `name,amount` row per sale.\"\"\"\n    return \"\\n\".join(f\"{name},{_money(amount)}\" for name, amount in sales)\n";
/// The test only the right E712 fix keeps passing, with the blank lines before it.
const PENDING_TEST: &str = "\n\ndef test_a_pending_item_is_not_on_sale_yet():\n    # The supplier feed puts a status string in `active` until an item is approved.\n    pending = {\"name\": \"kit\", \"active\": \"pending\", \"count\": 4}\n    assert active_items(ITEMS + [pending]) == active_items(ITEMS)\n";
const RUFF_SELECT: &str = "select = [\"E4\", \"E7\", \"E9\", \"F\"]";

/// The queue's entry per task id (`fix.json`).
pub(super) fn queue(project: &E2eProject) -> Result<BTreeMap<String, Value>, E2eError> {
    let path = project
        .path()
        .join(format!(".self-repair/runs/{RUN}/fix.json"));
    let text = fs::read_to_string(&path).map_err(E2eError::io(&path))?;
    let queue: Value = serde_json::from_str(&text).map_err(|e| E2eError::Unexpected {
        path,
        message: format!("not JSON: {e}"),
    })?;
    Ok(queue["tasks"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| {
            (
                t["task_id"].as_str().unwrap_or_default().to_owned(),
                t.clone(),
            )
        })
        .collect())
}

/// The backlog CLI's view of each task: `backlog task list --json` by id (`TASK-3` -> `task-3`).
fn backlog_by_id(project: &E2eProject) -> Result<BTreeMap<String, Value>, E2eError> {
    Ok(project
        .backlog_tasks()?
        .into_iter()
        .map(|t| (t["id"].as_str().unwrap_or_default().to_ascii_lowercase(), t))
        .collect())
}

/// Every Read, Edit and Write call the server answered (main session and sub-agents), with the
/// client's result, in the order they were made.
fn file_tool_calls(records: &[RecordedRequest]) -> Vec<(String, ToolCall, Option<ToolOutcome>)> {
    let mut sorted: Vec<&RecordedRequest> = records.iter().filter(|r| r.status == 200).collect();
    sorted.sort_by_key(|r| r.seq);
    let mut calls: Vec<(String, ToolCall, Option<ToolOutcome>)> = Vec::new();
    for record in sorted {
        for (call, outcome) in Conversation::new(&record.body).calls_since(0) {
            if !matches!(call.name.as_str(), "Read" | "Edit" | "Write") {
                continue;
            }
            match calls.iter_mut().find(|(_, c, _)| c.id == call.id) {
                Some(known) if outcome.is_some() => known.2 = outcome,
                Some(_) => {}
                None => calls.push((record.thread.clone(), call, outcome)),
            }
        }
    }
    calls
}

/// The recheck logs of a task's repair run: `attempts/N.log` for attempts 1 and 2.
fn recheck_log(project: &E2eProject, repair_run: &str, attempt: u32) -> String {
    fs::read_to_string(
        project
            .run(repair_run)
            .dir()
            .join(format!("attempts/{attempt}.log")),
    )
    .unwrap_or_default()
}

/// `fix-loop-verified`: every task fixed and verified, Done with its criteria ticked, one commit
/// each; the real analyzers then report nothing the triage called real, and pytest passes.
pub(crate) fn verified(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let project = setup(ctx, "fix-loop-verified", InstallMode::Project)?;
    let tasks = triage(ctx, &project, false)?;
    let task = |cause: Cause| tasks.get(&cause).cloned().unwrap_or_default();
    let inventory = fixture_text(ctx, "shop/inventory.py")?;
    let scripts = vec![
        // The main session: an Edit, and a Read then Write of the whole file.
        script(
            &task(Cause::NoneCompare),
            1,
            vec![
                read(&project, "shop/pricing.py"),
                edit(
                    &project,
                    "shop/pricing.py",
                    "if discount == None:",
                    "if discount is None:",
                ),
            ],
        ),
        script(
            &task(Cause::TrueCompare),
            1,
            vec![
                read(&project, "shop/inventory.py"),
                FixStep::Write {
                    file_path: project
                        .path()
                        .join("shop/inventory.py")
                        .display()
                        .to_string(),
                    content: inventory
                        .replace("item[\"active\"] == True", "item[\"active\"] is True"),
                },
            ],
        ),
        // Attempt 1 reads and changes nothing; attempt 2, the fixer agent, deletes the code.
        script(
            &task(Cause::LegacyReport),
            1,
            vec![read(&project, "shop/report.py")],
        ),
        script(
            &task(Cause::LegacyReport),
            2,
            vec![
                read(&project, "shop/report.py"),
                edit(&project, "shop/report.py", LEGACY, ""),
            ],
        ),
    ];
    let (records, _) = fix_session(
        ctx,
        &project,
        scripts,
        "--all --commit",
        "fix done: 4 of 4 task(s) fixed",
    )?;

    // The queue and the task files: every task fixed, Done, its criteria ticked.
    let queue = queue(&project)?;
    let listed = backlog_by_id(&project)?;
    for (cause, id) in &tasks {
        let entry = queue.get(id).cloned().unwrap_or(Value::Null);
        ctx.checks.equal(
            &format!("{cause:?} ({id}) in fix.json"),
            &entry["status"].as_str(),
            &Some("fixed"),
        );
        ctx.checks.that(entry["commit"].is_string(), || {
            format!("{cause:?} ({id}) was not committed: {entry}")
        });
        let shown = listed.get(id).cloned().unwrap_or(Value::Null);
        let criteria = (
            shown["acceptanceCriteriaCompleted"].as_u64(),
            shown["acceptanceCriteriaCount"].as_u64(),
        );
        ctx.checks.that(
            shown["status"] == "Done" && criteria.0 == criteria.1 && criteria.1 >= Some(2),
            || format!("backlog task list --json: {id} is not Done with every criterion ticked: {shown}"),
        );
        let view = project.backlog(&["task", "view", id, "--plain"])?;
        ctx.checks.that(
            view.contains("Status: ✔ Done") && view.contains("- [x] #2") && !view.contains("- [ ]"),
            || format!("backlog task view {id} --plain: {view}"),
        );
        // The check that ended the task's repair run: `verify-task`, whose re-run of the real
        // analyzers no longer reports the group's fingerprints.
        let repair_run = entry["repair_run"].as_str().unwrap_or("-");
        let last = project
            .run(repair_run)
            .state()
            .ok()
            .and_then(|s| {
                s["checks"].as_array()?.last()?["tail"]
                    .as_str()
                    .map(str::to_owned)
            })
            .unwrap_or_default();
        ctx.checks.that(
            last.contains("1 of 1 finding(s) of the group gone")
                && last.contains("tests: `pytest -q` passed")
                && last.contains("PASSED"),
            || format!("{id}: the last check of {repair_run} did not pass: {last}"),
        );
        let file = entry["file"].as_str().unwrap_or_default();
        let text = fs::read_to_string(project.path().join(file)).unwrap_or_default();
        ctx.checks
            .that(text.contains("## Implementation Notes"), || {
                format!("{file} has no implementation notes: {text}")
            });
    }
    // F541: Ruff's own fix, no model attempt; legacy_summary: the main session, then the fixer.
    let f541 = queue
        .get(&task(Cause::FString))
        .cloned()
        .unwrap_or(Value::Null);
    let f541_file = fs::read_to_string(project.path().join(f541["file"].as_str().unwrap_or("-")))
        .unwrap_or_default();
    ctx.checks.that(f541_file.contains("tiers: autofix"), || {
        format!("the F541 task was not fixed by the autofix step alone: {f541_file}")
    });
    let legacy_run = queue
        .get(&task(Cause::LegacyReport))
        .and_then(|t| t["repair_run"].as_str().map(str::to_owned))
        .unwrap_or_default();
    let legacy_state = project.run(&legacy_run).state()?;
    let tiers: Vec<&str> = legacy_state["attempts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|a| a["tier"].as_str())
        .collect();
    ctx.checks.equal(
        "legacy_summary's attempt tiers",
        &tiers,
        &vec!["main", "sonnet"],
    );

    // The client made every edit through its own tools, and none was refused.
    let calls = file_tool_calls(&records);
    let count = |thread_main: bool, name: &str| {
        calls
            .iter()
            .filter(|(t, c, _)| (t == "main") == thread_main && c.name == name)
            .count()
    };
    ctx.checks.equal(
        "file tool calls: main Edit, main Write, fixer Edit",
        &(
            count(true, "Edit"),
            count(true, "Write"),
            count(false, "Edit"),
        ),
        &(1, 1, 1),
    );
    for (thread, call, outcome) in &calls {
        ctx.checks
            .that(outcome.as_ref().is_some_and(|o| !o.is_error), || {
                format!("{thread}: {} {} failed: {outcome:?}", call.name, call.input)
            });
    }

    // The real tools, re-run by hand: Ruff reports nothing, vulture only the false positive
    // the triage kept, pytest passes; one commit per task.
    let ruff = project.program("ruff", &["check", "--output-format", "json", "."])?;
    let ruff_out = String::from_utf8_lossy(&ruff.stdout);
    ctx.checks
        .that(ruff.status.success() && ruff_out.trim() == "[]", || {
            format!("ruff check still reports: {ruff_out}")
        });
    let vulture = project.program("vulture", &["."])?;
    let vulture_out = String::from_utf8_lossy(&vulture.stdout);
    let lines: Vec<&str> = vulture_out.lines().collect();
    ctx.checks.that(
        lines.len() == 1 && lines[0].contains("unused function 'csv_report'"),
        || format!("vulture reports more than the false positive csv_report: {vulture_out}"),
    );
    let pytest = project.program("pytest", &["-q"])?;
    let pytest_out = String::from_utf8_lossy(&pytest.stdout);
    ctx.checks.that(
        pytest.status.success() && pytest_out.contains("9 passed"),
        || format!("pytest after the fixes: {pytest_out}"),
    );
    let log = project.git(&["log", "--format=%s"])?;
    let fixes = log.lines().filter(|l| l.starts_with("fix: TASK-")).count();
    ctx.checks.equal("fix commits", &fixes, &tasks.len());
    Ok(())
}

/// `fix-loop-refused`: three tasks whose fixers cheat or break things; none is Done.
/// - E711: the main session adds the rule to Ruff's ignore list, the fixer then a `# noqa`;
/// - E712: the main session applies Ruff's unsafe fix, which breaks a test; the fixer deletes
///   that test, so pytest passes and the finding is gone: refused all the same;
/// - `csv_report` (triaged real by mistake): deleting it breaks `render()`'s test.
pub(crate) fn refused(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let project = setup(ctx, "fix-loop-refused", InstallMode::Plugin)?;
    let tasks = triage(ctx, &project, true)?;
    let task = |cause: Cause| tasks.get(&cause).cloned().unwrap_or_default();
    let (e711, e712, csv) = (
        task(Cause::NoneCompare),
        task(Cause::TrueCompare),
        task(Cause::CsvReport),
    );
    let scripts = vec![
        script(
            &e711,
            1,
            vec![
                read(&project, "pyproject.toml"),
                edit(
                    &project,
                    "pyproject.toml",
                    RUFF_SELECT,
                    &format!("{RUFF_SELECT}\nignore = [\"E711\"]"),
                ),
            ],
        ),
        script(
            &e711,
            2,
            vec![
                read(&project, "shop/pricing.py"),
                edit(
                    &project,
                    "shop/pricing.py",
                    "if discount == None:",
                    "if discount == None:  # noqa: E711",
                ),
            ],
        ),
        script(
            &e712,
            1,
            vec![
                read(&project, "shop/inventory.py"),
                edit(
                    &project,
                    "shop/inventory.py",
                    "item[\"active\"] == True",
                    "item[\"active\"]",
                ),
            ],
        ),
        script(
            &e712,
            2,
            vec![
                read(&project, "tests/test_inventory.py"),
                edit(&project, "tests/test_inventory.py", PENDING_TEST, ""),
            ],
        ),
        script(
            &csv,
            1,
            vec![
                read(&project, "shop/report.py"),
                edit(&project, "shop/report.py", CSV, ""),
            ],
        ),
        // The fixer finds nothing better: it reads and changes nothing.
        script(&csv, 2, vec![read(&project, "shop/report.py")]),
    ];
    let args = format!("{e711} {e712} {csv} --max-attempts 2");
    let (records, _) = fix_session(
        ctx,
        &project,
        scripts,
        &args,
        "fix done: 0 of 3 task(s) fixed",
    )?;

    let queue = queue(&project)?;
    let listed = backlog_by_id(&project)?;
    for id in [&e711, &e712, &csv] {
        let entry = queue.get(id).cloned().unwrap_or(Value::Null);
        ctx.checks.equal(
            &format!("{id} in fix.json"),
            &entry["status"].as_str(),
            &Some("quarantined"),
        );
        let handoff = entry["handoff"].as_str().unwrap_or("-");
        ctx.checks.that(project.path().join(handoff).is_file(), || {
            format!("{id}: no hand-off report at {handoff}")
        });
    }
    for (cause, id) in &tasks {
        let shown = listed.get(id).cloned().unwrap_or(Value::Null);
        ctx.checks.that(
            shown["status"] == "To Do" && shown["acceptanceCriteriaCompleted"] == 0,
            || format!("backlog task list --json: {cause:?} ({id}) should be To Do with nothing ticked: {shown}"),
        );
    }
    let view = project.backlog(&["task", "view", &e712, "--plain"])?;
    ctx.checks.that(view.contains("Status: ○ To Do"), || {
        format!("backlog task view {e712} --plain: {view}")
    });

    // What each recheck said: the weakened "passes" had the finding gone and the tests passing.
    let run_of = |id: &str| {
        queue
            .get(id)
            .and_then(|t| t["repair_run"].as_str().map(str::to_owned))
            .unwrap_or_default()
    };
    let expect = [
        (
            &e711,
            1,
            vec![
                "1 of 1 finding(s) of the group gone",
                "tests: `pytest -q` passed",
                "FAILED: check weakened: pyproject.toml: analyzer or test configuration edited",
            ],
        ),
        (&e711, 2, vec!["check weakened: shop/pricing.py"]),
        (
            &e712,
            1,
            vec![
                "1 of 1 finding(s) of the group gone",
                "tests: `pytest -q` FAILED",
                "test_a_pending_item_is_not_on_sale_yet",
            ],
        ),
        (
            &e712,
            2,
            vec![
                "1 of 1 finding(s) of the group gone",
                "tests: `pytest -q` passed",
                "FAILED: check weakened: tests/test_inventory.py: test file edited",
            ],
        ),
        (
            &csv,
            1,
            vec![
                "1 of 1 finding(s) of the group gone",
                "tests: `pytest -q` FAILED",
                "test_render_picks_the_report_by_name",
            ],
        ),
    ];
    for (id, attempt, wanted) in expect {
        let log = recheck_log(&project, &run_of(id), attempt);
        for want in wanted {
            ctx.checks.that(log.contains(want), || {
                format!("{id}: the recheck of attempt {attempt} does not say {want:?}: {log}")
            });
        }
    }

    // The cheats are in the tree (the client really made them), and each was refused.
    let text =
        |relative: &str| fs::read_to_string(project.path().join(relative)).unwrap_or_default();
    ctx.checks.that(
        text("pyproject.toml").contains("ignore = [\"E711\"]"),
        || "pyproject.toml does not hold the ignore list the fixer added".to_owned(),
    );
    ctx.checks
        .that(text("shop/pricing.py").contains("# noqa: E711"), || {
            "shop/pricing.py does not hold the fixer's noqa".to_owned()
        });
    ctx.checks.that(
        !text("tests/test_inventory.py").contains("test_a_pending_item_is_not_on_sale_yet"),
        || "the fixer did not delete the failing test".to_owned(),
    );
    ctx.checks
        .that(!text("shop/report.py").contains("def csv_report"), || {
            "shop/report.py still has csv_report".to_owned()
        });
    let calls = file_tool_calls(&records);
    let edits = calls.iter().filter(|(_, c, _)| c.name == "Edit").count();
    ctx.checks.equal("Edit calls", &edits, &5);
    for (thread, call, outcome) in &calls {
        ctx.checks
            .that(outcome.as_ref().is_some_and(|o| !o.is_error), || {
                format!("{thread}: {} {} failed: {outcome:?}", call.name, call.input)
            });
    }
    let status = project.self_repair_ok(&["status", "--run", RUN])?;
    ctx.checks.equal(
        "[quarantined] tasks in `self-repair status`",
        &status.matches("[quarantined]").count(),
        &3,
    );
    Ok(())
}
