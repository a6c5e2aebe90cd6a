//! Deterministic classification: known registry, rules, measured proposals, detectors.

use serde_json::Value;

use crate::harness::{TestProject, jsonl_findings};
use crate::pipeline::{drive, started};
use crate::scripted_agent::ScriptedAgent;
use self_repair_app::ExitStatus;

#[test]
fn a_second_start_after_known_add_and_rules_accept_dispatches_fewer_items_and_says_why() {
    let project = started(10);
    // By hand: t-00001 is intended; every eqeqeq finding is a false positive.
    project
        .cmd(&[
            "known",
            "add",
            "t-00001",
            "--verdict",
            "intended",
            "--reason",
            "re-exported for the plugin API",
        ])
        .run()
        .success();
    project.write(
        ".self-repair/rules.json",
        r#"{"schema_version": 1, "rules": [
            {"id": "eq-loose", "name": "loose equality is house style", "when": {"tool": "eslint", "rule_id": "eqeqeq"},
             "verdict": "false_positive", "reason": "the codebase compares with == on purpose", "status": "proposed"},
            {"id": "clippy-sec", "name": "zero checks get a closer look", "when": {"rule_id": "clippy::len_zero"},
             "route": "security"}]}"#,
    );
    let listed = project.cmd(&["rules", "list"]).run().success();
    assert!(
        listed.stdout.contains("eq-loose  [proposed]"),
        "{}",
        listed.stdout
    );
    project
        .cmd(&["rules", "accept", "eq-loose"])
        .run()
        .success();
    let out = project
        .cmd(&["rules", "accept", "nope"])
        .run()
        .code(ExitStatus::NotFound);
    assert!(out.stderr.contains("no rule `nope`"));

    let second = project
        .cmd(&[
            "start",
            "findings.jsonl",
            "--run-id",
            "r-2",
            "--json",
            "--replace",
        ])
        .run()
        .success()
        .json();
    assert_eq!(second["intake"]["known"], 1);
    assert_eq!(second["intake"]["rules"], 2, "eqeqeq findings n2 and n7");
    assert_eq!(second["intake"]["routed"], 7);
    assert_eq!(
        second["routes"],
        serde_json::json!([["generic", 2], ["dead-code", 3], ["security", 2]])
    );

    let why = project.cmd(&["status", "--findings"]).run().success();
    assert!(
        why.stdout
            .contains("[known] intended: known.json (manual): re-exported for the plugin API"),
        "{}",
        why.stdout
    );
    assert!(
        why.stdout
            .contains("[rule] false_positive: rule eq-loose (loose equality is house style)"),
        "{}",
        why.stdout
    );
    let block = project.stop("s1", &[]);
    let dispatched = block.stdout.matches("self-repair item t-").count();
    assert_eq!(dispatched, 7, "only the routed findings are dispatched");
    let answer = serde_json::from_str::<Value>(&block.stdout).unwrap();
    let reason = self_repair_engine::continuation(&answer)
        .unwrap()
        .to_owned();
    assert!(
        reason.contains("\"model\":\"sonnet\""),
        "the security route starts at sonnet: {reason}"
    );
}

#[test]
fn a_finalized_run_fills_known_json_and_measures_rule_proposals() {
    let project = started(10);
    let agent = ScriptedAgent {
        project: &project,
        run: "r-test".into(),
    };
    drive(&project, &agent, "s1", usize::MAX);
    let known: Value = project.known();
    assert_eq!(known["entries"].as_object().unwrap().len(), 10);
    // The scripted rule reviewer proposes nothing; a hand-made rr-1 result shows measurement.
    let project = started(10);
    let agent = ScriptedAgent {
        project: &project,
        run: "r-test".into(),
    };
    let mut proposals_done = false;
    for _ in 0..200 {
        let Some(ids) = crate::scripted_agent::next_wave(&project) else {
            break;
        };
        for id in ids {
            if id == "rr-1" {
                let rules = serde_json::json!({"rules": [
                    {"name": "eqeqeq is loose on purpose", "when": {"tool": "eslint", "rule_id": "eqeqeq"},
                     "verdict": "false_positive", "reason": "every eqeqeq finding was a false positive",
                     "evidence": ["t-00003", "t-00008"]},
                    {"name": "all ruff findings are real", "when": {"tool": "ruff"},
                     "verdict": "real", "reason": "ruff was right every time here", "evidence": ["t-00001"]}]});
                agent.submit(&id, &rules.to_string()).success();
                proposals_done = true;
            } else {
                agent.work(&id).success();
            }
        }
    }
    assert!(proposals_done);
    let rules = project
        .cmd(&["rules", "list", "--json"])
        .run()
        .success()
        .json();
    let rules = rules.as_array().unwrap();
    assert_eq!(rules.len(), 2);
    assert_eq!(rules[0]["status"], "proposed");
    assert_eq!(rules[0]["measured"]["matches"], 2);
    assert_eq!(rules[0]["measured"]["accuracy"], 1.0);
    // 4 ruff findings (F401 and E711), all real.
    assert_eq!(rules[1]["measured"]["matches"], 4);
    assert_eq!(rules[1]["measured"]["agreed"], 4);
}

#[test]
fn detectors_run_as_argv_with_accepted_exit_codes_and_feed_start() {
    let project = TestProject::new();
    project.write("sub/findings.jsonl", &crate::harness::jsonl_findings(4));
    project.write(
        ".self-repair/config.json",
        r#"{"detectors": [{"name": "fake-vulture", "argv": ["sh", "-c", "cat findings.jsonl; echo noise >&2; exit 3"],
            "cwd": "sub", "ok_exit_codes": [0, 3], "format": "jsonl"}]}"#,
    );
    let out = project.cmd(&["detect"]).run().success();
    assert!(
        out.stdout.contains("fake-vulture: exit 3") && out.stdout.contains("4 finding(s) as jsonl"),
        "{}",
        out.stdout
    );
    let start = project
        .cmd(&["start", "--detect", "--run-id", "r-d", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(start["intake"]["unique"], 4);
    let findings = project.read(".self-repair/runs/r-d/findings.json");
    assert!(
        findings.contains("\"path\":\"sub/src/m0.py\""),
        "paths are under the detector's cwd"
    );
    assert!(
        project
            .read(".self-repair/runs/r-d/detect/fake-vulture.err")
            .contains("noise")
    );

    project.write(
        ".self-repair/config.json",
        r#"{"detectors": [{"name": "bad", "argv": ["sh", "-c", "echo broken >&2; exit 2"]}]}"#,
    );
    // `--replace`: a run still in progress is refused before any detector runs.
    let out = project
        .cmd(&["start", "--detect", "--run-id", "r-bad", "--replace"])
        .run()
        .code(ExitStatus::Failure);
    assert!(
        out.stderr.contains("detector `bad` exited 2") && out.stderr.contains("broken"),
        "{}",
        out.stderr
    );
    assert!(!project.run_dir("r-bad").exists(), "nothing created");
    // The run it would have replaced is cancelled only once the new one exists: untouched.
    let status = project.cmd(&["status", "--json"]).run().success().json();
    assert_eq!(status["run"], "r-d", "{status}");
    assert_eq!(status["status"], "active", "{status}");
}

/// A detector past its timeout was killed without its children: a `sh -c` detector's own
/// processes lived on, holding its pipes open until they ended.
#[test]
fn a_detector_that_times_out_is_killed_with_its_children() {
    let project = TestProject::new();
    project.write(
        ".self-repair/config.json",
        r#"{"detectors": [{"name": "slow", "argv": ["sh", "-c", "(sleep 3; touch grandchild-lived) & wait"],
            "timeout_secs": 1}]}"#,
    );
    let out = project.cmd(&["detect"]).run().code(ExitStatus::Failure);
    assert!(
        out.stderr.contains("detector `slow` timed out after 1 s")
            && out.stderr.contains("timeout_secs"),
        "{}",
        out.stderr
    );
    std::thread::sleep(std::time::Duration::from_millis(3500));
    assert!(
        !project.path().join("grandchild-lived").exists(),
        "the detector's child outlived its timeout"
    );
}

#[test]
fn bad_config_and_rule_files_are_refused_with_a_clear_error_and_left_alone() {
    let project = TestProject::new();
    project.write("f.jsonl", &crate::harness::jsonl_findings(2));
    project.write(".self-repair/config.json", r#"{"fan_out": 50}"#);
    let out = project
        .cmd(&["start", "f.jsonl"])
        .run()
        .code(ExitStatus::Usage);
    assert!(
        out.stderr.contains("fan_out") && out.stderr.contains("1 to 20"),
        "{}",
        out.stderr
    );
    project.write(".self-repair/config.json", r#"{"fan_outt": 5}"#);
    let out = project
        .cmd(&["start", "f.jsonl"])
        .run()
        .code(ExitStatus::Usage);
    assert!(
        out.stderr.contains("unknown field `fan_outt`"),
        "{}",
        out.stderr
    );
    project.write(".self-repair/config.json", "{}");
    project.write(".self-repair/rules.json", r#"{"rules": [{"id": "x", "name": "bad", "when": {"message_regex": "("}, "verdict": "real"}]}"#);
    let out = project
        .cmd(&["start", "f.jsonl"])
        .run()
        .code(ExitStatus::Usage);
    assert!(out.stderr.contains("message_regex"), "{}", out.stderr);
    assert!(
        project.read(".self-repair/rules.json").contains("\"("),
        "file untouched"
    );
}

/// There was no way to take a decision back out of known.json: `known remove` forgets it, and
/// the next `start` triages the finding again.
#[test]
fn known_remove_forgets_a_decision_and_the_next_start_triages_the_finding_again() {
    let project = started(3);
    let added = project
        .cmd(&[
            "known",
            "add",
            "t-00001",
            "--verdict",
            "intended",
            "--reason",
            "kept for the plugin API",
        ])
        .run()
        .success();
    let fingerprint = added.stdout.split_whitespace().nth(1).unwrap().to_owned();
    let replace = ["start", "findings.jsonl", "--run-id", "r-2", "--replace"];
    let second = project.cmd(&replace).run().success();
    assert!(
        second.stdout.contains("known registry decided 1"),
        "{}",
        second.stdout
    );
    let removed = project
        .cmd(&["known", "remove", &fingerprint])
        .run()
        .success();
    assert!(
        removed
            .stdout
            .contains("forgotten (it was intended by manual)"),
        "{}",
        removed.stdout
    );
    let third = project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-3", "--replace"])
        .run()
        .success();
    assert!(
        third.stdout.contains("known registry decided 0"),
        "{}",
        third.stdout
    );
    let again = project.cmd(&["known", "remove", &fingerprint]).run();
    assert_eq!(again.code, 4, "{}", again.stderr);
    assert!(again.stderr.contains("no decision"), "{}", again.stderr);
}

/// Every agent verdict went into known.json at finalize, security dismissals included: one
/// agent's "false positive" then hid a security finding in every later run. Now such a
/// dismissal is proposed, decides nothing, and applies only after `known accept`.
#[test]
fn a_security_dismissal_is_proposed_not_applied_until_known_accept() {
    let project = TestProject::new();
    project.write("findings.jsonl", &jsonl_findings(10));
    // Route eqeqeq findings to the security route; the scripted agent calls them false positives.
    project.write(
        ".self-repair/rules.json",
        r#"{"schema_version": 1, "rules": [{"id": "eq-sec", "name": "eqeqeq gets a security look",
            "when": {"rule_id": "eqeqeq"}, "route": "security"}]}"#,
    );
    let known = finish_run(&project);
    let entries = known["entries"].as_object().unwrap();
    let proposed: Vec<&String> = entries
        .iter()
        .filter(|(_, e)| e["proposed"] == true)
        .map(|(fp, _)| fp)
        .collect();
    assert_eq!(proposed.len(), 2, "the two eqeqeq dismissals: {known}");
    assert!(
        entries
            .values()
            .all(|e| e["proposed"] == true || e["verdict"] == "real")
    );
    let listed = project.cmd(&["known", "list"]).run().success().stdout;
    assert!(
        listed.contains("[proposed: `self-repair known accept` or `reject`]"),
        "{listed}"
    );
    // The next run: the 8 real findings are decided by known.json, the 2 proposals are not.
    let second = project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-2", "--replace"])
        .run()
        .success();
    assert!(
        second.stdout.contains("known registry decided 8"),
        "{}",
        second.stdout
    );
    let accepted = project
        .cmd(&["known", "accept", proposed[0]])
        .run()
        .success();
    assert!(
        accepted.stdout.contains("(accepted)"),
        "{}",
        accepted.stdout
    );
    project
        .cmd(&["known", "reject", proposed[1]])
        .run()
        .success();
    let third = project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-3", "--replace"])
        .run()
        .success();
    assert!(
        third.stdout.contains("known registry decided 9"),
        "{}",
        third.stdout
    );
}

#[test]
fn a_known_decision_records_who_decided_on_which_code_and_lapses_when_that_code_changes() {
    let project = TestProject::new();
    project.write(".self-repair/config.json", r#"{"triage_batch": 1}"#);
    let source: String = (1..=45).fold(String::new(), |mut text, n| {
        text.push_str(&format!("x{n} = {n}\n"));
        text
    });
    project.write("src/m0.py", &source);
    // Three findings on lines 1, 2 and 3 of src/m0.py.
    project.write("findings.jsonl", &jsonl_findings(3));
    let known = finish_run(&project);
    let entries = known["entries"].as_object().unwrap();
    assert_eq!(entries.len(), 3, "{known}");
    let mut spans: Vec<&str> = entries
        .values()
        .map(|e| e["lines"].as_str().unwrap())
        .collect();
    spans.sort_unstable();
    assert_eq!(spans, ["src/m0.py:1-4", "src/m0.py:2-5", "src/m0.py:3-6"]);
    for entry in entries.values() {
        assert_eq!(entry["source"], "r-test");
        assert!(entry["item"].as_str().unwrap().starts_with("t-"), "{entry}");
        assert!(entry["model"].is_string(), "{entry}");
        assert!(entry["code"].is_string(), "{entry}");
    }
    let listed = project.cmd(&["known", "list"]).run().success().stdout;
    assert!(listed.contains("on src/m0.py:1-4"), "{listed}");
    // Unchanged code: all three decided again without an agent.
    let replace = |id: &str| {
        project
            .cmd(&["start", "findings.jsonl", "--run-id", id, "--replace"])
            .run()
            .success()
            .stdout
    };
    let same = replace("r-2");
    assert!(same.contains("known registry decided 3"), "{same}");
    // Line 5 changes: the decisions made on lines 2-5 and 3-6 lapse; the flagged lines (and so
    // the fingerprints) did not change.
    project.write(
        "src/m0.py",
        &source.replace("x5 = 5\n", "x5 = eval(user_input)\n"),
    );
    let changed = replace("r-3");
    assert!(changed.contains("known registry decided 1"), "{changed}");
    assert!(
        changed
            .contains("2 known decision(s) no longer apply: the code they were decided on changed"),
        "{changed}"
    );
}

/// Starts run r-test on findings.jsonl, drives it to the end with the scripted agent, and
/// returns known.json.
fn finish_run(project: &TestProject) -> Value {
    project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-test"])
        .run()
        .success();
    let agent = ScriptedAgent {
        project,
        run: "r-test".into(),
    };
    drive(project, &agent, "s1", usize::MAX);
    project.known()
}

#[test]
fn known_adds_at_once_all_land_in_the_registry_none_lost_to_another_writer() {
    // As the shares of `drive --partitions` finalize at once: each writer reads known.json,
    // adds its entries and saves; without the registry lock a save drops the others' entries.
    let project = started(16);
    std::thread::scope(|scope| {
        for item in 1..=16 {
            let project = &project;
            scope.spawn(move || {
                project
                    .cmd(&[
                        "known",
                        "add",
                        &format!("t-{item:05}"),
                        "--verdict",
                        "intended",
                        "--reason",
                        "decided at once",
                    ])
                    .run()
                    .success();
            });
        }
    });
    let listed = project
        .cmd(&["known", "list", "--json"])
        .run()
        .success()
        .json();
    let entries = listed
        .as_array()
        .map_or_else(|| panic!("known list --json: {listed}"), Vec::len);
    assert_eq!(entries, 16, "{listed}");
}
