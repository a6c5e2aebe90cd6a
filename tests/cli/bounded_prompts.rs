//! Invariant 7: no rendered task grows with the size of the run or of a group. A run whose one
//! group holds every finding, whose planners, synthesizer and reviewers write documents at the
//! schema's maximum (40,000 characters), and whose findings carry long messages: every prompt of
//! every kind stays under 32 KB.

use serde_json::{Value, json};

use crate::harness::TestProject;
use crate::scripted_agent::{ScriptedAgent, dispatch_reason, launched};

/// The bound issue 13 sets for every rendered task.
const PROMPT_BOUND: usize = 32 * 1024;

fn long_findings(count: usize) -> String {
    (0..count)
        .map(|i| {
            json!({"tool": "ruff", "rule_id": "D205", "level": "warning",
                "message": format!("{} (n{i})", "1 blank line required between summary line and description ".repeat(8)),
                "path": format!("src/pkg/module_{i}.py"), "line": i % 90 + 1})
            .to_string()
                + "\n"
        })
        .collect()
}

/// A markdown document of `chars` characters in lines of 80.
fn document(chars: usize) -> String {
    let line = format!("{}\n", "x".repeat(79));
    let mut text = "## A plan at the schema's maximum\n\n".to_owned();
    while text.len() + line.len() <= chars {
        text.push_str(&line);
    }
    text
}

#[test]
fn every_prompt_of_a_run_with_one_huge_group_and_maximal_documents_stays_under_32_kb() {
    let project = TestProject::new();
    project.write("findings.jsonl", &long_findings(120));
    project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-big"])
        .run()
        .success();
    let agent = ScriptedAgent {
        project: &project,
        run: "r-big".into(),
    };
    let mut largest: Vec<(String, usize)> = Vec::new();
    for _ in 0..500 {
        let out = project.stop("s1", &[]);
        let Ok(answer) = serde_json::from_str::<Value>(&out.stdout) else {
            break;
        };
        let Some(reason) = dispatch_reason(&answer) else {
            break;
        };
        let (_, ids) = launched(reason);
        for id in ids {
            let shown = agent.show(&id);
            let kind = shown["kind"].as_str().unwrap().to_owned();
            let size = shown["prompt"].as_str().unwrap().len();
            assert!(size < PROMPT_BOUND, "{id} ({kind}) renders {size} bytes");
            match largest.iter_mut().find(|(k, _)| *k == kind) {
                Some((_, max)) => *max = (*max).max(size),
                None => largest.push((kind.clone(), size)),
            }
            let text = match kind.as_str() {
                // One group for every finding.
                "triage" => {
                    json!({"verdict": "real", "root_cause": "missing blank line after summary",
                    "reason": "the docstring has no blank line after its summary"})
                    .to_string()
                }
                "plan" | "review" => document(40_000),
                "synthesize" => {
                    let mut value: Value = serde_json::from_str(&agent.answer(&shown)).unwrap();
                    value["plan"] = Value::from(document(39_990));
                    value.to_string()
                }
                _ => agent.answer(&shown),
            };
            agent.submit(&id, &text).success();
        }
    }
    let kinds: Vec<&str> = largest.iter().map(|(k, _)| k.as_str()).collect();
    for kind in [
        "triage_batch",
        "aggregate",
        "rule_review",
        "plan",
        "synthesize",
        "review",
        "write_task",
    ] {
        assert!(
            kinds.contains(&kind),
            "the run never reached {kind}: {largest:?}"
        );
    }
}
