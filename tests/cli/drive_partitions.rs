//! `drive --partitions N` before any session: the split (shares made from the run's recorded
//! input, disjoint and complete, the run split left active), each session pinned to its share
//! by `SELF_REPAIR_RUN` (the Stop hook works on the share, not the active run), a second `drive`
//! going on with the recorded shares, and the runs it refuses to split. The whole path (the
//! shares triaged by the real client at once, merged, the rest driven) is the e2e scenario
//! `drive-partitions`.

use std::collections::BTreeSet;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use serde_json::json;

use crate::harness::{Outcome, TestProject, filters, run_state};
use self_repair_app::ExitStatus;

const RUN: &str = "r-split";

/// 30 findings of six rules (surveyed: each rule whole in one share) and 12 of a rule each.
fn input() -> String {
    let surveyed = (0..30).map(|i| {
        json!({"tool": "semgrep", "rule_id": format!("rule-{}", i % 6), "message": "m",
            "path": format!("src/s{}.py", i % 5), "line": i + 1})
        .to_string()
    });
    let single = (0..12).map(|i| {
        json!({"tool": "semgrep", "rule_id": format!("single-{i}"), "message": "m",
            "path": format!("src/t{}.py", i % 3), "line": i + 1})
        .to_string()
    });
    surveyed.chain(single).collect::<Vec<_>>().join("\n")
}

/// A run started from a terminal (bound to no session), as `drive` finds it.
fn started() -> TestProject {
    let project = TestProject::new();
    project.write("findings.jsonl", &input());
    project.write(".self-repair/config.json", r#"{"confirm_above_usd": 1000}"#);
    project
        .terminal(&["start", "findings.jsonl", "--run-id", RUN])
        .run()
        .success();
    project
}

/// A stand-in `claude` that writes the run its session is pinned to into `.bin/seen`, then ends
/// as a session that did nothing.
fn fake_claude(project: &TestProject) -> PathBuf {
    let result = r#"{"type":"result","subtype":"success","is_error":false,"result":"ok","total_cost_usd":0.01}"#;
    project.write(
        ".bin/claude",
        &format!("#!/bin/sh\necho \"$SELF_REPAIR_RUN\" >> \"$SEEN\"\necho '{result}'\n"),
    );
    let path = project.path().join(".bin/claude");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path
}

fn drive(project: &TestProject, args: &[&str]) -> Outcome {
    let claude = fake_claude(project);
    let mut all = vec!["drive", "--claude", claude.to_str().expect("utf-8")];
    all.extend_from_slice(args);
    project
        .terminal(&all)
        .env("SEEN", project.path().join(".bin/seen"))
        .env("SELF_REPAIR_DRIVE_BACKOFF_SCALE", "0")
        .run()
}

fn shares(n: u32) -> Vec<String> {
    (1..=n).map(|k| format!("{RUN}.p{k}of{n}")).collect()
}

fn seen(project: &TestProject) -> Vec<String> {
    let mut runs: Vec<String> = project
        .read(".bin/seen")
        .lines()
        .map(str::to_owned)
        .collect();
    runs.sort();
    runs
}

#[test]
fn drive_partitions_splits_an_untouched_run_into_disjoint_complete_shares_each_session_pinned_to_its_own()
 {
    let project = started();
    let out = drive(&project, &["--partitions", "3", "--max-sessions", "1"])
        .code(ExitStatus::CircuitOpen);
    assert!(
        out.stdout
            .contains("is split into 3 partitions and 3 of them did not finish triage"),
        "{}",
        out.stdout
    );
    assert!(
        out.stderr
            .contains(&format!("drive: run {RUN} split into 3 partitions")),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("share 2/3: drive: session 1 starting"),
        "{}",
        out.stderr
    );
    // One session per share, each started with its own share's id.
    assert_eq!(seen(&project), shares(3));
    // The shares: one job's three partitions, ending after triage, together the run's findings.
    let whole = run_state(&project, RUN);
    let mut fingerprints = BTreeSet::new();
    let mut unique = 0;
    for (k, share) in shares(3).iter().enumerate() {
        let state = run_state(&project, share);
        let partition = state
            .scope
            .as_ref()
            .and_then(|s| s.partition.clone())
            .expect("a share has its partition");
        assert_eq!((partition.share, partition.shares), (k as u32 + 1, 3));
        assert_eq!(state.until, Some(self_repair_engine::Phase::Triage));
        assert_eq!(
            state.session, None,
            "a share is bound to no session until adopted"
        );
        unique += state.intake.unique;
        let records: Vec<serde_json::Value> = serde_json::from_str(
            &project.read(&format!(".self-repair/runs/{share}/findings.json")),
        )
        .expect("findings.json");
        for record in records {
            let fingerprint = record["fingerprint"]
                .as_str()
                .expect("fingerprint")
                .to_owned();
            assert!(
                fingerprints.insert(fingerprint),
                "a finding in two shares: {record}"
            );
        }
    }
    assert_eq!(unique, whole.intake.unique);
    assert_eq!(fingerprints.len() as u32, whole.intake.unique);
    // The run split stays the active one, untouched, and says where its work went.
    assert_eq!(project.read(".self-repair/active").trim(), RUN);
    filters(&project).bind(|| {
        insta::assert_snapshot!("drive_partitions_stopped_shares", out.stdout);
    });
    let status = project.terminal(&["status"]).run().success();
    filters(&project).bind(|| {
        insta::assert_snapshot!("drive_partitions_status_of_the_run_split", status.stdout);
    });
    assert!(
        status
            .stdout
            .contains("split into 3 partitions (`drive --partitions`):")
            && status
                .stdout
                .contains(&format!("share 3/3 {RUN}.p3of3: active, phase triage")),
        "{}",
        status.stdout
    );
    // The status line of a session in this project sums the shares (the run split moves not).
    let row = project
        .terminal(&["statusline"])
        .stdin(json!({"cwd": project.path()}).to_string())
        .run()
        .success();
    assert!(
        row.stdout.starts_with(&format!(
            "self-repair {RUN} · 3 partitions · triage 0/{}",
            whole.counts(self_repair_engine::Phase::Triage).total()
        )),
        "{}",
        row.stdout
    );
    let timeline = project.terminal(&["timeline"]).run().success();
    assert!(
        timeline.stdout.contains(&format!("partition {RUN}.p1of3:")),
        "{}",
        timeline.stdout
    );
}

#[test]
fn a_second_drive_goes_on_with_the_recorded_shares_and_refuses_another_count() {
    let project = started();
    drive(&project, &["--partitions", "2", "--max-sessions", "1"]).code(ExitStatus::CircuitOpen);
    let again = drive(&project, &["--max-sessions", "1"]).code(ExitStatus::CircuitOpen);
    assert!(!again.stderr.contains("split into"), "{}", again.stderr);
    let mut twice = shares(2);
    twice.extend(shares(2));
    twice.sort();
    assert_eq!(
        seen(&project),
        twice,
        "the same two shares, a session each time"
    );
    let other = drive(&project, &["--partitions", "3"]).code(ExitStatus::Usage);
    assert!(
        other.stderr.contains("is already split into 2 partitions"),
        "{}",
        other.stderr
    );
}

#[test]
fn the_stop_hook_of_a_pinned_session_works_on_its_share_not_the_active_run() {
    let project = started();
    drive(&project, &["--partitions", "2", "--max-sessions", "1"]).code(ExitStatus::CircuitOpen);
    let share = &shares(2)[0];
    project
        .cmd(&["adopt"])
        .env("SELF_REPAIR_RUN", share)
        .run()
        .success();
    let input = json!({"session_id": "s1", "hook_event_name": "Stop", "stop_hook_active": false,
        "cwd": project.path()});
    let out = project
        .cmd(&["hook", "stop"])
        .env("SELF_REPAIR_RUN", share)
        .stdin(input.to_string())
        .run()
        .success();
    assert!(
        out.stdout.contains(&format!("--run {share}")),
        "{}",
        out.stdout
    );
    assert_eq!(run_state(&project, share).session.as_deref(), Some("s1"));
    let whole = run_state(&project, RUN);
    assert_eq!(whole.session, None, "the run split is not bound");
    assert!(
        whole
            .items
            .iter()
            .all(|i| i.status == self_repair_engine::ItemStatus::Pending),
        "nothing of the run split was dispatched"
    );
}

#[test]
fn a_run_already_dispatched_is_not_split() {
    let project = TestProject::new();
    project.write("findings.jsonl", &input());
    project.write(".self-repair/config.json", r#"{"confirm_above_usd": 1000}"#);
    project
        .cmd(&["start", "findings.jsonl", "--run-id", RUN])
        .run()
        .success();
    project.stop("s1", &[]);
    let out = drive(&project, &["--partitions", "2"]).code(ExitStatus::Usage);
    assert!(
        out.stderr.contains("cannot be split into partitions")
            && out.stderr.contains("were dispatched already")
            && out.stderr.contains("drive this one without --partitions"),
        "{}",
        out.stderr
    );
    assert!(!project.run_dir(&shares(2)[0]).exists());
    filters(&project).bind(|| {
        insta::assert_snapshot!("drive_partitions_refuses_a_dispatched_run", out.stderr);
    });
}

#[test]
fn a_run_whose_input_changed_since_start_is_not_split_and_no_share_is_left() {
    let project = started();
    let fewer: Vec<String> = input().lines().take(20).map(str::to_owned).collect();
    project.write("findings.jsonl", &fewer.join("\n"));
    let out = drive(&project, &["--partitions", "2"]).code(ExitStatus::Usage);
    assert!(
        out.stderr
            .contains("the input files changed since it started"),
        "{}",
        out.stderr
    );
    for share in shares(2) {
        assert!(!project.run_dir(&share).exists(), "{share} left behind");
    }
    filters(&project).bind(|| {
        insta::assert_snapshot!("drive_partitions_refuses_a_changed_input", out.stderr);
    });
}

#[test]
fn partitions_outside_two_to_sixteen_are_refused_saying_why() {
    let project = started();
    let one = drive(&project, &["--partitions", "1"]).code(ExitStatus::Usage);
    assert!(
        one.stderr.contains("drive without --partitions"),
        "{}",
        one.stderr
    );
    let many = drive(&project, &["--partitions", "17"]).code(ExitStatus::Usage);
    assert!(many.stderr.contains("give 2 to 16"), "{}", many.stderr);
}

#[test]
fn drive_of_a_split_already_merged_drives_its_merged_run() {
    // As after a `drive` stopped once the merge was made: `<run>.merged` exists, the run split
    // is cancelled. Here the merged run is stood in for by a run of that id.
    let project = started();
    drive(&project, &["--partitions", "2", "--max-sessions", "1"]).code(ExitStatus::CircuitOpen);
    let merged = format!("{RUN}.merged");
    project
        .terminal(&["start", "findings.jsonl", "--run-id", &merged, "--replace"])
        .run()
        .success();
    drive(&project, &[RUN, "--max-sessions", "1"]).code(ExitStatus::CircuitOpen);
    let last = seen(&project);
    assert!(
        last.contains(&merged),
        "a session pinned to {merged}: {last:?}"
    );
    assert_eq!(
        last.len(),
        3,
        "two shares once, then the merged run: {last:?}"
    );
}

/// A run started from standard input is split from the copy of it `start` kept in the run: the
/// shares hold every finding the run read.
#[test]
fn a_run_started_from_standard_input_is_split_from_the_copy_start_kept() {
    let project = TestProject::new();
    project.write(".self-repair/config.json", r#"{"confirm_above_usd": 1000}"#);
    project
        .terminal(&["start", "-", "--run-id", RUN])
        .stdin(input())
        .run()
        .success();
    let out = drive(&project, &["--partitions", "2", "--max-sessions", "1"])
        .code(ExitStatus::CircuitOpen);
    assert!(
        out.stderr
            .contains(&format!("drive: run {RUN} split into 2 partitions")),
        "{}",
        out.stderr
    );
    let whole = run_state(&project, RUN).intake.unique;
    let mut unique = 0;
    for share in shares(2) {
        unique += run_state(&project, &share).intake.unique;
    }
    assert_eq!(whole, 42);
    assert_eq!(unique, whole);
}
