//! Pull-request mode and partitions: `start --changed-since`, `--new-only`, `--partition`, and
//! `drive --fail-on-real` (issue 26 item 2, issue 27 item 1).

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::{Value, json};

use self_repair_app::ExitStatus;

use crate::harness::{TestProject, filters, run_state};

fn git(project: &TestProject, args: &[&str]) {
    crate::harness::git(project.path(), args);
}

/// A real repository: the harness's empty `.git` folder replaced by `git init`.
fn repository() -> TestProject {
    let project = TestProject::new();
    std::fs::remove_dir_all(project.path().join(".git")).expect("rm .git");
    git(&project, &["init", "-q"]);
    project
}

/// What `ruff check --select F401 --output-format json` prints for a file whose every line is
/// `import NAME` (ruff 0.17.6's shape, checked against the real binary: absolute `filename`,
/// a safe fix deleting the line).
fn ruff_f401(project: &TestProject, file: &str) -> Value {
    let filename = project.path().join(file).display().to_string();
    let text = project.read(file);
    let findings: Vec<Value> = text
        .lines()
        .enumerate()
        .filter_map(|(index, line)| {
            let name = line.strip_prefix("import ")?;
            let row = index + 1;
            Some(json!({
                "cell": null, "code": "F401",
                "end_location": {"column": 8 + name.len(), "row": row},
                "filename": filename,
                "fix": {"applicability": "safe", "edits": [{"content": "",
                    "end_location": {"column": 1, "row": row + 1}, "location": {"column": 1, "row": row}}],
                    "message": format!("Remove unused import: `{name}`")},
                "location": {"column": 8, "row": row},
                "message": format!("`{name}` imported but unused"),
                "name": "unused-import", "noqa_row": row, "severity": "error",
                "url": "https://docs.astral.sh/ruff/rules/unused-import"
            }))
        })
        .collect();
    Value::Array(findings)
}

fn imports(names: &[String]) -> String {
    names.iter().fold(String::new(), |mut text, name| {
        text.push_str("import ");
        text.push_str(name);
        text.push('\n');
        text
    })
}

fn findings_json(project: &TestProject, run: &str) -> Vec<Value> {
    project
        .read(&format!(".self-repair/runs/{run}/findings.json"))
        .lines()
        .filter(|l| l.trim_start().starts_with('{'))
        .map(|l| serde_json::from_str(l.trim_end_matches(',')).expect("findings.json row"))
        .collect()
}

fn symbols(findings: &[Value]) -> BTreeSet<String> {
    findings
        .iter()
        .map(|r| {
            r["finding"]["message"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect()
}

#[test]
fn changed_since_keeps_the_three_findings_a_commit_added_to_a_file_with_40() {
    let project = repository();
    let old: Vec<String> = (1..=40).map(|n| format!("old{n:02}")).collect();
    project.write("app.py", &imports(&old));
    git(&project, &["add", "app.py"]);
    git(&project, &["commit", "-q", "-m", "forty unused imports"]);
    // The pull request's commit adds three in the middle: the 30 below them move down.
    let mut new = old.clone();
    for (at, name) in [(10, "new1"), (11, "new2"), (12, "new3")] {
        new.insert(at, name.to_owned());
    }
    project.write("app.py", &imports(&new));
    git(&project, &["commit", "-q", "-am", "three more"]);
    project.write("ruff.json", &ruff_f401(&project, "app.py").to_string());

    let out = project
        .cmd(&[
            "start",
            "ruff.json",
            "--changed-since",
            "HEAD~1",
            "--run-id",
            "r-pr",
        ])
        .run()
        .success();
    let settings = {
        let mut settings = filters(&project);
        settings.add_filter(r"\(([0-9a-f]{12})\)", "([COMMIT])");
        settings
    };
    settings.bind(|| insta::assert_snapshot!("changed_since_start", out.stdout));

    let kept = findings_json(&project, "r-pr");
    assert_eq!(
        symbols(&kept),
        [
            "`new1` imported but unused",
            "`new2` imported but unused",
            "`new3` imported but unused"
        ]
        .map(str::to_owned)
        .into(),
    );
    let state = run_state(&project, "r-pr");
    assert_eq!((state.intake.findings, state.intake.routed), (43, 3));
    let scope = state.scope.expect("scope recorded");
    assert_eq!(scope.changed_since.as_deref(), Some("HEAD~1"));
    assert_eq!(scope.out_of_scope, 40);
    assert_eq!(scope.changed_since_commit.map(|c| c.len()), Some(40));
    let status = project
        .cmd(&["status", "--run", "r-pr", "--json"])
        .run()
        .success();
    assert_eq!(status.json()["scope"]["out_of_scope"], 40);
}

#[test]
fn a_pull_request_without_a_finding_on_its_lines_makes_a_run_with_nothing_to_triage() {
    let project = repository();
    let names: Vec<String> = (1..=5).map(|n| format!("m{n}")).collect();
    project.write("app.py", &imports(&names));
    project.write("README.md", "one\n");
    git(&project, &["add", "."]);
    git(&project, &["commit", "-q", "-m", "base"]);
    git(&project, &["branch", "main"]);
    project.write("README.md", "one\ntwo\n");
    git(&project, &["commit", "-q", "-am", "docs only"]);
    project.write("ruff.json", &ruff_f401(&project, "app.py").to_string());

    let out = project
        .cmd(&[
            "start",
            "ruff.json",
            "--changed-since",
            "main...",
            "--run-id",
            "r-docs",
        ])
        .run()
        .success();
    assert!(
        out.stdout
            .contains("only findings on lines changed since main...: 5 finding(s) out of scope"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("nothing to triage: none of the 5 finding(s) read is in the run's scope"),
        "{}",
        out.stdout
    );
    project
        .cmd(&["finalize", "--run", "r-docs"])
        .run()
        .success();
    let report = project.read(".self-repair/runs/r-docs/report.md");
    assert!(
        report.contains(
            "Scope: only findings on lines changed since main...: 5 finding(s) out of scope, \
             not in this run."
        ),
        "{report}"
    );
    let status = project.cmd(&["status", "--run", "r-docs"]).run().success();
    assert!(
        status.stdout.contains("scope: only findings"),
        "{}",
        status.stdout
    );
}

#[test]
fn changed_since_an_unknown_revision_creates_nothing_and_says_what_to_fetch() {
    let project = repository();
    project.write("app.py", "import os\n");
    project.write("ruff.json", &ruff_f401(&project, "app.py").to_string());
    let out = project
        .cmd(&["start", "ruff.json", "--changed-since", "origin/nope"])
        .run()
        .code(ExitStatus::Usage);
    assert!(
        out.stderr.contains("--changed-since origin/nope"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("git fetch origin main"),
        "{}",
        out.stderr
    );
    assert!(!project.path().join(".self-repair/runs").exists());
}

#[test]
fn new_only_keeps_the_results_code_scanning_marked_new() {
    let project = TestProject::new();
    let result = |rule: &str, line: u32, state: &str| {
        json!({"ruleId": rule, "message": {"text": format!("{rule} here")}, "baselineState": state,
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": "src/a.py"},
                "region": {"startLine": line}}}]})
    };
    let log = json!({"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "CodeQL"}},
        "results": [result("py/a", 1, "new"), result("py/b", 2, "unchanged"),
                    result("py/c", 3, "updated"), result("py/d", 4, "new"),
                    result("py/e", 5, "absent")]}]});
    project.write("src/a.py", "a\nb\nc\nd\ne\n");
    project.write("pr.sarif", &log.to_string());
    let out = project
        .cmd(&[
            "start",
            "pr.sarif",
            "--new-only",
            "--run-id",
            "r-new",
            "--json",
        ])
        .run()
        .success();
    let report = out.json();
    assert_eq!(report["intake"]["findings"], 4, "{report}");
    assert_eq!(report["intake"]["unique"], 2, "{report}");
    assert_eq!(report["scope"]["new_only"], true);
    assert_eq!(report["scope"]["out_of_scope"], 2);
    let rules: BTreeSet<String> = findings_json(&project, "r-new")
        .iter()
        .map(|r| {
            r["finding"]["rule_id"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect();
    assert_eq!(rules, ["py/a", "py/d"].map(str::to_owned).into());

    project.write("ruff.json", "[]");
    let refused = project
        .cmd(&["start", "ruff.json", "--new-only", "--replace"])
        .run()
        .code(ExitStatus::Usage);
    assert!(
        refused.stderr.contains("carries no baseline state"),
        "{}",
        refused.stderr
    );
}

/// 30 findings of one rule (surveyed at the default `survey_min` of 5) and 60 of rules with
/// one finding each.
fn partitioned_input() -> String {
    let big = (0..30).map(|i| {
        json!({"tool": "ruff", "rule_id": "D205", "message": "1 blank line required",
            "symbol": format!("f{i}"), "path": format!("src/d{}.py", i % 6), "line": i + 1})
    });
    let small = (0..60).map(|i| {
        json!({"tool": "semgrep", "rule_id": format!("rule-{i}"), "message": "m",
            "path": format!("src/s{}.py", i % 9), "line": i + 1})
    });
    big.chain(small)
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn three_partitions_split_a_job_disjointly_and_completely_keeping_a_surveyed_rule_whole() {
    let mut seen: Vec<(u32, BTreeSet<String>)> = Vec::new();
    let mut digests = BTreeSet::new();
    for share in 1..=3 {
        // Each share on its own machine: a project at another path, the same input.
        let project = TestProject::new();
        project.write("findings.jsonl", &partitioned_input());
        let spec = format!("hash:{share}/3");
        let out = project
            .cmd(&[
                "start",
                "findings.jsonl",
                "--partition",
                &spec,
                "--run-id",
                "r-part",
                "--json",
            ])
            .run()
            .success();
        let report = out.json();
        let partition = &report["scope"]["partition"];
        assert_eq!(partition["share"], share);
        assert_eq!(partition["shares"], 3);
        assert_eq!(partition["input_unique"], 90);
        assert_eq!(partition["whole_rule_from"], 5);
        assert_eq!(partition["whole_rules"], 1);
        digests.insert(
            partition["input_digest"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
        );
        let prints: BTreeSet<String> = findings_json(&project, "r-part")
            .iter()
            .map(|r| r["fingerprint"].as_str().unwrap_or_default().to_owned())
            .collect();
        assert_eq!(partition["other_shares"], 90 - prints.len(), "{partition}");
        let d205 = findings_json(&project, "r-part")
            .iter()
            .filter(|r| r["finding"]["rule_id"] == "D205")
            .count();
        assert!(
            d205 == 0 || d205 == 30,
            "share {share} has {d205} of D205's 30"
        );
        seen.push((share, prints));
    }
    assert_eq!(digests.len(), 1, "one job, one input digest: {digests:?}");
    let all: Vec<&String> = seen.iter().flat_map(|(_, p)| p).collect();
    let distinct: BTreeSet<&String> = all.iter().copied().collect();
    assert_eq!(all.len(), 90, "every finding in some share, none twice");
    assert_eq!(distinct.len(), 90);
    assert!(
        seen.iter().filter(|(_, p)| !p.is_empty()).count() >= 2,
        "the singletons spread over the shares"
    );
}

#[test]
fn a_partition_that_is_not_hash_k_of_n_is_refused_with_the_form() {
    let project = TestProject::new();
    project.write("findings.jsonl", &partitioned_input());
    let out = project
        .cmd(&["start", "findings.jsonl", "--partition", "hash:4/3"])
        .run()
        .code(ExitStatus::Usage);
    assert!(out.stderr.contains("hash:K/N"), "{}", out.stderr);
    assert!(!project.path().join(".self-repair/runs").exists());
}

/// A stand-in `claude` that is never needed: `drive` on a complete run starts no session.
fn idle_claude(project: &TestProject) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    project.write(".bin/claude", "#!/bin/sh\nexit 1\n");
    let path = project.path().join(".bin/claude");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path
}

/// Rules that decide every finding of [`partitioned_input`] (no agent needed): D205 as
/// `d205`, the semgrep ones as false positives.
fn rules_deciding_all(d205: &str) -> String {
    json!({"schema_version": 1, "rules": [
        {"id": "d205", "name": "D205 here", "when": {"rule_id": "D205"}, "verdict": d205,
         "reason": "decided for the test"},
        {"id": "semgrep-fp", "name": "semgrep noise", "when": {"tool": "semgrep"},
         "verdict": "false_positive", "reason": "not here"}]})
    .to_string()
}

/// `drive --fail-on-real` on the complete run `run`, decided by rules with D205 as `d205`.
fn drive_decided(project: &TestProject, run: &str, d205: &str) -> crate::harness::Cmd {
    project.write(".self-repair/rules.json", &rules_deciding_all(d205));
    project
        .cmd(&["start", "findings.jsonl", "--run-id", run, "--replace"])
        .run()
        .success();
    project.cmd(&["finalize", "--run", run]).run().success();
    let claude = idle_claude(project);
    let claude = claude.to_str().expect("utf-8").to_owned();
    project.cmd(&["drive", run, "--claude", &claude, "--fail-on-real"])
}

#[test]
fn drive_fail_on_real_exits_24_when_the_run_found_real_findings() {
    let project = TestProject::new();
    project.write("findings.jsonl", &partitioned_input());
    let gated = drive_decided(&project, "r-real", "real")
        .run()
        .code(ExitStatus::FoundReal);
    assert!(
        gated
            .stdout
            .contains("30 real finding(s): exit 24 (--fail-on-real)"),
        "{}",
        gated.stdout
    );
    // Without the flag a complete run is a success, real findings or not.
    let claude = project.path().join(".bin/claude");
    project
        .cmd(&[
            "drive",
            "r-real",
            "--claude",
            claude.to_str().expect("utf-8"),
        ])
        .run()
        .success();
    // Only false positives: the gate passes.
    drive_decided(&project, "r-clean", "false_positive")
        .run()
        .success();
}

#[test]
fn until_triage_ends_the_run_once_every_finding_has_its_verdict() {
    use crate::scripted_agent::{ScriptedAgent, next_wave};
    let project = TestProject::new();
    project.write("findings.jsonl", &crate::harness::jsonl_findings(6));
    let started = project
        .cmd(&[
            "start",
            "findings.jsonl",
            "--until",
            "triage",
            "--run-id",
            "r-tri",
            "--json",
        ])
        .run()
        .success()
        .json();
    let phases: BTreeSet<String> = started["estimate"]["phases"]
        .as_array()
        .map(|p| {
            p.iter()
                .filter_map(|k| k["phase"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(
        phases,
        ["triage".to_owned()].into(),
        "the estimate counts triage only"
    );
    let agent = ScriptedAgent {
        project: &project,
        run: "r-tri".into(),
    };
    let mut launched = Vec::new();
    for _ in 0..50 {
        let Some(ids) = next_wave(&project) else {
            break;
        };
        for id in ids {
            agent.work(&id).success();
            launched.push(id);
        }
    }
    let state = run_state(&project, "r-tri");
    assert_eq!(state.status, self_repair_engine::RunStatus::Complete);
    assert!(
        launched
            .iter()
            .all(|id| id.starts_with("t-") || id.starts_with("tb-") || id.starts_with("vf-")),
        "only triage work ran: {launched:?}"
    );
    assert!(state.groups.is_empty());
    let report = project.read(".self-repair/runs/r-tri/report.md");
    assert!(
        report.contains("The run ended after triage (`start --until triage`)"),
        "{report}"
    );
    let refused = project
        .cmd(&["start", "findings.jsonl", "--until", "plan", "--replace"])
        .run()
        .code(ExitStatus::Usage);
    assert!(
        refused.stderr.contains("only `--until triage`"),
        "{}",
        refused.stderr
    );
}

/// The Jinja2 corpus (Ruff's SARIF, absolute paths under `/tmp/corpus/jinja2-3.1.6`).
const CORPUS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/corpus/jinja2-3.1.6"
);

/// A CI machine's checkout: the corpus's sources in a project at its own path, its SARIF as
/// Ruff wrote it on a runner whose checkout was `base`.
fn ci_checkout(base: &str) -> TestProject {
    let project = TestProject::new();
    let copy = std::process::Command::new("cp")
        .args([
            "-r",
            &format!("{CORPUS}/src"),
            &project.path().display().to_string(),
        ])
        .status()
        .expect("cp");
    assert!(copy.success());
    let sarif = std::fs::read_to_string(format!("{CORPUS}/ruff-0.17.6-select-all.sarif"))
        .expect("corpus SARIF")
        .replace("/tmp/corpus/jinja2-3.1.6", base);
    project.write("ruff.sarif", &sarif);
    project
}

#[test]
fn a_share_is_the_same_on_two_machines_whose_sarif_names_other_checkout_paths() {
    let share = |base: &str| {
        let project = ci_checkout(base);
        let out = project
            .cmd(&[
                "start",
                "ruff.sarif",
                "--partition",
                "hash:2/4",
                "--run-id",
                "r-ci",
                "--json",
            ])
            .run()
            .success();
        let digest = out.json()["scope"]["partition"]["input_digest"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let prints: BTreeSet<String> = findings_json(&project, "r-ci")
            .iter()
            .map(|r| r["fingerprint"].as_str().unwrap_or_default().to_owned())
            .collect();
        (digest, prints)
    };
    let (digest_a, prints_a) = share("/home/runner/work/jinja/jinja");
    let (digest_b, prints_b) = share("/builds/team/jinja");
    assert_eq!(digest_a, digest_b, "one job's input on both machines");
    assert!(
        prints_a.len() > 100,
        "share 2/4 of 2,221 findings: {}",
        prints_a.len()
    );
    assert_eq!(
        prints_a, prints_b,
        "the same findings in share 2/4 on both machines"
    );
}
