//! Batched triage through the binary: one `tb-` item per batch, its task (each rule once, each
//! shared excerpt once), `submit` refusing a result that misses or invents a finding, and the
//! verdicts landing on each finding.

use serde_json::{Value, json};

use crate::harness::{TestProject, filters};
use crate::scripted_agent::{ScriptedAgent, dispatch_reason, launched};
use self_repair_app::ExitStatus;

/// Lines 1 and 3 share an excerpt; line 40 is far enough for its own.
fn source() -> String {
    let mut text = "import os\nimport re\nimport sys\n".to_owned();
    for n in 4..40 {
        text.push_str(&format!("x{n} = {n}\n"));
    }
    text.push_str("import json\n");
    text
}

fn findings() -> String {
    [(1, "os"), (3, "sys"), (40, "json")]
        .iter()
        .map(|(line, name)| {
            json!({"tool": "ruff", "rule_id": "F401", "level": "warning",
                "message": format!("`{name}` imported but unused"), "path": "app/mod.py",
                "line": line, "column": 8})
            .to_string()
        })
        .chain(std::iter::once(
            json!({"tool": "ruff", "rule_id": "F401", "level": "warning",
                "message": "`re` imported but unused", "path": "app/other.py", "line": 1,
                "column": 8})
            .to_string(),
        ))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A started run whose four findings are one batch, dispatched by the first stop.
fn dispatched_batch() -> TestProject {
    let project = TestProject::new();
    project
        .write("app/mod.py", &source())
        .write("app/other.py", "import re\n")
        .write("findings.jsonl", &findings());
    project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-b"])
        .run()
        .success();
    let out = project.stop("s1", &[]);
    let answer: Value = serde_json::from_str(&out.stdout).unwrap();
    let (_, ids) = launched(dispatch_reason(&answer).unwrap());
    assert_eq!(ids, ["tb-00001"]);
    project
}

fn verdict(item: &str) -> Value {
    json!({"confidence": 0.9, "item": item, "verdict": "real", "root_cause": "unused import",
           "reason": "the module never reads the imported name"})
}

#[test]
fn a_batch_task_shows_each_rule_once_and_overlapping_excerpts_once() {
    let project = dispatched_batch();
    let settings = filters(&project);
    let _guard = settings.bind_to_scope();
    let shown = project
        .cmd(&["show", "tb-00001", "--json"])
        .run()
        .success()
        .json();
    let prompt = shown["prompt"].as_str().unwrap();
    insta::assert_snapshot!("triage_batch_show", prompt);
    // Three excerpts for four findings: lines 1 and 3 of app/mod.py share one.
    assert_eq!(prompt.matches("```python").count(), 3, "{prompt}");
    assert_eq!(prompt.matches("| import os").count(), 1);
    assert_eq!(shown["kind"], "triage_batch");
    assert_eq!(shown["agent"], "self-repair:triage-investigator");
    let members =
        &shown["output_schema"]["properties"]["verdicts"]["items"]["properties"]["item"]["enum"];
    assert_eq!(
        members,
        &json!(["t-00001", "t-00002", "t-00003", "t-00004"])
    );
}

#[test]
fn a_batch_result_missing_or_inventing_a_finding_is_refused_naming_it() {
    let project = dispatched_batch();
    let settings = filters(&project);
    let _guard = settings.bind_to_scope();
    let agent = ScriptedAgent {
        project: &project,
        run: "r-b".into(),
    };
    let missing = json!({"verdicts": [verdict("t-00001"), verdict("t-00002"), verdict("t-00003")]});
    let refused = agent
        .submit("tb-00001", &missing.to_string())
        .code(ExitStatus::Rejected);
    insta::assert_snapshot!("triage_batch_submit_missing", refused.stderr);
    assert!(
        refused.stderr.contains("no entry for t-00004"),
        "{}",
        refused.stderr
    );
    let invented = json!({"verdicts": [verdict("t-00001"), verdict("t-00002"), verdict("t-00003"),
        verdict("t-00009")]});
    let refused = agent
        .submit("tb-00001", &invented.to_string())
        .code(ExitStatus::Rejected);
    insta::assert_snapshot!("triage_batch_submit_invented", refused.stderr);
    assert!(refused.stderr.contains("\"t-00009\""), "{}", refused.stderr);
    // A member is never dispatched on its own while its batch holds it.
    agent
        .submit("t-00001", &verdict("t-00001").to_string())
        .code(ExitStatus::NotDispatched);
}

#[test]
fn a_batch_result_gives_each_finding_its_verdict_and_names_the_batch() {
    let project = dispatched_batch();
    let settings = filters(&project);
    let _guard = settings.bind_to_scope();
    let agent = ScriptedAgent {
        project: &project,
        run: "r-b".into(),
    };
    let mut other = verdict("t-00004");
    other["verdict"] = json!("intended");
    other["root_cause"] = json!("re-exported for users");
    let result = json!({"verdicts": [verdict("t-00003"), verdict("t-00001"), other,
        verdict("t-00002")]});
    let out = agent.submit("tb-00001", &result.to_string()).success();
    insta::assert_snapshot!("triage_batch_submit_recorded", out.stdout);
    // Each finding's readable result is where a single item's would be.
    let copy: Value =
        serde_json::from_str(&project.read(".self-repair/runs/r-b/items/t-00004.json")).unwrap();
    assert_eq!(copy["verdict"], "intended");
    assert!(copy.get("item").is_none());
    let findings = project.cmd(&["status", "--findings"]).run().success();
    insta::assert_snapshot!("triage_batch_status_findings", findings.stdout);
    assert_eq!(findings.stdout.matches("[agent tb-00001]").count(), 4);
}

#[test]
fn a_finding_rerouted_from_its_batch_is_dispatched_alone_and_its_own_verdict_counts() {
    let project = dispatched_batch();
    let agent = ScriptedAgent {
        project: &project,
        run: "r-b".into(),
    };
    let mut unsure = verdict("t-00002");
    unsure["verdict"] = json!("unsure");
    unsure["reroute"] = json!("security");
    let result = json!({"verdicts": [verdict("t-00001"), unsure, verdict("t-00003"),
        verdict("t-00004")]});
    agent.submit("tb-00001", &result.to_string()).success();
    let out = project.stop("s1", &[]);
    let answer: Value = serde_json::from_str(&out.stdout).unwrap();
    let (_, ids) = launched(dispatch_reason(&answer).unwrap());
    assert_eq!(ids, ["t-00002"]);
    assert!(
        out.stdout.contains(r#"\"model\":\"sonnet\""#),
        "{}",
        out.stdout
    );
    let shown = agent.show("t-00002");
    assert_eq!(shown["kind"], "triage");
    assert!(
        shown["prompt"]
            .as_str()
            .unwrap()
            .contains("route `security`")
    );
    agent
        .submit(
            "t-00002",
            &json!({"confidence": 0.9, "verdict": "false_positive", "root_cause": "used by plugins",
            "reason": "imported for its side effect of registering plugins"})
            .to_string(),
        )
        .success();
    // A dismissal on the security route waits for an independent second opinion, at opus,
    // that is not shown the first answer.
    let findings = project
        .cmd(&["status", "--findings", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(findings[1]["decided_by"], "pending", "{}", findings[1]);
    assert_eq!(findings[1]["verification"]["why"], "security_dismissal");
    let out = project.stop("s1", &[]);
    let answer: Value = serde_json::from_str(&out.stdout).unwrap();
    let (_, ids) = launched(dispatch_reason(&answer).unwrap());
    assert_eq!(ids, ["vf-00002"]);
    assert!(
        out.stdout.contains(r#"\"model\":\"opus\""#),
        "{}",
        out.stdout
    );
    let shown = agent.show("vf-00002");
    assert_eq!(shown["kind"], "verify");
    let prompt = shown["prompt"].as_str().unwrap();
    // Blind (issue 40): neither the first answer nor its direction.
    assert!(prompt.contains("## Decide this finding"), "{prompt}");
    assert!(!prompt.contains("registering plugins"), "{prompt}");
    assert!(!prompt.contains("dismissed"), "{prompt}");
    agent
        .submit(
            "vf-00002",
            &json!({"confidence": 0.8, "verdict": "false_positive", "root_cause": "used by plugins",
            "reason": "the import registers the plugins; nothing untrusted reaches it"})
            .to_string(),
        )
        .success();
    let findings = project
        .cmd(&["status", "--findings", "--json"])
        .run()
        .success()
        .json();
    let second = &findings.as_array().unwrap()[1];
    assert_eq!(second["verdict"], "false_positive");
    assert!(second.get("batch").is_none(), "{second}");
    assert_eq!(second["verification"]["outcome"], "confirmed", "{second}");
    assert_eq!(second["verification"]["first"]["by"], "t-00002");
    assert_eq!(second["verification"]["second"]["model"], "opus");
    assert_eq!(findings[0]["batch"], "tb-00001");
}

#[test]
fn a_triage_task_lists_what_may_be_the_same_defect_so_duplicate_of_can_name_it() {
    let project = TestProject::new();
    project.write(".self-repair/config.json", r#"{"triage_batch": 1}"#);
    project.write(
        "app/mod.py",
        "import os\nimport sys\n\nx = 1\n\n\n\n\ny = None == 1\n",
    );
    let rows = [
        json!({"tool": "ruff", "rule_id": "F401", "path": "app/mod.py", "line": 1, "symbol": "os", "message": "`os` imported but unused"}),
        json!({"tool": "vulture", "rule_id": "unused-import", "path": "app/mod.py", "line": 1, "symbol": "os", "message": "unused import 'os'"}),
        json!({"tool": "ruff", "rule_id": "F401", "path": "app/mod.py", "line": 2, "symbol": "sys", "message": "`sys` imported but unused"}),
        json!({"tool": "ruff", "rule_id": "E711", "path": "app/mod.py", "line": 9, "message": "Comparison to `None`"}),
    ];
    let text: Vec<String> = rows.iter().map(Value::to_string).collect();
    project.write("findings.jsonl", &text.join("\n"));
    project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-d"])
        .run()
        .success();
    let shown = project.cmd(&["show", "t-00001"]).run().success().stdout;
    let line = shown
        .lines()
        .find(|l| l.contains("possible duplicates"))
        .unwrap_or_else(|| panic!("{shown}"));
    // The other tool on the same symbol; not `sys` (another import, another defect) nor the
    // comparison eight lines down.
    assert!(
        line.contains("t-00002 vulture unused-import at app/mod.py:1"),
        "{line}"
    );
    assert!(
        !line.contains("t-00003") && !line.contains("t-00004"),
        "{line}"
    );
}

/// Finalize reads every answer from the journal, not one file a finding (issue 45): what
/// report.json says of each finding is what its result copy `items/t-….json` holds, with a
/// re-route, a second look and a copy lost after its batch's journal line (the journal is the
/// record: the answer is still there, where a read of the file alone found none).
#[test]
fn the_report_takes_each_answer_from_the_journal_as_its_copy_holds_it() {
    let project = TestProject::new();
    project
        .write("app/mod.py", &source())
        .write("app/other.py", "import re\n")
        .write("findings.jsonl", &findings());
    project
        .cmd(&[
            "start",
            "findings.jsonl",
            "--run-id",
            "r-b",
            "--until",
            "triage",
        ])
        .run()
        .success();
    let out = project.stop("s1", &[]);
    let answer: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(launched(dispatch_reason(&answer).unwrap()).1, ["tb-00001"]);
    let agent = ScriptedAgent {
        project: &project,
        run: "r-b".into(),
    };
    let mut unsure = verdict("t-00002");
    unsure["verdict"] = json!("unsure");
    unsure["reroute"] = json!("security");
    let mut third = verdict("t-00003");
    third["reason"] = json!("the third import is dead code since the refactor");
    let result = json!({"verdicts": [verdict("t-00001"), unsure, third, verdict("t-00004")]});
    agent.submit("tb-00001", &result.to_string()).success();
    let items = project.run_dir("r-b").join("items");
    let copy = |id: &str| -> Value {
        serde_json::from_str(&std::fs::read_to_string(items.join(format!("{id}.json"))).unwrap())
            .unwrap()
    };
    let lost = copy("t-00003");
    std::fs::remove_file(items.join("t-00003.json")).unwrap();
    for (item, result) in [
        (
            "t-00002",
            json!({"confidence": 0.9, "verdict": "false_positive", "root_cause": "plugins",
                "reason": "imported for its side effect of registering plugins"}),
        ),
        (
            "vf-00002",
            json!({"confidence": 0.8, "verdict": "false_positive", "root_cause": "plugins",
                "reason": "the import registers the plugins; nothing untrusted reaches it"}),
        ),
    ] {
        let out = project.stop("s1", &[]);
        let answer: Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(launched(dispatch_reason(&answer).unwrap()).1, [item]);
        agent.submit(item, &result.to_string()).success();
    }
    let out = project.stop("s1", &[]);
    assert!(out.stdout.contains("complete"), "{}", out.stdout);
    let text = project.read(".self-repair/runs/r-b/report.json");
    let report: Value = serde_json::from_str(&text).unwrap();
    // Indented at its top two levels, one finding a line below them, each line the finding's
    // whole object (reference/state-file.md).
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.contains(&"  \"run\": \"r-b\","), "{text}");
    let first = lines
        .iter()
        .position(|l| *l == "  \"findings\": [")
        .unwrap_or_else(|| panic!("no findings list opened on a line of its own: {text}"));
    let rows: Vec<Value> = lines[first + 1..]
        .iter()
        .take_while(|l| !l.starts_with("  ]"))
        .map(|l| {
            let row = l.strip_prefix("    ").unwrap_or_else(|| panic!("{l}"));
            serde_json::from_str(row.strip_suffix(',').unwrap_or(row)).unwrap()
        })
        .collect();
    assert_eq!(Some(&rows), report["findings"].as_array(), "{text}");
    let by_item = |id: &str| -> &Value {
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["item"] == id)
            .unwrap_or_else(|| panic!("no finding of {id}: {report}"))
    };
    for (id, expected) in [
        ("t-00001", copy("t-00001")),
        ("t-00003", lost),
        ("t-00004", copy("t-00004")),
    ] {
        let finding = by_item(id);
        for field in ["verdict", "root_cause", "reason"] {
            assert_eq!(finding[field], expected[field], "{id} {field}: {finding}");
        }
    }
    // The re-routed finding: its own answer first, the re-route kept aside, the second look's
    // answer standing.
    let rerouted = by_item("t-00002");
    let own = copy("t-00002");
    assert_eq!(
        rerouted["verification"]["first"]["reason"], own["reason"],
        "{rerouted}"
    );
    assert_eq!(
        rerouted["rerouted_from"]["reroute"], "security",
        "{rerouted}"
    );
    assert_eq!(rerouted["reason"], copy("vf-00002")["reason"], "{rerouted}");
    let findings = project
        .cmd(&["status", "--findings", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(
        findings[2]["reason"], "the third import is dead code since the refactor",
        "{}",
        findings[2]
    );
}
