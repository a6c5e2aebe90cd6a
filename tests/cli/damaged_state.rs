//! A damaged run that still parses: every command answers (no panic, no hang), the hook still
//! exits 0, and `doctor` repairs it or says precisely what it cannot.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::harness::{Outcome, TestProject};
use crate::pipeline::started;
use self_repair_app::ExitStatus;

const STATE: &str = ".self-repair/runs/r-test/state.json";

/// A 10-finding run bound to `s1`, with its first agents dispatched.
fn dispatched() -> TestProject {
    let project = started(10);
    assert!(project.stop("s1", &[]).stdout.contains("additionalContext"));
    project
}

fn edit_state(project: &TestProject, rel: &str, edit: impl FnOnce(&mut Value)) {
    let mut state: Value = serde_json::from_str(&project.read(rel)).unwrap();
    edit(&mut state);
    project.write(rel, &state.to_string());
}

/// The hook's answer names the state and `doctor`; the state is kept aside.
#[track_caller]
fn reported_as_corrupt(project: &TestProject, out: &Outcome, what: &str) {
    let answer: Value = serde_json::from_str(&out.stdout).unwrap_or_else(|_| panic!("{out:?}"));
    let message = answer["systemMessage"].as_str().unwrap_or_default();
    assert!(
        message.contains("state.json")
            && message.contains("self-repair doctor")
            && message.contains(what),
        "{message}"
    );
    assert!(
        project
            .run_dir("r-test")
            .join("state.json.corrupt")
            .is_file()
    );
}

#[test]
fn a_triage_item_count_larger_than_the_items_held_is_corrupt_not_a_panic() {
    let project = dispatched();
    edit_state(&project, STATE, |s| {
        s["triage_items"] = 4_294_967_295u64.into();
    });
    let out = project.stop("s1", &[]);
    reported_as_corrupt(
        &project,
        &out,
        "`triage_items` is 4294967295 but the file holds 10",
    );
    let next = project.cmd(&["next"]).run().code(ExitStatus::Failure);
    assert!(
        next.stderr.contains("self-repair doctor"),
        "{}",
        next.stderr
    );
    let doctor = project.cmd(&["doctor", "--runs-only"]).run().success();
    assert!(doctor.stdout.contains("rebuilt"), "{}", doctor.stdout);
    project.cmd(&["next"]).run().success();
    project.cmd(&["status"]).run().success();
}

#[test]
fn the_same_damage_in_the_initial_state_makes_doctor_say_so_not_panic() {
    let project = dispatched();
    edit_state(
        &project,
        ".self-repair/runs/r-test/state.initial.json",
        |s| {
            s["triage_items"] = 4_294_967_295u64.into();
        },
    );
    project.write(STATE, "{}");
    let doctor = project
        .cmd(&["doctor", "--runs-only"])
        .run()
        .code(ExitStatus::Conflict);
    assert!(
        doctor
            .stdout
            .contains("state.initial.json cannot rebuild the run")
            && doctor.stdout.contains("self-repair start"),
        "{}",
        doctor.stdout
    );
}

#[test]
fn a_huge_run_length_in_the_triage_columns_is_corrupt_not_a_hang() {
    let project = dispatched();
    edit_state(&project, STATE, |s| {
        s["items"]["triage"]["findings"] = serde_json::json!([[0, 0, 1_000_000_000_000u64]]);
    });
    let started = Instant::now();
    let out = project.stop("s1", &[]);
    assert!(started.elapsed() < Duration::from_secs(5));
    reported_as_corrupt(&project, &out, "items.triage.findings");
    project.cmd(&["status"]).run().code(ExitStatus::Failure);
    project.cmd(&["doctor", "--runs-only"]).run().success();
    project.cmd(&["status"]).run().success();
}

#[test]
fn a_run_json_that_calls_a_triage_run_a_repair_run_is_fixed_by_doctor_not_a_circle() {
    let project = dispatched();
    let manifest = ".self-repair/runs/r-test/run.json";
    edit_state(&project, manifest, |m| m["kind"] = "repair".into());
    project.cmd(&["status"]).run().code(ExitStatus::Failure);
    let doctor = project.cmd(&["doctor", "--runs-only"]).run().success();
    assert!(
        doctor
            .stdout
            .contains("run.json said kind repair but state.json is a triage run"),
        "{}",
        doctor.stdout
    );
    project.cmd(&["status"]).run().success();
    assert!(project.stop("s1", &[]).stdout.is_empty() || !project.read(STATE).is_empty());
}

#[test]
fn killed_hook_stops_do_not_leave_temporary_copies_of_the_state_forever() {
    let project = dispatched();
    let run = project.run_dir("r-test");
    // What a hook killed between writing its temporary state and deleting the swapped-out
    // one leaves behind.
    for name in [".tmp-state.json-AbC123", ".tmp-state.json-zz9"] {
        std::fs::write(run.join(name), "{}").unwrap();
    }
    std::fs::write(run.join("items/.tmp-Q1w2e3"), "{}").unwrap();
    // The next stop that saves the state removes the state's abandoned copies.
    crate::store::submit_one(&project, 1);
    project.stop("s1", &[]);
    let temps = |dir: &std::path::Path| {
        std::fs::read_dir(dir)
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .starts_with(".tmp-")
            })
            .count()
    };
    assert_eq!(temps(&run), 0);
    // `doctor` removes any other temporary file once it is old enough to be abandoned.
    let old = std::time::SystemTime::now() - Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(run.join("items/.tmp-Q1w2e3"))
        .unwrap()
        .set_modified(old)
        .unwrap();
    let doctor = project.cmd(&["doctor", "--runs-only"]).run().success();
    assert!(doctor.stdout.contains("removed"), "{}", doctor.stdout);
    assert_eq!(temps(&run.join("items")), 0);
}

#[test]
fn a_block_count_past_any_real_value_is_corrupt_not_an_overflow_panic() {
    // Found by the fuzzer: the next block added one to `blocks` and overflowed.
    let project = dispatched();
    edit_state(&project, STATE, |s| s["blocks"] = u64::MAX.into());
    let out = project.stop("s1", &[]);
    reported_as_corrupt(&project, &out, "`blocks` is 18446744073709551615");
    project.cmd(&["doctor", "--runs-only"]).run().success();
    project.cmd(&["next"]).run().success();
}

#[test]
fn a_journal_time_past_any_real_value_is_skipped_not_an_overflow_panic() {
    let project = dispatched();
    let journal = project.run_dir("r-test").join("journal.jsonl");
    let mut text = std::fs::read_to_string(&journal).unwrap();
    text.push_str(
        "{\"at\":18446744073709551615,\"event\":\"stop\",\"session\":\"s1\",\"running\":[]}\n",
    );
    std::fs::write(&journal, text).unwrap();
    let out = project.stop("s1", &[]);
    assert!(out.stderr.contains("past any real value"), "{}", out.stderr);
    project.cmd(&["next"]).run().success();
    project.cmd(&["doctor", "--runs-only"]).run().success();
}
