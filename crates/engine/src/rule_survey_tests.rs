//! Rule surveys: which rules get one, holding their findings, applying a policy after its spot
//! checks, falling back to per-finding triage, and the security route never being surveyed.

use serde_json::{Value, json};

use crate::test_support::{NOW, run_of_findings};
use crate::{
    Config, Decision, Event, ItemKind, ItemStatus, JournalEntry, LaunchMode, Phase, RunState,
    StopEvent, SurveyStage, Tier, Verdict, apply, decide_stop, survey_of,
};

/// `(route, rule, path)` per finding, surveyed from `survey_min` findings.
fn run_of(findings: &[(&str, &str, &str)], survey_min: u32) -> RunState {
    let config = Config {
        survey_min,
        launch_mode: LaunchMode::Foreground,
        ..Config::default()
    };
    run_of_findings("r-test", findings, config)
}

/// Seven D205 findings over four files, two F401, and six security findings of one rule.
fn mixed_run() -> RunState {
    run_of(
        &[
            ("generic", "ruff D205", "a.py"),
            ("generic", "ruff D205", "a.py"),
            ("generic", "ruff D205", "a.py"),
            ("security", "ruff S101", "a.py"),
            ("generic", "ruff D205", "b.py"),
            ("generic", "ruff F401", "b.py"),
            ("security", "ruff S101", "b.py"),
            ("generic", "ruff D205", "c.py"),
            ("security", "ruff S101", "c.py"),
            ("generic", "ruff D205", "d.py"),
            ("security", "ruff S101", "d.py"),
            ("generic", "ruff F401", "d.py"),
            ("generic", "ruff D205", "d.py"),
            ("security", "ruff S101", "e.py"),
            ("security", "ruff S101", "e.py"),
        ],
        5,
    )
}

fn stop() -> StopEvent {
    StopEvent {
        session: Some("s1".into()),
        running: None,
        launched: Vec::new(),
        unnotified: Vec::new(),
        notified: 0,
        provider_refused: Vec::new(),
        last_message: None,
        new_turn: false,
        spend: None,
        ..StopEvent::default()
    }
}

/// The items the next stop dispatches.
fn dispatched(state: &mut RunState) -> Vec<String> {
    match decide_stop(state, &stop(), NOW).decision {
        Decision::Block(d) => d.launch.into_iter().map(|l| l.item).collect(),
        other => panic!("expected a block, got {other:?}"),
    }
}

fn submit(state: &mut RunState, item: &str, result: Value) {
    let entry = JournalEntry {
        at: NOW,
        event: Event::Submitted {
            item: item.into(),
            result,
        },
    };
    assert!(apply(state, &entry).changed, "{item} was not applied");
    let item = state.item(item).unwrap();
    assert_eq!(item.status, ItemStatus::Done, "{item:?}");
}

/// Every member of a batch answered `verdict`.
fn answer_batch(state: &mut RunState, batch: &str, verdict: &str) {
    let members = state
        .item(batch)
        .unwrap()
        .inputs()
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>();
    let verdicts: Vec<Value> = members
        .iter()
        .map(|m| {
            json!({"confidence": 0.9, "item": m, "verdict": verdict, "root_cause": "summary line not separated",
                   "reason": "the docstring runs its summary into the description"})
        })
        .collect();
    submit(state, batch, json!({ "verdicts": verdicts }));
}

fn fix_all() -> Value {
    json!({"policy": "fix_all", "root_cause": "docstring summary not separated",
           "reason": "every sampled docstring runs its summary into the body"})
}

fn suppress() -> Value {
    json!({"policy": "suppress", "verdict": "intended",
           "config_change": "pyproject.toml: [tool.ruff.lint] ignore = [\"D205\"]",
           "reason": "the project writes one-paragraph docstrings on purpose"})
}

fn ids(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn a_rule_with_enough_findings_gets_one_survey_that_holds_them_and_reads_a_spread_sample() {
    let mut state = mixed_run();
    assert_eq!(state.surveys.len(), 1);
    let survey = state.surveys[0].clone();
    assert_eq!(survey.id, "rs-00001");
    assert_eq!(survey.rule, "ruff D205");
    assert_eq!(
        survey.members,
        ids(&[
            "t-00001", "t-00002", "t-00003", "t-00005", "t-00008", "t-00010", "t-00013"
        ])
    );
    // 7 findings: 2 spot checks, so 5 in the sample; one of each of the four files first.
    assert_eq!(
        survey.sample,
        ids(&["t-00001", "t-00002", "t-00005", "t-00008", "t-00010"])
    );
    assert_eq!(survey.spot_checks, ids(&["t-00003", "t-00013"]));
    assert!(
        survey
            .spot_checks
            .iter()
            .all(|s| !survey.sample.contains(s))
    );
    let item = state.item("rs-00001").unwrap();
    assert_eq!(item.kind, ItemKind::RuleSurvey);
    assert_eq!(item.tier, Tier::Sonnet);
    assert_eq!(item.inputs(), survey.sample.as_slice());

    let first = dispatched(&mut state);
    assert!(first.contains(&"rs-00001".to_owned()), "{first:?}");
    let batched: Vec<String> = first
        .iter()
        .filter_map(|id| state.item(id))
        .flat_map(|i| {
            if i.kind == ItemKind::TriageBatch {
                i.inputs()
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
            } else {
                vec![i.id.to_string()]
            }
        })
        .collect();
    for member in &survey.members {
        assert!(
            !batched.contains(member),
            "{member} went out with {first:?}"
        );
    }
    // The survey's findings count as running while it is out.
    assert_eq!(state.counts(Phase::Triage).running, 15);
}

#[test]
fn security_findings_are_never_surveyed_and_keep_per_finding_triage() {
    let state = run_of(
        &[
            ("security", "bandit B602", "a.py"),
            ("security", "bandit B602", "b.py"),
            ("security", "bandit B602", "c.py"),
            ("security", "bandit B602", "d.py"),
            ("security", "bandit B602", "e.py"),
            ("security", "bandit B602", "f.py"),
        ],
        2,
    );
    assert!(state.surveys.is_empty());
    assert!(state.items.iter().all(|i| i.kind != ItemKind::RuleSurvey));
    // Their findings are batched for per-finding verdicts as before.
    let batch = state.item("tb-00001").unwrap();
    assert_eq!(batch.inputs().len(), 6);
}

/// Issue 40, item 4: opus second looks went to import-blacklist findings one by one (B403,
/// B404), an import being no use of the module.
#[test]
fn import_blacklist_rules_are_surveyed_on_the_security_route() {
    let mut findings = vec![("security", "bandit B404", "a.py"); 3];
    findings.extend([("security", "ruff S403", "b.py"); 3]);
    findings.extend([("security", "bandit B602", "c.py"); 3]);
    let state = run_of(&findings, 3);
    let rules: Vec<&str> = state.surveys.iter().map(|s| s.rule.as_str()).collect();
    assert_eq!(rules, ["bandit B404", "ruff S403"]);
    // The sink rule keeps per-finding triage.
    let batch = state.item("tb-00001").unwrap();
    assert_eq!(batch.inputs(), ["t-00007", "t-00008", "t-00009"]);
}

#[test]
fn a_security_tagged_rule_that_rules_json_routes_elsewhere_is_not_surveyed() {
    // Bandit's B602 (`shell=True`) routed to `generic` by a rules.json rule: still under the
    // two-look rule, so no survey's policy may close it on one look.
    let routed: Vec<crate::RoutedFinding> = (0..4)
        .map(|i| crate::RoutedFinding {
            finding: i,
            route: "generic".into(),
            tier: crate::Tier::Haiku,
            rule: "bandit B602".into(),
            path: format!("m{i}.py"),
            safe_fix: false,
            security: true,
            severe: false,
        })
        .collect();
    let config = Config {
        survey_min: 3,
        launch_mode: LaunchMode::Foreground,
        ..Config::default()
    };
    let state = crate::test_support::routed_run("r-test", &routed, config);
    assert!(state.surveys.is_empty(), "{:?}", state.surveys);
}

#[test]
fn import_blacklist_rules_known_answers() {
    use crate::rule_survey::import_blacklist;
    for rule in [
        "bandit B401",
        "bandit B404",
        "bandit B415",
        "ruff S403",
        "ruff S411",
    ] {
        assert!(import_blacklist(rule), "{rule}");
    }
    for rule in [
        "bandit B301",
        "bandit B602",
        "ruff S301",
        "ruff S4",
        "ruff S4011",
        "ruff F401",
        "semgrep B404",
        "bandit",
    ] {
        assert!(!import_blacklist(rule), "{rule}");
    }
}

#[test]
fn survey_min_zero_turns_the_survey_off() {
    let state = run_of(&[("generic", "ruff D205", "a.py"); 12], 0);
    assert!(state.surveys.is_empty());
    assert_eq!(state.item("tb-00001").unwrap().inputs().len(), 8);
}

/// Runs `mixed_run` through its first wave: the survey answers `answer`, every batch `real`.
fn surveyed(answer: Value) -> RunState {
    let mut state = mixed_run();
    let first = dispatched(&mut state);
    submit(&mut state, "rs-00001", answer);
    for id in first.iter().filter(|id| id.starts_with("tb-")) {
        answer_batch(&mut state, id, "real");
    }
    state
}

#[test]
fn a_fix_all_policy_confirmed_by_its_spot_checks_decides_the_rest_of_the_rule() {
    let mut state = surveyed(fix_all());
    // The spot checks go out, together as one batch; the other members stay held.
    let second = dispatched(&mut state);
    assert_eq!(second.len(), 1, "{second:?}");
    let batch = state.item(&second[0]).unwrap().clone();
    assert_eq!(batch.kind, ItemKind::TriageBatch);
    assert_eq!(batch.inputs(), ids(&["t-00003", "t-00013"]).as_slice());
    assert_eq!(state.surveys[0].stage, SurveyStage::Checking);
    answer_batch(&mut state, &second[0], "real");

    // The next stop applies the policy, and triage is over.
    let third = dispatched(&mut state);
    assert_eq!(state.surveys[0].stage, SurveyStage::Applied);
    let decided = survey_of(&state);
    let mut by_policy: Vec<&str> = decided.keys().copied().collect();
    by_policy.sort_unstable();
    assert_eq!(
        by_policy,
        ["t-00001", "t-00002", "t-00005", "t-00008", "t-00010"]
    );
    for id in &by_policy {
        let item = state.item(id).unwrap();
        assert_eq!(item.status, ItemStatus::Done);
        assert_eq!(item.verdict, Some(Verdict::Real));
        assert_eq!(
            item.root_cause.as_deref(),
            Some("docstring summary not separated")
        );
    }
    // The spot checks keep their own verdicts and are not listed as decided by the survey.
    assert!(!decided.contains_key("t-00003"));
    // The policy's findings and agreeing spot checks are one group already: the aggregator
    // only reads the findings triaged one by one (F401 and the security rule).
    assert_eq!(state.phase, Phase::Aggregate);
    let policy_group = state
        .proposals
        .iter()
        .find(|p| p.label == "docstring summary not separated")
        .expect("the policy's group");
    assert_eq!(policy_group.members.len(), 7);
    let aggregators: Vec<&crate::WorkItem> = state
        .items
        .iter()
        .filter(|i| i.kind == ItemKind::Aggregate)
        .collect();
    assert_eq!(aggregators.len(), 1);
    assert_eq!(aggregators[0].inputs().len(), 8);
    assert!(
        aggregators[0]
            .inputs()
            .iter()
            .all(|m| !policy_group.members.iter().any(|x| x == m))
    );
    assert_eq!(third, ["agg-1"]);
}

#[test]
fn a_spot_check_that_disagrees_drops_the_policy_and_releases_the_rule_to_triage() {
    // The surveyor says suppress (intended), but a spot check finds a real defect.
    let mut state = surveyed(suppress());
    let second = dispatched(&mut state);
    answer_batch(&mut state, &second[0], "real");
    let third = dispatched(&mut state);
    let survey = &state.surveys[0];
    assert_eq!(survey.stage, SurveyStage::Dropped);
    assert!(
        survey
            .dropped
            .as_deref()
            .is_some_and(|d| d.contains("spot check t-00003 answered real")),
        "{survey:?}"
    );
    // The five members not checked go out as one batch for per-finding verdicts.
    assert_eq!(third.len(), 1, "{third:?}");
    let batch = state.item(&third[0]).unwrap().clone();
    assert_eq!(
        batch.inputs(),
        ids(&["t-00001", "t-00002", "t-00005", "t-00008", "t-00010"]).as_slice()
    );
    answer_batch(&mut state, &third[0], "intended");
    assert!(survey_of(&state).is_empty());
    dispatched(&mut state);
    assert_eq!(state.phase, Phase::Aggregate);
    for id in &state.surveys[0].members {
        let item = state.item(id).unwrap();
        assert_eq!(item.status, ItemStatus::Done, "{id}");
    }
}

#[test]
fn a_suppress_policy_confirmed_decides_its_findings_as_intended_with_the_config_change() {
    let mut state = surveyed(suppress());
    let second = dispatched(&mut state);
    answer_batch(&mut state, &second[0], "intended");
    dispatched(&mut state);
    let survey = &state.surveys[0];
    assert_eq!(survey.stage, SurveyStage::Applied);
    let answer = survey.answer.as_ref().unwrap();
    assert_eq!(
        answer.config_change.as_deref(),
        Some("pyproject.toml: [tool.ruff.lint] ignore = [\"D205\"]")
    );
    let item = state.item("t-00001").unwrap();
    assert_eq!(item.verdict, Some(Verdict::Intended));
    assert_eq!(item.root_cause.as_deref(), Some("ruff D205 suppressed"));
    // Not real: no group of its own.
    assert!(
        state
            .proposals
            .iter()
            .all(|p| !p.members.contains(&"t-00001".to_owned()))
    );
}

#[test]
fn triage_each_releases_the_whole_rule_to_batched_triage_on_the_route_it_names() {
    let mut state = surveyed(json!({"policy": "triage_each", "route": "dead-code",
        "reason": "some docstrings belong to code nothing calls any more"}));
    let second = dispatched(&mut state);
    assert_eq!(state.surveys[0].stage, SurveyStage::Dropped);
    assert_eq!(second.len(), 1, "{second:?}");
    let batch = state.item(&second[0]).unwrap();
    assert_eq!(batch.inputs(), state.surveys[0].members.as_slice());
    assert_eq!(batch.route.as_deref(), Some("dead-code"));
    assert!(
        state.surveys[0]
            .members
            .iter()
            .all(|m| state.item(m).unwrap().route.as_deref() == Some("dead-code"))
    );
}

#[test]
fn a_survey_that_ends_without_an_answer_at_every_tier_releases_its_rule() {
    let mut state = mixed_run();
    let mut running: Vec<String> = dispatched(&mut state);
    // The survey dies at sonnet and opus; everything else answers.
    for id in running.iter().filter(|id| id.starts_with("tb-")) {
        answer_batch(&mut state, id, "real");
    }
    for _ in 0..2 {
        apply(
            &mut state,
            &JournalEntry {
                at: NOW,
                event: Event::Shown {
                    item: "rs-00001".into(),
                },
            },
        );
        let next = decide_stop(
            &mut state,
            &StopEvent {
                running: Some(Vec::new()),
                ..stop()
            },
            NOW,
        );
        running = match next.decision {
            Decision::Block(d) => d.launch.into_iter().map(|l| l.item).collect(),
            other => panic!("expected a block, got {other:?}"),
        };
        if state.item("rs-00001").unwrap().status == ItemStatus::Quarantined {
            break;
        }
    }
    assert_eq!(
        state.item("rs-00001").unwrap().status,
        ItemStatus::Quarantined
    );
    assert_eq!(state.surveys[0].stage, SurveyStage::Dropped);
    // Its seven findings are now batched for ordinary triage.
    let batch = running
        .iter()
        .filter_map(|id| state.item(id))
        .find(|i| i.kind == ItemKind::TriageBatch)
        .expect("a batch of the released rule");
    assert_eq!(batch.inputs(), state.surveys[0].members.as_slice());
}

#[test]
fn a_survey_answer_must_carry_what_its_policy_needs() {
    let input = crate::ItemInput {
        item: "rs-00001".into(),
        kind: ItemKind::RuleSurvey,
        inputs: ids(&["t-00001"]),
        group: None,
        angle: None,
    };
    let routes = crate::route_names();
    let parse = |v: Value| crate::parse_submission(&input, &v.to_string(), &routes, 10);
    assert!(parse(fix_all()).is_ok());
    assert!(parse(suppress()).is_ok());
    let missing = parse(json!({"policy": "suppress", "verdict": "intended",
        "reason": "the project writes one-paragraph docstrings"}))
    .unwrap_err()
    .to_string();
    assert!(missing.contains("config_change"), "{missing}");
    let real = parse(json!({"policy": "suppress", "verdict": "real",
        "config_change": "ignore = [\"D205\"] in pyproject.toml",
        "reason": "the project writes one-paragraph docstrings"}))
    .unwrap_err()
    .to_string();
    assert!(real.contains("verdict"), "{real}");
    let stray = parse(json!({"policy": "triage_each", "root_cause": "docstrings",
        "reason": "the findings differ from file to file"}))
    .unwrap_err()
    .to_string();
    assert!(stray.contains("root_cause"), "{stray}");
    assert!(
        parse(json!({"policy": "triage_each", "route": "security",
        "reason": "the findings differ from file to file"}))
        .is_ok()
    );
    assert!(
        parse(json!({"policy": "fix_all", "reason": "every one is real and the same"})).is_err()
    );
}

#[test]
fn surveys_survive_the_state_file() {
    let mut state = surveyed(fix_all());
    dispatched(&mut state);
    let text = serde_json::to_string(&state).unwrap();
    let back: RunState = serde_json::from_str(&text).unwrap();
    assert_eq!(back, state);
    assert_eq!(back.surveys[0].stage, SurveyStage::Checking);
}

/// Asked for more findings than there are (none of the run's callers does: the sample and the
/// spot checks are bounded by the rule's findings), the spread gives each one once and stops.
#[test]
fn a_spread_of_more_than_there_are_gives_each_once() {
    let paths = ["a.py", "a.py", "b.py"];
    let picked = super::spread(&[0, 1, 2], 5, &std::collections::HashSet::new(), |i| {
        paths[i]
    });
    assert_eq!(picked, [0, 1, 2]);
    let skip = std::collections::HashSet::from([1]);
    assert_eq!(super::spread(&[0, 1, 2], 3, &skip, |i| paths[i]), [0, 2]);
}

#[test]
fn a_release_read_back_from_the_file_forms_its_batches_numbered_in_turn() {
    // 30 findings of one rule (one survey), 3 of another (one batch), over several files.
    let files = ["a.py", "b.py", "c.py", "d.py", "e.py"];
    let mut findings: Vec<(&str, &str, &str)> = (0..30)
        .map(|i| ("generic", "ruff D205", files[i % files.len()]))
        .collect();
    findings.extend([("generic", "ruff F401", "a.py"); 3]);
    let state = run_of(&findings, 5);
    assert_eq!(state.surveys.len(), 1);
    // The survey's members are read as the file writes them (numbers), not as ids.
    let mut state: RunState =
        serde_json::from_str(&serde_json::to_string(&state).unwrap()).unwrap();
    let first = dispatched(&mut state);
    submit(
        &mut state,
        "rs-00001",
        json!({"policy": "triage_each", "route": "dead-code",
               "reason": "some docstrings belong to code nothing calls any more"}),
    );
    for id in first.iter().filter(|id| id.starts_with("tb-")) {
        answer_batch(&mut state, id, "real");
    }
    let released = dispatched(&mut state);
    let ids: Vec<&str> = released.iter().map(String::as_str).collect();
    assert_eq!(ids, ["tb-00002", "tb-00003", "tb-00004", "tb-00005"]);
    let members: Vec<String> = released
        .iter()
        .flat_map(|b| state.item(b).unwrap().inputs().to_vec())
        .map(|m| m.to_string())
        .collect();
    assert_eq!(members, state.surveys[0].members.to_vec());
    assert!(
        members
            .iter()
            .all(|m| state.item(m).unwrap().route.as_deref() == Some("dead-code"))
    );
}
