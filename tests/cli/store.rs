//! The store under concurrency and crashes: no acknowledged submission is lost, and a state
//! always loads.

use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::harness::{NOW, Outcome, TestProject, binary, filters};
use crate::pipeline::started;
use self_repair_app::ExitStatus;
use self_repair_test_support::Bounded;

fn verdict(i: usize) -> String {
    serde_json::json!({"confidence": 0.9, "verdict": "real", "root_cause": "unused import",
        "reason": format!("submitted by worker for item {i}")})
    .to_string()
}

#[test]
fn twenty_concurrent_submitters_of_fifty_items_each_lose_nothing() {
    let project = started(1000);
    assert!(project.stop("s1", &[]).stdout.contains("additionalContext"));
    crate::harness::mark_dispatched(&project, "r-test", 1000);
    let root = project.path().to_path_buf();
    let workers: Vec<_> = (0..20)
        .map(|w| {
            let root = root.clone();
            std::thread::spawn(move || {
                for k in 0..50 {
                    let i = w * 50 + k + 1;
                    let file = root.join(format!(".v{i}"));
                    std::fs::write(&file, verdict(i)).unwrap();
                    let mut command = Command::new(binary());
                    command
                        .args(["submit", &format!("t-{i:05}"), "--file"])
                        .arg(&file)
                        .current_dir(&root)
                        .env("SELF_REPAIR_NOW", NOW.to_string());
                    let done = Bounded::new(command).run();
                    assert!(done.succeeded(), "submit t-{i:05}: {}", done.stderr_text());
                }
            })
        })
        .collect();
    for worker in workers {
        worker.join().unwrap();
    }
    let status = project.cmd(&["status", "--json"]).run().success().json();
    assert_eq!(status["phases"][0]["done"], 1000, "{status}");
}

#[test]
fn killing_submit_at_any_moment_never_leaves_a_state_that_fails_to_load() {
    let project = started(60);
    assert!(project.stop("s1", &[]).stdout.contains("additionalContext"));
    let mut acknowledged = Vec::new();
    for i in 1..=60usize {
        let file = project.path().join(format!(".v{i}"));
        std::fs::write(&file, verdict(i)).unwrap();
        let mut child = Command::new(binary())
            .args(["submit", &format!("t-{i:05}"), "--file"])
            .arg(&file)
            .current_dir(project.path())
            .env("SELF_REPAIR_NOW", NOW.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Deterministic spread of kill points from "before it starts" to "after it is done".
        std::thread::sleep(Duration::from_micros((i as u64 * 97) % 3000));
        let _ = child.kill();
        if child.wait().unwrap().success() {
            acknowledged.push(format!("t-{i:05}"));
        }
        // A reader and the hook must load whatever was left.
        project.cmd(&["status", "--json"]).run().success();
        project.stop("s1", &[]);
    }
    let state = crate::harness::run_state(&project, "r-test");
    for id in &acknowledged {
        assert_eq!(
            state.item(id).map(|i| i.status),
            Some(self_repair_engine::ItemStatus::Done),
            "{id} was acknowledged but lost"
        );
    }
    project.cmd(&["doctor", "--runs-only"]).run().success();
}

#[test]
fn a_torn_journal_line_is_skipped_and_later_submissions_still_count() {
    let project = started(3);
    crate::harness::mark_dispatched(&project, "r-test", 3);
    let journal = project.run_dir("r-test").join("journal.jsonl");
    std::fs::write(
        &journal,
        b"{\"at\":1,\"event\":\"submitted\",\"item\":\"t-00",
    )
    .unwrap();
    project.write(".v", &verdict(1));
    project
        .cmd(&["submit", "t-00001", "--file", ".v"])
        .run()
        .success();
    let status = project.cmd(&["status", "--json"]).run().success().json();
    assert_eq!(status["phases"][0]["done"], 1);
}

/// Submits a valid verdict for `t-<i>`.
pub(crate) fn submit_one(project: &TestProject, i: usize) {
    project.write(".v", &verdict(i));
    project
        .cmd(&["submit", &format!("t-{i:05}"), "--file", ".v"])
        .run()
        .success();
}

/// A 4-finding run bound to `s1`, with `t-00001` submitted and folded by a stop.
fn one_submission_folded() -> TestProject {
    let project = started(4);
    assert!(project.stop("s1", &[]).stdout.contains("additionalContext"));
    project.write(".v", &verdict(1));
    project
        .cmd(&["submit", "t-00001", "--file", ".v"])
        .run()
        .success();
    project.stop("s1", &[]);
    project
}

/// The hook answer's `systemMessage` (it must be there).
fn system_message(out: &Outcome) -> String {
    let answer: Value = serde_json::from_str(&out.stdout).unwrap();
    answer["systemMessage"]
        .as_str()
        .unwrap_or_else(|| panic!("no systemMessage in {answer}"))
        .to_owned()
}

#[test]
fn a_corrupt_state_is_reported_kept_aside_and_rebuilt_by_doctor() {
    let project = one_submission_folded();
    let state_path = ".self-repair/runs/r-test/state.json";
    let good: Value = serde_json::from_str(&project.read(state_path)).unwrap();
    project.write(state_path, "{\"schema_version\": 1, \"run\": \"r-te");

    let message = system_message(&project.stop("s1", &[]));
    assert!(
        message.contains("state.json") && message.contains("self-repair doctor"),
        "{message}"
    );
    assert!(
        project
            .run_dir("r-test")
            .join("state.json.corrupt")
            .is_file()
    );

    let doctor = project.cmd(&["doctor", "--runs-only"]).run().success();
    assert!(doctor.stdout.contains("rebuilt"), "{}", doctor.stdout);
    let rebuilt: Value = serde_json::from_str(&project.read(state_path)).unwrap();
    assert_eq!(
        rebuilt, good,
        "replaying the journal gives back the very same state"
    );
}

#[test]
fn a_journal_shorter_than_the_state_says_is_reported_and_rebuilt_by_doctor() {
    // A crash can keep the new state.json and lose the journal's unsynced tail. Folding on from
    // the stale offset would skip every later submission, so the store refuses until `doctor`.
    let project = one_submission_folded();
    let journal = project.run_dir("r-test").join("journal.jsonl");
    let text = std::fs::read_to_string(&journal).unwrap();
    // Keep the journal up to the fsync'd submission; lose the hook's unsynced `stop` after it.
    let submitted = text.find(r#""event":"submitted""#).unwrap();
    let end = submitted + text[submitted..].find('\n').unwrap() + 1;
    assert!(
        end < text.len(),
        "the stop after the submission is journaled too"
    );
    std::fs::write(&journal, &text[..end]).unwrap();

    let message = system_message(&project.stop("s1", &[]));
    let _guard = filters(&project).bind_to_scope();
    insta::assert_snapshot!("journal_behind_state_hook_message", message);
    let status = project.cmd(&["status"]).run();
    assert_ne!(status.code, 0);
    assert!(
        status.stderr.contains("journal.jsonl") && status.stderr.contains("self-repair doctor"),
        "{}",
        status.stderr
    );

    let doctor = project.cmd(&["doctor", "--runs-only"]).run().success();
    assert!(doctor.stdout.contains("rebuilt"), "{}", doctor.stdout);
    project.write(".v", &verdict(2));
    project
        .cmd(&["submit", "t-00002", "--file", ".v"])
        .run()
        .success();
    let status = project.cmd(&["status", "--json"]).run().success().json();
    assert_eq!(
        status["phases"][0]["done"], 2,
        "the kept submission and the new one both count"
    );
}

#[test]
fn run_ids_and_item_ids_never_become_paths_outside_the_store() {
    let project = TestProject::new();
    project.write("f.jsonl", &crate::harness::jsonl_findings(2));
    let out = project
        .cmd(&["start", "f.jsonl", "--run-id", "../escape"])
        .run()
        .code(ExitStatus::Usage);
    assert!(out.stderr.contains("not a safe name"), "{}", out.stderr);
    assert!(!project.path().join(".self-repair").join("escape").exists());
    project
        .cmd(&["start", "f.jsonl", "--run-id", "r-ok"])
        .run()
        .success();
    project.write(".v", &verdict(1));
    let out = project
        .cmd(&["submit", "../../x", "--file", ".v"])
        .run()
        .code(ExitStatus::NotFound);
    assert!(out.stderr.contains("no item"), "{}", out.stderr);
}

/// The verdict the run counts for `item`, as `status --findings` reports it.
fn counted_verdict(project: &TestProject, item: &str) -> Option<String> {
    let findings = project
        .cmd(&["status", "--findings", "--json"])
        .run()
        .success()
        .json();
    findings.as_array()?.iter().find(|f| f["item"] == item)?["verdict"]
        .as_str()
        .map(str::to_owned)
}

fn submit_verdict(project: &TestProject, item: &str, verdict: &str, cause: &str) -> Outcome {
    let body = serde_json::json!({"confidence": 0.9, "verdict": verdict, "root_cause": cause,
        "reason": format!("the {cause} explains it, checked by reading the code")});
    project.cmd(&["submit", item]).stdin(body.to_string()).run()
}

#[test]
fn an_acknowledged_submission_is_not_silently_overridden_when_its_result_copy_failed() {
    // The result file cannot be written (a directory is in the way, as a full disk would
    // refuse it) after the journal line committed: the result counts, so submit says so.
    let project = crate::pipeline::dispatched(3);
    let copy = project.run_dir("r-test").join("items/t-00001.json");
    std::fs::create_dir_all(copy.join("in-the-way")).unwrap();
    let first = submit_verdict(&project, "t-00001", "real", "dead helper").success();
    assert!(
        first.stdout.contains("recorded t-00001: real"),
        "{}",
        first.stdout
    );
    assert!(first.stdout.contains("doctor"), "{}", first.stdout);
    std::fs::remove_dir_all(&copy).unwrap();

    // A retry with another result is refused, naming the result that counts.
    let other = submit_verdict(&project, "t-00001", "false_positive", "entry point")
        .code(ExitStatus::Conflict);
    assert!(
        other
            .stderr
            .contains("that one counts: verdict real (dead helper)"),
        "{}",
        other.stderr
    );
    assert_eq!(
        counted_verdict(&project, "t-00001").as_deref(),
        Some("real")
    );
    // The refusal wrote the missing copy from the journal.
    let copied: Value = serde_json::from_str(&std::fs::read_to_string(&copy).unwrap()).unwrap();
    assert_eq!(copied["verdict"], "real");

    // The same result again is acknowledged.
    submit_verdict(&project, "t-00001", "real", "dead helper").success();
}

#[test]
fn a_retry_after_a_submit_killed_between_journal_and_result_file_repairs_the_copy() {
    let project = crate::pipeline::dispatched(3);
    let dir = project.run_dir("r-test");
    // What a submit killed right after its fsync'd journal line leaves: the line and the
    // marker saying where it went, no result file.
    let body = serde_json::json!({"confidence": 0.9, "verdict": "real", "root_cause": "dead helper",
        "reason": "the dead helper explains it, checked by reading the code"});
    let line = serde_json::json!({"at": NOW, "event": "submitted", "item": "t-00002",
        "result": body});
    std::fs::write(dir.join("journal.jsonl"), format!("{line}\n")).unwrap();
    std::fs::write(dir.join("items/t-00002.pending"), "0\n").unwrap();

    let again = submit_verdict(&project, "t-00002", "real", "dead helper").success();
    assert!(
        again.stdout.contains("already recorded"),
        "{}",
        again.stdout
    );
    assert!(
        dir.join("items/t-00002.json").is_file(),
        "the copy is repaired"
    );
    assert!(!dir.join("items/t-00002.pending").exists());
    let journal = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
    assert_eq!(
        journal.lines().count(),
        1,
        "nothing appended twice: {journal}"
    );
}

#[test]
fn a_submit_killed_at_any_moment_never_lets_a_different_retry_be_acknowledged_and_ignored() {
    // Exit 0 if and only if this exact result is the one that counts.
    let project = started(40);
    assert!(project.stop("s1", &[]).stdout.contains("additionalContext"));
    crate::harness::mark_dispatched(&project, "r-test", 40);
    for i in 1..=40usize {
        let item = format!("t-{i:05}");
        let body = serde_json::json!({"confidence": 0.9, "verdict": "real", "root_cause": "dead helper",
            "reason": "the dead helper explains it, checked by reading the code"});
        let mut child = Command::new(binary())
            .args(["submit", &item])
            .current_dir(project.path())
            .env("SELF_REPAIR_NOW", NOW.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let _ = std::io::Write::write_all(&mut stdin, body.to_string().as_bytes());
        drop(stdin);
        std::thread::sleep(Duration::from_micros((i as u64 * 131) % 4000));
        let _ = child.kill();
        let first_ok = child.wait().unwrap().success();

        let retry = submit_verdict(&project, &item, "false_positive", "entry point");
        let counted = counted_verdict(&project, &item);
        match retry.code {
            0 => assert_eq!(
                counted.as_deref(),
                Some("false_positive"),
                "{item}: {retry:?}"
            ),
            5 => {
                assert_eq!(counted.as_deref(), Some("real"), "{item}: {retry:?}");
                assert!(retry.stderr.contains("that one counts: verdict real"));
            }
            _ => panic!("{item}: {retry:?}"),
        }
        assert!(
            !first_ok || counted.as_deref() == Some("real"),
            "{item}: acknowledged, lost"
        );
        assert!(
            project
                .run_dir("r-test")
                .join(format!("items/{item}.json"))
                .is_file(),
            "{item}: the result file is there after the retry"
        );
    }
    project.cmd(&["doctor", "--runs-only"]).run().success();
}

#[test]
fn a_rerouted_triage_item_accepts_its_next_result_instead_of_refusing_it() {
    // A re-route sends the item back to triage under another route: the next result counts,
    // and used to be refused as "a different result" (exit 5) on every re-dispatch.
    let project = crate::pipeline::dispatched(3);
    assert!(project.stop("s1", &[]).stdout.contains("additionalContext"));
    let reroute = serde_json::json!({"confidence": 0.9, "verdict": "unsure", "root_cause": "possible injection",
        "reason": "the value reaches a shell command, a security reading is needed",
        "reroute": "security"});
    project
        .cmd(&["submit", "t-00001"])
        .stdin(reroute.to_string())
        .run()
        .success();
    project.stop("s1", &[]);
    let answer = submit_verdict(&project, "t-00001", "real", "shell injection").success();
    assert!(
        answer.stdout.contains("recorded t-00001: real"),
        "{}",
        answer.stdout
    );
    assert_eq!(
        counted_verdict(&project, "t-00001").as_deref(),
        Some("real")
    );
    assert!(
        project
            .run_dir("r-test")
            .join("items/t-00001.reroute.json")
            .is_file()
    );
    // That answer is final.
    submit_verdict(&project, "t-00001", "real", "shell injection").success();
    let other = submit_verdict(&project, "t-00001", "false_positive", "sanitized")
        .code(ExitStatus::Conflict);
    assert!(
        other.stderr.contains("that one counts: verdict real"),
        "{}",
        other.stderr
    );
    assert_eq!(
        counted_verdict(&project, "t-00001").as_deref(),
        Some("real")
    );
}

#[test]
fn a_result_whose_copy_was_lost_in_a_crash_is_still_read_from_the_journal() {
    // Readers (status, show, finalize) used to read only items/<id>.json: a submit killed
    // after its journal line left a result that counts but that they could not see.
    let project = started(3);
    let dir = project.run_dir("r-test");
    let body = serde_json::json!({"confidence": 0.9, "verdict": "real", "root_cause": "dead helper",
        "reason": "only the journal holds this reason"});
    let line = serde_json::json!({"at": NOW, "event": "submitted", "item": "t-00002",
        "result": body});
    std::fs::write(dir.join("journal.jsonl"), format!("{line}\n")).unwrap();
    std::fs::write(dir.join("items/t-00002.pending"), "0\n").unwrap();
    project.stop("s1", &[]);
    let findings = project
        .cmd(&["status", "--findings", "--json"])
        .run()
        .success()
        .json();
    let t2 = findings
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["item"] == "t-00002")
        .unwrap()
        .clone();
    assert_eq!(t2["reason"], "only the journal holds this reason", "{t2}");
    let doctor = project.cmd(&["doctor", "--runs-only"]).run().success();
    assert!(doctor.stdout.contains("wrote"), "{}", doctor.stdout);
    assert!(dir.join("items/t-00002.json").is_file());
    assert!(!dir.join("items/t-00002.pending").exists());
}

/// `status` folds the journal's new entries into `state.json`: a submission the hook has not
/// folded yet is in the state file after `status`, with the journal's end as its offset (the
/// hook then has nothing left to fold). With nothing new, `status` leaves the file alone.
#[test]
fn status_writes_the_folded_journal_back_to_the_state_and_nothing_when_nothing_is_new() {
    let project = started(4);
    assert!(project.stop("s1", &[]).stdout.contains("additionalContext"));
    project.write(".v", &verdict(1));
    project
        .cmd(&["submit", "t-00001", "--file", ".v"])
        .run()
        .success();
    let state_file = project.run_dir("r-test").join("state.json");
    let journal = project.run_dir("r-test").join("journal.jsonl");
    let saved = || -> Value {
        serde_json::from_str(&std::fs::read_to_string(&state_file).unwrap()).unwrap()
    };
    let end = std::fs::metadata(&journal).unwrap().len();
    let before = saved();
    assert!(before["journal_offset"].as_u64().unwrap() < end, "{before}");

    project.cmd(&["status"]).run().success();
    let after = saved();
    assert_eq!(after["journal_offset"], end, "{after}");

    let written = std::fs::metadata(&state_file).unwrap().modified().unwrap();
    std::thread::sleep(Duration::from_millis(20));
    project.cmd(&["status"]).run().success();
    assert_eq!(
        std::fs::metadata(&state_file).unwrap().modified().unwrap(),
        written,
        "a status with nothing to fold rewrote state.json"
    );
}
