//! `merge`: the partitions of one job (`start --partition hash:K/N --until triage`), each
//! triaged in its own project as a CI matrix job would, combined into one run that forms its
//! groups and tasks over every share; and the folders it refuses, each named.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::harness::{TestProject, filters, jsonl_findings, run_state};
use crate::pipeline::drive;
use crate::scripted_agent::ScriptedAgent;
use self_repair_app::ExitStatus;

/// 28 findings of five rules (each surveyed, so whole in one share) and 24 of a rule each (spread
/// by fingerprint), which the scripted agent calls real with one cause: one group across shares.
fn job_input() -> String {
    let singletons = (0..24).map(|i| {
        json!({"tool": "semgrep", "rule_id": format!("rule-{i}"), "message": "m",
            "path": format!("src/s{}.py", i % 5), "line": i + 1})
        .to_string()
    });
    let mut lines = vec![jsonl_findings(28)];
    lines.extend(singletons);
    lines.join("\n")
}

/// A project holding the job's input (`findings.jsonl`), as each CI job checks it out.
fn checkout(input: &str) -> TestProject {
    let project = TestProject::new();
    project.write("findings.jsonl", input);
    // The single run's estimate is above the default $5: no wait for a go in these tests.
    project.write(".self-repair/config.json", r#"{"confirm_above_usd": 1000}"#);
    project
}

/// Runs share `k` of `n` in its own project to the end of triage; returns the project (its run
/// folder is `.self-repair/runs/r-pK`).
fn triaged_share(input: &str, k: u32, n: u32) -> TestProject {
    let project = checkout(input);
    let run = format!("r-p{k}");
    let spec = format!("hash:{k}/{n}");
    project
        .cmd(&[
            "start",
            "findings.jsonl",
            "--partition",
            &spec,
            "--until",
            "triage",
            "--run-id",
            &run,
        ])
        .run()
        .success();
    let agent = ScriptedAgent {
        project: &project,
        run: run.clone(),
    };
    drive(&project, &agent, "s1", usize::MAX);
    assert_eq!(
        run_state(&project, &run).status,
        self_repair_engine::RunStatus::Complete,
        "share {spec} finished"
    );
    project
}

/// Every finding's verdict and root cause, by fingerprint; the groups (id, label, members by
/// item id); the tasks (group, id, title).
#[derive(Debug, PartialEq)]
struct Outcome {
    verdicts: BTreeMap<String, (String, String, String)>,
    groups: Vec<(String, String, Vec<String>)>,
    tasks: Vec<(String, String, String)>,
}

fn outcome(project: &TestProject, run: &str) -> Outcome {
    let state = run_state(project, run);
    let findings: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(project.run_dir(run).join("findings.json")).expect("findings"),
    )
    .expect("findings parse");
    let mut verdicts = BTreeMap::new();
    for record in &findings {
        let item = record["item"]
            .as_str()
            .expect("every finding went to an agent");
        let work = state.item(item).expect("its item");
        verdicts.insert(
            record["fingerprint"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
            (
                item.to_owned(),
                work.verdict
                    .map(|v| v.as_str().to_owned())
                    .unwrap_or_default(),
                work.root_cause.as_deref().unwrap_or_default().to_owned(),
            ),
        );
    }
    Outcome {
        verdicts,
        groups: state
            .groups
            .iter()
            .map(|g| (g.id.clone(), g.label.clone(), g.members.clone()))
            .collect(),
        tasks: state
            .tasks
            .iter()
            .map(|t| (t.group.clone(), t.task_id.clone(), t.title.clone()))
            .collect(),
    }
}

/// The single run over the whole input, driven to the end.
fn single_run(input: &str) -> Outcome {
    let project = checkout(input);
    project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-one"])
        .run()
        .success();
    let agent = ScriptedAgent {
        project: &project,
        run: "r-one".into(),
    };
    drive(&project, &agent, "s1", usize::MAX);
    let status = project.cmd(&["status", "--run", "r-one"]).run().success();
    assert_eq!(
        run_state(&project, "r-one").status,
        self_repair_engine::RunStatus::Complete,
        "{}",
        status.stdout
    );
    outcome(&project, "r-one")
}

fn folder(project: &TestProject, k: u32) -> String {
    project
        .run_dir(&format!("r-p{k}"))
        .to_str()
        .expect("utf-8")
        .to_owned()
}

/// Merges the folders in a fresh checkout and drives the merged run to the end.
fn merged_run(input: &str, shares: &[TestProject]) -> (TestProject, Outcome, Value) {
    let project = checkout(input);
    let mut args = vec!["merge".to_owned()];
    args.extend(
        shares
            .iter()
            .enumerate()
            .map(|(k, share)| folder(share, k as u32 + 1)),
    );
    args.extend(["--run-id".into(), "r-merged".into(), "--json".into()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let report = project.cmd(&args).run().success().json();
    let agent = ScriptedAgent {
        project: &project,
        run: "r-merged".into(),
    };
    let driven = drive(&project, &agent, "s1", usize::MAX);
    assert!(
        driven.launches.iter().all(|id| !id.starts_with("t-")
            && !id.starts_with("tb-")
            && !id.starts_with("rs-")
            && !id.starts_with("vf-")),
        "nothing is triaged again: {:?}",
        driven.launches
    );
    let outcome = outcome(&project, "r-merged");
    (project, outcome, report)
}

#[test]
fn merged_partitions_give_the_single_runs_verdicts_groups_and_tasks() {
    let input = job_input();
    let single = single_run(&input);
    assert!(single.groups.len() >= 3, "{:?}", single.groups);
    assert!(!single.tasks.is_empty());
    for n in [2, 4] {
        let shares: Vec<TestProject> = (1..=n).map(|k| triaged_share(&input, k, n)).collect();
        let (project, merged, report) = merged_run(&input, &shares);
        assert_eq!(report["shares"].as_array().map(Vec::len), Some(n as usize));
        assert_eq!(report["phase"], "aggregate");
        for (fingerprint, verdict) in &single.verdicts {
            assert_eq!(
                merged.verdicts.get(fingerprint),
                Some(verdict),
                "N={n}: finding {fingerprint}"
            );
        }
        assert_eq!(merged.verdicts.len(), single.verdicts.len());
        assert_eq!(merged.groups, single.groups, "N={n}: groups");
        assert_eq!(merged.tasks, single.tasks, "N={n}: tasks");
        let journal = project.read(".self-repair/runs/r-merged/journal.jsonl");
        let first: Value =
            serde_json::from_str(journal.lines().next().unwrap_or_default()).expect("journal line");
        assert_eq!(first["event"], "merged");
        assert_eq!(first["runs"].as_array().map(Vec::len), Some(n as usize));
        let status = project
            .cmd(&["status", "--run", "r-merged"])
            .run()
            .success();
        assert!(
            status
                .stdout
                .contains(&format!("merged from {n} partitions: hash:1/{n} r-p1")),
            "{}",
            status.stdout
        );
        let timeline = project.cmd(&["timeline", "r-merged"]).run().success();
        assert!(
            timeline
                .stdout
                .contains(&format!("made from {n} partitions' runs: r-p1")),
            "{}",
            timeline.stdout
        );
        let report = project.read(".self-repair/runs/r-merged/report.md");
        assert!(
            report.contains(&format!("Merged from {n} partitions")),
            "{report}"
        );
    }
}

/// Shares 1 and 2 of a job of 3, triaged.
fn two_of_three(input: &str) -> Vec<TestProject> {
    (1..=2).map(|k| triaged_share(input, k, 3)).collect()
}

/// `merge FOLDERS` in a fresh checkout, refused with exit 9; its message, paths hidden.
fn refused(folders: &[String], hide: &[(&Path, &str)]) -> String {
    let project = checkout(&job_input());
    let mut args = vec!["merge"];
    args.extend(folders.iter().map(String::as_str));
    let out = project.cmd(&args).run().code(ExitStatus::NotOneJob);
    assert!(
        !project.path().join(".self-repair/runs").exists(),
        "nothing was created"
    );
    let mut text = out.stderr;
    for (path, name) in hide {
        text = text.replace(path.to_str().unwrap_or_default(), name);
    }
    text
}

#[test]
fn merge_refuses_a_missing_share_naming_it() {
    let input = job_input();
    let shares = two_of_three(&input);
    let folders = [folder(&shares[0], 1), folder(&shares[1], 2)];
    let message = refused(
        &folders,
        &[(shares[0].path(), "[CI-1]"), (shares[1].path(), "[CI-2]")],
    );
    assert!(message.contains("share 3/3 is missing"), "{message}");
    filters(&shares[0]).bind(|| insta::assert_snapshot!("merge_refuses_a_missing_share", message));
}

#[test]
fn merge_refuses_a_share_given_twice_naming_both_folders() {
    let input = job_input();
    let mut shares = two_of_three(&input);
    shares.push(triaged_share(&input, 3, 3));
    // The artifact of share 2 downloaded twice (a retried CI job).
    let again = shares[1].path().join("retry");
    copy_dir(Path::new(&folder(&shares[1], 2)), &again.join("r-p2"));
    let folders = [
        folder(&shares[0], 1),
        folder(&shares[1], 2),
        again.join("r-p2").to_str().unwrap_or_default().to_owned(),
        folder(&shares[2], 3),
    ];
    let message = refused(
        &folders,
        &[
            (shares[0].path(), "[CI-1]"),
            (shares[1].path(), "[CI-2]"),
            (shares[2].path(), "[CI-3]"),
        ],
    );
    assert!(message.contains("share 2/3 is given twice"), "{message}");
    filters(&shares[0])
        .bind(|| insta::assert_snapshot!("merge_refuses_a_duplicated_share", message));
}

#[test]
fn merge_refuses_a_foreign_share_naming_it_and_why() {
    let input = job_input();
    let shares = two_of_three(&input);
    // Share 3 of the same split, made from another commit's findings (one more finding).
    let other_input = format!(
        "{input}\n{}",
        json!({"tool": "semgrep", "rule_id": "rule-new", "message": "m", "path": "src/new.py", "line": 1})
    );
    let foreign = triaged_share(&other_input, 3, 3);
    let folders = [
        folder(&shares[0], 1),
        folder(&shares[1], 2),
        folder(&foreign, 3),
    ];
    let message = refused(
        &folders,
        &[
            (shares[0].path(), "[CI-1]"),
            (shares[1].path(), "[CI-2]"),
            (foreign.path(), "[OTHER]"),
        ],
    );
    assert!(
        message.contains(
            "[OTHER]/.self-repair/runs/r-p3 (run r-p3, share hash:3/3) belongs to another job"
        ),
        "{message}"
    );
    filters(&shares[0]).bind(|| insta::assert_snapshot!("merge_refuses_a_foreign_share", message));
}

fn copy_dir(from: &Path, to: &PathBuf) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read dir").flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).expect("copy");
        }
    }
}

/// The kept SARIF input survives the merge: the merged run's `inputs/index.json` places every
/// finding as a single run over the whole log does, and `export sarif` writes every result.
#[test]
fn the_merged_runs_kept_sarif_input_places_every_finding_as_the_single_run() {
    let project = crate::export::project_with_dismissals();
    let single: Value =
        serde_json::from_str(&project.read(".self-repair/runs/r-2/inputs/index.json"))
            .expect("index.json");
    let mut folders = Vec::new();
    for k in 1..=2 {
        let run = format!("r-p{k}");
        let spec = format!("hash:{k}/2");
        project
            .cmd(&[
                "start",
                "codeql.sarif",
                "--partition",
                &spec,
                "--until",
                "triage",
                "--run-id",
                &run,
                "--replace",
            ])
            .run()
            .success();
        let agent = ScriptedAgent {
            project: &project,
            run: run.clone(),
        };
        drive(&project, &agent, "s1", usize::MAX);
        project.cmd(&["finalize", "--run", &run]).run().success();
        folders.push(folder(&project, k));
    }
    let mut args = vec!["merge"];
    args.extend(folders.iter().map(String::as_str));
    args.extend(["--run-id", "r-m"]);
    let out = project.cmd(&args).run().success();
    filters(&project).bind(|| insta::assert_snapshot!("merge_of_two_partitions", out.stdout));
    let merged: Value =
        serde_json::from_str(&project.read(".self-repair/runs/r-m/inputs/index.json"))
            .expect("index.json");
    assert_eq!(merged, single);
    assert_eq!(
        project.read(".self-repair/runs/r-m/inputs/1.sarif"),
        project.read("codeql.sarif")
    );
    let out = project
        .cmd(&["export", "sarif", "--run", "r-m"])
        .run()
        .success();
    let exported: Value = serde_json::from_str(&out.stdout).expect("SARIF on stdout");
    assert_eq!(
        exported["runs"][0]["results"].as_array().map(Vec::len),
        Some(4)
    );
}
