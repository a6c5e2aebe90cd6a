//! The registry a team shares (issue 26 items 3-4): `known baseline` accepts a report's
//! findings without an agent, `known prune` forgets what no recent run read, `known
//! merge-driver` is what git runs on the registries where `install` registered it, and `start`
//! leaves the files that say what a team commits.

use serde_json::Value;

use crate::harness::{TestProject, filters, git, jsonl_findings};
use self_repair_app::ExitStatus;
use self_repair_test_support::{Bounded, git_command};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/formats");

#[test]
fn known_baseline_records_every_finding_and_the_next_start_triages_none() {
    let project = TestProject::new();
    project.write("findings.jsonl", &jsonl_findings(30));
    let read = |name: &str| std::fs::read_to_string(format!("{FIXTURES}/{name}")).unwrap();
    project.write("mod.py", &read("python-input-mod.py"));
    project.write("ruff.json", &read("ruff-0.17.6.json"));
    let out = project
        .cmd(&[
            "known",
            "baseline",
            "findings.jsonl",
            "ruff.json",
            "--base",
            "/home/dev/samples/py",
            "--verdict",
            "intended",
            "--reason",
            "accepted debt, 2026-11",
        ])
        .run()
        .success();
    let settings = filters(&project);
    settings.bind(|| insta::assert_snapshot!("known_baseline_output", out.stdout));
    let known = project.known();
    let entries = known["entries"].as_object().unwrap();
    assert_eq!(entries.len(), 32, "30 JSONL findings and Ruff's 2");
    assert!(entries.values().all(|e| e["source"] == "baseline"
        && e["verdict"] == "intended"
        && e["reason"] == "accepted debt, 2026-11"));
    assert!(project.path().join(".self-repair/.gitignore").is_file());

    // Again: every finding is decided already, nothing is written.
    let again = project
        .cmd(&[
            "known",
            "baseline",
            "findings.jsonl",
            "--verdict",
            "false_positive",
            "--reason",
            "other",
        ])
        .run()
        .success();
    assert!(
        again.stdout.contains("0 recorded, 30 already decided"),
        "{}",
        again.stdout
    );
    assert_eq!(project.known(), known);

    // The next run: the registry decides all 30, no agent.
    let start = project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-1", "--json"])
        .run()
        .success();
    let report: Value = serde_json::from_str(&start.stdout).unwrap();
    assert_eq!(report["intake"]["known"], 30, "{report}");
    assert_eq!(report["intake"]["routed"], 0, "{report}");
}

#[test]
fn known_baseline_refuses_a_real_verdict_an_empty_reason_and_a_bad_report_and_writes_nothing() {
    let project = TestProject::new();
    project.write("findings.jsonl", &jsonl_findings(3));
    project.write("broken.jsonl", "{\"tool\": \"ruff\"\n");
    for (args, says) in [
        (
            ["findings.jsonl", "--verdict", "real", "--reason", "r"],
            "`intended` or `false_positive`",
        ),
        (
            ["findings.jsonl", "--verdict", "intended", "--reason", " "],
            "--reason TEXT",
        ),
        (
            ["broken.jsonl", "--verdict", "intended", "--reason", "r"],
            "broken.jsonl",
        ),
    ] {
        let mut all = vec!["known", "baseline"];
        all.extend(args);
        let out = project.cmd(&all).run().code(ExitStatus::Usage);
        assert!(out.stderr.contains(says), "{args:?}: {}", out.stderr);
        assert!(!project.path().join(".self-repair/known.json").exists());
    }
}

#[test]
fn start_writes_the_team_files_once_and_git_ignores_the_runs() {
    let project = TestProject::new();
    std::fs::remove_dir_all(project.path().join(".git")).ok();
    git(project.path(), &["init", "-q"]);
    project.write("findings.jsonl", &jsonl_findings(3));
    project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-1"])
        .run()
        .success();
    let status = git(
        project.path(),
        &[
            "status",
            "--porcelain",
            "--untracked-files=all",
            ".self-repair",
        ],
    );
    let mut listed: Vec<&str> = status.lines().collect();
    listed.sort_unstable();
    assert_eq!(
        listed,
        [
            "?? .self-repair/.gitattributes",
            "?? .self-repair/.gitignore",
        ],
        "runs/ and active stay local"
    );
    project.write(".self-repair/.gitignore", "runs/\n");
    project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-2", "--replace"])
        .run()
        .success();
    assert_eq!(
        project.read(".self-repair/.gitignore"),
        "runs/\n",
        "a team's own file stays"
    );
}

#[test]
fn known_prune_drops_what_the_last_runs_did_not_read() {
    let project = TestProject::new();
    project.write("findings.jsonl", &jsonl_findings(5));
    // An older registry (no decision times): one entry of a finding no run reads, one of an
    // analyzer no run ran, one the runs read.
    project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-1"])
        .run()
        .success();
    let seen = std::fs::read_to_string(project.run_dir("r-1").join("findings.json")).unwrap();
    let seen: Value = serde_json::from_str(&seen).unwrap();
    let seen_fingerprint = seen[0]["fingerprint"].as_str().unwrap().to_owned();
    let older = serde_json::json!({"schema_version": 1, "entries": {
            "00000000000000aa": {"verdict": "intended", "reason": "gone", "source": "manual",
                "summary": "ruff F401 src/gone.py: imported but unused"},
            "00000000000000bb": {"verdict": "intended", "reason": "other analyzer", "source": "manual",
                "summary": "semgrep rule.x src/a.py: m"},
            seen_fingerprint.clone(): {"verdict": "real", "reason": "seen", "source": "manual",
                "summary": "ruff F401 src/m0.py: m"}
    }})
    .to_string();
    project.write(".self-repair/known.json", &older);
    let refused = project
        .cmd(&["known", "prune", "--runs", "2"])
        .run()
        .code(ExitStatus::Usage);
    assert!(
        refused.stderr.contains("needs 2 triage runs"),
        "{}",
        refused.stderr
    );

    let dry = project
        .cmd(&["known", "prune", "--runs", "1", "--dry-run"])
        .run()
        .success();
    assert!(
        dry.stdout.contains("would drop 1 of 3 entries"),
        "{}",
        dry.stdout
    );
    assert_eq!(
        project.read(".self-repair/known.json"),
        older,
        "a dry run writes nothing"
    );

    let out = project
        .cmd(&["known", "prune", "--runs", "1"])
        .run()
        .success();
    let settings = filters(&project);
    settings.bind(|| insta::assert_snapshot!("known_prune_output", out.stdout));
    let left: Vec<String> = project.known()["entries"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    let mut expected = vec!["00000000000000bb".to_owned(), seen_fingerprint];
    expected.sort();
    assert_eq!(left, expected);
}

/// The registry line of a decided finding.
fn entry_line(fingerprint: &str, verdict: &str, source: &str, at: &str) -> String {
    format!(
        "{{\"fingerprint\":\"{fingerprint}\",\"verdict\":\"{verdict}\",\"reason\":\"r\",\"source\":\"{source}\",\"summary\":\"ruff F401 a.py: m\",\"decided_at\":\"{at}\"}}"
    )
}

/// The real binary as git's merge driver: two branches decide one finding differently and each
/// add one; `git merge` runs `known merge-driver`, which keeps the later decision, one line a
/// finding, and says what it settled.
#[test]
fn git_runs_the_merge_driver_install_registers_and_it_settles_a_disputed_finding() {
    let project = TestProject::new();
    let root = project.path();
    std::fs::remove_dir_all(root.join(".git")).ok();
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["config", "user.email", "t@example.com"]);
    git(root, &["config", "user.name", "t"]);
    let header = "{\"schema_version\":2}";
    let base = format!(
        "{header}\n{}\n",
        entry_line("00000000000000b0", "real", "r-0", "2026-11-20T00:00:00Z")
    );
    project.write(".self-repair/known.json", &base);
    // What install does in a git work tree (its own test checks the registration itself).
    project.cmd(&["install", "--project"]).run().success();
    let registered = git(root, &["config", "merge.self-repair-known.driver"]);
    assert!(
        registered
            .trim()
            .ends_with("known merge-driver %O %A %B %P"),
        "{registered}"
    );
    git(root, &["add", ".self-repair"]);
    git(root, &["commit", "-q", "-m", "base"]);
    for (branch, verdict, at, added) in [
        (
            "alice",
            "intended",
            "2026-11-25T00:00:00Z",
            "00000000000000a1",
        ),
        (
            "bob",
            "false_positive",
            "2026-11-26T00:00:00Z",
            "00000000000000c1",
        ),
    ] {
        git(root, &["checkout", "-q", "-b", branch, "main"]);
        let mut lines = [
            entry_line("00000000000000b0", verdict, branch, at),
            entry_line(added, "intended", branch, at),
        ];
        lines.sort();
        project.write(
            ".self-repair/known.json",
            &format!("{header}\n{}\n", lines.join("\n")),
        );
        git(root, &["commit", "-q", "-am", branch]);
    }
    git(root, &["checkout", "-q", "alice"]);
    let merged = Bounded::new(git_command(root, &["merge", "--no-edit", "bob"])).run();
    let said = merged.stdout_text() + &merged.stderr_text();
    assert!(merged.succeeded(), "{said}");
    assert!(
        said.contains("00000000000000b0: ours intended (alice, 2026-11-25T00:00:00Z), theirs false_positive (bob, 2026-11-26T00:00:00Z); kept theirs"),
        "{said}"
    );
    let text = project.read(".self-repair/known.json");
    assert_eq!(text.matches("00000000000000b0").count(), 1, "{text}");
    let known = project.known();
    assert_eq!(
        known["entries"]["00000000000000b0"]["verdict"],
        "false_positive"
    );
    assert!(known["entries"]["00000000000000a1"].is_object());
    assert!(known["entries"]["00000000000000c1"].is_object());

    project.cmd(&["uninstall", "--project"]).run().success();
    let gone = Bounded::new(git_command(
        root,
        &["config", "merge.self-repair-known.driver"],
    ))
    .run();
    assert!(!gone.succeeded(), "uninstall removes the driver");
}

#[test]
fn the_merge_driver_refuses_a_version_that_does_not_read_and_writes_nothing() {
    let project = TestProject::new();
    project.write("o", "{\"schema_version\":2}\n");
    project.write("a", "{\"schema_version\":2}\n{\"fingerprint\":\"x\"}\n");
    project.write("b", "{\"schema_version\":2}\n");
    let out = project
        .cmd(&[
            "known",
            "merge-driver",
            "o",
            "a",
            "b",
            ".self-repair/known.json",
        ])
        .run()
        .code(ExitStatus::Usage);
    assert!(
        out.stderr.contains("cannot merge .self-repair/known.json")
            && out.stderr.contains("line 2"),
        "{}",
        out.stderr
    );
    assert_eq!(
        project.read("a"),
        "{\"schema_version\":2}\n{\"fingerprint\":\"x\"}\n"
    );
}

/// `known baseline --dry-run` says what it would record and writes nothing: no registry, no
/// team files, not even `.self-repair/`.
#[test]
fn known_baseline_dry_run_says_what_it_would_record_and_writes_nothing() {
    let project = TestProject::new();
    project.write("findings.jsonl", &jsonl_findings(30));
    let out = project
        .cmd(&[
            "known",
            "baseline",
            "findings.jsonl",
            "--verdict",
            "intended",
            "--reason",
            "accepted debt",
            "--dry-run",
        ])
        .run()
        .success();
    assert!(
        out.stdout
            .contains("findings.jsonl: 30 findings (jsonl): 30 to record, 0 already")
            && out.stdout.contains(
                "known baseline --dry-run: would record 30 as intended (\"accepted debt\"), 0 \
                 kept as decided before; known.json would hold 30 (holds 0). Nothing written"
            ),
        "{}",
        out.stdout
    );
    assert!(!project.path().join(".self-repair").exists());
}

/// `known prune` names what it kept only when it kept some: with every entry's analyzer read by
/// the runs and no entry younger than them, the line ends at what it dropped.
#[test]
fn known_prune_says_nothing_of_kept_entries_when_it_kept_none() {
    let project = TestProject::new();
    project.write("findings.jsonl", &jsonl_findings(5));
    project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-1"])
        .run()
        .success();
    let seen = std::fs::read_to_string(project.run_dir("r-1").join("findings.json")).unwrap();
    let seen: Value = serde_json::from_str(&seen).unwrap();
    let seen_fingerprint = seen[0]["fingerprint"].as_str().unwrap().to_owned();
    let older = serde_json::json!({"schema_version": 1, "entries": {
            "00000000000000aa": {"verdict": "intended", "reason": "gone", "source": "manual",
                "summary": "ruff F401 src/gone.py: imported but unused"},
            seen_fingerprint: {"verdict": "real", "reason": "seen", "source": "manual",
                "summary": "ruff F401 src/m0.py: m"}
    }})
    .to_string();
    project.write(".self-repair/known.json", &older);
    let out = project
        .cmd(&["known", "prune", "--runs", "1"])
        .run()
        .success();
    assert_eq!(
        out.stdout.lines().next().unwrap(),
        "known prune: dropped 1 of 2 entries: no run of the last 1 (r-1) read their finding",
        "{}",
        out.stdout
    );
}
