//! The dispatch channel per session: the switch when a dispatch goes unlaunched, both ways;
//! an old client; `dispatch_as` as an override; a rebuild from the journal choosing the same;
//! the stall within the client's continuation cap and said on the channel the session follows.

use super::*;
use crate::test_support::{NOW, per_finding_run, stop_event};
use crate::{
    AgentLaunch, Config, Decision, Event, JournalEntry, LaunchMode, RunStatus, decide_stop,
};

fn run(dispatch_as: DispatchAs) -> RunState {
    let config = Config {
        launch_mode: LaunchMode::Foreground,
        fan_out: 2,
        dispatch_as,
        ..Config::default()
    };
    let mut state = per_finding_run("r-ch", 6, "ruff F401", |_| "generic", |_| false, config);
    state.session = Some("s1".into());
    state
}

/// A stop of `s1` that read the transcript and saw `launched` (client `client`, when new).
fn read_stop(launched: &[&str], client: Option<&str>) -> StopEvent {
    StopEvent {
        running: Some(Vec::new()),
        launches_read: true,
        client: client.map(str::to_owned),
        launched: launched
            .iter()
            .map(|item| AgentLaunch {
                item: (*item).to_owned(),
                model: Some("haiku".into()),
                ..AgentLaunch::default()
            })
            .collect(),
        ..stop_event("s1", Some(&[]))
    }
}

/// Decides `stop` and journals it as the hook does; returns the dispatch's channel, if any.
fn step(state: &mut RunState, journal: &mut Vec<JournalEntry>, stop: StopEvent) -> Option<Channel> {
    let outcome = decide_stop(state, &stop, NOW);
    if outcome.changed {
        journal.push(JournalEntry {
            at: NOW,
            event: Event::Stop(stop),
        });
    }
    match outcome.decision {
        Decision::Block(_) => Some(dispatch_channel(state).0),
        _ => None,
    }
}

fn dispatched(state: &RunState) -> Vec<String> {
    state
        .channels
        .iter()
        .find(|c| c.session == "s1")
        .map(|c| c.awaiting.clone())
        .unwrap_or_default()
}

#[test]
fn a_session_that_ignores_additional_context_gets_block_and_keeps_it_while_it_follows() {
    let mut state = run(DispatchAs::Auto);
    let mut journal = Vec::new();
    let first = step(&mut state, &mut journal, read_stop(&[], Some("2.1.330")));
    assert_eq!(first, Some(Channel::Context));
    assert_eq!(dispatch_channel(&state).1.as_deref(), Some("the default"));
    // Nothing of it launched: the next dispatch goes as a block, and says why.
    let second = step(&mut state, &mut journal, read_stop(&[], None));
    assert_eq!(second, Some(Channel::Block));
    let (_, why) = dispatch_channel(&state);
    assert_eq!(
        why.as_deref(),
        Some("an additionalContext dispatch was never launched")
    );
    // The block is followed: it stays a block.
    let launched = dispatched(&state);
    let launched: Vec<&str> = launched.iter().map(String::as_str).collect();
    let third = step(&mut state, &mut journal, read_stop(&launched, None));
    assert_eq!(third, Some(Channel::Block));
    assert_eq!(dispatch_channel(&state).1, None, "no new reason to give");
    let channel = &state.channels[0];
    assert_eq!(
        (
            channel.by_context,
            channel.by_block,
            channel.ignored,
            channel.switches
        ),
        (1, 2, 1, 1)
    );
    assert_eq!(channel.client.as_deref(), Some("2.1.330"));
    // A rebuild from the journal chooses the same.
    let mut rebuilt = run(DispatchAs::Auto);
    for entry in &journal {
        crate::apply(&mut rebuilt, entry);
    }
    assert_eq!(rebuilt.channels, state.channels);
}

#[test]
fn an_ignored_block_goes_back_to_additional_context() {
    let mut state = run(DispatchAs::Auto);
    let mut journal = Vec::new();
    step(&mut state, &mut journal, read_stop(&[], None));
    assert_eq!(
        step(&mut state, &mut journal, read_stop(&[], None)),
        Some(Channel::Block)
    );
    assert_eq!(
        step(&mut state, &mut journal, read_stop(&[], None)),
        Some(Channel::Context)
    );
    assert_eq!(state.channels[0].switches, 2);
}

#[test]
fn a_stop_that_could_not_read_the_launches_judges_nothing() {
    let mut state = run(DispatchAs::Auto);
    let mut journal = Vec::new();
    step(&mut state, &mut journal, read_stop(&[], None));
    let blind = StopEvent {
        launches_read: false,
        ..read_stop(&[], None)
    };
    assert_eq!(
        step(&mut state, &mut journal, blind),
        Some(Channel::Context)
    );
    assert_eq!(state.channels[0].ignored, 0);
}

#[test]
fn an_old_client_gets_block_from_the_first_dispatch_and_never_switches() {
    let mut state = run(DispatchAs::Auto);
    let mut journal = Vec::new();
    let first = step(&mut state, &mut journal, read_stop(&[], Some("2.1.120")));
    assert_eq!(first, Some(Channel::Block));
    assert_eq!(
        dispatch_channel(&state).1.as_deref(),
        Some("client 2.1.120 rejects Stop additionalContext")
    );
    assert_eq!(
        step(&mut state, &mut journal, read_stop(&[], None)),
        Some(Channel::Block)
    );
    assert!(rejects_context("2.1.162") && !rejects_context("2.1.163"));
    assert!(!rejects_context("2.2.0") && !rejects_context("garbage") && !rejects_context("2.1"));
}

#[test]
fn dispatch_as_overrides_the_adaptation() {
    for (fixed, channel) in [
        (DispatchAs::Context, Channel::Context),
        (DispatchAs::Block, Channel::Block),
    ] {
        let mut state = run(fixed);
        let mut journal = Vec::new();
        for _ in 0..3 {
            let stop = read_stop(&[], Some("2.1.100"));
            assert_eq!(step(&mut state, &mut journal, stop), Some(channel));
        }
        assert_eq!(state.channels[0].reason, ChannelReason::Config);
    }
}

/// A session that follows neither channel stalls within the client's continuation cap, and
/// the stall line goes by the channel it was last sent on; a stop that relays that line is no
/// new turn even when the client says `stop_hook_active: false`.
#[test]
fn a_session_that_ignores_both_stalls_under_the_cap_and_its_relay_is_no_new_turn() {
    let mut state = run(DispatchAs::Auto);
    state.config.stall_blocks = 20;
    let mut continuations = 0;
    let line = loop {
        let outcome = decide_stop(&mut state, &read_stop(&[], None), NOW);
        continuations += 1;
        match outcome.decision {
            Decision::Block(_) => {}
            Decision::Allow { message: Some(m) } => break m,
            other => panic!("{other:?}"),
        }
        assert!(continuations < 20, "never stalled");
    };
    assert_eq!(state.status, RunStatus::Stalled);
    assert!(
        continuations <= crate::CLIENT_CONTINUATION_CAP,
        "{continuations} continuations, the stall line's included"
    );
    assert!(line.contains("stalled"), "{line}");
    let relay = StopEvent {
        new_turn: true,
        last_message: Some(line.clone()),
        ..read_stop(&[], None)
    };
    let outcome = decide_stop(&mut state, &relay, NOW);
    assert_eq!(outcome.decision, Decision::Allow { message: None });
    assert_eq!(state.status, RunStatus::Stalled);
    let carry_on = StopEvent {
        new_turn: true,
        last_message: Some("ok".into()),
        ..read_stop(&[], None)
    };
    assert!(matches!(
        decide_stop(&mut state, &carry_on, NOW).decision,
        Decision::Block(_)
    ));
}

/// A fork (no `subagent_type`) is never the item's agent: the item goes back uncharged and its
/// next dispatch insists on the entry as given.
#[test]
fn a_fork_launch_is_not_the_items_agent() {
    let mut state = run(DispatchAs::Auto);
    let mut journal = Vec::new();
    step(&mut state, &mut journal, read_stop(&[], None));
    let sent = dispatched(&state);
    let mut stop = read_stop(&[], None);
    stop.launched = sent
        .iter()
        .map(|item| AgentLaunch {
            item: item.clone(),
            model: Some("haiku".into()),
            fork: true,
            ..AgentLaunch::default()
        })
        .collect();
    let outcome = decide_stop(&mut state, &stop, NOW);
    let Decision::Block(dispatch) = outcome.decision else {
        panic!("expected a dispatch");
    };
    for id in &sent {
        let item = state.item(id).unwrap();
        assert_eq!(item.attempts, 0, "{id} charged");
        assert!(!item.seen_running);
    }
    assert!(
        dispatch.summary.contains(&format!(
            "{} MUST keep \"subagent_type\": \"self-repair:triage-investigator\"",
            sent[0]
        )),
        "{}",
        dispatch.summary
    );
    assert_eq!(
        state.channels[0].ignored, 0,
        "a fork still follows the channel"
    );
}

/// A dispatch is followed when any one sign shows it: one of its items in the stop's
/// `background_tasks` with no launch read (the transcript's launch line not yet written), or
/// one answered without a launch the transcript shows (a harness that submits directly).
/// Either keeps the channel; a dispatch with neither switches it.
#[test]
fn a_dispatch_running_or_answered_without_a_launch_read_was_followed() {
    // Running, nothing launched read, not yet shown: followed.
    let mut state = run(DispatchAs::Auto);
    let mut journal = Vec::new();
    step(&mut state, &mut journal, read_stop(&[], None));
    let awaiting = dispatched(&state);
    assert!(!awaiting.is_empty());
    let running = StopEvent {
        running: Some(vec![awaiting[0].clone()]),
        ..read_stop(&[], None)
    };
    step(&mut state, &mut journal, running);
    assert_eq!(
        (state.channels[0].channel, state.channels[0].ignored),
        (Channel::Context, 0)
    );

    // Answered, nothing launched read or running: followed.
    let mut state = run(DispatchAs::Auto);
    let mut journal = Vec::new();
    step(&mut state, &mut journal, read_stop(&[], None));
    let awaiting = dispatched(&state);
    crate::test_support::submit(
        &mut state,
        &awaiting[0],
        serde_json::json!({"verdict": "real", "root_cause": "unused import",
            "reason": "nothing reads the name", "confidence": 0.9}),
    );
    step(&mut state, &mut journal, read_stop(&[], None));
    assert_eq!(
        (state.channels[0].channel, state.channels[0].ignored),
        (Channel::Context, 0)
    );
}
