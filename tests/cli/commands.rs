//! The smaller commands' user-visible outputs: `next`, `refs`, `hook session-start`, `demo`, `start`'s errors.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::harness::{TestProject, filters};
use crate::pipeline::started;
use self_repair_app::ExitStatus;

fn files(dir: &std::path::Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.insert(path.display().to_string(), std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

#[test]
fn next_shows_the_dispatch_the_hook_would_give_and_changes_nothing() {
    let project = started(3);
    let before = files(&project.path().join(".self-repair"));
    let out = project.cmd(&["next"]).run().success();
    assert!(
        out.stdout.starts_with("PREVIEW ONLY, changes nothing"),
        "a model must not launch from next: {}",
        out.stdout
    );
    assert!(
        out.stdout.contains("\nphase triage: 3 agent(s)\n")
            && out
                .stdout
                .contains("\n{\"self_repair\":2,\"progress\":\"0 of ~")
            && out.stdout.contains(" agents\",\"launch\":[{"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("\"prompt\":\"self-repair item t-00003 --run r-test\""),
        "{}",
        out.stdout
    );
    let after = files(&project.path().join(".self-repair"));
    let changed: Vec<&String> = after
        .keys()
        .chain(before.keys())
        .filter(|k| after.get(*k) != before.get(*k))
        .collect();
    assert!(changed.is_empty(), "next changed {changed:?}");
    // The hook then gives exactly that dispatch.
    let stop = project.stop("s1", &[]);
    let answer = serde_json::from_str::<Value>(&stop.stdout).unwrap();
    let reason = self_repair_engine::continuation(&answer)
        .unwrap()
        .to_owned();
    let json = |text: &str| {
        text[text.find(self_repair_engine::DISPATCH_START).unwrap()..]
            .trim_end()
            .to_owned()
    };
    assert_eq!(json(&reason), json(&out.stdout));
}

#[test]
fn refs_lists_word_boundary_references_with_file_and_line() {
    let project = TestProject::new();
    project
        .write("a.py", "import os\nposix = 1\nprint(os.sep)\n")
        .write("b/c.py", "from a import os\n")
        .write(".gitignore", "skip/\n")
        .write("skip/d.py", "os\n");
    let out = project.cmd(&["refs", "os"]).run().success();
    let settings = filters(&project);
    settings.bind(|| insta::assert_snapshot!("refs_os", out.stdout));
    assert!(!out.stdout.contains("posix") && !out.stdout.contains("skip/"));
}

#[test]
fn session_start_after_a_compaction_reminds_the_bound_session_of_its_run() {
    let project = started(3);
    assert!(project.stop("s1", &[]).stdout.contains("additionalContext"));
    let input = |session: &str, source: &str| {
        serde_json::json!({"session_id": session, "hook_event_name": "SessionStart",
            "source": source, "cwd": project.path()})
        .to_string()
    };
    let out = project
        .cmd(&["hook", "session-start"])
        .stdin(input("s1", "compact"))
        .run()
        .success();
    let answer: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        answer["hookSpecificOutput"]["hookEventName"],
        "SessionStart"
    );
    let _guard = filters(&project).bind_to_scope();
    insta::assert_snapshot!(
        "session_start_context",
        answer["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
    );
    let out = project
        .cmd(&["hook", "session-start"])
        .stdin(input("s1", "startup"))
        .run()
        .success();
    // Its own start says nothing about the run, only, once, how to see its progress under the
    // prompt (no settings file sets a status line here).
    let answer: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        answer,
        serde_json::json!({"systemMessage": self_repair_app::hooks::status_line_offer::STATUS_LINE_OFFER})
    );
    let again = project
        .cmd(&["hook", "session-start"])
        .stdin(input("s1", "startup"))
        .run()
        .success();
    assert_eq!(again.stdout, "", "the offer is made once per run");
}

/// The offer checks the user's settings where Claude Code reads them: with `CLAUDE_CONFIG_DIR`
/// set, a `statusLine` there silences it, and one in `~/.claude/settings.json` (which that client
/// does not read) does not.
#[test]
fn the_status_line_offer_reads_the_users_settings_from_claude_config_dir() {
    let status_line = r#"{"statusLine": {"type": "command", "command": "mine"}}"#;
    for (file, offered) in [
        ("config/settings.json", false),
        (".home/.claude/settings.json", true),
    ] {
        let project = started(3);
        assert!(project.stop("s1", &[]).stdout.contains("additionalContext"));
        project.write(file, status_line);
        std::fs::create_dir_all(project.path().join("config")).unwrap();
        let out = project
            .cmd(&["hook", "session-start"])
            .env("CLAUDE_CONFIG_DIR", project.path().join("config"))
            .stdin(
                serde_json::json!({"session_id": "s1", "hook_event_name": "SessionStart",
                    "source": "startup", "cwd": project.path()})
                .to_string(),
            )
            .run()
            .success();
        assert_eq!(
            out.stdout.contains("install --status-line"),
            offered,
            "statusLine in {file}: {}",
            out.stdout
        );
    }
}

#[test]
fn a_new_session_hears_once_that_a_run_waits_for_adopt() {
    let project = started(3);
    let _guard = filters(&project).bind_to_scope();
    assert!(project.stop("s1", &[]).stdout.contains("additionalContext"));
    for source in ["startup", "clear", "resume"] {
        let stdin = serde_json::json!({"session_id": "s2", "hook_event_name": "SessionStart",
            "source": source, "cwd": project.path()})
        .to_string();
        let out = project
            .cmd(&["hook", "session-start"])
            .stdin(stdin)
            .run()
            .success();
        let answer: Value = serde_json::from_str(&out.stdout).unwrap();
        let context = answer["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap();
        assert!(context.contains("self-repair adopt"), "{source}: {context}");
        if source == "startup" {
            insta::assert_snapshot!("session_start_waiting_run_context", context);
            insta::assert_snapshot!(
                "session_start_waiting_run_message",
                answer["systemMessage"].as_str().unwrap()
            );
        }
        assert!(
            answer["systemMessage"]
                .as_str()
                .unwrap()
                .contains("run r-test is in progress"),
            "{source}"
        );
    }
    // The Stop hook stays silent for the other session and writes nothing.
    assert_eq!(project.stop("s2", &[]).stdout, "");
}

/// The bug: a run started from a terminal was bound to whichever Claude Code session stopped
/// first in the project (an unrelated session the user happened to have open). Only `adopt`
/// (the skill runs it when the user asks to continue the run) binds it.
#[test]
fn a_run_started_in_a_terminal_is_bound_only_by_adopt_never_by_the_first_session_to_stop() {
    let project = TestProject::new();
    project.write(".self-repair/config.json", r#"{"triage_batch": 1}"#);
    project.write("findings.jsonl", &crate::harness::jsonl_findings(3));
    let start = project
        .terminal(&["start", "findings.jsonl", "--run-id", "r-test"])
        .run()
        .success()
        .stdout;
    assert!(start.contains("no session drives it yet"), "{start}");
    assert!(start.contains("self-repair adopt"), "{start}");
    let state = || -> Value {
        serde_json::from_str(&project.read(".self-repair/runs/r-test/state.json")).unwrap()
    };
    for session in ["s1", "s2", "s1"] {
        assert_eq!(
            project.stop(session, &[]).stdout,
            "",
            "{session} drives nothing"
        );
    }
    assert_eq!(state()["session"], Value::Null, "no stop bound it");
    let status = project.cmd(&["status"]).run().success().stdout;
    assert!(status.contains("self-repair adopt"), "{status}");
    project
        .terminal(&["adopt", "--session", "s2"])
        .run()
        .success();
    assert_eq!(
        project.stop("s1", &[]).stdout,
        "",
        "s1 still drives nothing"
    );
    let out = project.stop("s2", &[]).stdout;
    assert!(out.contains("self-repair item t-00001"), "{out}");
}

#[test]
fn the_demo_runs_the_whole_pipeline_and_says_where_the_outputs_are() {
    let dir = tempfile::tempdir().unwrap();
    let demo = dir.path().join("demo");
    let out = crate::harness::TestProject::new()
        .cmd(&["demo", "--dir", demo.to_str().unwrap()])
        .run()
        .success();
    assert!(
        out.stdout.contains("SIMULATED agent"),
        "the simulated agent is labelled"
    );
    assert!(
        out.stdout.contains("complete: 26 findings"),
        "{}",
        out.stdout
    );
    // It ends with the next steps `status` shows, as the session's closing line names them.
    let status = crate::harness::TestProject::new()
        .cmd(&["-C", demo.to_str().unwrap(), "status"])
        .run()
        .success()
        .stdout;
    let next = status
        .lines()
        .find(|line| line.starts_with("next: "))
        .unwrap();
    assert!(
        next.contains("then `self-repair fix` for 8 tasks"),
        "{next}"
    );
    assert!(
        out.stdout.contains(&format!("\n{next}\n")),
        "{}",
        out.stdout
    );
    let tasks = std::fs::read_dir(demo.join("backlog/tasks"))
        .unwrap()
        .count();
    assert_eq!(tasks, 8);
    assert!(out.stdout.contains("tasks (8):"));
    assert!(out.stdout.contains("report: "));
    // Its three parts are a monorepo `init` reads (the review found it proposed nothing); the
    // Ruff detector the demo wrote, which reproduces its findings (issue 42), is kept.
    let init = crate::harness::TestProject::new()
        .terminal(&["init", "--dry-run"])
        .current_dir(&demo)
        .run()
        .success();
    assert!(
        init.stdout.contains("kept: detector `ruff-py`")
            && ["eslint-js", "clippy-rs"].iter().all(|name| init
                .stdout
                .contains(&format!("would add: detector `{name}`"))),
        "{}",
        init.stdout
    );
    let again = crate::harness::TestProject::new()
        .cmd(&["demo", "--dir", demo.to_str().unwrap()])
        .run()
        .code(ExitStatus::Usage);
    assert!(again.stderr.contains("already holds a self-repair project"));
}

/// `demo -C DIR` was offered by `demo --help` (`-C` is global) and ignored: the demo went to
/// the temp folder. It is the demo's folder, as `--dir` is; the two naming different folders
/// is refused.
#[test]
fn demo_takes_its_folder_from_dash_c_as_from_dir() {
    let dir = tempfile::tempdir().unwrap();
    let demo = dir.path().join("by-c");
    let out = crate::harness::TestProject::new()
        .cmd(&["-C", demo.to_str().unwrap(), "demo"])
        .run()
        .success();
    assert!(
        out.stdout
            .contains(&format!("project: {}\n", demo.display())),
        "{}",
        out.stdout
    );
    assert_eq!(
        std::fs::read_dir(demo.join("backlog/tasks"))
            .unwrap()
            .count(),
        8
    );
    let other = dir.path().join("other");
    let both = crate::harness::TestProject::new()
        .cmd(&[
            "-C",
            other.to_str().unwrap(),
            "demo",
            "--dir",
            dir.path().join("third").to_str().unwrap(),
        ])
        .run()
        .code(ExitStatus::Usage);
    assert!(
        both.stderr
            .contains("name two folders: give the demo's folder once"),
        "{}",
        both.stderr
    );
    assert!(!other.exists() && !dir.path().join("third").exists());
}

#[test]
fn start_on_a_bad_line_names_it_once_exits_2_and_creates_nothing() {
    let project = TestProject::new();
    let good = crate::harness::jsonl_findings(3);
    let mut lines: Vec<&str> = good.lines().collect();
    lines.insert(1, r#"{"tool":"ruff","message":"no rule id","path":"a.py"}"#);
    project.write("f.jsonl", &(lines.join("\n") + "\n"));

    let out = project
        .cmd(&["start", "f.jsonl"])
        .run()
        .code(ExitStatus::Usage);
    assert!(
        out.stderr
            .starts_with("self-repair: f.jsonl: line 2: missing field `rule_id`"),
        "the file is named once, with the line and the field: {}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("required: tool, rule_id, message, path")
    );
    assert!(
        !project.path().join(".self-repair").exists(),
        "nothing is created"
    );
}

/// A dead-code investigator used to see the analyzer's own report (and the backlog's tasks) as
/// "uses" of the symbol it checks: the run's inputs and `backlog/` are never references.
#[test]
fn a_dead_code_investigator_does_not_see_the_analyzers_report_as_a_use() {
    let project = TestProject::new();
    project
        .write(
            "app.py",
            "def helper():\n    return 1\n\n\ndef used():\n    return 2\n\n\nprint(used())\n",
        )
        .write(
            "vulture.txt",
            "app.py:1: unused function 'helper' (60% confidence)\n",
        )
        .write(
            "backlog/tasks/task-1 - Remove-helper.md",
            "Remove helper from app.py\n",
        )
        .write("notes/why.md", "helper is kept for the plugin API\n");
    project
        .cmd(&["start", "vulture.txt", "--run-id", "r-dead"])
        .run()
        .success();
    let recorded = project.read(".self-repair/runs/r-dead/inputs.json");
    assert!(recorded.contains("\"vulture.txt\""), "{recorded}");
    let shown = project.cmd(&["show", "t-00001"]).run().success().stdout;
    assert!(
        shown.contains("notes/why.md"),
        "a real mention is still shown: {shown}"
    );
    assert!(
        !shown.contains("vulture.txt:1"),
        "the report is not a use: {shown}"
    );
    assert!(
        !shown.contains("backlog/tasks"),
        "the backlog is not a use: {shown}"
    );
    let refs = project.cmd(&["refs", "helper"]).run().success().stdout;
    assert!(
        refs.contains("notes/why.md") && !refs.contains("vulture.txt"),
        "{refs}"
    );
}

/// `status` shows what the run cost so far, read from the session's transcripts: the main
/// transcript the hook recorded and each sub-agent transcript whose first message names an item
/// of this run (another run's agent is not counted).
#[test]
fn status_shows_the_cost_so_far_per_phase_from_the_transcripts() {
    let project = started(3);
    let _guard = filters(&project).bind_to_scope();
    let sessions = project.path().join("claude-projects");
    let main = sessions.join("s1.jsonl");
    let row = |model: &str, id: &str, input: u64, output: u64| {
        serde_json::json!({"type": "assistant", "requestId": format!("req-{id}"),
            "message": {"id": id, "model": model, "stop_reason": "end_turn",
                "usage": {"input_tokens": input, "output_tokens": output,
                    "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}}})
        .to_string()
            + "\n"
    };
    let first = |text: &str| {
        serde_json::json!({"type": "user", "message": {"role": "user", "content": text}})
            .to_string()
            + "\n"
    };
    std::fs::create_dir_all(sessions.join("s1/subagents")).unwrap();
    // Main session: 1M input on opus-5 ($4), agents: one triage on haiku-5 (1M in: $0.10), one
    // of another run (not counted).
    std::fs::write(&main, row("claude-opus-5-5", "m1", 1_000_000, 0)).unwrap();
    std::fs::write(
        sessions.join("s1/subagents/agent-a1.jsonl"),
        first("self-repair item t-00001 --run r-test")
            + &row("claude-haiku-5-5", "a1", 1_000_000, 0),
    )
    .unwrap();
    std::fs::write(
        sessions.join("s1/subagents/agent-a2.jsonl"),
        first("self-repair item t-00001 --run r-other")
            + &row("claude-haiku-5-5", "a2", 9_000_000, 0),
    )
    .unwrap();
    project.write(
        ".self-repair/runs/r-test/transcript.json",
        &serde_json::json!({"path": main, "offset": 0}).to_string(),
    );
    let text = project.cmd(&["status"]).run().success().stdout;
    assert!(text.contains("cost so far: $4.1000"), "{text}");
    let cost = &text[text.find("cost so far").unwrap()..];
    insta::assert_snapshot!("status_cost_section", cost);
    assert!(text.contains("triage         $0.1000"), "{text}");
    let json = project.cmd(&["status", "--json"]).run().success().json();
    let total = json["cost"]["total_usd"].as_f64().unwrap();
    assert!((total - 4.1).abs() < 1e-9, "{json}");
}
