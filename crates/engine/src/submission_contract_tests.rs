//! The output schema is the whole contract (ARCHITECTURE.md §11.8): instances generated from
//! the rendered schema of every item kind are accepted by `submit`'s validator, and instances
//! that break one stated rule are refused with a message naming the field.

use serde_json::{Value, json};

use crate::schema::Pattern;
use crate::schema_sampler::{Rng, mutations, sample};
use crate::{ItemInput, ItemKind, output_schema, parse_submission, route_names};

const TRIAGE_ITEMS: u32 = 12;
const SEEDS: u64 = 150;

fn input(kind: ItemKind, item: &str, inputs: &[&str]) -> ItemInput {
    ItemInput {
        item: item.to_owned(),
        kind,
        inputs: inputs.iter().map(|s| (*s).to_owned()).collect(),
        group: Some("g1".to_owned()),
        angle: None,
    }
}

fn raw(kind: ItemKind, value: &Value) -> String {
    match (kind.takes_markdown(), value) {
        (true, Value::String(text)) => text.clone(),
        _ => value.to_string(),
    }
}

/// Samples `SEEDS` instances of the item's rendered schema: each is accepted; each single-rule
/// break of each is refused, naming the field.
fn schema_is_the_whole_contract(input: &ItemInput, rules: &[&str]) {
    let routes = route_names();
    let schema = output_schema(input, &routes, TRIAGE_ITEMS).to_json_schema("t");
    // An independent reader of the same schema (draft 2020-12): our sampler and submit's
    // validator are the team's own reading of JSON Schema, so each sample and each mutation
    // is also judged by the `jsonschema` crate.
    let oracle = jsonschema::draft202012::new(&schema)
        .unwrap_or_else(|e| panic!("the `jsonschema` crate refuses the schema itself: {e}"));
    let mut broken_rules = std::collections::BTreeSet::new();
    for seed in 0..SEEDS {
        let mut rng = Rng::new(seed);
        let instance = sample(&schema, &mut rng);
        if let Some(error) = oracle.iter_errors(&instance).next() {
            panic!(
                "seed {seed}: the jsonschema crate refuses our sample: {error} at {}\n{instance}",
                error.instance_path()
            );
        }
        let text = raw(input.kind, &instance);
        if let Err(rejection) = parse_submission(input, &text, &routes, TRIAGE_ITEMS) {
            panic!(
                "seed {seed}: valid against the schema, refused by submit:\n{text}\n{rejection}"
            );
        }
        for mutation in mutations(&schema, &instance, &mut rng) {
            assert!(
                !oracle.is_valid(&mutation.value),
                "seed {seed}: breaks `{}` at {}, yet the jsonschema crate accepts it:\n{}",
                mutation.rule,
                mutation.names,
                mutation.value
            );
            let text = raw(input.kind, &mutation.value);
            match parse_submission(input, &text, &routes, TRIAGE_ITEMS) {
                Ok(_) => panic!(
                    "seed {seed}: breaks `{}` at {}, accepted by submit:\n{text}",
                    mutation.rule, mutation.names
                ),
                Err(rejection) => assert!(
                    rejection
                        .problems
                        .iter()
                        .any(|p| p.contains(&mutation.names)),
                    "seed {seed}: breaks `{}`; the message does not name `{}`:\n{rejection}\n{text}",
                    mutation.rule,
                    mutation.names
                ),
            }
            broken_rules.insert(mutation.rule);
        }
    }
    for rule in rules {
        assert!(
            broken_rules.contains(*rule),
            "no mutation broke `{rule}`: {broken_rules:?}"
        );
    }
}

#[test]
fn triage_schema_is_the_whole_contract() {
    schema_is_the_whole_contract(
        &input(ItemKind::Triage, "t-00003", &[]),
        &[
            "required",
            "enum",
            "if/then",
            "pattern",
            "not pattern",
            "maximum",
            "additionalProperties",
        ],
    );
}

#[test]
fn triage_batch_schema_is_the_whole_contract() {
    schema_is_the_whole_contract(
        &input(
            ItemKind::TriageBatch,
            "tb-00001",
            &["t-00001", "t-00002", "t-00005"],
        ),
        &[
            "required",
            "enum",
            "if/then",
            "pattern",
            "not pattern",
            "maxContains",
            "minItems",
            "additionalProperties",
        ],
    );
}

#[test]
fn a_batch_result_that_misses_or_invents_a_finding_is_refused_naming_it() {
    let batch = input(ItemKind::TriageBatch, "tb-00001", &["t-00001", "t-00002"]);
    let verdict = |item: &str| {
        json!({"item": item, "verdict": "real", "root_cause": "unused import",
               "confidence": 0.9, "reason": "the name is never read in the module"})
    };
    let routes = route_names();
    let missing = json!({"verdicts": [verdict("t-00001")]}).to_string();
    let error = parse_submission(&batch, &missing, &routes, TRIAGE_ITEMS).unwrap_err();
    assert!(
        error.to_string().contains("no entry for t-00002"),
        "{error}"
    );
    let invented = json!({"verdicts": [verdict("t-00001"), verdict("t-00009")]}).to_string();
    let error = parse_submission(&batch, &invented, &routes, TRIAGE_ITEMS).unwrap_err();
    let text = error.to_string();
    assert!(
        text.contains("\"t-00009\"") && text.contains("no entry for t-00002"),
        "{text}"
    );
    let both = json!({"verdicts": [verdict("t-00002"), verdict("t-00001")]}).to_string();
    assert!(parse_submission(&batch, &both, &routes, TRIAGE_ITEMS).is_ok());
}

#[test]
fn aggregate_schema_is_the_whole_contract() {
    schema_is_the_whole_contract(
        &input(
            ItemKind::Aggregate,
            "agg-1",
            &["t-00001", "t-00002", "t-00005", "t-00007", "t-00011"],
        ),
        &[
            "minContains",
            "maxContains",
            "uniqueItems",
            "enum",
            "minItems",
            "not pattern",
        ],
    );
}

#[test]
fn merge_labels_schema_is_the_whole_contract() {
    schema_is_the_whole_contract(
        &input(
            ItemKind::MergeLabels,
            "ml-1",
            &[
                "unused import",
                "dead imports",
                "line too long",
                "magic number",
            ],
        ),
        &[
            "required",
            "enum",
            "minLength",
            "minItems",
            "maxItems",
            "uniqueItems",
            "additionalProperties",
        ],
    );
}

#[test]
fn verify_schema_is_the_whole_contract() {
    schema_is_the_whole_contract(
        &input(ItemKind::Verify, "vf-00003", &["t-00003"]),
        &[
            "required",
            "enum",
            "minLength",
            "maximum",
            "additionalProperties",
        ],
    );
}

#[test]
fn rule_survey_schema_is_the_whole_contract() {
    schema_is_the_whole_contract(
        &input(ItemKind::RuleSurvey, "rs-00001", &["t-00001", "t-00004"]),
        &[
            "required",
            "enum",
            "if/then",
            "minLength",
            "additionalProperties",
        ],
    );
}

#[test]
fn rule_review_schema_is_the_whole_contract() {
    schema_is_the_whole_contract(
        &input(ItemKind::RuleReview, "rules-1", &[]),
        &["minProperties", "pattern", "not pattern", "required"],
    );
}

#[test]
fn plan_and_review_schemas_are_the_whole_contract() {
    schema_is_the_whole_contract(
        &input(ItemKind::Plan, "plan-g1-1", &[]),
        &["minLength", "maxLength", "pattern"],
    );
    schema_is_the_whole_contract(
        &input(ItemKind::Review, "review-g1-1", &[]),
        &["minLength", "pattern"],
    );
}

#[test]
fn synthesizer_schema_is_the_whole_contract() {
    schema_is_the_whole_contract(
        &input(
            ItemKind::Synthesize,
            "synth-g1",
            &["plan-g1-1", "plan-g1-2", "plan-g1-3"],
        ),
        &["enum", "minimum", "maximum", "type", "maxItems"],
    );
}

#[test]
fn revise_schema_is_the_whole_contract() {
    schema_is_the_whole_contract(
        &input(
            ItemKind::Revise,
            "rv-g1",
            &["rev-g1-1.rework", "rev-g1-2.1", "rev-g1-2.2"],
        ),
        &[
            "required",
            "enum",
            "minLength",
            "maxContains",
            "minItems",
            "additionalProperties",
        ],
    );
}

#[test]
fn a_revision_that_skips_or_invents_a_point_is_refused_naming_it() {
    let revise = input(
        ItemKind::Revise,
        "rv-g1",
        &["rev-g1-1.rework", "rev-g1-2.1"],
    );
    let point = |p: &str| json!({"point": p, "outcome": "applied", "how": "step 2 does it now"});
    let body = |points: Vec<Value>| {
        json!({"plan": "## Summary\nThe whole revised plan, long enough.", "points": points})
            .to_string()
    };
    let routes = route_names();
    let missing = body(vec![point("rev-g1-2.1")]);
    let error = parse_submission(&revise, &missing, &routes, TRIAGE_ITEMS).unwrap_err();
    assert!(
        error.to_string().contains("no entry for rev-g1-1.rework"),
        "{error}"
    );
    let invented = body(vec![point("rev-g1-1.rework"), point("rev-g1-9.1")]);
    let error = parse_submission(&revise, &invented, &routes, TRIAGE_ITEMS).unwrap_err();
    assert!(error.to_string().contains("\"rev-g1-9.1\""), "{error}");
    let both = body(vec![point("rev-g1-2.1"), point("rev-g1-1.rework")]);
    assert!(parse_submission(&revise, &both, &routes, TRIAGE_ITEMS).is_ok());
}

#[test]
fn task_writer_schema_is_the_whole_contract() {
    schema_is_the_whole_contract(
        &input(ItemKind::WriteTask, "task-g1", &[]),
        &["pattern", "not pattern", "maxLength", "enum", "maxItems"],
    );
}

#[test]
fn triage_duplicate_of_and_reroute_conditions_are_in_the_schema() {
    // R5: the schema had no conditionals, so these passed it and were refused by submit.
    let triage = input(ItemKind::Triage, "t-00003", &[]);
    let routes = route_names();
    let schema = output_schema(&triage, &routes, TRIAGE_ITEMS).to_json_schema("t");
    let rules = schema["allOf"].as_array().expect("conditions stated");
    assert_eq!(
        rules[0],
        json!({"if": {"properties": {"verdict": {"const": "duplicate"}}, "required": ["verdict"]},
               "then": {"required": ["duplicate_of"]}})
    );
    assert_eq!(
        rules[2],
        json!({"if": {"required": ["reroute"]},
               "then": {"properties": {"verdict": {"const": "unsure"}}, "required": ["verdict"]}})
    );
    let refused = |body: Value| {
        parse_submission(&triage, &body.to_string(), &routes, TRIAGE_ITEMS)
            .unwrap_err()
            .to_string()
    };
    let base = json!({"root_cause": "dead helper", "reason": "nothing calls it anywhere"});
    let with = |extra: Value| {
        let mut v = base.clone();
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        v
    };
    assert!(refused(with(json!({"verdict": "duplicate"}))).contains("`duplicate_of` is missing"));
    assert!(
        refused(with(json!({"verdict": "real", "duplicate_of": "t-00002"})))
            .contains("`duplicate_of` is only allowed with verdict duplicate")
    );
    assert!(
        refused(with(json!({"verdict": "real", "reroute": "security"})))
            .contains("`reroute` is only allowed with verdict unsure")
    );
    // Itself, in any spelling, or past the run's items: refused, and the pattern says so.
    for other in ["t-3", "t-00003", "t-13", "t-0"] {
        assert!(
            refused(with(json!({"verdict": "duplicate", "duplicate_of": other})))
                .contains("not another triage item"),
            "{other}"
        );
    }
}

#[test]
fn a_label_with_a_trailing_newline_is_refused_by_the_schema_too() {
    // `$` matches before a final newline in Python, PCRE and Java: the anchored pattern alone
    // let "bug\n" through there, and submit refused it.
    let writer = input(ItemKind::WriteTask, "task-g1", &[]);
    let schema = output_schema(&writer, &[], TRIAGE_ITEMS).to_json_schema("t");
    let label = &schema["properties"]["labels"]["items"];
    let not = regex::Regex::new(label["not"]["pattern"].as_str().unwrap()).unwrap();
    assert!(not.is_match("bug\n"));
    let body = json!({"title": "Fix the thing", "description": "what to change and why, in detail",
        "acceptance_criteria": ["it works"], "labels": ["bug\n"]});
    let err = parse_submission(&writer, &body.to_string(), &[], TRIAGE_ITEMS).unwrap_err();
    assert!(err.to_string().contains("`labels[0]`"), "{err}");
}

#[test]
fn an_empty_rule_condition_is_refused_by_the_schema_too() {
    let review = input(ItemKind::RuleReview, "rules-1", &[]);
    let schema = output_schema(&review, &[], TRIAGE_ITEMS).to_json_schema("t");
    let when = &schema["properties"]["rules"]["items"]["properties"]["when"];
    assert_eq!(when["minProperties"], 1);
    let body = json!({"rules": [{"name": "vulture helpers", "when": {}, "verdict": "intended",
        "reason": "these helpers are called dynamically", "evidence": ["t-00001"]}]});
    let err = parse_submission(&review, &body.to_string(), &[], TRIAGE_ITEMS).unwrap_err();
    assert!(err.to_string().contains("`rules[0].when`"), "{err}");
}

#[test]
fn whole_number_scores_written_as_floats_are_accepted_as_integers() {
    // JSON Schema counts 4.0 as an integer; submit refused it and stored it as a float.
    let synth = input(ItemKind::Synthesize, "synth-g1", &["plan-g1-1"]);
    let body = json!({"scores": [{"plan": "plan-g1-1", "correctness": 4.0, "simplicity": 5,
        "scope": 3, "tests": 2, "regression_risk": 1}], "plan": "x".repeat(50)});
    let (_, canonical) = parse_submission(&synth, &body.to_string(), &[], 1).unwrap();
    assert_eq!(canonical["scores"][0]["correctness"], json!(4));
    assert!(canonical["scores"][0]["correctness"].is_i64());
}

#[test]
fn markdown_padded_to_the_minimum_with_spaces_is_refused_by_the_schema_too() {
    let plan = input(ItemKind::Plan, "plan-g1-1", &[]);
    let schema = output_schema(&plan, &[], TRIAGE_ITEMS).to_json_schema("t");
    let pattern = regex::Regex::new(schema["pattern"].as_str().unwrap()).unwrap();
    let padded = format!("{}short plan{}", " ".repeat(20), "\n".repeat(20));
    assert!(!pattern.is_match(&padded));
    assert!(parse_submission(&plan, &padded, &[], 1).is_err());
    let enough = format!("\n\n{}\n", "a".repeat(40));
    assert!(pattern.is_match(&enough));
    assert!(parse_submission(&plan, &enough, &[], 1).is_ok());
}

#[test]
fn triage_id_range_pattern_agrees_with_the_validator() {
    for count in [0, 1, 9, 10, 11, 99, 100, 101, 120, 999, 1000, 1234] {
        for except in [None, Some(1), Some(5), Some(10), Some(100), Some(count)] {
            let p = Pattern::TriageIdOf { count, except };
            let re = regex::Regex::new(&p.regex()).unwrap();
            for n in 0..=1300u32 {
                for text in [format!("t-{n}"), format!("t-{n:05}")] {
                    assert_eq!(
                        re.is_match(&text),
                        p.matches(&text),
                        "{text} against {} (count {count}, except {except:?})",
                        p.regex()
                    );
                }
            }
            for text in ["t-", "t-x", "T-1", "t-1\n", " t-1", "t-1 ", "t--1"] {
                assert!(!re.is_match(text) || p.matches(text), "{text}");
            }
        }
    }
}

#[test]
fn every_pattern_in_every_schema_compiles() {
    let routes = route_names();
    for kind in [
        ItemKind::Triage,
        ItemKind::TriageBatch,
        ItemKind::RuleSurvey,
        ItemKind::Verify,
        ItemKind::Aggregate,
        ItemKind::MergeLabels,
        ItemKind::RuleReview,
        ItemKind::Plan,
        ItemKind::Review,
        ItemKind::Synthesize,
        ItemKind::Revise,
        ItemKind::WriteTask,
    ] {
        let schema = output_schema(&input(kind, "t-00001", &["t-00002"]), &routes, 10_000)
            .to_json_schema("t");
        let text = schema.to_string();
        let mut stack = vec![&schema];
        while let Some(node) = stack.pop() {
            match node {
                Value::Object(map) => {
                    if let Some(Value::String(p)) = map.get("pattern") {
                        regex::Regex::new(p).unwrap_or_else(|e| panic!("{kind:?}: {p}: {e}"));
                    }
                    stack.extend(map.values());
                }
                Value::Array(list) => stack.extend(list),
                _ => {}
            }
        }
        assert!(text.len() < 20_000, "{kind:?}: {} bytes", text.len());
    }
}
