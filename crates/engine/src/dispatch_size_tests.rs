//! Every dispatch fits the client's hook text limit (issue 41): at the widest wave the config
//! allows (20 launches, the longest run id and agent prefix, every entry insisting on its model,
//! the protocol said, a progress note with a budget) it stays under 10,000 characters, and a
//! wave that would not fit (a run id no `start` would accept) is split: the rest goes out at the
//! next stops, none lost.

use crate::decide_stop::{Decision, decide_stop};
use crate::test_support::{per_finding_run, stop_event as stop};
use crate::{Config, Dispatch, HOOK_TEXT_LIMIT, MAX_AGENT_PREFIX, RunState, Spend, Tier};

use self_repair_test_support::NOW;

/// The client's limit on one run id (`check_run_id`, crates/store).
const MAX_RUN_ID: usize = 64;

fn wide_run(run: &str, fan_out: u32, prefix_len: usize, findings: u32) -> RunState {
    let config = Config {
        fan_out,
        agent_prefix: "p".repeat(prefix_len),
        budget_usd: Some(99_999.99),
        ..Config::default()
    };
    config.validate().unwrap();
    let mut state = per_finding_run(
        run,
        findings,
        "bandit B101",
        |_| "security",
        |_| false,
        config,
    );
    // Every entry insists on its model: its last launch ran a tier below.
    for item in &mut state.items {
        item.ran = Some(Tier::Haiku);
    }
    state
}

/// The text the hook writes for a dispatch, and the dispatch.
fn wave(state: &mut RunState, running: &[&str]) -> Option<(String, Dispatch)> {
    let mut event = stop("s1", Some(running));
    event.spend = Some(Spend {
        spent_micros: 12_345_678_901,
        ..Spend::default()
    });
    match decide_stop(state, &event, NOW).decision {
        Decision::Block(d) => Some((d.render_reason(), d)),
        _ => None,
    }
}

#[test]
fn the_widest_wave_the_config_allows_fits_the_hook_text_limit() {
    let mut widest = 0;
    for fan_out in [1, 8, 19, 20] {
        for prefix in [0, MAX_AGENT_PREFIX] {
            for run_len in [1, MAX_RUN_ID] {
                let run = "r".repeat(run_len);
                let mut state = wide_run(&run, fan_out, prefix, 100_000);
                let (text, dispatch) = wave(&mut state, &[]).unwrap();
                assert_eq!(dispatch.launch.len(), fan_out as usize, "no split needed");
                assert!(
                    text.chars().count() < HOOK_TEXT_LIMIT,
                    "fan_out {fan_out}, prefix {prefix}, run id {run_len}: {} chars",
                    text.chars().count()
                );
                widest = widest.max(text.chars().count());
            }
        }
    }
    eprintln!("widest wave the config allows: {widest} characters");
    assert!(widest > 6_000, "the test reached no wide wave: {widest}");
}

#[test]
fn a_wave_that_would_pass_the_limit_is_split_and_the_rest_goes_out_next() {
    let run = "r".repeat(900);
    let mut state = wide_run(&run, 20, MAX_AGENT_PREFIX, 40);
    let mut sent: Vec<String> = Vec::new();
    let mut waves = 0;
    while sent.len() < 20 && waves < 20 {
        let running: Vec<&str> = sent.iter().map(String::as_str).collect();
        let Some((text, dispatch)) = wave(&mut state, &running) else {
            break;
        };
        assert!(
            text.chars().count() < HOOK_TEXT_LIMIT,
            "{}",
            text.chars().count()
        );
        assert!(
            dispatch.launch.len() < 20,
            "split: {}",
            dispatch.launch.len()
        );
        sent.extend(dispatch.launch.iter().map(|l| l.item.clone()));
        waves += 1;
    }
    let mut unique = sent.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), sent.len(), "an item went out twice: {sent:?}");
    assert!(sent.len() >= 20, "{} sent in {waves} waves", sent.len());
    assert!(waves >= 2);
}

#[test]
fn an_agent_prefix_longer_than_the_limit_is_refused_with_what_to_use() {
    let config = Config {
        agent_prefix: "p".repeat(MAX_AGENT_PREFIX + 1),
        ..Config::default()
    };
    let error = config.validate().unwrap_err();
    assert_eq!(error.field, "agent_prefix");
}
