//! `submit`: validation messages that say what to fix, idempotency, final results.

use crate::harness::filters;
use crate::pipeline::dispatched;
use crate::scripted_agent::ScriptedAgent;
use self_repair_app::ExitStatus;

#[test]
fn invalid_results_are_rejected_with_the_field_and_allowed_values() {
    let project = dispatched(3);
    let settings = filters(&project);
    let _guard = settings.bind_to_scope();
    let agent = ScriptedAgent {
        project: &project,
        run: "r-test".into(),
    };
    let out = agent
        .submit(
            "t-00001",
            r#"{"confidence": 0.9, "verdict":"maybe","root_cause":"x","extra":1}"#,
        )
        .code(ExitStatus::Rejected);
    insta::assert_snapshot!("submit_rejected", out.stderr);
    let out = agent
        .submit("t-00001", "not json")
        .code(ExitStatus::Rejected);
    insta::assert_snapshot!("submit_not_json", out.stderr);
    let out = agent
        .submit(
            "t-00002",
            r#"{"confidence": 0.9, "verdict":"duplicate","root_cause":"same","reason":"same finding as another one"}"#,
        )
        .code(ExitStatus::Rejected);
    assert!(out.stderr.contains("duplicate_of"), "{}", out.stderr);
    // The rejection is journaled (identical failures open the circuit).
    let journal = project.read(".self-repair/runs/r-test/journal.jsonl");
    assert!(journal.contains("\"event\":\"rejected\""));
}

#[test]
fn the_same_result_twice_is_fine_and_a_different_one_is_refused() {
    let project = dispatched(3);
    let agent = ScriptedAgent {
        project: &project,
        run: "r-test".into(),
    };
    let good = r#"{"confidence": 0.9, "verdict":"real","root_cause":"unused import","reason":"the name is never used"}"#;
    let first = agent.submit("t-00001", good).success();
    assert!(
        first.stdout.starts_with("recorded t-00001: real"),
        "{}",
        first.stdout
    );
    let spaced = "{\"confidence\": 0.9,  \"reason\": \"the name is never used\", \"root_cause\": \"unused import\", \"verdict\": \"real\" }";
    let again = agent.submit("t-00001", spaced).success();
    assert!(
        again.stdout.starts_with("already recorded"),
        "{}",
        again.stdout
    );
    let other = r#"{"confidence": 0.9, "verdict":"intended","root_cause":"re-export","reason":"kept for the public API"}"#;
    let out = agent.submit("t-00001", other).code(ExitStatus::Conflict);
    assert!(
        out.stderr.contains("already has a different result"),
        "{}",
        out.stderr
    );
}

#[test]
fn unknown_items_and_items_of_later_phases_are_not_found() {
    let project = dispatched(3);
    let agent = ScriptedAgent {
        project: &project,
        run: "r-test".into(),
    };
    let out = agent.submit("t-00009", "{}").code(ExitStatus::NotFound);
    assert!(out.stderr.contains("no item `t-00009`"), "{}", out.stderr);
    let out = agent
        .submit("plan-g1-1", "## a plan")
        .code(ExitStatus::NotFound);
    assert!(
        out.stderr.contains("created when its phase starts"),
        "{}",
        out.stderr
    );
    let out = agent.submit("bogus", "{}").code(ExitStatus::NotFound);
    assert!(out.stderr.contains("ids look like"), "{}", out.stderr);
}

#[test]
fn show_json_gives_the_contract_fields_and_a_draft_2020_12_schema() {
    let project = dispatched(3);
    let agent = ScriptedAgent {
        project: &project,
        run: "r-test".into(),
    };
    let shown = agent.show("t-00001");
    for key in ["item", "kind", "agent", "model", "prompt", "output_schema"] {
        assert!(shown.get(key).is_some(), "missing {key}");
    }
    assert_eq!(shown["agent"], "self-repair:triage-investigator");
    assert_eq!(
        shown["output_schema"]["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(
        shown["output_schema"]["required"],
        serde_json::json!(["verdict", "root_cause", "reason", "confidence"])
    );
}

/// R5: `show --json`'s `output_schema` was looser than `submit`. Each body submit refuses is
/// refused by the schema too: the conditions are stated, and a body the schema accepts passes.
#[test]
fn output_schema_states_every_rule_submit_enforces() {
    let project = dispatched(3);
    let agent = ScriptedAgent {
        project: &project,
        run: "r-test".into(),
    };
    let shown = project
        .cmd(&["show", "t-00001", "--json"])
        .run()
        .success()
        .json();
    let schema = &shown["output_schema"];
    let rules = schema["allOf"]
        .as_array()
        .expect("the conditions are stated");
    let stated = serde_json::to_string(rules).unwrap();
    for needle in [
        r#""then":{"required":["duplicate_of"]}"#,
        r#""if":{"required":["duplicate_of"]}"#,
        r#""if":{"required":["reroute"]}"#,
    ] {
        assert!(stated.contains(needle), "{needle} missing from {stated}");
    }
    let duplicate_of = schema["properties"]["duplicate_of"]["pattern"]
        .as_str()
        .unwrap();
    assert!(
        !duplicate_of.contains("t-[0-9]+"),
        "names only other items of this run: {duplicate_of}"
    );
    for (body, field) in [
        (
            r#"{"confidence": 0.9, "verdict":"duplicate","root_cause":"same helper","reason":"same finding as another one in the file"}"#,
            "duplicate_of",
        ),
        (
            r#"{"confidence": 0.9, "verdict":"real","root_cause":"dead helper","reason":"nothing calls it anywhere","duplicate_of":"t-00002"}"#,
            "duplicate_of",
        ),
        (
            r#"{"confidence": 0.9, "verdict":"real","root_cause":"dead helper","reason":"nothing calls it anywhere","reroute":"security"}"#,
            "reroute",
        ),
        (
            r#"{"confidence": 0.9, "verdict":"duplicate","root_cause":"same helper","reason":"same finding as itself, spelled short","duplicate_of":"t-1"}"#,
            "duplicate_of",
        ),
        (
            "{\"confidence\": 0.9, \"verdict\":\"real\",\"root_cause\":\"dead\\nhelper\",\"reason\":\"nothing calls it anywhere\"}",
            "root_cause",
        ),
    ] {
        let out = agent.submit("t-00001", body).code(ExitStatus::Rejected);
        assert!(
            out.stderr.contains(&format!("`{field}`")),
            "{body}: {}",
            out.stderr
        );
    }
    agent
        .submit(
            "t-00001",
            r#"{"confidence": 0.9, "verdict":"duplicate","root_cause":"same helper","reason":"same finding as t-00002","duplicate_of":"t-2"}"#,
        )
        .success();
}

/// A 1.35 GB body (one JSON string) ran `submit` past 20 s and 2.6 GB of memory before anything
/// was said: the body is now read up to the limit and refused there, from stdin or a file.
#[test]
fn a_body_over_the_limit_is_refused_at_once_saying_the_limit() {
    use std::io::Read;

    use self_repair_app::commands::submit::MAX_RESULT_BYTES;

    let project = dispatched(3);
    // Exactly the limit is read (and rejected as the empty result it is).
    let out = project
        .cmd(&["submit", "t-00001"])
        .stdin_from(std::io::repeat(b' ').take(MAX_RESULT_BYTES))
        .run()
        .code(ExitStatus::Rejected);
    assert!(out.stderr.contains("nothing came"), "{}", out.stderr);
    // One byte more is refused, and a stream of 4 GiB is not read past the limit.
    for size in [MAX_RESULT_BYTES + 1, 4 << 30] {
        let out = project
            .cmd(&["submit", "t-00001"])
            .stdin_from(std::io::repeat(b' ').take(size))
            .run()
            .code(ExitStatus::Usage);
        assert!(
            out.stderr.contains("larger than 8 MiB") && out.stderr.contains("nothing was recorded"),
            "{}",
            out.stderr
        );
        // What the pipe buffers beyond the limit, at most.
        assert!(
            out.stdin_taken <= MAX_RESULT_BYTES + (1 << 20),
            "read {} bytes of {size}",
            out.stdin_taken
        );
    }
    // A file says its size: refused before a byte is read (a sparse 1.35 GB file).
    let big = project.path().join("big.json");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(1_350_000_000)
        .unwrap();
    let out = project
        .cmd(&["submit", "t-00001", "--file", big.to_str().unwrap()])
        .run()
        .code(ExitStatus::Usage);
    assert!(out.stderr.contains("larger than 8 MiB"), "{}", out.stderr);
    assert!(
        out.elapsed < std::time::Duration::from_secs(5),
        "{:?}",
        out.elapsed
    );
    let status = project.cmd(&["status", "--json"]).run().success().json();
    assert_eq!(status["phases"][0]["done"], 0, "{status}");
}
