//! The repair pipeline through the binary: a toy project whose check fails until `state.txt`
//! says `fixed`, driven by stops with a scripted "model" that edits files between them.

use serde_json::Value;

use crate::harness::{NOW, Outcome, TestProject, filters};
use crate::scripted_agent::launched;
use self_repair_app::ExitStatus;

/// The check: prints the file, fails unless it says `fixed`.
const CHECK: &str = "cat state.txt; grep -q fixed state.txt || { echo 'FAIL: state.txt does not say fixed' >&2; exit 1; }";

fn git(project: &TestProject, args: &[&str]) {
    self_repair_test_support::git(project.path(), args);
}

/// A git project with `state.txt` = `broken`, committed.
fn toy() -> TestProject {
    let project = TestProject::new();
    std::fs::remove_dir_all(project.path().join(".git")).unwrap();
    git(&project, &["init", "-q"]);
    project.write("state.txt", "broken\n");
    git(&project, &["add", "."]);
    git(&project, &["commit", "-qm", "start"]);
    project
}

/// `self-repair check --run-id r --timeout 10 [extra] -- sh -c CHECK`: exit 0 unless the run
/// ended at once without a pass (exit 6).
fn start(project: &TestProject, extra: &[&str], script: &str) -> Outcome {
    let mut args = vec!["check", "--run-id", "r", "--timeout", "10"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--", "sh", "-c", script]);
    let out = project.cmd(&args).run();
    let gave_up = ["quarantined", "escalated", "infra_failure"]
        .iter()
        .any(|s| state(project)["status"] == *s);
    out.code(if gave_up {
        ExitStatus::GaveUp
    } else {
        ExitStatus::Success
    })
}

/// A Stop hook call; `running` lists the fix items still running in the background.
fn stop_at(project: &TestProject, session: &str, running: &[&str], now: u64) -> Outcome {
    let tasks: Vec<Value> = running
        .iter()
        .map(|id| {
            serde_json::json!({"id": format!("a-{id}"), "type": "subagent", "status": "running",
            "description": format!("fix {id}"), "agent_type": "self-repair:fixer"})
        })
        .collect();
    let input = serde_json::json!({"session_id": session, "hook_event_name": "Stop",
        "stop_hook_active": true, "cwd": project.path(), "background_tasks": tasks});
    let out = project
        .cmd(&["hook", "stop"])
        .env("SELF_REPAIR_NOW", now.to_string())
        .stdin(input.to_string())
        .run()
        .success();
    assert!(
        out.stdout.is_empty() || serde_json::from_str::<Value>(&out.stdout).is_ok(),
        "hook stdout is one JSON object or nothing: {}",
        out.stdout
    );
    out
}

fn stop(project: &TestProject, running: &[&str]) -> Outcome {
    stop_at(project, "s1", running, NOW)
}

fn answer(out: &Outcome) -> Value {
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout))
}

/// The instruction that keeps the session going: the Stop event's `additionalContext`, never
/// a `decision: block` (which the client shows as "Stop hook reported a problem").
fn block_reason(out: &Outcome) -> String {
    let a = answer(out);
    assert_eq!(a.get("decision"), None, "{a}");
    self_repair_engine::continuation(&a)
        .unwrap_or_else(|| panic!("the session is not kept going: {a}"))
        .to_owned()
}

fn message(out: &Outcome) -> String {
    answer(out)["systemMessage"]
        .as_str()
        .unwrap_or_else(|| panic!("no systemMessage: {}", out.stdout))
        .to_owned()
}

fn state(project: &TestProject) -> Value {
    serde_json::from_str(&project.read(".self-repair/runs/r/state.json")).unwrap()
}

fn journal(project: &TestProject) -> Vec<Value> {
    project
        .read(".self-repair/runs/r/journal.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Every `fix_ended` is followed by a recheck of that attempt before anything else is asked.
fn assert_every_fix_rechecked(journal: &[Value]) -> usize {
    let mut ended = 0;
    for (i, entry) in journal.iter().enumerate() {
        if entry["event"] != "fix_ended" {
            continue;
        }
        ended += 1;
        let attempt = &entry["attempt"];
        let next = journal[i + 1..]
            .iter()
            .find(|e| e["event"] == "check_finished" || e["event"] == "fix_asked")
            .unwrap_or_else(|| panic!("attempt {attempt} was never rechecked"));
        assert_eq!(next["event"], "check_finished", "attempt {attempt}: {next}");
        assert_eq!(next["record"]["purpose"], "recheck");
        assert_eq!(&next["record"]["attempt"], attempt);
    }
    ended
}

fn settings(project: &TestProject) -> insta::Settings {
    let mut settings = filters(project);
    settings.add_filter(r"\d+\.\d{2} s\b", "[DURATION]");
    settings.add_filter(r"\b[0-9a-f]{40}\b", "[COMMIT]");
    settings
}

#[test]
fn success_on_attempt_2_with_a_fixer_and_every_fix_rechecked() {
    let project = toy();
    let settings = settings(&project);
    let _guard = settings.bind_to_scope();
    let started = start(&project, &[], CHECK);
    assert!(
        started.stdout.contains("next: fix attempt 1 of 5 (main)"),
        "{}",
        started.stdout
    );

    // Attempt 1: the main session itself; the block reason is the feedback.
    let reason = block_reason(&stop(&project, &[]));
    insta::assert_snapshot!("repair_feedback_attempt_1", reason);
    project.write("state.txt", "wrong\n");

    // Attempt 2: rechecked (still failing, differently), then the fixer at the next tier.
    let reason = block_reason(&stop(&project, &[]));
    let (phase, ids) = launched(&reason);
    assert_eq!(
        (phase.as_str(), ids.as_slice()),
        ("repair", ["fix-2".to_owned()].as_slice())
    );
    assert!(
        reason.contains(
            r#""subagent_type":"self-repair:fixer","model":"sonnet","description":"fix fix-2""#
        ),
        "{reason}"
    );
    assert!(
        reason.contains(r#""prompt":"self-repair item fix-2 --run r","run_in_background":false"#),
        "one fixer, in the foreground: {reason}"
    );
    let shown = project.cmd(&["show", "fix-2"]).run().success();
    insta::assert_snapshot!("repair_fixer_task_2", shown.stdout);
    let json = project
        .cmd(&["show", "fix-2", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(json["agent"], "self-repair:fixer");
    assert_eq!(json["status"], "dispatched");
    project
        .cmd(&["show", "fix-9"])
        .run()
        .code(ExitStatus::NotFound);

    // While the fixer runs, stops are allowed silently; a foreign session changes nothing.
    assert_eq!(stop(&project, &["fix-2"]).stdout, "");
    let before = project.read(".self-repair/runs/r/state.json");
    assert_eq!(stop_at(&project, "someone-else", &[], NOW).stdout, "");
    assert_eq!(project.read(".self-repair/runs/r/state.json"), before);

    // The fixer fixed it; the binary's recheck decides.
    project.write("state.txt", "fixed\n");
    let done = message(&stop(&project, &[]));
    assert!(
        done.contains("success") && done.contains("after 2 fix attempts"),
        "{done}"
    );
    assert_eq!(
        stop(&project, &[]).stdout,
        "",
        "the outcome is announced once"
    );

    let s = state(&project);
    assert_eq!(s["status"], "success");
    assert_eq!(s["attempts"].as_array().unwrap().len(), 2);
    assert_eq!(s["attempts"][0]["files_changed"][0], "state.txt");
    let journal = journal(&project);
    assert_eq!(assert_every_fix_rechecked(&journal), 2);
    let status = project.cmd(&["status"]).run().success();
    insta::assert_snapshot!("repair_status_success", status.stdout);
    assert!(project.run_dir("r").join("summary.md").is_file());
    assert!(project.run_dir("r").join("attempts/2.log").is_file());
}

#[test]
fn circuit_breaker_opens_after_3_identical_failures_with_a_complete_handoff() {
    let project = toy();
    let settings = settings(&project);
    let _guard = settings.bind_to_scope();
    start(&project, &["--circuit-breaker", "3"], CHECK);
    block_reason(&stop(&project, &[]));
    // The "model" changes something, but not what matters: the failure stays identical.
    project.write("notes.txt", "tried 1\n");
    let (_, ids) = launched(&block_reason(&stop(&project, &[])));
    assert_eq!(ids, ["fix-2"]);
    project.write("notes.txt", "tried 2\n");
    let done = message(&stop(&project, &[]));
    assert!(
        done.contains("quarantined") && done.contains("3 identical failures"),
        "{done}"
    );
    assert!(
        done.contains(".self-repair/runs/r/handoff/report.md"),
        "{done}"
    );

    let handoff = project.run_dir("r").join("handoff");
    for file in [
        "report.md",
        "metadata.json",
        "diff.patch",
        "logs/0.log",
        "logs/1.log",
        "logs/2.log",
        "errors/check-01.md",
        "errors/check-03.md",
    ] {
        assert!(handoff.join(file).is_file(), "handoff/{file} missing");
    }
    let diff = project.read(".self-repair/runs/r/handoff/diff.patch");
    assert!(
        diff.contains("notes.txt") && diff.contains("+tried 2"),
        "{diff}"
    );
    let metadata: Value =
        serde_json::from_str(&project.read(".self-repair/runs/r/handoff/metadata.json")).unwrap();
    assert_eq!(metadata["status"], "quarantined");
    assert_eq!(metadata["attempts"].as_array().unwrap().len(), 2);
    assert!(metadata["git"]["head"].is_string());
    insta::assert_snapshot!(
        "repair_handoff_report",
        project.read(".self-repair/runs/r/handoff/report.md")
    );
    assert_every_fix_rechecked(&journal(&project));
}

#[test]
fn a_permanent_error_escalates_at_once_without_an_attempt() {
    let project = toy();
    let out = start(
        &project,
        &[],
        "echo 'open secrets.env: Permission denied' >&2; exit 1",
    );
    assert!(out.stdout.contains("escalated"), "{}", out.stdout);
    assert_eq!(
        out.code, 6,
        "a check that gives up at once says so by its exit status"
    );
    let s = state(&project);
    assert_eq!(s["status"], "escalated");
    assert_eq!(s["checks"].as_array().unwrap().len(), 1);
    assert!(s["attempts"].as_array().unwrap().is_empty());
    assert!(project.run_dir("r").join("handoff/report.md").is_file());
    // `check` told the user; the hook neither blocks nor repeats it.
    assert_eq!(stop(&project, &[]).stdout, "");

    // A command that does not exist is permanent too (exit 127).
    let other = toy();
    other
        .cmd(&[
            "check",
            "--run-id",
            "r",
            "--",
            "self-repair-no-such-command",
        ])
        .run()
        .code(ExitStatus::GaveUp);
    let s = state(&other);
    assert_eq!(s["status"], "escalated");
    assert_eq!(s["checks"][0]["exit_code"], 127);
}

#[test]
fn a_transient_failure_is_retried_with_backoff_without_spending_an_attempt() {
    let project = toy();
    // The first run is refused a connection; later runs are the real check.
    let script = format!(
        "n=$(cat .self-repair/count 2>/dev/null || echo 0); n=$((n+1)); echo $n > .self-repair/count; \
         if [ $n -eq 1 ]; then echo 'connect: Connection refused' >&2; exit 1; fi; {CHECK}"
    );
    start(&project, &["--backoff", "0.01"], &script);
    let s = state(&project);
    let classes: Vec<&str> = s["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["class"].as_str().unwrap())
        .collect();
    assert_eq!(classes, ["transient", "fixable"]);
    assert!(
        s["attempts"].as_array().unwrap().is_empty(),
        "no attempt spent"
    );
    assert!(
        journal(&project)
            .iter()
            .any(|e| e["event"] == "backoff_done")
    );
    let reason = block_reason(&stop(&project, &[]));
    assert!(reason.contains("attempt 1 of 5"), "{reason}");
}

#[test]
fn a_backoff_longer_than_the_hook_may_sleep_pauses_and_says_when_to_resume() {
    let project = toy();
    // Fails normally at first; from the second run on the service is unavailable.
    let script = "n=$(cat .self-repair/count 2>/dev/null || echo 0); n=$((n+1)); echo $n > .self-repair/count; \
         if [ $n -ge 2 ] && [ $n -le 2 ]; then echo '503 Service Unavailable' >&2; exit 1; fi; echo FAIL; exit 1";
    start(&project, &["--backoff", "100"], script);
    block_reason(&stop(&project, &[]));
    project.write("state.txt", "attempted\n");
    let wait = message(&stop(&project, &[]));
    assert!(
        wait.contains("transient") && wait.contains("2026-11-22T09:31:05Z"),
        "{wait}"
    );
    assert_eq!(state(&project)["status"], "waiting");
    // Before the time: allowed silently, nothing run. After it: the rerun happens.
    assert_eq!(stop_at(&project, "s1", &[], NOW + 50).stdout, "");
    assert_eq!(state(&project)["checks"].as_array().unwrap().len(), 2);
    let reason = block_reason(&stop_at(&project, "s1", &[], NOW + 200));
    assert!(reason.contains("fix-2"), "{reason}");
    assert_eq!(state(&project)["checks"].as_array().unwrap().len(), 3);
    assert_every_fix_rechecked(&journal(&project));
}

#[test]
fn attempts_that_change_nothing_are_detected_and_two_open_the_circuit() {
    let project = toy();
    start(&project, &["--circuit-breaker", "9"], CHECK);
    block_reason(&stop(&project, &[]));
    // The "model" ends its turn without changing anything.
    block_reason(&stop(&project, &[]));
    let s = state(&project);
    assert_eq!(s["attempts"][0]["no_change"], true);
    let shown = project.cmd(&["show", "fix-2"]).run().success().stdout;
    assert!(
        shown.contains("Attempt 1 (main) changed NO file"),
        "{shown}"
    );
    let done = message(&stop(&project, &[]));
    assert!(done.contains("2 attempts changed no file"), "{done}");
    let status = project.cmd(&["status"]).run().success().stdout;
    assert!(status.contains("0 (no change)"), "{status}");
    assert_eq!(assert_every_fix_rechecked(&journal(&project)), 2);
}

#[test]
fn the_autofix_runs_before_any_attempt_and_is_rechecked() {
    let project = toy();
    let out = project
        .cmd(&[
            "check",
            "--run-id",
            "r",
            "--timeout",
            "10",
            "--autofix",
            "--",
            "sh",
            "-c",
            "echo fixed > state.txt",
            "--",
            "sh",
            "-c",
            CHECK,
        ])
        .run()
        .success();
    assert!(
        out.stdout.contains("passes after the autofix"),
        "{}",
        out.stdout
    );
    let s = state(&project);
    assert_eq!(s["status"], "success");
    assert!(s["attempts"].as_array().unwrap().is_empty());
    assert_eq!(s["autofix"]["files_changed"][0], "state.txt");
    let purposes: Vec<&str> = s["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["purpose"].as_str().unwrap())
        .collect();
    assert_eq!(purposes, ["baseline", "autofix_recheck"]);
    project
        .cmd(&["check", "--run-id", "r2", "--autofix", "--", "true"])
        .run()
        .code(ExitStatus::Usage);
}

#[test]
fn a_named_check_comes_from_the_config_and_tick_drives_it_outside_claude_code() {
    let project = toy();
    project.write(
        ".self-repair/config.json",
        &serde_json::json!({"checks": {"toy": {"command": ["sh", "-c", CHECK], "retry": 1, "timeout": 10}}})
            .to_string(),
    );
    project
        .cmd(&["check", "toy", "--run-id", "r"])
        .run()
        .success();
    assert_eq!(state(&project)["spec"]["max_attempts"], 2);
    let asked = project.cmd(&["tick"]).run().success().stdout;
    assert!(
        asked.contains("attempt 1 of 2") && asked.contains("fix-1"),
        "{asked}"
    );
    project.write("state.txt", "fixed\n");
    let done = project.cmd(&["tick"]).run().success().stdout;
    assert!(done.contains("success"), "{done}");
    assert_eq!(assert_every_fix_rechecked(&journal(&project)), 1);
    project
        .cmd(&["check", "nope"])
        .run()
        .code(ExitStatus::NotFound);
}

/// `config.json` is read by one reader for every command: a typo under `checks` is refused by
/// `start` too, and a typo among the triage keys by `check`, each naming the key and the file.
#[test]
fn config_json_is_read_one_way_a_typo_in_any_section_is_refused_by_every_command() {
    let project = toy();
    project.write("findings.jsonl", &crate::harness::jsonl_findings(2));
    project.write(
        ".self-repair/config.json",
        &serde_json::json!({"checks": {"toy": {"comand": ["true"]}}}).to_string(),
    );
    let start = project
        .cmd(&["start", "findings.jsonl"])
        .run()
        .code(ExitStatus::Usage);
    assert!(
        start.stderr.contains("checks.toy") && start.stderr.contains("comand"),
        "{}",
        start.stderr
    );
    project.write(
        ".self-repair/config.json",
        &serde_json::json!({"fan_outt": 3, "checks": {"toy": {"command": ["true"]}}}).to_string(),
    );
    let check = project
        .cmd(&["check", "toy", "--run-id", "r"])
        .run()
        .code(ExitStatus::Usage);
    assert!(
        check.stderr.contains("fan_outt") && check.stderr.contains("config.json"),
        "{}",
        check.stderr
    );
}

#[test]
fn tick_exits_6_when_the_run_gives_up_so_a_script_can_tell() {
    let project = toy();
    start(&project, &["--max-attempts", "1"], CHECK);
    let mut last = project.cmd(&["tick"]).run().success();
    for _ in 0..5 {
        if state(&project)["status"] != "active" {
            break;
        }
        // Each attempt changes something, but never fixes it.
        let n = state(&project)["attempts"].as_array().unwrap().len();
        project.write("state.txt", &format!("still broken {n}\n"));
        last = project.cmd(&["tick"]).run();
    }
    assert_eq!(state(&project)["status"], "quarantined");
    assert_eq!(last.code, 6, "{}\n{}", last.stdout, last.stderr);
    assert!(
        last.stdout.contains("quarantined") && last.stdout.contains("report.md"),
        "the table and the hand-off report still go to stdout: {}",
        last.stdout
    );
    // Asking again tells the same, with the same exit status.
    project.cmd(&["tick"]).run().code(ExitStatus::GaveUp);
}

#[test]
fn triage_commands_refuse_a_repair_run_clearly_and_cancel_ends_it() {
    let project = toy();
    start(&project, &[], "grep -q fixed state.txt");
    for args in [
        &["next"][..],
        &["pause"],
        &["finalize"],
        &["status", "--findings"],
    ] {
        let out = project.cmd(args).run().code(ExitStatus::Usage);
        assert!(
            out.stderr.contains("is a repair run")
                && out
                    .stderr
                    .contains("`self-repair status` shows its attempts and next step"),
            "{args:?}: {}",
            out.stderr
        );
    }
    let out = project
        .cmd(&["submit", "t-00001", "--file", "state.txt"])
        .run()
        .code(ExitStatus::Usage);
    assert!(out.stderr.contains("is a repair run"), "{}", out.stderr);
    let runs = project.cmd(&["runs"]).run().success();
    assert!(runs.stdout.contains("* r    repair  "), "{}", runs.stdout);
    assert!(!runs.stdout.contains("unreadable"), "{}", runs.stdout);
    project.cmd(&["cancel"]).run().success();
    assert_eq!(
        stop(&project, &[]).stdout,
        "",
        "a cancelled repair run is never blocked"
    );
}

/// The path a message names after "Hand-off report" (or "hand-off report (...)"), checked to
/// exist in the project.
fn assert_named_report_exists(project: &TestProject, text: &str) {
    let at = text
        .rfind(".self-repair/runs/")
        .unwrap_or_else(|| panic!("no hand-off report named: {text}"));
    let named: String = text[at..]
        .chars()
        .take_while(|c| !c.is_whitespace())
        .collect();
    assert!(named.ends_with("handoff/report.md"), "{text}");
    assert!(
        project.path().join(&named).is_file(),
        "the message names {named}, which does not exist: {text}"
    );
    assert!(
        project.run_dir("r").join("handoff/metadata.json").is_file(),
        "the whole bundle is written, not only the report"
    );
}

#[test]
fn tick_ending_the_run_writes_the_handoff_it_names() {
    // The bug: tick's recheck after an attempt ended the run (circuit open), named
    // handoff/report.md, and never wrote the hand-off folder.
    let project = toy();
    start(
        &project,
        &["--max-attempts", "4", "--hook-budget", "0"],
        CHECK,
    );
    let mut last = None;
    for n in 1..=4 {
        // Each attempt changes something, never what matters: the failure stays identical.
        project.write("notes.txt", &format!("tried {n}\n"));
        let out = project.cmd(&["tick"]).run();
        let over = state(&project)["status"] != "active";
        last = Some(out);
        if over {
            break;
        }
    }
    let last = last.unwrap();
    assert_eq!(state(&project)["status"], "quarantined");
    assert!(
        last.stdout.contains("3 identical failures"),
        "{}",
        last.stdout
    );
    assert_named_report_exists(&project, &last.stdout);
}

#[test]
fn the_hook_ending_the_run_writes_the_handoff_it_names() {
    let project = toy();
    start(&project, &["--max-attempts", "4"], CHECK);
    block_reason(&stop(&project, &[]));
    let mut done = String::new();
    for n in 1..=4 {
        project.write("notes.txt", &format!("tried {n}\n"));
        let out = stop(&project, &[]);
        // The ending is one block that relays the outcome line (and says it as systemMessage).
        if answer(&out).get("systemMessage").is_some() {
            done = message(&out);
            break;
        }
    }
    assert!(done.contains("3 identical failures"), "{done}");
    assert_named_report_exists(&project, &done);
}

#[test]
fn check_ending_the_run_at_once_writes_the_handoff_it_names() {
    let project = toy();
    let out = start(
        &project,
        &[],
        "echo 'open x: Permission denied' >&2; exit 1",
    );
    assert_named_report_exists(&project, &out.stdout);
}

#[test]
fn cancel_writes_the_handoff_it_names() {
    let project = toy();
    start(&project, &[], CHECK);
    block_reason(&stop(&project, &[]));
    project.write("notes.txt", "half done\n");
    let out = project.cmd(&["cancel"]).run().success();
    assert_named_report_exists(&project, &out.stdout);
    let diff = project.read(".self-repair/runs/r/handoff/diff.patch");
    assert!(diff.contains("+half done"), "{diff}");
    assert_eq!(state(&project)["status"], "cancelled");
}

#[test]
fn an_infra_failure_writes_the_handoff_it_names() {
    let project = toy();
    start(&project, &[], CHECK);
    block_reason(&stop(&project, &[]));
    project.write("state.txt", "attempted\n");
    // The recheck's log cannot be created: self-repair itself cannot go on.
    std::fs::create_dir_all(project.run_dir("r").join("attempts/1.log")).unwrap();
    let done = message(&stop(&project, &[]));
    assert!(done.contains("infra_failure"), "{done}");
    assert_named_report_exists(&project, &done);
}

/// A check that fails fast unless `state.txt` says `slow` (then it sleeps `secs` first).
fn slow_when_asked(secs: &str) -> String {
    format!("if grep -q slow state.txt; then sleep {secs}; fi; {CHECK}")
}

#[test]
fn a_fast_check_runs_in_the_hook_without_a_tick_turn() {
    // The bug: with the default 120 s timeout and 25 s budget, the hook asked for
    // `self-repair tick` after every fix even when the check took 0.15 s.
    let project = toy();
    project
        .cmd(&["check", "--run-id", "r", "--", "sh", "-c", CHECK])
        .run()
        .success();
    block_reason(&stop(&project, &[]));
    project.write("state.txt", "wrong\n");
    let (_, ids) = launched(&block_reason(&stop(&project, &[])));
    assert_eq!(ids, ["fix-2"], "rechecked in the hook, then attempt 2");
    project.write("state.txt", "fixed\n");
    let done = message(&stop(&project, &[]));
    assert!(done.contains("success"), "{done}");
    assert!(
        !journal(&project)
            .iter()
            .any(|e| e["event"] == "tick_requested"),
        "no turn spent on `self-repair tick`"
    );
}

#[test]
fn a_check_slower_than_the_hook_budget_allows_is_handed_to_tick() {
    let project = toy();
    project.write("state.txt", "broken slow\n");
    git(&project, &["commit", "-qam", "slow"]);
    project
        .cmd(&[
            "check",
            "--run-id",
            "r",
            "--hook-budget",
            "1",
            "--",
            "sh",
            "-c",
            &slow_when_asked("0.6"),
        ])
        .run()
        .success();
    block_reason(&stop(&project, &[]));
    project.write("state.txt", "still slow\n");
    let reason = block_reason(&stop(&project, &[]));
    assert!(
        reason.contains("Run `self-repair tick`") && reason.contains("in its recent runs"),
        "0.6 s measured, doubled plus 1 s, does not fit 1 s: {reason}"
    );
    assert_eq!(state(&project)["checks"].as_array().unwrap().len(), 1);
    let ticked = project.cmd(&["tick"]).run().success().stdout;
    assert!(ticked.contains("attempt 2"), "{ticked}");
}

#[test]
fn a_check_that_overruns_the_hook_budget_is_stopped_and_handed_to_tick() {
    let project = toy();
    project
        .cmd(&[
            "check",
            "--run-id",
            "r",
            "--hook-budget",
            "1.5",
            "--",
            "sh",
            "-c",
            &slow_when_asked("3"),
        ])
        .run()
        .success();
    block_reason(&stop(&project, &[]));
    // The fix makes the check slow: it ran fast before, so the hook tries it, and cuts it.
    project.write("state.txt", "slow\n");
    let reason = block_reason(&stop(&project, &[]));
    assert!(
        reason.contains("Run `self-repair tick`") && reason.contains("was stopped"),
        "{reason}"
    );
    let s = state(&project);
    assert!(s["hook_overrun_ms"].as_u64().unwrap() >= 400, "{s}");
    assert_eq!(
        s["checks"].as_array().unwrap().len(),
        1,
        "the cut run is not a result"
    );
    assert!(
        journal(&project)
            .iter()
            .any(|e| e["event"] == "check_overran")
    );
    // tick reruns it with the full timeout; the hook leaves later checks to tick too.
    let ticked = project.cmd(&["tick"]).run().success().stdout;
    assert!(ticked.contains("attempt 2"), "{ticked}");
    assert_eq!(state(&project)["checks"][1]["timed_out"], false);
}

/// Issue 25: a repair `state.json` that did not parse was reported as "a copy was kept at …;
/// run `self-repair doctor` to rebuild it from the journal", but the "copy" named was the
/// damaged file itself, and `doctor` skipped repair runs. Now the store's one loader keeps a
/// copy aside for both kinds of run, and `doctor` replays the journal over the initial state,
/// so the run goes on where it was.
#[test]
fn a_corrupt_repair_state_keeps_a_copy_and_doctor_repairs_it() {
    let project = toy();
    start(&project, &[], CHECK);
    block_reason(&stop(&project, &[]));
    project.write("state.txt", "wrong\n");
    // Attempt 1 ends, is rechecked, and attempt 2 goes to the fixer.
    block_reason(&stop(&project, &[]));
    let before = state(&project);
    let damaged = "{\"schema_version\": 1, \"run\": ";
    project.write(".self-repair/runs/r/state.json", damaged);

    let status = project.cmd(&["status"]).run().code(ExitStatus::Failure);
    let kept = status
        .stderr
        .split("a copy was kept at ")
        .nth(1)
        .and_then(|rest| rest.split(". Run `self-repair doctor`").next())
        .unwrap_or_else(|| panic!("no kept copy named: {}", status.stderr));
    assert_ne!(
        std::path::Path::new(kept),
        project.run_dir("r").join("state.json"),
        "the copy is not the file a rebuild replaces"
    );
    assert_eq!(
        std::fs::read_to_string(kept).unwrap_or_else(|e| panic!("{kept}: {e}")),
        damaged,
        "the copy the message names holds the damaged file"
    );

    let doctor = project.cmd(&["doctor", "--runs-only"]).run().success();
    assert!(
        doctor.stdout.contains(
            "r: rebuilt state.json from state.initial.json and 6 journal entries (repair run, status active, 2 checks, 2 attempts)"
        ),
        "{}",
        doctor.stdout
    );
    assert_eq!(state(&project), before, "the rebuilt state is the lost one");
    assert_eq!(
        std::fs::read_to_string(kept).unwrap(),
        damaged,
        "the copy stays"
    );
    let again = project.cmd(&["doctor", "--runs-only"]).run().success();
    assert!(
        again
            .stdout
            .contains("r: ok (repair run, status active, 2 checks, 2 attempts)"),
        "{}",
        again.stdout
    );

    // The fixer's change passes the recheck, as if nothing had happened.
    project.write("state.txt", "fixed\n");
    let done = message(&stop(&project, &[]));
    assert!(done.contains("after 2 fix attempts"), "{done}");
}

/// The limit of the rebuild: with `state.initial.json` damaged too, `doctor` says the run
/// cannot be recovered and what to do (exit 5), instead of replaying over nothing.
#[test]
fn a_repair_run_whose_initial_state_is_damaged_too_is_reported_not_rebuilt() {
    let project = toy();
    start(&project, &[], CHECK);
    project.write(".self-repair/runs/r/state.json", "{");
    project.write(".self-repair/runs/r/state.initial.json", "{");
    let doctor = project
        .cmd(&["doctor", "--runs-only"])
        .run()
        .code(ExitStatus::Conflict);
    let all = format!("{}{}", doctor.stdout, doctor.stderr);
    assert!(
        all.contains("state.initial.json is unusable")
            && all.contains("start a new one with `self-repair check`")
            && all.contains("attempts"),
        "{all}"
    );
}

/// Issue 24 item 3 for repair runs: nothing the hook says for a repair run reads as a problem.
/// An instruction keeps the session going as `additionalContext`; at a terminal
/// (`CLAUDE_CODE_SESSION_ATTENDED=1`) the ending is said once as the hook's message and the
/// stop is allowed, where unattended the session is asked to end its turn with it.
#[test]
fn a_repair_run_at_a_terminal_never_blocks_and_says_its_ending_once() {
    let project = toy();
    start(&project, &["--max-attempts", "4"], CHECK);
    let attended = |project: &TestProject| {
        let input = serde_json::json!({"session_id": "s1", "hook_event_name": "Stop",
            "stop_hook_active": true, "cwd": project.path(), "background_tasks": []});
        let out = project
            .cmd(&["hook", "stop"])
            .env("CLAUDE_CODE_SESSION_ATTENDED", "1")
            .stdin(input.to_string())
            .run()
            .success();
        answer(&out)
    };
    let first = attended(&project);
    assert_eq!(first.get("decision"), None, "{first}");
    assert!(
        self_repair_engine::continuation(&first).is_some(),
        "{first}"
    );
    for n in 1..=4 {
        project.write("notes.txt", &format!("tried {n}\n"));
        let said = attended(&project);
        assert_eq!(said.get("decision"), None, "{said}");
        if let Some(line) = said.get("systemMessage") {
            assert!(
                self_repair_engine::continuation(&said).is_none(),
                "at a terminal the ending lets the session stop: {said}"
            );
            assert!(
                line.as_str().unwrap().contains("3 identical failures"),
                "{said}"
            );
            return;
        }
    }
    panic!("the run did not end in 4 attempts");
}
