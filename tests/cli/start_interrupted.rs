//! Creating a run is atomic (issue 41): a `start --replace` killed (SIGKILL) or interrupted
//! (SIGINT) at any moment on a large input leaves no broken run folder, `runs` and `status`
//! work after each, and the previous active run is intact whenever the new one does not exist.

use std::process::{Command, Stdio};
use std::time::Instant;

use serde_json::Value;

use crate::harness::{NOW, TestProject, binary};

/// Every run `runs --json` lists, as (id, status, error).
fn listed(project: &TestProject) -> Vec<(String, Option<String>, Option<String>)> {
    let runs = project.cmd(&["runs", "--json"]).run().success().json();
    runs.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let text = |v: &Value| v.as_str().map(str::to_owned);
            (
                text(&r["run"]).unwrap(),
                text(&r["status"]),
                text(&r["error"]),
            )
        })
        .collect()
}

fn start_replace(project: &TestProject) -> std::process::Child {
    Command::new(binary())
        .args(["start", "big.jsonl", "--replace"])
        .current_dir(project.path())
        .env("SELF_REPAIR_NOW", NOW.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn interrupt(child: &mut std::process::Child, sigint: bool) {
    if sigint {
        let _ = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status();
    } else {
        let _ = child.kill();
    }
}

#[test]
fn start_killed_or_interrupted_at_any_moment_leaves_no_broken_run_and_keeps_the_active_one() {
    let project = TestProject::new();
    project.write("big.jsonl", &self_repair_test_support::jsonl_findings(8000));
    project.write("small.jsonl", &self_repair_test_support::jsonl_findings(5));
    project
        .cmd(&["start", "small.jsonl", "--run-id", "r-old"])
        .run()
        .success();
    // How long one uninterrupted `start` takes here: the kill points spread over it.
    let began = Instant::now();
    let mut child = start_replace(&project);
    assert!(child.wait().unwrap().success());
    let whole = began.elapsed();
    project
        .cmd(&["start", "small.jsonl", "--replace", "--run-id", "r-old2"])
        .run()
        .success();

    let points = 24u32;
    let mut broken = Vec::new();
    for n in 0..points {
        let before = listed(&project);
        let active_before = project.read(".self-repair/active").trim().to_owned();
        let mut child = start_replace(&project);
        std::thread::sleep(whole * (n / 2 + 1) / (points / 2 + 1));
        interrupt(&mut child, n % 2 == 0);
        let finished = child.wait().unwrap().success();

        // `runs` and `status` work after every interruption, and list no broken folder.
        let after = listed(&project);
        for (id, _, error) in &after {
            if let Some(error) = error {
                broken.push(format!("point {n}: {id}: {error}"));
            }
        }
        project.cmd(&["status"]).run().success();
        let active = project.read(".self-repair/active").trim().to_owned();
        let made = after.len() > before.len();
        if !made {
            assert_eq!(
                active, active_before,
                "point {n}: no new run, yet the active one moved"
            );
            let status = |runs: &[(String, Option<String>, Option<String>)]| {
                runs.iter()
                    .find(|r| r.0 == active)
                    .and_then(|r| r.1.clone())
            };
            assert_eq!(
                status(&after),
                status(&before),
                "point {n}: no new run, yet {active} changed"
            );
            assert!(!finished, "point {n}: a start that succeeded made no run");
        }
    }
    assert!(broken.is_empty(), "broken states: {broken:#?}");
    // What killed creators left is never listed, and every run that is listed is whole.
    let doctor = project.cmd(&["doctor", "--runs-only"]).run().success();
    assert!(!doctor.stdout.contains("unreadable"), "{}", doctor.stdout);
}

#[test]
fn a_folder_left_by_an_old_interrupted_start_is_listed_and_moved_aside_by_doctor() {
    // Before runs were staged, 6 of 19 SIGINTs left `runs/<id>/` with only `findings.json` and
    // `items/`: `runs` and `doctor` then exited 4 for good.
    let project = TestProject::new();
    project.write("f.jsonl", &self_repair_test_support::jsonl_findings(5));
    project
        .cmd(&["start", "f.jsonl", "--run-id", "r-good"])
        .run()
        .success();
    project.write(".self-repair/runs/r-half/findings.json", "[]\n");
    std::fs::create_dir_all(project.path().join(".self-repair/runs/r-half/items")).unwrap();

    let runs = project.cmd(&["runs"]).run().success().stdout;
    assert!(
        runs.contains("r-half  unreadable: the run folder"),
        "{runs}"
    );
    assert!(runs.contains("doctor --runs-only"), "{runs}");
    assert!(runs.contains("r-good  triage  active"), "{runs}");
    project.cmd(&["status"]).run().success();
    let status = project.cmd(&["status", "--run", "r-half"]).run();
    assert!(
        status.stderr.contains("holds no run") && status.stderr.contains("doctor --runs-only"),
        "{status:?}"
    );

    let doctor = project.cmd(&["doctor", "--runs-only"]).run().success();
    assert!(
        doctor.stdout.contains("r-half: the folder held no run"),
        "{}",
        doctor.stdout
    );
    assert!(
        project
            .path()
            .join(".self-repair/broken/r-half/findings.json")
            .is_file()
    );
    let runs = project.cmd(&["runs", "--json"]).run().success().json();
    assert_eq!(runs.as_array().unwrap().len(), 1, "{runs}");
}

#[test]
fn the_active_run_pointing_at_a_folder_that_holds_no_run_is_cleared_by_doctor() {
    let project = TestProject::new();
    std::fs::create_dir_all(project.path().join(".self-repair/runs/r-half/items")).unwrap();
    project.write(".self-repair/active", "r-half\n");
    project.cmd(&["runs"]).run().success();
    let doctor = project.cmd(&["doctor", "--runs-only"]).run().success();
    assert!(
        doctor.stdout.contains("no run is active now"),
        "{}",
        doctor.stdout
    );
    assert!(!project.path().join(".self-repair/active").exists());
}
