//! `check_state`: a `state.json` that parses but contradicts itself is refused, each way it can,
//! and each bound holds at its edge (the largest value it allows passes, one more does not).

use self_repair_engine::{
    Config, Group, Intake, ItemKind, PlanDepth, RoutedFinding, RunState, Tier, WorkItem, create_run,
};

use crate::state_check::check_state;

/// A run of 40 findings in batches of 8 (40 triage items, then 5 batches) and one group.
fn state() -> RunState {
    let routed: Vec<RoutedFinding> = (0..40)
        .map(|i| RoutedFinding {
            finding: i,
            route: "generic".into(),
            tier: Tier::Haiku,
            rule: "ruff F401".into(),
            path: format!("src/m{}.py", i % 5),
            safe_fix: false,
            security: false,
            severe: false,
        })
        .collect();
    let intake = Intake {
        findings: 40,
        unique: 40,
        routed: 40,
        ..Intake::default()
    };
    let config = Config {
        survey_min: 0,
        ..Config::default()
    };
    let mut state = create_run("r-check".into(), 1, config, intake, None, &routed);
    state.groups.push(Group {
        id: "g1".into(),
        label: "unused imports".into(),
        root_cause: "leftovers".into(),
        members: vec!["t-00001".into()],
        planned: true,
        depth: PlanDepth::default(),
    });
    state
}

/// The first item after the triage items (a batch).
fn first_batch(state: &mut RunState) -> &mut WorkItem {
    let at = state.triage_items as usize;
    &mut state.items[at]
}

/// Sets one number of a state.
type SetNumber = fn(&mut RunState, u64);
/// Sets one count of an item.
type SetCount = fn(&mut WorkItem);

fn refused(state: &RunState, words: &str) {
    match check_state(state) {
        Err(reason) => assert!(reason.contains(words), "{reason:?} lacks {words:?}"),
        Ok(()) => panic!("accepted a state that should say {words:?}"),
    }
}

#[test]
fn a_state_as_created_is_accepted() {
    let state = state();
    assert_eq!(state.triage_items, 40);
    assert_eq!(state.items.len(), 45);
    assert!(
        state.items[40..]
            .iter()
            .all(|i| i.kind == ItemKind::TriageBatch)
    );
    assert_eq!(check_state(&state), Ok(()));
}

#[test]
fn a_frozen_config_out_of_range_is_refused() {
    let mut state = state();
    state.config.fan_out = 0;
    refused(&state, "its frozen");
}

#[test]
fn a_triage_count_that_disagrees_with_the_items_is_refused() {
    let mut state = state();
    state.triage_items = 39;
    refused(
        &state,
        "`triage_items` is 39 but the file holds 40 triage items",
    );
    let mut state = self::state();
    state.triage_items = 41;
    refused(
        &state,
        "`triage_items` is 41 but the file holds 40 triage items",
    );
}

#[test]
fn a_triage_item_after_the_batches_is_refused() {
    let mut state = state();
    let last = state.items.remove(39);
    state.items.push(last);
    state.triage_items = 39;
    refused(
        &state,
        "triage item t-00040 comes after other kinds of items",
    );
}

#[test]
fn numbers_up_to_2_pow_53_minus_1_pass_and_past_it_are_refused() {
    let largest = (1u64 << 53) - 1;
    let mut state = state();
    state.created_at = largest;
    state.journal_offset = largest;
    state.last_block_progress = Some(largest);
    first_batch(&mut state).lease = Some(largest);
    first_batch(&mut state).batch = largest;
    assert_eq!(check_state(&state), Ok(()));

    let past = largest + 1;
    let fields: [(&str, SetNumber); 7] = [
        ("created_at", |s, n| s.created_at = n),
        ("progress", |s, n| s.progress = n),
        ("blocks", |s, n| s.blocks = n),
        ("last_block_progress", |s, n| {
            s.last_block_progress = Some(n);
        }),
        ("stalled_at", |s, n| s.stalled_at = Some(n)),
        ("journal_offset", |s, n| s.journal_offset = n),
        ("an item's lease", |s, n| first_batch(s).lease = Some(n)),
    ];
    for (name, set) in fields {
        let mut state = self::state();
        set(&mut state, past);
        refused(&state, &format!("`{name}` is {past}, past any real value"));
    }
    let mut state = self::state();
    first_batch(&mut state).batch = past;
    refused(&state, "tb-00001: `an item's batch` is 9007199254740992");
}

#[test]
fn per_item_counts_up_to_a_million_pass_and_past_it_are_refused() {
    let mut state = state();
    let item = first_batch(&mut state);
    (item.attempts, item.dispatches, item.reroutes) = (1_000_000, 1_000_000, 1_000_000);
    assert_eq!(check_state(&state), Ok(()));
    let fields: [(&str, SetCount); 3] = [
        ("attempts", |i| i.attempts = 1_000_001),
        ("dispatches", |i| i.dispatches = 1_000_001),
        ("reroutes", |i| i.reroutes = 1_000_001),
    ];
    for (name, set) in fields {
        let mut state = self::state();
        set(first_batch(&mut state));
        refused(&state, &format!("tb-00001 has 1000001 {name}"));
    }
}

#[test]
fn a_triage_item_pointing_past_the_unique_findings_is_refused() {
    let mut state = state();
    state.items[0].finding = Some(39);
    assert_eq!(check_state(&state), Ok(()));
    state.items[0].finding = Some(40);
    refused(
        &state,
        "t-00001 points at finding 40, past the 40 unique findings",
    );
}

#[test]
fn an_item_of_a_group_that_does_not_exist_is_refused() {
    let mut state = state();
    first_batch(&mut state).group = Some(1);
    assert_eq!(check_state(&state), Ok(()), "g1 is the one group");
    first_batch(&mut state).group = Some(2);
    refused(
        &state,
        "tb-00001 belongs to group g2, but there are 1 groups",
    );
    first_batch(&mut state).group = Some(0);
    refused(
        &state,
        "tb-00001 belongs to group g0, but there are 1 groups",
    );
}

#[test]
fn an_item_whose_id_is_of_another_kind_is_refused() {
    let mut state = state();
    first_batch(&mut state).kind = ItemKind::Plan;
    refused(&state, "item tb-00001 is not a plan item");
}

#[test]
fn an_item_listed_twice_is_refused() {
    let mut copied = state();
    let copy = first_batch(&mut copied).clone();
    copied.items.push(copy);
    refused(&copied, "item tb-00001 is listed twice");
    // A batch id the run would not write is checked as an id; so is any other item's.
    for (id, kind) in [
        ("tb-1", ItemKind::TriageBatch),
        ("tb-000001", ItemKind::TriageBatch),
        ("agg-1", ItemKind::Aggregate),
    ] {
        let mut twice = state();
        let mut item = first_batch(&mut twice).clone();
        item.id = id.into();
        item.kind = kind;
        twice.items.push(item.clone());
        twice.items.push(item);
        refused(&twice, &format!("item {id} is listed twice"));
    }
    // Ids that share a number but not their text are two items.
    let mut alike = state();
    let mut item = first_batch(&mut alike).clone();
    item.id = "tb-1".into();
    alike.items.push(item);
    assert!(check_state(&alike).is_ok());
}
