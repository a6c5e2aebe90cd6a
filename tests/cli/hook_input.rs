//! The hook's stdin: every real input shape parses; bad input always allows, silently on stdout.

use serde_json::Value;

use crate::harness::TestProject;
use crate::pipeline::started;

fn fixtures() -> Vec<(String, String)> {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/claude-code/stdin");
    let mut files: Vec<(String, String)> = std::fs::read_dir(dir)
        .expect("fixtures")
        .map(|e| {
            let path = e.expect("entry").path();
            (
                path.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&path).expect("read fixture"),
            )
        })
        .collect();
    files.sort();
    assert!(files.len() >= 12, "fixtures missing");
    files
}

/// The fixture with its `cwd` pointed at the test project.
fn in_project(text: &str, project: &TestProject) -> String {
    let mut value: Value = serde_json::from_str(text).expect("fixture is JSON");
    value["cwd"] = Value::String(project.path().display().to_string());
    value.to_string()
}

#[test]
fn every_client_fixture_parses_and_is_allowed_silently_without_a_run() {
    let project = TestProject::new();
    for (name, text) in fixtures() {
        let out = project
            .cmd(&["hook", "stop"])
            .stdin(in_project(&text, &project))
            .run();
        assert_eq!(
            (out.code, out.stdout.as_str(), out.stderr.as_str()),
            (0, "", ""),
            "{name}"
        );
    }
}

#[test]
fn every_stop_fixture_drives_a_fresh_run() {
    for (name, text) in fixtures()
        .into_iter()
        .filter(|(n, _)| n.starts_with("stop."))
    {
        let project = started(3);
        // The run is bound to the session the captured stop names (as the skill's `start`
        // in that session binds it).
        let session = serde_json::from_str::<Value>(&text).unwrap()["session_id"]
            .as_str()
            .unwrap()
            .to_owned();
        project
            .cmd(&["adopt", "--session", &session])
            .run()
            .success();
        let out = project
            .cmd(&["hook", "stop"])
            .stdin(in_project(&text, &project))
            .run()
            .success();
        let answer: Value = serde_json::from_str(&out.stdout)
            .unwrap_or_else(|e| panic!("{name}: {e}: {}", out.stdout));
        assert!(
            self_repair_engine::continuation(&answer).is_some(),
            "{name}"
        );
        assert_eq!(
            out.stdout.lines().count(),
            1,
            "{name}: one compact JSON line"
        );
    }
}

#[test]
fn bad_stdin_allows_with_exit_0_and_nothing_on_stdout() {
    let project = started(3);
    let huge = format!(
        "{{\"session_id\":\"s\",\"pad\":\"{}\"",
        "x".repeat(10 * 1024 * 1024)
    );
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("not json", b"hello".to_vec()),
        ("array", b"[1,2]".to_vec()),
        ("10 MB unterminated", huge.into_bytes()),
        (
            "no session_id",
            br#"{"hook_event_name":"Stop","stop_hook_active":true}"#.to_vec(),
        ),
        (
            "wrong types",
            br#"{"session_id":42,"background_tasks":"x"}"#.to_vec(),
        ),
    ];
    for (name, stdin) in cases {
        let out = project.cmd(&["hook", "stop"]).stdin(stdin).run();
        assert_eq!(out.code, 0, "{name}");
        assert_eq!(out.stdout, "", "{name}");
    }
    let state: Value =
        serde_json::from_str(&project.read(".self-repair/runs/r-test/state.json")).unwrap();
    assert_eq!(state["blocks"], 0, "bad input drove nothing");
    assert!(
        project
            .path()
            .join(".self-repair/runs/r-test/journal.jsonl")
            .metadata()
            .map_or(true, |m| m.len() == 0),
        "bad input journaled nothing"
    );
}

#[test]
fn ten_megabyte_valid_input_still_decides() {
    let project = started(3);
    let input = serde_json::json!({"session_id": "s1", "hook_event_name": "Stop", "cwd": project.path(),
        "last_assistant_message": "x".repeat(10 * 1024 * 1024), "background_tasks": []});
    let out = project
        .cmd(&["hook", "stop"])
        .stdin(input.to_string())
        .run()
        .success();
    assert!(out.stdout.contains("\"additionalContext\""));
}

/// A `SessionStart` input with a 435 KB `cwd` cost 3.5 s of CPU: the project was searched in
/// each of its 90,000 ancestors (91,545 `statx` calls), three times over.
#[test]
fn a_hook_input_whose_cwd_is_longer_than_the_system_allows_is_answered_at_once() {
    let project = started(3);
    let within = |cwd: &std::path::Path| {
        serde_json::json!({"session_id": "s2", "hook_event_name": "SessionStart",
            "source": "startup", "cwd": cwd})
        .to_string()
    };
    // Inside the project, a new session hears of the waiting run.
    let out = project
        .cmd(&["hook", "session-start"])
        .stdin(within(&project.path().join("src")))
        .run()
        .success();
    assert!(out.stdout.contains("r-test"), "{}", out.stdout);
    for cwd in [
        project.path().join("a/".repeat(435 * 1024 / 2)),
        project.path().join("x".repeat(256)).join("src"),
    ] {
        let out = project
            .cmd(&["hook", "session-start"])
            .stdin(within(&cwd))
            .run()
            .success();
        let took = out.elapsed;
        assert_eq!(out.stdout, "", "no folder has that path, so no project");
        assert!(
            took < std::time::Duration::from_secs(2),
            "a cwd of {} bytes took {took:?}",
            cwd.as_os_str().len()
        );
    }
}

/// `dispatch_as: block` keeps the original shape one setting away: the same dispatch as a
/// `decision: block` reason instead of the Stop event's `additionalContext`; the default is
/// the context.
#[test]
fn dispatch_as_block_answers_with_the_same_dispatch_as_a_block() {
    let dispatch_of = |config: &str| {
        let project = TestProject::new();
        project.write(".self-repair/config.json", config);
        project.write("findings.jsonl", &crate::harness::jsonl_findings(3));
        project
            .cmd(&["start", "findings.jsonl", "--run-id", "r-test"])
            .run()
            .success();
        let out = project.stop("s1", &[]);
        serde_json::from_str::<Value>(&out.stdout).unwrap()
    };
    let context = dispatch_of(r#"{"survey_min": 0}"#);
    let block = dispatch_of(r#"{"survey_min": 0, "dispatch_as": "block"}"#);
    assert!(context.get("decision").is_none(), "{context}");
    assert_eq!(block["decision"], "block", "{block}");
    assert!(block.get("hookSpecificOutput").is_none(), "{block}");
    assert_eq!(
        self_repair_engine::continuation(&block),
        self_repair_engine::continuation(&context),
        "the same dispatch text"
    );
}
