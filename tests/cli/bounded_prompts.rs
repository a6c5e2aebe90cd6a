//! Invariant 7: no rendered task grows with the size of the run or of a group. A run whose one
//! group holds every finding, whose planners, synthesizer and reviewers write documents at the
//! schema's maximum (40,000 characters), and whose findings carry long messages: every prompt of
//! every kind stays under 32 KB.

use serde_json::{Value, json};

use crate::harness::{TestProject, filters};
use crate::scripted_agent::{ScriptedAgent, next_wave};

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

/// A review at the schema's maximum that asks for everything: a rework verdict and more
/// must-fix points than the revise step takes apart, each several thousand characters.
fn review_document(chars: usize) -> String {
    let mut text = "## Verdict\nrework: the plan fixes the symptom.\n\n## Must fix\n".to_owned();
    let point = "x".repeat(79);
    for n in 1.. {
        let mut item = format!("{n}. step {n} is wrong\n");
        while item.len() < 3_000 {
            item.push_str(&format!("   {point}\n"));
        }
        if text.len() + item.len() > chars {
            break;
        }
        text.push_str(&item);
    }
    text
}

/// A revise step's answer at the schema's maximum: the whole plan, every point applied.
fn revision_document(shown: &Value) -> String {
    let points: Vec<Value> = shown["output_schema"]["properties"]["points"]["items"]["properties"]
        ["point"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| json!({"point": p, "outcome": "applied", "how": "x".repeat(1000)}))
        .collect();
    json!({"plan": document(39_990), "points": points}).to_string()
}

#[test]
fn every_prompt_of_a_run_with_one_huge_group_and_maximal_documents_stays_under_32_kb() {
    let project = TestProject::new();
    project.write("findings.jsonl", &long_findings(120));
    // Slices of 100: an aggregator sees a sample and pages through the rest.
    // Without a rule survey: the group and its snapshots are those of per-finding triage.
    project.write(
        ".self-repair/config.json",
        r#"{"aggregate_batch": 100, "survey_min": 0}"#,
    );
    let settings = filters(&project);
    let _guard = settings.bind_to_scope();
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
        let Some(ids) = next_wave(&project) else {
            break;
        };
        for id in ids {
            let shown = agent.show(&id);
            let kind = shown["kind"].as_str().unwrap().to_owned();
            let size = shown["prompt"].as_str().unwrap().len();
            assert!(size < PROMPT_BOUND, "{id} ({kind}) renders {size} bytes");
            match largest.iter_mut().find(|(k, _)| *k == kind) {
                Some((_, max)) => *max = (*max).max(size),
                None => largest.push((kind.clone(), size)),
            }
            if id == "agg-1" {
                let prompt = shown["prompt"].as_str().unwrap();
                assert!(
                    prompt.contains("A sample of 40 of the 100")
                        && prompt.contains("--findings --page 1` to `--page 3`"),
                    "{prompt}"
                );
                let last = project
                    .cmd(&["show", &id, "--findings", "--page", "9", "--json"])
                    .run()
                    .success()
                    .json();
                // Past the end: the last page, lines 81 to 100.
                assert_eq!(
                    (&last["page"], &last["pages"], &last["total"]),
                    (&json!(3), &json!(3), &json!(100))
                );
                assert_eq!(last["lines"].as_array().unwrap().len(), 20);
            }
            let text = match kind.as_str() {
                // One group for every finding.
                "triage" => {
                    json!({"confidence": 0.9, "verdict": "real", "root_cause": "missing blank line after summary",
                    "reason": "the docstring has no blank line after its summary"})
                    .to_string()
                }
                "plan" | "review" => {
                    if id == "plan-g1-2" {
                        // The plan prompt listed all five emphases: only its own now.
                        let prompt = shown["prompt"].as_str().unwrap();
                        assert!(
                            prompt.contains("**Fix the root cause properly**")
                                && !prompt.contains("smallest safe change")
                                && !prompt.contains("contrarian"),
                            "{prompt}"
                        );
                    }
                    if id == "plan-g1-1" {
                        // 120 findings: the counts, a spread sample, and the pages.
                        let prompt = shown["prompt"].as_str().unwrap();
                        assert!(prompt.contains("A sample of 40 of the 120"), "{prompt}");
                        insta::assert_snapshot!("bounded_plan_prompt", prompt);
                        let page = project
                            .cmd(&["show", &id, "--findings", "--page", "3"])
                            .run()
                            .success()
                            .stdout;
                        assert!(page.contains("page 3 of 3: 81 to 120 of 120"), "{page}");
                        insta::assert_snapshot!("bounded_findings_page_3", page);
                    }
                    if kind == "review" {
                        review_document(40_000)
                    } else {
                        document(40_000)
                    }
                }
                "revise" => revision_document(&shown),
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
        "revise",
        "write_task",
    ] {
        assert!(
            kinds.contains(&kind),
            "the run never reached {kind}: {largest:?}"
        );
    }
}

/// The committed corpus (tests/fixtures/corpus: Jinja2 under `ruff --select ALL`, 2,221 unique
/// findings) driven in-process through the hook and `show`/`submit` to the end, with every
/// finding `real` and one root cause for nearly all of them: one group of ~2,170 findings. Every
/// `show` of every later item (text and `--json`), a spread of triage items and the first and
/// last `--findings` page stay under the bound. Prints the largest size per kind
/// (`--nocapture`), the figures of reference/benchmarks.md "Prompt sizes".
mod corpus {
    use std::collections::BTreeMap;
    use std::path::Path;

    use self_repair_app::CommandEnv;
    use self_repair_app::commands::show::show;
    use self_repair_app::commands::show::show_findings;
    use self_repair_app::commands::start::StartOptions;
    use self_repair_app::commands::start::start;
    use self_repair_app::commands::submit::submit;
    use self_repair_app::hooks::stop::hook_stop;
    use self_repair_app::run::finalize::read_findings;
    use self_repair_app::run::load::load_folded;
    use self_repair_engine::{Dispatch, ItemKind, RunState, WorkItem};
    use self_repair_store::{Project, RunDir};
    use serde_json::{Value, json};

    use super::{PROMPT_BOUND, document};
    use crate::harness::{NOW, TestProject};

    /// One triage item in this many is shown (each renders its code context: ~50 ms).
    const TRIAGE_SHOWN_EVERY: usize = 60;

    fn copy_tree(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            let target = to.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                copy_tree(&entry.path(), &target);
            } else {
                std::fs::copy(entry.path(), target).unwrap();
            }
        }
    }

    fn answer(state: &RunState, item: &WorkItem, security: bool) -> String {
        match item.kind {
            ItemKind::Triage => {
                let cause = if security {
                    "security smell"
                } else {
                    "style debt"
                };
                json!({"confidence": 0.9, "verdict": "real", "root_cause": cause,
                       "reason": "the code does what the rule reports"})
                .to_string()
            }
            ItemKind::TriageBatch => {
                let cause = if security {
                    "security smell"
                } else {
                    "style debt"
                };
                let verdicts: Vec<Value> = item
                    .inputs()
                    .iter()
                    .map(|id| {
                        json!({"confidence": 0.9, "item": id, "verdict": "real", "root_cause": cause,
                               "reason": "the code does what the rule reports"})
                    })
                    .collect();
                json!({ "verdicts": verdicts }).to_string()
            }
            ItemKind::Verify => {
                json!({"confidence": 0.9, "verdict": "real", "root_cause": "style debt",
                       "reason": "the code does what the rule reports"})
                .to_string()
            }
            ItemKind::Aggregate => {
                let mut by_cause: BTreeMap<String, Vec<&str>> = BTreeMap::new();
                for id in item.inputs() {
                    let cause = state.item(id).unwrap().root_cause.as_deref().unwrap();
                    by_cause.entry(cause.to_owned()).or_default().push(id);
                }
                let groups: Vec<Value> = by_cause
                    .into_iter()
                    .map(|(cause, items)| {
                        json!({"label": cause, "root_cause": format!("{cause} everywhere"),
                               "items": items})
                    })
                    .collect();
                json!({ "groups": groups }).to_string()
            }
            ItemKind::RuleSurvey => json!({"policy": "fix_all", "root_cause": "style debt",
                "reason": "every sampled finding is the same style debt"})
            .to_string(),
            ItemKind::RuleReview => json!({"rules": []}).to_string(),
            ItemKind::MergeLabels => json!({"merges": []}).to_string(),
            ItemKind::Plan => document(40_000),
            ItemKind::Review => super::review_document(40_000),
            ItemKind::Revise => {
                let points: Vec<Value> = item
                    .inputs()
                    .iter()
                    .map(|p| json!({"point": p, "outcome": "applied", "how": "x".repeat(1000)}))
                    .collect();
                json!({"plan": document(39_990), "points": points}).to_string()
            }
            ItemKind::Synthesize => {
                let scores: Vec<Value> = item
                    .inputs()
                    .iter()
                    .map(|p| {
                        json!({"plan": p, "correctness": 4, "simplicity": 4, "scope": 4,
                               "tests": 3, "regression_risk": 4})
                    })
                    .collect();
                json!({"scores": scores, "plan": document(39_990)}).to_string()
            }
            ItemKind::WriteTask => json!({"title": "Fix the style debt",
                "description": "Fix the group everywhere it occurs.",
                "acceptance_criteria": ["the findings are gone"], "labels": ["style"]})
            .to_string(),
        }
    }

    /// Largest text and `--json` sizes seen, per kind, with the item.
    #[derive(Default)]
    struct Largest(BTreeMap<&'static str, (usize, usize, String, usize)>);

    impl Largest {
        fn check(&mut self, project: &Project, dir: &RunDir, state: &RunState, id: &str) {
            let shown = show(project, dir, state, id).unwrap();
            let text = shown.prompt.len();
            let json = serde_json::to_string_pretty(&shown).unwrap().len();
            assert!(text < PROMPT_BOUND, "{id} renders {text} bytes");
            assert!(json < PROMPT_BOUND, "{id} --json is {json} bytes");
            let entry = self.0.entry(shown.kind.as_str()).or_default();
            if text > entry.0 {
                entry.0 = text;
                id.clone_into(&mut entry.2);
            }
            entry.1 = entry.1.max(json);
            entry.3 += 1;
            if shown.kind != ItemKind::Triage {
                let first = show_findings(dir, state, id, 1).unwrap();
                let last = show_findings(dir, state, id, first.pages).unwrap();
                for page in [first, last] {
                    let text = page.render().len();
                    let json = serde_json::to_string_pretty(&page).unwrap().len();
                    assert!(
                        text < PROMPT_BOUND && json < PROMPT_BOUND,
                        "{id} --findings"
                    );
                }
            }
        }
    }

    #[test]
    fn every_prompt_of_the_jinja2_corpus_run_with_one_group_of_2000_findings_stays_under_32_kb() {
        let corpus =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/corpus/jinja2-3.1.6");
        let project = TestProject::new();
        copy_tree(&corpus.join("src"), &project.path().join("src"));
        project.write(
            ".self-repair/config.json",
            r#"{"fan_out": 20, "confirm_above_usd": null}"#,
        );
        let root = project.path().to_path_buf();
        let env = CommandEnv {
            cwd: root.clone(),
            now: NOW,
            session: Some("s1".into()),
            project_dir: None,
            home: None,
            project: Some(root.clone()),
            ..CommandEnv::default()
        };
        let options = StartOptions {
            files: vec![corpus.join("ruff-0.17.6-select-all.sarif")],
            run_id: Some("r-c".into()),
            ..StartOptions::default()
        };
        start(&env, &options).unwrap();
        let store = Project::at(root.clone());
        let dir = store.run("r-c").unwrap();
        let findings = read_findings(&dir).unwrap();
        let stdin = json!({"session_id": "s1", "hook_event_name": "Stop",
            "stop_hook_active": true, "cwd": root, "background_tasks": []})
        .to_string();
        let mut largest = Largest::default();
        let mut triaged = 0;
        for _ in 0..1000 {
            let answered = hook_stop(&env, stdin.as_bytes());
            let Some(stdout) = answered.stdout else { break };
            let value: Value = serde_json::from_str(&stdout).unwrap();
            let Some(dispatch) =
                self_repair_engine::continuation(&value).and_then(Dispatch::parse_reason)
            else {
                break;
            };
            let state = load_folded(&dir, false).unwrap();
            for launch in &dispatch.launch {
                let item = state.item(&launch.item).unwrap();
                let mut security = false;
                if matches!(item.kind, ItemKind::Triage | ItemKind::TriageBatch) {
                    triaged += 1;
                    let first = match item.kind {
                        ItemKind::TriageBatch => state.item(&item.inputs()[0]).unwrap(),
                        _ => item,
                    };
                    let rule = &findings[first.finding.unwrap() as usize].finding.rule_id;
                    security = rule.starts_with('S');
                    if triaged % TRIAGE_SHOWN_EVERY != 1 {
                        submit(&dir, &launch.item, &answer(&state, item, security), NOW).unwrap();
                        continue;
                    }
                }
                largest.check(&store, &dir, &state, &launch.item);
                submit(&dir, &launch.item, &answer(&state, item, security), NOW).unwrap();
            }
        }
        let state = load_folded(&dir, false).unwrap();
        let biggest = state.groups.iter().map(|g| g.members.len()).max().unwrap();
        assert!(biggest > 2000, "the largest group holds {biggest}");
        for (kind, (text, json, id, shown)) in &largest.0 {
            eprintln!("{kind}: largest text {text} B ({id}), --json {json} B, {shown} shown");
        }
        let kinds: Vec<&str> = largest.0.keys().copied().collect();
        assert_eq!(
            kinds,
            [
                "aggregate",
                "merge_labels",
                "plan",
                "review",
                "revise",
                "rule_review",
                "rule_survey",
                "synthesize",
                "triage_batch",
                "write_task"
            ],
            "every kind was shown"
        );
    }
}

/// Claude Code gives the model a tool output over 30,000 characters only as a preview and a
/// file to Read (measured on the pyparsing corpus: 26 of 288 triage batches went over, up to
/// 41 KB, all on one long file). A batch of findings in one long-lined file: what an agent's
/// `self-repair show` prints stays under that, the excerpts past the budget named by their
/// lines instead of shown.
#[test]
fn a_triage_batch_in_a_long_lined_file_shows_under_the_clients_30000_characters() {
    let project = TestProject::new();
    let line = |n: usize| {
        format!(
            "    value_{n} = compute({})  # {}\n",
            "argument, ".repeat(12),
            "x".repeat(100)
        )
    };
    project.write("src/big.py", &(1..=700).map(line).collect::<String>());
    let findings: String = (0..32)
        .map(|i| {
            json!({"tool": "ruff", "rule_id": "E501", "level": "warning",
                "message": format!("Line too long (n{i})"), "path": "src/big.py",
                "line": 10 + i * 20})
            .to_string()
                + "\n"
        })
        .collect();
    project.write("findings.jsonl", &findings);
    project.write(".self-repair/config.json", r#"{"survey_min": 0}"#);
    project
        .cmd(&["start", "findings.jsonl", "--run-id", "r-long"])
        .run()
        .success();
    let ids = next_wave(&project).expect("a triage wave");
    assert!(ids.iter().any(|id| id.starts_with("tb-")), "{ids:?}");
    let mut named = 0;
    for id in ids.iter().filter(|id| id.starts_with("tb-")) {
        let shown = project
            .cmd(&["show", id, "--run", "r-long"])
            .run()
            .success()
            .stdout;
        let chars = shown.chars().count();
        assert!(chars < 30_000, "{id}: {chars} characters");
        named += shown
            .matches("Code not shown, to keep this task short: Read `src/big.py` lines")
            .count();
    }
    assert!(
        named > 0,
        "no excerpt was left to Read: the batch was not over the budget"
    );
}
