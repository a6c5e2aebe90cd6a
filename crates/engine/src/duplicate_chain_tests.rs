//! Issue 40: a `duplicate` takes its target's end; a cycle, a missing target or a target on
//! another route leaves it real; under the security two-look rule a duplicate of a dismissed
//! finding gets its own blind second look. And the two-look rule's other paths: a re-route
//! keeps it, `unsure` then one dismissal gets one more look, a second look cannot answer
//! `duplicate` or `reroute`, and `known.json` gets security dismissals as proposals only.

use serde_json::{Value, json};

use crate::test_support::{NOW, run_of_findings, stop_event, submit};
use crate::{
    ChainEnd, Config, Decision, ItemKind, ItemStatus, LaunchMode, Phase, Registered, RunState,
    Tier, Verdict, VerifyOutcome, chain_end, decide_stop, item_input, output_schema,
    parse_submission, registered, route_names,
};

/// One finding per route given, one agent each (no batch, no survey).
fn run_of(routes: &[&str]) -> RunState {
    let names: Vec<(String, String)> = (0..routes.len())
        .map(|i| (format!("bandit B60{i}"), format!("m{i}.py")))
        .collect();
    let findings: Vec<(&str, &str, &str)> = routes
        .iter()
        .zip(&names)
        .map(|(route, (rule, path))| (*route, rule.as_str(), path.as_str()))
        .collect();
    let config = Config {
        triage_batch: 1,
        verify_batch: 1,
        launch_mode: LaunchMode::Foreground,
        survey_min: 0,
        ..Config::default()
    };
    run_of_findings("r-dup", &findings, config)
}

/// The items the next stop launches (empty when it launches none).
fn launched(state: &mut RunState) -> Vec<(String, String)> {
    match decide_stop(state, &stop_event("s1", Some(&[])), NOW).decision {
        Decision::Block(d) => d.launch.into_iter().map(|l| (l.item, l.model)).collect(),
        _ => Vec::new(),
    }
}

fn answer(verdict: &str) -> Value {
    json!({"verdict": verdict, "root_cause": "sql built from input", "confidence": 0.95,
           "reason": "the query string is formatted from a request argument"})
}

fn duplicate_of(target: &str) -> Value {
    json!({"verdict": "duplicate", "duplicate_of": target, "root_cause": "sql built from input",
           "confidence": 0.95, "reason": "the same line as the other finding reports"})
}

fn verdict(state: &RunState, id: &str) -> (ItemStatus, Option<Verdict>) {
    let item = state.item(id).unwrap();
    (item.status, item.verdict)
}

#[test]
fn two_security_findings_that_name_each_other_as_duplicates_both_end_real() {
    // The review's B608 and S608 on one SQL line: each `duplicate_of` the other.
    let mut state = run_of(&["security", "security"]);
    assert_eq!(launched(&mut state).len(), 2);
    submit(&mut state, "t-00001", duplicate_of("t-00002"));
    submit(&mut state, "t-00002", duplicate_of("t-00001"));
    assert_eq!(chain_end(&state, 0), ChainEnd::Broken);
    launched(&mut state);
    assert_eq!(
        verdict(&state, "t-00001"),
        (ItemStatus::Done, Some(Verdict::Real))
    );
    assert_eq!(
        verdict(&state, "t-00002"),
        (ItemStatus::Done, Some(Verdict::Real))
    );
    assert_eq!(
        state.item("t-00001").unwrap().duplicate_of(),
        Some("t-00002")
    );
    assert_ne!(state.phase, Phase::Triage, "both reach aggregation");
    assert!(state.item("vf-00001").is_none(), "no second look needed");
}

#[test]
fn a_cycle_on_the_generic_route_ends_real_too() {
    let mut state = run_of(&["generic", "generic", "generic"]);
    launched(&mut state);
    submit(&mut state, "t-00001", duplicate_of("t-00002"));
    submit(&mut state, "t-00002", duplicate_of("t-00003"));
    submit(&mut state, "t-00003", duplicate_of("t-00001"));
    launched(&mut state);
    for id in ["t-00001", "t-00002", "t-00003"] {
        assert_eq!(verdict(&state, id).1, Some(Verdict::Real), "{id}");
    }
}

#[test]
fn a_duplicate_of_a_real_finding_is_real_so_it_is_grouped_with_it() {
    let mut state = run_of(&["security", "security", "generic"]);
    launched(&mut state);
    submit(&mut state, "t-00001", answer("real"));
    submit(&mut state, "t-00002", duplicate_of("t-00001"));
    // A finding on another route: the chain breaks, the duplicate stays real.
    submit(&mut state, "t-00003", duplicate_of("t-00001"));
    launched(&mut state);
    assert_eq!(verdict(&state, "t-00002").1, Some(Verdict::Real));
    assert_eq!(verdict(&state, "t-00003").1, Some(Verdict::Real));
    assert_eq!(state.phase, Phase::Aggregate);
    let slice: Vec<String> = state
        .items
        .iter()
        .filter(|i| i.kind == ItemKind::Aggregate)
        .flat_map(|i| {
            i.inputs()
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(slice.contains(&"t-00002".to_owned()), "{slice:?}");
}

#[test]
fn a_duplicate_of_a_failed_finding_is_real() {
    let mut state = run_of(&["generic", "generic"]);
    launched(&mut state);
    submit(&mut state, "t-00002", duplicate_of("t-00001"));
    state.items[0].status = ItemStatus::Quarantined;
    assert_eq!(chain_end(&state, 1), ChainEnd::Broken);
}

#[test]
fn a_generic_duplicate_of_a_dismissed_finding_stays_a_duplicate_on_one_look() {
    let mut state = run_of(&["generic", "generic"]);
    launched(&mut state);
    submit(&mut state, "t-00001", answer("false_positive"));
    submit(&mut state, "t-00002", duplicate_of("t-00001"));
    launched(&mut state);
    assert_eq!(verdict(&state, "t-00002").1, Some(Verdict::Duplicate));
    assert!(state.item("vf-00002").is_none());
    assert_eq!(registered(&state, "t-00002", None), Registered::Decided);
}

#[test]
fn a_security_duplicate_of_a_dismissed_finding_gets_its_own_blind_second_look() {
    let mut state = run_of(&["security", "security"]);
    launched(&mut state);
    submit(&mut state, "t-00001", answer("false_positive"));
    submit(&mut state, "t-00002", duplicate_of("t-00001"));
    // t-00001's own second look confirms its dismissal; then the duplicate's chain ends on a
    // dismissed finding, and the duplicate gets a look of its own.
    assert_eq!(launched(&mut state), [("vf-00001".into(), "opus".into())]);
    submit(&mut state, "vf-00001", answer("false_positive"));
    assert_eq!(launched(&mut state), [("vf-00002".into(), "opus".into())]);
    assert_eq!(state.phase, Phase::Triage);
    assert_eq!(
        verdict(&state, "t-00002"),
        (ItemStatus::Pending, Some(Verdict::Duplicate))
    );
    submit(&mut state, "vf-00002", answer("real"));
    assert_eq!(
        verdict(&state, "t-00002"),
        (ItemStatus::Done, Some(Verdict::Real))
    );
    assert_eq!(verdict(&state, "t-00001").1, Some(Verdict::FalsePositive));
    assert_eq!(registered(&state, "t-00001", None), Registered::Proposed);
}

#[test]
fn a_reroute_off_the_security_route_keeps_the_two_look_rule() {
    let mut state = run_of(&["security"]);
    launched(&mut state);
    submit(
        &mut state,
        "t-00001",
        json!({"verdict": "unsure", "reroute": "generic", "root_cause": "pickle of a cookie",
               "confidence": 0.4, "reason": "looks like a generic serialization question"}),
    );
    let item = state.item("t-00001").unwrap();
    assert_eq!(item.route.as_deref(), Some("generic"));
    assert!(item.two_looks(), "once security, always under the rule");
    launched(&mut state);
    // A confident dismissal on the generic route: on its own it would stand.
    submit(&mut state, "t-00001", answer("false_positive"));
    let verifier = state.item("vf-00001").expect("a second look");
    assert_eq!(verifier.route.as_deref(), Some("security"));
    assert_eq!(verifier.tier, Tier::Opus);
    assert_eq!(
        verdict(&state, "t-00001"),
        (ItemStatus::Pending, Some(Verdict::FalsePositive))
    );
    submit(&mut state, "vf-00001", answer("real"));
    assert_eq!(verdict(&state, "t-00001").1, Some(Verdict::Real));
}

#[test]
fn unsure_then_one_dismissal_on_security_takes_one_more_blind_look() {
    let mut state = run_of(&["security"]);
    launched(&mut state);
    submit(&mut state, "t-00001", answer("unsure"));
    assert_eq!(launched(&mut state)[0].0, "vf-00001");
    submit(&mut state, "vf-00001", answer("false_positive"));
    // One dismissal decides nothing: the finding is held, its second look goes out again.
    assert_eq!(
        verdict(&state, "t-00001"),
        (ItemStatus::Pending, Some(Verdict::Unsure))
    );
    assert_eq!(launched(&mut state), [("vf-00001".into(), "opus".into())]);
    submit(&mut state, "vf-00001", answer("unsure"));
    assert_eq!(
        verdict(&state, "t-00001"),
        (ItemStatus::Done, Some(Verdict::Real)),
        "two looks that do not share a dismissal keep it real"
    );
}

#[test]
fn unsure_then_two_dismissals_on_security_closes_as_a_proposal() {
    let mut state = run_of(&["security"]);
    launched(&mut state);
    submit(&mut state, "t-00001", answer("unsure"));
    launched(&mut state);
    submit(&mut state, "vf-00001", answer("false_positive"));
    launched(&mut state);
    submit(&mut state, "vf-00001", answer("intended"));
    assert_eq!(verdict(&state, "t-00001").1, Some(Verdict::Intended));
    assert_eq!(
        registered(&state, "t-00001", Some(VerifyOutcome::Confirmed)),
        Registered::Proposed
    );
}

#[test]
fn unsure_then_one_dismissal_still_decides_a_generic_finding() {
    let mut state = run_of(&["generic"]);
    launched(&mut state);
    submit(&mut state, "t-00001", answer("unsure"));
    launched(&mut state);
    submit(&mut state, "vf-00001", answer("false_positive"));
    assert_eq!(
        verdict(&state, "t-00001"),
        (ItemStatus::Done, Some(Verdict::FalsePositive))
    );
    assert_eq!(registered(&state, "t-00001", None), Registered::Decided);
}

#[test]
fn a_second_look_cannot_answer_duplicate_or_reroute_alone_or_in_a_batch() {
    let mut state = run_of(&["security", "security"]);
    launched(&mut state);
    submit(&mut state, "t-00001", answer("false_positive"));
    let vf = state.item("vf-00001").unwrap().clone();
    let input = item_input(&state, &vf);
    let refused = parse_submission(
        &input,
        &duplicate_of("t-00002").to_string(),
        &route_names(),
        2,
    )
    .unwrap_err()
    .to_string();
    assert!(refused.contains("verdict"), "{refused}");
    assert!(refused.contains("duplicate_of"), "{refused}");
    // A batch of second looks: the same contract per member.
    let mut batch = crate::WorkItem::new("tb-00009", ItemKind::TriageBatch, Tier::Opus);
    batch.extra_mut().inputs = vec!["vf-00001".into(), "vf-00002".into()];
    let input = item_input(&state, &batch);
    let schema = output_schema(&input, &route_names(), 2).to_json_schema("t");
    let entry = &schema["properties"]["verdicts"]["items"];
    assert!(entry["properties"].get("duplicate_of").is_none(), "{entry}");
    assert!(entry["properties"].get("reroute").is_none(), "{entry}");
    let verdicts = entry["properties"]["verdict"]["enum"].to_string();
    assert!(!verdicts.contains("duplicate"), "{verdicts}");
    let reroute = json!({"verdicts": [
        {"item": "vf-00001", "verdict": "unsure", "reroute": "generic", "root_cause": "x y z",
         "confidence": 0.5, "reason": "could be either way, reroute it"},
        {"item": "vf-00002", "verdict": "real", "root_cause": "x y z",
         "confidence": 0.9, "reason": "the input reaches the query"}]});
    let refused = parse_submission(&input, &reroute.to_string(), &route_names(), 2)
        .unwrap_err()
        .to_string();
    assert!(refused.contains("reroute"), "{refused}");
}

#[test]
fn a_finding_its_analyzer_tags_security_keeps_the_rule_on_the_route_rules_json_gave_it() {
    let routed = vec![crate::RoutedFinding {
        finding: 0,
        route: "generic".into(),
        tier: Tier::Haiku,
        rule: "bandit B301".into(),
        path: "m.py".into(),
        safe_fix: false,
        security: true,
        severe: false,
    }];
    let intake = crate::Intake {
        findings: 1,
        unique: 1,
        routed: 1,
        ..crate::Intake::default()
    };
    let config = Config {
        triage_batch: 1,
        survey_min: 0,
        launch_mode: LaunchMode::Foreground,
        ..Config::default()
    };
    let mut state = crate::create_run("r-tag".into(), NOW, config, intake, None, &routed);
    assert!(state.items[0].two_looks());
    launched(&mut state);
    submit(&mut state, "t-00001", answer("false_positive"));
    assert!(state.item("vf-00001").is_some(), "a second look");
    // The state file keeps the flag.
    let text = serde_json::to_string(&state).unwrap();
    let back: RunState = serde_json::from_str(&text).unwrap();
    assert!(back.items[0].two_looks());
}

#[test]
fn duplicate_of_and_the_security_flag_survive_the_state_file() {
    let mut state = run_of(&["security", "security"]);
    launched(&mut state);
    submit(&mut state, "t-00001", answer("real"));
    submit(
        &mut state,
        "t-00002",
        json!({"verdict": "unsure", "reroute": "generic", "root_cause": "x y z",
               "confidence": 0.4, "reason": "a generic question, reroute it"}),
    );
    let text = serde_json::to_string(&state).unwrap();
    let back: RunState = serde_json::from_str(&text).unwrap();
    assert!(back.item("t-00002").unwrap().two_looks());
    assert_eq!(
        back.item("t-00002").unwrap().route.as_deref(),
        Some("generic")
    );
    let mut state = back;
    launched(&mut state);
    submit(&mut state, "t-00002", duplicate_of("t-00001"));
    let text = serde_json::to_string(&state).unwrap();
    let back: RunState = serde_json::from_str(&text).unwrap();
    assert_eq!(
        back.item("t-00002").unwrap().duplicate_of(),
        Some("t-00001")
    );
}
