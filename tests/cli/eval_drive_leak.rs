//! Issue 42 item 4, an eval that cannot leak: `scripts/eval-drive.sh` copied the corpus folder,
//! `labels.csv` and its verdicts included, into the project the agents triage. Known answer: a
//! scripted agent (the stand-in `claude` every `drive` session runs) that searches the project
//! for the labels finds nothing, and the gate denies it the labels where they are; a corpus
//! without code is refused with how to fetch it; the run that stopped goes on with the command
//! the script printed.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::harness::{TestProject, binary};

const REPO: &str = env!("CARGO_MANIFEST_DIR");

/// A note only the Bottle corpus's labels hold: the answer key for its first finding.
const ANSWER: &str = "pickle deserializes signed cookies";

/// The stand-in `claude`: a scripted agent that looks for the answer key as a curious model
/// would (by name and by content, from the project it runs in), writes what it found to
/// `$FOUND`, then ends its session as the API does for a refused key (`drive` exits 20).
fn curious_claude(project: &TestProject) -> PathBuf {
    let stream = format!("{REPO}/crates/drive/tests/fixtures/stream/auth.jsonl");
    project.write(
        ".bin/claude",
        &format!(
            "#!/bin/sh\n\
             {{ find . -name 'labels.csv' -o -name 'corpus.json' -o -name 'expectedresults*'; \
                grep -rl '{ANSWER}' . ; }} >> \"$FOUND\" 2>/dev/null\n\
             cat '{stream}'\n"
        ),
    );
    let path = project.path().join(".bin/claude");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// `bash scripts/eval-drive.sh ARGS` from the repository's root, as the README runs it.
fn eval_drive(project: &TestProject, args: &[&str]) -> std::process::Output {
    Command::new("bash")
        .arg("-c")
        .arg(args.join(" "))
        .current_dir(REPO)
        .env("HOME", project.path().join(".home"))
        .env("SELF_REPAIR_DRIVE_BACKOFF_SCALE", "0")
        .env("FOUND", project.path().join("found.txt"))
        .env_remove("CLAUDE_CODE_SESSION_ID")
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("CLAUDE_CONFIG_DIR")
        .output()
        .unwrap()
}

fn quoted(path: &Path) -> String {
    format!("'{}'", path.display())
}

/// `scripts/eval-drive.sh CORPUS --into INTO --bin BINARY` and `extra`, quoted for `bash -c`.
fn run_corpus(
    project: &TestProject,
    corpus: &Path,
    into: &Path,
    extra: &[&str],
) -> std::process::Output {
    let (corpus, into, bin) = (quoted(corpus), quoted(into), quoted(&binary()));
    let mut args = vec![
        "scripts/eval-drive.sh",
        &corpus,
        "--into",
        &into,
        "--bin",
        &bin,
    ];
    args.extend_from_slice(extra);
    eval_drive(project, &args)
}

#[test]
fn eval_drive_keeps_the_labels_out_of_the_project_and_its_agents_find_nothing() {
    let project = TestProject::new();
    let claude = curious_claude(&project);
    let into = project.path().join("eval-project");
    let corpus = Path::new(REPO).join("tests/fixtures/eval/bandit-bottle-0.13.2");
    let claude = quoted(&claude);
    let out = run_corpus(&project, &corpus, &into, &["--", "--claude", &claude]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(20), "drive's exit: {stderr}");
    // The agent's search: nothing, though it ran in the project with the code and the report.
    let found = project.read("found.txt");
    assert_eq!(found.trim(), "", "the agent found the answer key: {found}");
    assert!(into.join("bottle.py").is_file() && into.join("bandit-1.9.4.json").is_file());
    assert!(!into.join("labels.csv").exists() && !into.join("corpus.json").exists());
    // Where the labels are, the gate denies an agent both ways of reading them.
    let labels = corpus.join("labels.csv");
    for (tool, input) in [
        (
            "Bash",
            json!({"command": format!("cat {}", labels.display())}),
        ),
        ("Read", json!({"file_path": labels})),
        ("Grep", json!({"pattern": "real", "path": corpus})),
    ] {
        let hook = project
            .terminal(&["hook", "pre-tool-use"])
            .current_dir(&into)
            .stdin(
                json!({"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input,
                    "agent_type": "self-repair:triage-investigator", "cwd": into})
                .to_string(),
            )
            .run()
            .success();
        let answer: Value = serde_json::from_str(&hook.stdout).unwrap();
        assert_eq!(
            answer["hookSpecificOutput"]["permissionDecision"], "deny",
            "{tool}: {answer}"
        );
    }
    // The stop says how to go on, and that command goes on with the same run.
    let again = stderr
        .lines()
        .skip_while(|l| !l.contains("go on where it stopped with:"))
        .nth(1)
        .unwrap_or_else(|| panic!("no command to go on with: {stderr}"))
        .trim()
        .to_owned();
    assert!(again.starts_with("scripts/eval-drive.sh "), "{again}");
    let resumed = eval_drive(&project, &[&again]);
    let resumed_err = String::from_utf8_lossy(&resumed.stderr);
    assert!(
        resumed_err.contains("going on with run r-eval"),
        "{resumed_err}"
    );
    assert!(!resumed_err.contains("exists"), "{resumed_err}");
    assert_eq!(resumed.status.code(), Some(20), "{resumed_err}");
    assert_eq!(project.read("found.txt").trim(), "");
}

#[test]
fn eval_drive_refuses_a_corpus_without_code_and_says_how_to_fetch_it() {
    let project = TestProject::new();
    let into = project.path().join("owasp");
    let corpus = Path::new(REPO).join("tests/fixtures/eval/owasp-python-0.1");
    let out = run_corpus(&project, &corpus, &into, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("ships no code")
            && stderr.contains("git clone https://github.com/OWASP-Benchmark/BenchmarkPython")
            && stderr.contains("--code DIR"),
        "{stderr}"
    );
    assert!(!into.exists(), "nothing is made for a refused corpus");
}
