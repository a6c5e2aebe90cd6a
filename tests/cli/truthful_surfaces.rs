//! Issue 42: every surface tells the truth. A clean analyzer report is a success that `drive`
//! and `export` go on from; one word per run state on every surface; and the smaller untruths
//! the review found (man pages that do not exist, a batch member's submit, `-C` of a folder
//! that does not exist, truncated JSON, a dismissed alert, an unfinished export, "1 agents",
//! unaligned `runs`).

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::harness::{Outcome, TestProject, jsonl_findings};
use self_repair_app::ExitStatus;

/// A stand-in `claude` that is never needed: `drive` on a complete run starts no session.
fn idle_claude(project: &TestProject) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    project.write(".bin/claude", "#!/bin/sh\nexit 1\n");
    let path = project.path().join(".bin/claude");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path
}

fn git(project: &TestProject, args: &[&str]) {
    self_repair_test_support::git(project.path(), args);
}

/// The test project made a git repository.
fn repository() -> TestProject {
    let project = TestProject::new();
    let _ = std::fs::remove_dir(project.path().join(".git"));
    git(&project, &["init", "-q"]);
    project
}

/// A SARIF log as Ruff writes it for a project it has no complaint about.
fn clean_sarif() -> String {
    json!({"version": "2.1.0", "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "runs": [{"tool": {"driver": {"name": "ruff", "version": "0.17.6", "rules": []}},
                  "results": []}]})
    .to_string()
}

/// Top 10 #2: a Ruff SARIF with 0 results exited 2 and `drive` then 4, so the pull-request
/// gate went red on a clean repository (with `--changed-since` too).
#[test]
fn a_clean_report_exits_0_with_nothing_to_triage_and_drive_and_export_are_green() {
    let project = repository();
    project.write("app.py", "print('clean')\n");
    git(&project, &["add", "."]);
    git(&project, &["commit", "-q", "-m", "base"]);
    project.write(".self-repair/ruff.sarif", &clean_sarif());
    let started = project
        .terminal(&[
            "start",
            ".self-repair/ruff.sarif",
            "--changed-since",
            "HEAD",
            "--budget",
            "5",
        ])
        .run()
        .success();
    assert!(
        started
            .stdout
            .contains("nothing to triage: the analyzer's report holds no finding"),
        "{}",
        started.stdout
    );
    assert!(started.stdout.contains("is complete"), "{}", started.stdout);
    let status = project.terminal(&["status"]).run().success();
    assert!(
        status.stdout.contains("status complete"),
        "{}",
        status.stdout
    );
    let claude = idle_claude(&project);
    let drive = project
        .terminal(&[
            "drive",
            "--budget",
            "5",
            "--fail-on-real",
            "--claude",
            claude.to_str().expect("utf-8"),
        ])
        .run()
        .success();
    assert!(
        drive.stdout.contains("nothing to triage"),
        "drive says why it is green: {}",
        drive.stdout
    );
    let export = project
        .terminal(&["export", "sarif", "-o", "triaged.sarif"])
        .run()
        .success();
    assert!(export.stdout.contains("0 results"), "{}", export.stdout);
    assert!(
        !export.stdout.contains("no verdict yet"),
        "a complete run has nothing undecided: {}",
        export.stdout
    );
    // Ruff's JSON for a clean project is `[]`: the same.
    project.write(".self-repair/ruff.json", "[]\n");
    project
        .terminal(&["start", ".self-repair/ruff.json"])
        .run()
        .success();
}

/// Contradiction 5: `start --detect` on a clean project was refused with advice naming
/// `start --detect`. Clean detectors are a success; a detector that prints nothing at all is
/// refused with advice about its argv, not the command just run.
#[test]
fn start_detect_on_a_clean_project_succeeds_and_an_empty_detector_names_its_argv() {
    let project = TestProject::new();
    project.write(
        ".self-repair/config.json",
        r#"{"detectors": [{"name": "ruff", "argv": ["sh", "-c", "echo '[]'"], "format": "ruff"}]}"#,
    );
    let out = project.terminal(&["start", "--detect"]).run().success();
    assert!(out.stdout.contains("nothing to triage"), "{}", out.stdout);
    // An analyzer that prints nothing when clean, named by its format: clean too.
    project.write(
        ".self-repair/config.json",
        r#"{"detectors": [{"name": "vulture", "argv": ["true"], "format": "vulture"}]}"#,
    );
    let out = project
        .terminal(&["start", "--detect", "--replace"])
        .run()
        .success();
    assert!(out.stdout.contains("nothing to triage"), "{}", out.stdout);
    // Nothing printed and no format to say whose: refused, naming the detector's config.
    project.write(
        ".self-repair/config.json",
        r#"{"detectors": [{"name": "quiet", "argv": ["true"]}]}"#,
    );
    let out = project
        .terminal(&["start", "--detect", "--replace"])
        .run()
        .code(ExitStatus::Usage);
    assert!(
        out.stderr.contains("detector quiet is empty") && out.stderr.contains("argv"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("start --detect"), "{}", out.stderr);
}

/// One run of each state, made from the outside as a user would.
fn run_in(state: &str) -> TestProject {
    let project = TestProject::new();
    let config = if state == "waiting" {
        r#"{"confirm_above_usd": 0.01}"#
    } else {
        r#"{"confirm_above_usd": null}"#
    };
    project.write(".self-repair/config.json", config);
    project.write("findings.jsonl", &jsonl_findings(4));
    if state == "complete" {
        project.write("findings.jsonl", "[]");
    }
    project
        .terminal(&["start", "findings.jsonl", "--run-id", "r-state"])
        .run()
        .success();
    match state {
        "paused" => {
            project.terminal(&["pause"]).run().success();
        }
        "cancelled" => {
            project.terminal(&["cancel"]).run().success();
        }
        "stalled" => {
            let path = project.run_dir("r-state").join("state.json");
            let mut value: Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            value["status"] = json!("stalled");
            std::fs::write(&path, value.to_string()).unwrap();
        }
        _ => {}
    }
    project
}

/// What each surface says of the run `r-state`, by name.
fn surfaces(project: &TestProject, in_progress: bool) -> Vec<(&'static str, String)> {
    let text = |args: &[&str]| project.terminal(args).run().stdout;
    let mut said = vec![
        ("status", text(&["status"])),
        ("runs", text(&["runs"])),
        ("runs --json", text(&["runs", "--json"])),
        ("runs --cost", text(&["runs", "--cost"])),
        ("next", text(&["next"])),
    ];
    let line = project
        .terminal(&["statusline"])
        .stdin(json!({"workspace": {"project_dir": project.path()}}).to_string())
        .run()
        .stdout;
    said.push(("statusline", line));
    if in_progress {
        project.write("again.jsonl", &jsonl_findings(2));
        let refusal = project
            .terminal(&["start", "again.jsonl"])
            .run()
            .code(ExitStatus::RunInProgress);
        said.push(("start refusal", refusal.stderr));
        let hook = project
            .cmd(&["hook", "session-start"])
            .env("CLAUDE_CODE_SESSION_ID", "s9")
            .stdin(
                json!({"session_id": "s9", "hook_event_name": "SessionStart",
                    "source": "startup", "cwd": project.path()})
                .to_string(),
            )
            .run()
            .success();
        said.push(("session start", hook.stdout));
    }
    if !project
        .path()
        .join(".self-repair/runs/r-state/report.md")
        .exists()
    {
        project.terminal(&["finalize", "--partial"]).run().success();
    }
    said.push((
        "report.md",
        project.read(".self-repair/runs/r-state/report.md"),
    ));
    said
}

/// Top 10 #3: a run waiting for the user's go was "paused" in `runs`, `runs --json`,
/// `runs --cost`, the exit-7 refusal and the `SessionStart` text. Every state against every
/// surface: each names the state with the one word `ShownStatus` gives it.
#[test]
fn every_run_state_reads_the_same_word_on_every_surface() {
    use self_repair_engine::ShownStatus;
    for shown in ShownStatus::ALL {
        let word = shown.as_str();
        let project = run_in(word);
        for (surface, text) in surfaces(&project, shown.in_progress()) {
            // The status line shows only what is still going; `next` words a finished run.
            let names_it = match surface {
                "statusline" => shown.in_progress() && shown != ShownStatus::Active,
                "next" => false,
                _ => true,
            };
            if names_it {
                assert!(text.contains(word), "{word} on {surface}: {text}");
            }
            if shown == ShownStatus::Waiting {
                assert!(!text.contains("paused"), "{word} on {surface}: {text}");
            }
        }
    }
}

/// Contradiction 2: the `SessionStart` text told the model to run `resume` on a waiting run
/// (exit 23). It says to show the estimate and ask.
#[test]
fn the_session_start_text_for_a_waiting_run_says_to_show_the_estimate_and_ask() {
    let project = run_in("waiting");
    let hook = project
        .cmd(&["hook", "session-start"])
        .stdin(
            json!({"session_id": "s9", "hook_event_name": "SessionStart",
                "source": "startup", "cwd": project.path()})
            .to_string(),
        )
        .run()
        .success();
    let answer: Value = serde_json::from_str(&hook.stdout).unwrap();
    let context = answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(
        context.contains("show them the estimate") && context.contains("and ask"),
        "{context}"
    );
    assert!(
        context.contains("resume --confirm") && !context.contains("when it is paused"),
        "{context}"
    );
}

/// Contradiction 3: the exit-7 refusal told a terminal user to "end your turn". It names what
/// goes on with the run in its state.
#[test]
fn the_refusal_of_a_second_start_says_how_this_run_goes_on() {
    let project = run_in("waiting");
    project.write("again.jsonl", &jsonl_findings(2));
    let out = project
        .terminal(&["start", "again.jsonl"])
        .run()
        .code(ExitStatus::RunInProgress);
    assert!(
        out.stderr.contains("status waiting")
            && out.stderr.contains("resume --confirm --run r-state"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("end your turn"), "{}", out.stderr);
}

/// Contradiction 13: `adopt` of a waiting run said "end your turn and the Stop hook continues
/// it", and the next stop only repeated that it waits for the go.
#[test]
fn adopt_of_a_waiting_run_says_it_still_waits_for_the_go() {
    let project = run_in("waiting");
    let out = project.cmd(&["adopt"]).run().success();
    assert!(
        out.stdout.contains("still waits for the user's go")
            && out.stdout.contains("resume --confirm --run r-state"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("end your turn"), "{}", out.stdout);
}

/// Contradiction 15: `man` listed 38 `self-repair-<cmd>(1)` pages that do not exist, and had
/// no EXIT STATUS section.
#[test]
fn man_names_no_page_that_does_not_exist_and_has_an_exit_status_section() {
    let project = TestProject::new();
    let page = project.terminal(&["man"]).run().success().stdout;
    assert!(!page.contains("self\\-repair\\-start(1)"), "{page}");
    assert!(!page.contains("-start(1)"), "{page}");
    assert!(page.contains(".SH COMMANDS"), "{page}");
    assert!(page.contains(".SH \"EXIT STATUS\""), "{page}");
    assert!(page.contains("\\fBstart\\fR"), "{page}");
}

/// Contradiction 18: `-C /nonexistent status` said "no active run in /nonexistent".
#[test]
fn dash_c_of_a_folder_that_does_not_exist_says_so() {
    let project = TestProject::new();
    let missing = project.path().join("nonexistent");
    let out = project
        .terminal(&["-C", missing.to_str().unwrap(), "status"])
        .run()
        .code(ExitStatus::NotFound);
    assert!(
        out.stderr
            .contains(&format!("no folder {}", missing.display())),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("no active run"), "{}", out.stderr);
}

/// Contradiction 19: truncated JSON was "cannot tell which analyzer wrote this input", and with
/// `--format ruff` "invalid type: map".
#[test]
fn truncated_json_is_called_truncated_with_and_without_a_format() {
    let project = TestProject::new();
    project.write("cut.json", r#"{"a": [1,2"#);
    for format in ["auto", "ruff"] {
        let out = project
            .terminal(&["start", "cut.json", "--format", format])
            .run()
            .code(ExitStatus::Usage);
        assert!(
            out.stderr.contains("ends before it is complete") && out.stderr.contains("cut short"),
            "--format {format}: {}",
            out.stderr
        );
        assert!(
            !out.stderr.contains("cannot tell which analyzer"),
            "{}",
            out.stderr
        );
    }
}

/// Review: a dismissed alert vanished from the count silently ("read 4 finding(s)" of 5).
#[test]
fn alerts_that_are_not_open_are_counted_as_left_out() {
    let project = TestProject::new();
    let alert = |number: u64, state: &str| {
        json!({"number": number, "state": state, "rule": {"id": "py/x", "severity": "warning"},
            "tool": {"name": "CodeQL"}, "html_url": format!("https://github.com/o/r/security/code-scanning/{number}"),
            "most_recent_instance": {"message": {"text": format!("m {number}")},
                "location": {"path": "a.py", "start_line": number}}})
    };
    project.write("a.py", "x = 1\n");
    project.write(
        "alerts.json",
        &json!([alert(1, "open"), alert(2, "dismissed"), alert(3, "open")]).to_string(),
    );
    let out = project.terminal(&["start", "alerts.json"]).run().success();
    assert!(
        out.stdout
            .contains("read 2 finding(s) from alerts.json as github-alerts (1 alert(s) not open"),
        "{}",
        out.stdout
    );
}

/// A project of `findings` JSONL findings that never waits for a go, started with `extra`.
fn started(findings: usize, extra: &[&str]) -> (TestProject, Outcome) {
    let project = TestProject::new();
    project.write(".self-repair/config.json", r#"{"confirm_above_usd": null}"#);
    project.write("findings.jsonl", &jsonl_findings(findings));
    let mut args = vec!["start", "findings.jsonl"];
    args.extend_from_slice(extra);
    let out = project.terminal(&args).run().success();
    (project, out)
}

/// Review: `export sarif` of an unfinished run said "Upload it" without a word that most
/// findings are undecided.
#[test]
fn export_sarif_of_an_unfinished_run_says_how_many_findings_are_undecided() {
    let (project, _) = started(5, &[]);
    let out = project
        .terminal(&["export", "sarif", "-o", "out.sarif"])
        .run()
        .success();
    assert!(
        out.stdout.contains("5 of 5 finding(s) have no verdict yet"),
        "{}",
        out.stdout
    );
}

/// Review: "`rule_review  1 agents`".
#[test]
fn one_agent_is_one_agent() {
    let (_, out) = started(1, &["--dry-run"]);
    assert!(!out.stdout.contains(" 1 agents"), "{}", out.stdout);
    assert!(out.stdout.contains(" 1 agent"), "{}", out.stdout);
}

/// Review: `runs` columns unaligned. Every column starts at the same place on every line.
#[test]
fn runs_columns_are_aligned() {
    let (project, _) = started(3, &["--run-id", "r-a"]);
    project
        .terminal(&[
            "start",
            "findings.jsonl",
            "--run-id",
            "r-longer-name",
            "--replace",
        ])
        .run()
        .success();
    let out = project.terminal(&["runs"]).run().success().stdout;
    let lines: Vec<&str> = out.lines().take(3).collect();
    let header = lines[0];
    for column in ["kind", "status", "phase", "progress", "created"] {
        let at = header.find(column).unwrap();
        for line in &lines[1..] {
            let before = &line[..at];
            assert!(
                before.ends_with("  ") && !line[at..].starts_with(' '),
                "{column} at {at}:\n{out}"
            );
        }
    }
}

/// Contradiction 17: a `submit` to a member of a batch said "never dispatched" without naming
/// its batch.
#[test]
fn submit_to_a_batch_member_names_its_batch() {
    let project = TestProject::new();
    project.write(
        ".self-repair/config.json",
        r#"{"confirm_above_usd": null, "survey_min": 0, "triage_batch": 4}"#,
    );
    let same_rule: String = (0..4)
        .map(|i| {
            json!({"tool": "ruff", "rule_id": "F401", "level": "warning",
                "message": format!("unused import m{i}"), "path": "src/a.py", "line": i + 1,
                "symbol": format!("m{i}")})
            .to_string()
        })
        .collect::<Vec<_>>()
        .join("\n");
    project.write("findings.jsonl", &same_rule);
    project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-b"])
        .run()
        .success();
    let block = project.stop("s1", &[]).stdout;
    assert!(block.contains("tb-00001"), "{block}");
    project.write("answer.json", r#"{"verdict": "real"}"#);
    let out: Outcome = project
        .cmd(&["submit", "t-00001", "--file", "answer.json"])
        .run()
        .code(ExitStatus::NotDispatched);
    assert!(
        out.stderr.contains("it went out in batch tb-00001")
            && out.stderr.contains("self-repair submit tb-00001"),
        "{}",
        out.stderr
    );
}
