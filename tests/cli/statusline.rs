//! Issue 24: `self-repair statusline`, the line Claude Code's `statusLine` shows under the
//! prompt: the client's JSON on stdin, one line about the project's run, nothing (exit 0) when
//! there is no run in progress or the input says nothing usable; and `status --items`.

use std::path::Path;

use serde_json::{Value, json};

use crate::harness::{NOW, TestProject, filters, jsonl_findings};
use crate::scripted_agent::{ScriptedAgent, dispatch_reason, launched};

/// What Claude Code 2.1.330 sends a status-line command (the fields it documents; the command
/// reads only the folders).
fn client_input(project_dir: &Path) -> String {
    json!({
        "hook_event_name": "Status",
        "session_id": "s1",
        "transcript_path": project_dir.join("claude-projects/s1.jsonl"),
        "cwd": project_dir.join("src"),
        "model": {"id": "claude-opus-5-5", "display_name": "Opus"},
        "workspace": {"current_dir": project_dir.join("src"), "project_dir": project_dir},
        "version": "2.1.330",
        "output_style": {"name": "default"},
        "cost": {"total_cost_usd": 0.01234, "total_duration_ms": 45000,
                 "total_api_duration_ms": 2300, "total_lines_added": 0, "total_lines_removed": 0},
        "exceeds_200k_tokens": false
    })
    .to_string()
}

/// `self-repair statusline` as the client runs it: from the home folder (not the project), the
/// client's JSON on stdin; asserts exit 0 and returns stdout.
fn statusline(project: &TestProject, now: u64) -> String {
    project
        .terminal(&["statusline"])
        .current_dir(project.path().join(".home"))
        .env("SELF_REPAIR_NOW", now.to_string())
        .stdin(client_input(project.path()))
        .run()
        .success()
        .stdout
}

/// A transcript row of one response (`cost.rs`'s shape).
fn response(model: &str, id: &str, input: u64) -> String {
    json!({"type": "assistant", "requestId": format!("req-{id}"),
        "message": {"id": id, "model": model, "stop_reason": "end_turn",
            "usage": {"input_tokens": input, "output_tokens": 0,
                "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}}})
    .to_string()
        + "\n"
}

/// A Stop of session `s1` whose main transcript is `transcript`; the block's launches.
fn stop(
    project: &TestProject,
    transcript: &Path,
    running: &[String],
) -> Option<(String, Vec<String>)> {
    let tasks: Vec<Value> = running
        .iter()
        .map(|id| {
            json!({"id": format!("a-{id}"), "type": "subagent", "status": "running",
                         "description": format!("triage {id}")})
        })
        .collect();
    let input = json!({"session_id": "s1", "hook_event_name": "Stop", "stop_hook_active": true,
        "cwd": project.path(), "transcript_path": transcript, "background_tasks": tasks});
    let out = project
        .cmd(&["hook", "stop"])
        .stdin(input.to_string())
        .run()
        .success();
    let answer: Value = serde_json::from_str(&out.stdout).ok()?;
    dispatch_reason(&answer).map(launched)
}

/// A run of 24 findings, one triage agent each in waves of 8, a $5 budget; the main session's
/// transcript is priced (one opus response).
fn started() -> (TestProject, std::path::PathBuf) {
    let project = TestProject::new();
    project.write(
        ".self-repair/config.json",
        r#"{"triage_batch": 1, "fan_out": 8, "survey_min": 0, "budget_usd": 5.0}"#,
    );
    project.write("findings.jsonl", &jsonl_findings(24));
    project.write("src/.keep", "");
    std::fs::create_dir_all(project.path().join(".home")).unwrap();
    project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-test"])
        .run()
        .success();
    let transcript = project.path().join("claude-projects/s1.jsonl");
    std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
    std::fs::write(&transcript, response("claude-opus-5-5", "m1", 200_000)).unwrap();
    (project, transcript)
}

#[test]
fn statusline_shows_the_run_at_its_start_mid_triage_and_in_a_later_phase_and_nothing_once_complete()
{
    let (project, transcript) = started();
    let settings = filters(&project);
    let agent = ScriptedAgent {
        project: &project,
        run: "r-test".to_owned(),
    };

    let at_start = statusline(&project, NOW);
    settings.bind(|| insta::assert_snapshot!("statusline_at_start", at_start));

    // Two waves of 8 answered, the third in flight: an ETA from the pace of the last ten
    // minutes, dollars from the ledger the hook keeps.
    let mut wave = stop(&project, &transcript, &[]).expect("first wave").1;
    for _ in 0..2 {
        for id in &wave {
            agent.work(id).success();
        }
        wave = stop(&project, &transcript, &[]).expect("next wave").1;
    }
    let mid_triage = statusline(&project, NOW + 60);
    settings.bind(|| insta::assert_snapshot!("statusline_mid_triage", mid_triage));
    assert!(mid_triage.contains("triage 16/24"), "{mid_triage}");

    // On to the first wave of a later phase.
    let mut later = None;
    for _ in 0..200 {
        for id in &wave {
            agent.work(id).success();
        }
        let Some((phase, ids)) = stop(&project, &transcript, &[]) else {
            break;
        };
        wave = ids;
        if phase == "plan" && later.is_none() {
            later = Some(statusline(&project, NOW + 120));
        }
    }
    let later = later.expect("the run reached the plan phase");
    settings.bind(|| insta::assert_snapshot!("statusline_plan_phase", later));
    let status = project.cmd(&["status", "--json"]).run().success().json();
    assert_eq!(status["status"], "complete", "{status}");
    assert_eq!(
        statusline(&project, NOW + 180),
        "",
        "a complete run says nothing"
    );
}

#[test]
fn statusline_prints_nothing_without_a_run_or_with_input_it_cannot_use_and_composes_with_the_users_line()
 {
    let empty = TestProject::new();
    std::fs::create_dir_all(empty.path().join(".home")).unwrap();
    assert_eq!(statusline(&empty, NOW), "", "no run in the project");

    let (project, _) = started();
    let line = statusline(&project, NOW);
    assert!(
        line.starts_with("self-repair r-test · triage 0/24"),
        "{line}"
    );
    // Kept for the next refreshes of the same minute while the run's files are unchanged.
    let cache =
        std::fs::read_to_string(project.run_dir("r-test").join("statusline.cache")).unwrap();
    assert_eq!(cache.split_once('\n').unwrap().1, line.trim_end());
    assert_eq!(statusline(&project, NOW + 30), line);
    // Input that is not JSON: the folder it was started in decides, like any command.
    let out = project
        .terminal(&["statusline"])
        .stdin("not json")
        .run()
        .success();
    assert_eq!(out.stdout, line);
    // A damaged state: nothing, never an error in the status bar.
    let state = project.run_dir("r-test").join("state.json");
    let good = std::fs::read(&state).unwrap();
    std::fs::write(&state, b"{\"schema_version\": 1, \"run\": ").unwrap();
    assert_eq!(statusline(&project, NOW), "");
    std::fs::write(&state, good).unwrap();

    // The user's own command runs first on the same stdin; a failing one is left out.
    let composed = project
        .terminal(&[
            "statusline",
            "--compose",
            "printf 'mine: '; grep -o '\"version\":\"[^\"]*\"'",
        ])
        .current_dir(project.path().join(".home"))
        .stdin(client_input(project.path()))
        .run()
        .success()
        .stdout;
    assert_eq!(composed, format!("mine: \"version\":\"2.1.330\"\n{line}"));
    let failing = project
        .terminal(&["statusline", "--compose", "echo broken; exit 3"])
        .stdin(client_input(project.path()))
        .run()
        .success()
        .stdout;
    assert_eq!(failing, line);

    project.cmd(&["cancel"]).run().success();
    assert_eq!(
        statusline(&project, NOW),
        "",
        "a cancelled run says nothing"
    );
}

/// A `--compose` command that hung (a `sleep 30`, with a child of its own) hung the user's
/// whole status bar: `statusline` waited for it with no deadline.
#[test]
fn a_hung_compose_command_is_stopped_and_the_status_line_answers_within_its_bound() {
    let (project, _) = started();
    let line = statusline(&project, NOW);
    let out = project
        .terminal(&[
            "statusline",
            "--compose",
            "echo partial; sleep 30 & sleep 30",
        ])
        .current_dir(project.path().join(".home"))
        .env("SELF_REPAIR_NOW", NOW.to_string())
        .stdin(client_input(project.path()))
        .run()
        .success();
    let took = out.elapsed;
    assert_eq!(
        out.stdout, line,
        "only our row, none of a command that did not finish"
    );
    assert_eq!(out.stderr, "", "nothing said in the status bar's place");
    let bound = self_repair_app::commands::statusline::COMPOSE_TIMEOUT;
    assert!(took >= bound, "stopped before its bound: {took:?}");
    assert!(
        took < std::time::Duration::from_secs(self_repair_install::REFRESH_SECONDS),
        "the status line took {took:?}, longer than the client's refresh"
    );
}

#[test]
fn status_items_lists_the_ids_of_each_phase_by_status() {
    let (project, transcript) = started();
    let agent = ScriptedAgent {
        project: &project,
        run: "r-test".to_owned(),
    };
    let wave = stop(&project, &transcript, &[]).expect("first wave").1;
    for id in wave.iter().take(5) {
        agent.work(id).success();
    }
    let out = project.cmd(&["status", "--items"]).run().success().stdout;
    filters(&project).bind(|| insta::assert_snapshot!("status_items_mid_triage", out));
    let json = project
        .cmd(&["status", "--items", "--json"])
        .run()
        .success()
        .json();
    let triage = &json["phases"][0];
    assert_eq!(triage["phase"], "triage");
    assert_eq!(triage["running"].as_array().unwrap().len(), 3, "{json}");
    assert_eq!(triage["done"].as_array().unwrap().len(), 5, "{json}");
    assert_eq!(triage["pending"].as_array().unwrap().len(), 16, "{json}");

    // The messages that send the user looking for ids name the command that lists them.
    let missing = project.cmd(&["show", "t-99999"]).run();
    assert!(
        missing
            .stderr
            .contains("`self-repair status --items` lists them"),
        "{}",
        missing.stderr
    );
}
