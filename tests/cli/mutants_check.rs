//! Issue 47, a mutation run that cannot count a mutant caught without a failed test:
//! `scripts/mutants-caught-check.py` reads a cargo-mutants output folder and refuses a run in
//! which a caught mutant's log holds no failed test (a `cargo test` that failed on its own
//! arguments made every mutant of a run count as caught). Known answer: crafted outcomes and
//! logs, one caught mutant a kind of test output.

use std::process::Command;

use serde_json::{Value, json};

use crate::harness::TestProject;

const REPO: &str = env!("CARGO_MANIFEST_DIR");

/// The test phase of a mutant's log, as cargo-mutants writes it, with `output` after its
/// command line.
fn log(command: &str, output: &str) -> String {
    format!(
        "*** src/lib.rs:1:1: replace f -> u8 with 0\n\n\
         *** cargo test --no-run --verbose --package=x@0.1.0\n   Compiling x v0.1.0\n\
         *** result: Success\n\n\
         *** {command}\n{output}\n*** result: Failure(101)\n"
    )
}

const CARGO_TEST: &str = "cargo test --verbose --package=x@0.1.0";
const NEXTEST: &str = "cargo nextest run --verbose --package=x@0.1.0";

/// (what the test command printed, whether it shows a failed test).
fn cases() -> Vec<(&'static str, String, bool)> {
    vec![
        (
            "libtest's summary",
            log(
                CARGO_TEST,
                "running 2 tests\ntest a ... ok\ntest b ... FAILED\n\n\
                 test result: FAILED. 1 passed; 1 failed; 0 ignored",
            ),
            true,
        ),
        (
            "a panic",
            log(CARGO_TEST, "thread 'b' panicked at src/lib.rs:9:5:\nboom"),
            true,
        ),
        (
            "nextest's FAIL line",
            log(
                NEXTEST,
                "        FAIL [   1.599s] (  2/371) x::cli a\n     Summary [   3.388s] \
                 3/371 tests run: 2 passed, 1 failed",
            ),
            true,
        ),
        (
            "a stack overflow",
            log(
                CARGO_TEST,
                "thread 'b' has overflowed its stack\nfatal runtime error: stack overflow",
            ),
            true,
        ),
        (
            "a test binary killed by a signal",
            log(
                CARGO_TEST,
                "error: test failed, to rerun pass `--lib`\n\nCaused by:\n  process didn't \
                 exit successfully: `/t/deps/x-1` (signal: 11, SIGSEGV: invalid memory reference)",
            ),
            true,
        ),
        (
            "cargo refusing --test-threads",
            log(
                &format!("{CARGO_TEST} --test-threads=3"),
                "error: unexpected argument '--test-threads' found\n\n  tip: to pass \
                 '--test-threads' as a value, use '-- --test-threads'",
            ),
            false,
        ),
        (
            "a test binary refusing an option",
            log(
                &format!("{CARGO_TEST} -- --bogus"),
                "error: Unrecognized option: 'bogus'\nerror: test failed, to rerun pass \
                 `--lib`\n\nCaused by:\n  process didn't exit successfully: `/t/deps/x-1 \
                 --bogus` (exit status: 101)",
            ),
            false,
        ),
        (
            "a failure only in the build's output",
            "*** cargo test --no-run --verbose --package=x@0.1.0\n\
             test result: FAILED. a build script's echo\n*** result: Success\n\n\
             *** cargo test --verbose --package=x@0.1.0\nerror: no such command\n"
                .to_owned(),
            false,
        ),
        ("no log at all", String::new(), false),
    ]
}

fn outcome(name: &str, summary: &str, log_path: &str) -> Value {
    json!({
        "scenario": {"Mutant": {"name": name, "file": "src/lib.rs"}},
        "summary": summary,
        "log_path": log_path,
    })
}

/// Writes `mutants.out` with a passing baseline, the given caught mutants (name, log), a
/// missed one and a timeout whose logs hold no failed test, and runs the check on it.
fn check(project: &TestProject, caught: &[(String, String)]) -> std::process::Output {
    let mut outcomes = vec![json!({
        "scenario": "Baseline", "summary": "Success", "log_path": "log/baseline.log"
    })];
    project.write(
        "mutants.out/log/baseline.log",
        &log(CARGO_TEST, "test result: ok."),
    );
    for (index, (name, text)) in caught.iter().enumerate() {
        let path = format!("log/caught_{index}.log");
        if !text.is_empty() {
            project.write(&format!("mutants.out/{path}"), text);
        }
        outcomes.push(outcome(name, "CaughtMutant", &path));
    }
    for (name, summary) in [("missed one", "MissedMutant"), ("slow one", "Timeout")] {
        let path = format!("log/{summary}.log");
        project.write(
            &format!("mutants.out/{path}"),
            &log(CARGO_TEST, "test result: ok."),
        );
        outcomes.push(outcome(name, summary, &path));
    }
    project.write(
        "mutants.out/outcomes.json",
        &json!({ "outcomes": outcomes }).to_string(),
    );
    Command::new("python3")
        .arg(format!("{REPO}/scripts/mutants-caught-check.py"))
        .arg(project.path().join("mutants.out"))
        .output()
        .unwrap()
}

#[test]
fn a_caught_mutant_counts_only_when_its_log_shows_a_failed_test() {
    for (what, text, shows_a_failed_test) in cases() {
        let project = TestProject::new();
        let done = check(&project, &[(format!("mutant with {what}"), text)]);
        let stdout = String::from_utf8_lossy(&done.stdout);
        let expected = i32::from(!shows_a_failed_test);
        assert_eq!(done.status.code(), Some(expected), "{what}: {stdout}");
        assert_eq!(
            stdout.contains(&format!("caught with no failed test: mutant with {what}")),
            !shows_a_failed_test,
            "{what}: {stdout}"
        );
    }
}

#[test]
fn a_run_names_every_caught_mutant_without_a_failed_test_and_no_other() {
    let project = TestProject::new();
    let caught: Vec<(String, String)> = cases()
        .into_iter()
        .map(|(what, text, _)| (format!("mutant with {what}"), text))
        .collect();
    let done = check(&project, &caught);
    let stdout = String::from_utf8_lossy(&done.stdout);
    assert_eq!(done.status.code(), Some(1), "{stdout}");
    let named: Vec<&str> = stdout
        .lines()
        .filter_map(|line| line.split("caught with no failed test: ").nth(1))
        .map(|rest| rest.split(" (log: ").next().unwrap())
        .collect();
    let expected: Vec<String> = cases()
        .into_iter()
        .filter(|(_, _, shows)| !shows)
        .map(|(what, _, _)| format!("mutant with {what}"))
        .collect();
    assert_eq!(named, expected);
    assert!(
        String::from_utf8_lossy(&done.stderr).contains("the run is void"),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
}

#[test]
fn a_folder_without_outcomes_is_a_usage_error() {
    let project = TestProject::new();
    let done = Command::new("python3")
        .arg(format!("{REPO}/scripts/mutants-caught-check.py"))
        .arg(project.path())
        .output()
        .unwrap();
    assert_eq!(done.status.code(), Some(2));
}
