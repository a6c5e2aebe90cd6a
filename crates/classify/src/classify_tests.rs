//! The classification itself, in tables: which rules compile, which findings a rule matches,
//! what the classifier answers (the registry first, then the first matching rule), how a
//! proposed rule measures against agent verdicts, and the registry's own operations.

use serde_json::json;

use self_repair_engine::{Finding, Predecided, Verdict};

use crate::{
    AgentVerdict, Classified, Classifier, ClassifyError, CompiledRule, KnownEntry, KnownFix,
    KnownRegistry, Rule, RuleStatus, measure,
};

fn rule(value: serde_json::Value) -> Rule {
    serde_json::from_value(value).unwrap()
}

fn finding(symbol: Option<&str>) -> Finding {
    serde_json::from_value(json!({
        "tool": "Ruff", "rule_id": "F401", "level": "error",
        "message": "`os` imported but unused", "path": "src/app/models.py", "symbol": symbol
    }))
    .unwrap()
}

fn entry(verdict: Verdict, proposed: bool) -> KnownEntry {
    KnownEntry {
        proposed,
        ..crate::registry_file_tests::entry(verdict, "r-1")
    }
}

#[test]
fn a_rule_needs_a_condition_and_exactly_one_of_verdict_and_route() {
    for (value, error) in [
        (
            json!({"id": "r", "name": "n", "when": {}, "verdict": "intended"}),
            Some("`when` needs at least one condition"),
        ),
        (
            json!({"id": "r", "name": "n", "when": {"tool": "ruff"}}),
            Some("give exactly one of `verdict` and `route`"),
        ),
        (
            json!({"id": "r", "name": "n", "when": {"tool": "ruff"}, "verdict": "intended", "route": "security"}),
            Some("give exactly one of `verdict` and `route`"),
        ),
        (
            json!({"id": "r", "name": "n", "when": {"path_glob": "a/{b"}, "verdict": "intended"}),
            Some("path_glob: "),
        ),
        (
            json!({"id": "r", "name": "n", "when": {"symbol_regex": "("}, "route": "security"}),
            Some("symbol_regex: "),
        ),
        (
            json!({"id": "r", "name": "n", "when": {"tool": "ruff"}, "route": "security"}),
            None,
        ),
        (
            json!({"id": "r", "name": "n", "when": {"level": "note"}, "verdict": "real"}),
            None,
        ),
    ] {
        let rule = rule(value.clone());
        match (CompiledRule::compile(&rule), error) {
            (Ok(_), None) => {}
            (Err(ClassifyError::BadRule { rule, message }), Some(error)) => {
                assert_eq!(rule, "r");
                assert!(message.starts_with(error), "{value}: {message}");
            }
            (other, _) => panic!("{value}: {other:?}"),
        }
    }
}

/// Every condition must hold; each is tried alone, holding and not.
#[test]
fn a_rule_matches_when_every_condition_it_gives_holds() {
    let with_symbol = finding(Some("os"));
    let without_symbol = finding(None);
    for (when, matches_with, matches_without) in [
        (json!({"tool": "ruff"}), true, true),
        (json!({"tool": "eslint"}), false, false),
        (json!({"rule_id": "F401"}), true, true),
        (json!({"rule_id": "f401"}), false, false),
        (json!({"level": "error"}), true, true),
        (json!({"level": "warning"}), false, false),
        (json!({"path_glob": "src/**/*.py"}), true, true),
        (json!({"path_glob": "tests/**"}), false, false),
        (json!({"message_regex": "imported but"}), true, true),
        (json!({"message_regex": "^unused"}), false, false),
        (json!({"symbol_regex": "^os$"}), true, false),
        (json!({"symbol_regex": "^sys$"}), false, false),
        (
            json!({"tool": "ruff", "rule_id": "F401", "level": "error"}),
            true,
            true,
        ),
        (json!({"tool": "ruff", "rule_id": "F402"}), false, false),
        (json!({"tool": "eslint", "rule_id": "F401"}), false, false),
        (json!({"rule_id": "F401", "level": "note"}), false, false),
        (json!({"level": "error", "path_glob": "x/**"}), false, false),
        (
            json!({"path_glob": "src/**", "message_regex": "nope"}),
            false,
            false,
        ),
        (
            json!({"message_regex": "os", "symbol_regex": "nope"}),
            false,
            false,
        ),
    ] {
        let rule = rule(json!({"id": "r", "name": "n", "when": when, "verdict": "intended"}));
        let compiled = CompiledRule::compile(&rule).unwrap();
        assert_eq!(compiled.matches(&with_symbol), matches_with, "{when}");
        assert_eq!(compiled.matches(&without_symbol), matches_without, "{when}");
    }
}

#[test]
fn rule_statuses_and_sources_are_spelled_as_files_hold_them() {
    for (status, text) in [
        (RuleStatus::Proposed, "proposed"),
        (RuleStatus::Accepted, "accepted"),
        (RuleStatus::Rejected, "rejected"),
    ] {
        assert_eq!(status.as_str(), text);
        assert_eq!(serde_json::to_value(status).unwrap(), json!(text));
    }
    let hand_written =
        rule(json!({"id": "r", "name": "n", "when": {"tool": "x"}, "verdict": "real"}));
    assert_eq!(hand_written.source, "manual");
    assert_eq!(hand_written.status, RuleStatus::Accepted);
}

/// The registry decides first (unless the code changed), then the first matching rule: a
/// verdict, or a route; else the default route.
#[test]
fn the_classifier_asks_the_registry_then_the_first_matching_rule() {
    let mut known = KnownRegistry::default();
    known.insert_at("decided".to_owned(), entry(Verdict::Intended, false), 10);
    known.insert_at("proposed".to_owned(), entry(Verdict::Intended, true), 10);
    let rules = [
        rule(json!({"id": "other", "name": "o", "when": {"tool": "eslint"}, "verdict": "real"})),
        rule(json!({"id": "sec", "name": "s", "when": {"rule_id": "S1"}, "route": "security"})),
        rule(
            json!({"id": "fp", "name": "f", "when": {"tool": "ruff"}, "verdict": "false_positive", "reason": "generated"}),
        ),
    ];
    let compiled: Vec<CompiledRule<'_>> = rules
        .iter()
        .map(|r| CompiledRule::compile(r).unwrap())
        .collect();
    let classifier = Classifier::new(&known, compiled);
    let ruff = finding(None);
    let by_rule = Classified::Decided(Predecided {
        verdict: Verdict::FalsePositive,
        by: "rule".to_owned(),
        reason: "rule fp (f): generated".to_owned(),
    });
    assert_eq!(
        classifier.classify("decided", &ruff, |_| true),
        Classified::Decided(Predecided {
            verdict: Verdict::Intended,
            by: "known".to_owned(),
            reason: "known.json (r-1): because".to_owned(),
        })
    );
    assert_eq!(classifier.classify("decided", &ruff, |_| false), by_rule);
    assert_eq!(classifier.classify("proposed", &ruff, |_| true), by_rule);
    assert_eq!(classifier.classify("unknown", &ruff, |_| true), by_rule);
    let mut s1 = finding(None);
    s1.tool = "bandit".to_owned();
    s1.rule_id = "S1".to_owned();
    assert_eq!(
        classifier.classify("unknown", &s1, |_| true),
        Classified::Route {
            route: "security".to_owned(),
            rule: "sec".to_owned()
        }
    );
    s1.rule_id = "S2".to_owned();
    assert_eq!(
        classifier.classify("unknown", &s1, |_| true),
        Classified::Default
    );
}

/// A proposed rule measured against the agents' verdicts on the findings it matches.
#[test]
fn a_rule_measures_the_share_of_agent_verdicts_it_agrees_with() {
    let rule =
        rule(json!({"id": "r", "name": "n", "when": {"tool": "ruff"}, "verdict": "intended"}));
    let compiled = CompiledRule::compile(&rule).unwrap();
    let ruff = finding(None);
    let mut other = finding(None);
    other.tool = "eslint".to_owned();
    let decided = [
        AgentVerdict {
            item: "t-1",
            finding: &ruff,
            verdict: Verdict::Intended,
        },
        AgentVerdict {
            item: "t-2",
            finding: &ruff,
            verdict: Verdict::Real,
        },
        AgentVerdict {
            item: "t-3",
            finding: &ruff,
            verdict: Verdict::Intended,
        },
        AgentVerdict {
            item: "t-4",
            finding: &ruff,
            verdict: Verdict::Intended,
        },
        AgentVerdict {
            item: "t-5",
            finding: &other,
            verdict: Verdict::Real,
        },
    ];
    let measured = measure("r-9", &compiled, &decided);
    assert_eq!(measured.run, "r-9");
    assert_eq!((measured.matches, measured.agreed), (4, 3));
    assert!(
        (measured.accuracy - 0.75).abs() < 1e-12,
        "{}",
        measured.accuracy
    );
    assert_eq!(measured.disagreements, ["t-2"]);
    let none = measure("r-9", &compiled, &decided[4..]);
    assert_eq!((none.matches, none.agreed, none.accuracy), (0, 0, 0.0));
}

#[test]
fn the_registry_inserts_decides_redecides_fixes_and_removes() {
    let mut known = KnownRegistry::default();
    // The clock read here, not through `now_secs`, which a mutant may break.
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    assert!(known.insert("a".to_owned(), entry(Verdict::Real, false)));
    assert!(
        !known.insert("a".to_owned(), entry(Verdict::Real, false)),
        "unchanged"
    );
    let at = known.decided_at("a").unwrap().to_owned();
    assert!(at >= self_repair_engine::timestamp::rfc3339(before), "{at}");
    assert!(known.insert_at("a".to_owned(), entry(Verdict::Intended, false), 5));
    assert_eq!(known.decided_at("a"), Some("1970-01-01T00:00:05Z"));
    assert_eq!(known.get("a").unwrap().verdict, Verdict::Intended);

    known.insert_at("p".to_owned(), entry(Verdict::Real, true), 5);
    assert!(known.get("p").is_some());
    assert!(known.decision("p").is_none(), "a proposal decides nothing");
    assert_eq!(known.decision("a").unwrap().verdict, Verdict::Intended);
    assert!(known.decision("none").is_none());

    known.redecide("p").unwrap().proposed = false;
    assert!(known.decision("p").is_some());
    assert!(known.decided_at("p").unwrap() >= at.as_str());
    assert!(known.redecide("none").is_none());

    let fix = KnownFix {
        task: "task-3".to_owned(),
        run: "c-1".to_owned(),
        commit: None,
    };
    known.insert_at("f".to_owned(), entry(Verdict::Real, false), 5);
    assert_eq!(known.record_fix(&["f", "a", "none"], &fix), 2);
    assert_eq!(known.get("f").unwrap().fixed, Some(fix));
    assert!(known.decided_at("f").unwrap() >= at.as_str());

    assert_eq!(known.remove("f").unwrap().verdict, Verdict::Real);
    assert_eq!(known.decided_at("f"), None);
    assert!(known.remove("f").is_none());
}

#[test]
fn the_registry_saves_and_loads_in_the_store_folder() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        KnownRegistry::path(dir.path()),
        dir.path().join("known.json")
    );
    let mut known = KnownRegistry::default();
    known.insert_at("a".to_owned(), entry(Verdict::Real, false), 5);
    known.insert_at("b".to_owned(), entry(Verdict::Intended, true), 6);
    known.save(dir.path()).unwrap();
    assert_eq!(KnownRegistry::load(dir.path()).unwrap(), known);
    assert_eq!(
        KnownRegistry::load_file(&dir.path().join("known.json")).unwrap(),
        known
    );
}

/// No registry file is an empty registry; one that cannot be read is an error naming it.
#[test]
fn a_missing_registry_is_empty_and_an_unreadable_one_an_error() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        KnownRegistry::load_file(&dir.path().join("known.json")).unwrap(),
        KnownRegistry::default()
    );
    assert!(matches!(
        KnownRegistry::load_file(dir.path()),
        Err(ClassifyError::BadFile { path, .. }) if path == dir.path()
    ));
}
