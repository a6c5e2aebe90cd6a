//! What the engine's tests share: a run of one item per finding, a stop of the bound session
//! and a journaled submission.

use serde_json::Value;

use crate::{
    Config, Event, Intake, JournalEntry, RoutedFinding, RunState, StopEvent, Tier, apply,
    create_run,
};

/// The tests' clock.
pub(crate) use self_repair_test_support::NOW;

/// A stop of `session` with `running` as its `background_tasks` (`None`: the client sent none).
pub(crate) fn stop_event(session: &str, running: Option<&[&str]>) -> StopEvent {
    StopEvent {
        session: Some(session.into()),
        running: running.map(|r| r.iter().map(|s| (*s).to_owned()).collect()),
        launched: Vec::new(),
        unnotified: Vec::new(),
        notified: 0,
        provider_refused: Vec::new(),
        last_message: None,
        new_turn: false,
        spend: None,
        launches_read: false,
        client: None,
    }
}

/// Journals `result` for `item` and folds it; panics when it changed nothing.
pub(crate) fn submit(state: &mut RunState, item: &str, result: Value) {
    let entry = JournalEntry {
        at: NOW,
        event: Event::Submitted {
            item: item.into(),
            result,
        },
    };
    assert!(
        apply(state, &entry).changed,
        "submission of {item} was not applied"
    );
}

/// Run `run` of one finding per `(route, rule, path)`, each at its route's starting tier
/// (sonnet on the security route, else haiku), with `config` as given.
pub(crate) fn run_of_findings(
    run: &str,
    findings: &[(&str, &str, &str)],
    config: Config,
) -> RunState {
    let routed: Vec<RoutedFinding> = findings
        .iter()
        .enumerate()
        .map(|(i, (route, rule, path))| routed(i as u32, route, rule, path, false))
        .collect();
    routed_run(run, &routed, config)
}

/// Run `run` of `n` findings of `rule` (`src/m0.py`, `src/m1.py`, ...), one triage item each
/// and no rule survey; `route(i)` names finding `i`'s route and `safe_fix(i)` whether it
/// carries the analyzer's safe fix.
pub(crate) fn per_finding_run(
    run: &str,
    n: u32,
    rule: &str,
    route: impl Fn(u32) -> &'static str,
    safe_fix: impl Fn(u32) -> bool,
    config: Config,
) -> RunState {
    let routed: Vec<RoutedFinding> = (0..n)
        .map(|i| routed(i, route(i), rule, &format!("src/m{i}.py"), safe_fix(i)))
        .collect();
    let config = Config {
        triage_batch: 1,
        survey_min: 0,
        ..config
    };
    routed_run(run, &routed, config)
}

/// Finding `finding` routed to `route` at its starting tier.
fn routed(finding: u32, route: &str, rule: &str, path: &str, safe_fix: bool) -> RoutedFinding {
    RoutedFinding {
        finding,
        route: route.into(),
        tier: if route == "security" {
            Tier::Sonnet
        } else {
            Tier::Haiku
        },
        safe_fix,
        security: false,
        severe: false,
        rule: rule.into(),
        path: path.into(),
    }
}

/// Run `run` of the findings `routed`, as `start` creates it under `config`.
pub(crate) fn routed_run(run: &str, routed: &[RoutedFinding], config: Config) -> RunState {
    let n = routed.len() as u32;
    let intake = Intake {
        findings: n,
        unique: n,
        routed: n,
        ..Intake::default()
    };
    create_run(run.into(), NOW, config, intake, Some("s1".into()), routed)
}
