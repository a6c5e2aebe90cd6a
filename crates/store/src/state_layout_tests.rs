//! `state.json` layouts: a run started by a self-repair of layout 1 (every triage batch an
//! object of `items.work`) resumes under layout 2 (the batches as columns), and a layout this
//! self-repair does not know is refused, not misread.

use serde_json::Value;

use self_repair_engine::{
    Config, Event, Intake, ItemKind, ItemStatus, JournalEntry, RoutedFinding, RunState,
    STATE_SCHEMA_VERSION, Tier, create_run,
};

use crate::{RunDir, StoreError};

/// A run of 40 findings of two rules in batches of 8, created in a temp folder.
fn created() -> (tempfile::TempDir, RunDir, RunState) {
    let folder = tempfile::tempdir().unwrap();
    let dir = RunDir::at(folder.path().to_path_buf());
    let routed: Vec<RoutedFinding> = (0..40)
        .map(|i| RoutedFinding {
            finding: i,
            route: "generic".into(),
            tier: Tier::Haiku,
            rule: if i % 2 == 0 { "ruff F401" } else { "ruff E501" }.into(),
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
    let state = create_run(
        "r-layout".into(),
        1,
        config,
        intake,
        Some("s1".into()),
        &routed,
    );
    dir.create(&state).unwrap();
    (folder, dir, state)
}

/// `state` as a self-repair of layout 1 wrote it: every item after the triage ones an object.
fn layout_1(state: &RunState) -> String {
    let mut value = serde_json::to_value(state).unwrap();
    value["schema_version"] = 1.into();
    let items = value["items"].as_object_mut().unwrap();
    assert!(
        items.remove("batches").is_some(),
        "layout 2 writes batches as columns"
    );
    items["work"] = serde_json::to_value(&state.items[state.triage_items as usize..]).unwrap();
    serde_json::to_string_pretty(&value).unwrap()
}

#[test]
fn a_run_of_layout_1_loads_the_same_and_is_saved_in_layout_2() {
    let (_f, dir, mut state) = created();
    let first = state.triage_items as usize;
    assert!(
        state.items[first..]
            .iter()
            .all(|i| i.kind == ItemKind::TriageBatch)
    );
    state.items[first].status = ItemStatus::Dispatched;
    state.items[first].lease = Some(5);
    let old = layout_1(&state);
    std::fs::write(dir.state_path(), &old).unwrap();
    std::fs::write(dir.initial_path(), &old).unwrap();
    let loaded = dir.load_state().unwrap();
    assert_eq!(loaded.items, state.items);
    assert_eq!(loaded.schema_version, STATE_SCHEMA_VERSION);
    dir.save_state(&loaded, loaded.items.len()).unwrap();
    let text = std::fs::read_to_string(dir.state_path()).unwrap();
    let saved: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(saved["schema_version"], 2);
    assert_eq!(saved["items"]["batches"]["count"], 5);
    assert_eq!(saved["items"]["work"], Value::Array(Vec::new()));
    assert_eq!(dir.load_state().unwrap().items, state.items);
    // `doctor`'s rebuild replays the journal over the initial state of layout 1.
    dir.journal()
        .append(&[JournalEntry {
            at: 2,
            event: Event::Pause,
        }])
        .unwrap();
    let (rebuilt, report) = dir.rebuild().unwrap();
    assert_eq!(report.applied, 1);
    assert_eq!(rebuilt.items, state.items);
    assert_eq!(rebuilt.schema_version, STATE_SCHEMA_VERSION);
}

#[test]
fn a_layout_this_self_repair_does_not_know_is_refused_not_misread() {
    let (_f, dir, state) = created();
    let mut value = serde_json::to_value(&state).unwrap();
    value["schema_version"] = (STATE_SCHEMA_VERSION + 1).into();
    std::fs::write(dir.state_path(), value.to_string()).unwrap();
    match dir.load_state() {
        Err(StoreError::SchemaVersion {
            found, expected, ..
        }) => {
            assert_eq!(
                (found, expected),
                (STATE_SCHEMA_VERSION + 1, STATE_SCHEMA_VERSION)
            );
        }
        other => panic!("expected a schema version error, got {other:?}"),
    }
    value["schema_version"] = 0.into();
    std::fs::write(dir.state_path(), value.to_string()).unwrap();
    assert!(matches!(
        dir.load_state(),
        Err(StoreError::SchemaVersion { found: 0, .. })
    ));
}

#[test]
fn a_state_written_with_batch_columns_reads_back_whole() {
    let (_f, dir, state) = created();
    let text = std::fs::read_to_string(dir.state_path()).unwrap();
    let saved: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(saved["items"]["batches"]["order"], "bbbbb");
    assert_eq!(dir.load_state().unwrap().items, state.items);
    assert_eq!(
        dir.load_initial_as::<RunState>().unwrap().items,
        state.items
    );
}

/// One thread reads and writes the states of two runs in turn, one far longer than the other:
/// the buffer a read or write leaves for the next holds nothing of the other run's bytes.
#[test]
fn states_of_two_runs_read_and_written_in_turn_hold_only_their_own_bytes() {
    let (_f, small, small_state) = created();
    let (_g, large, mut large_state) = created();
    large_state.run = "r-layout-large".into();
    large_state.config.test_paths = (0..100)
        .map(|i| format!("{i}{}", "x".repeat(2_000)))
        .collect();
    large
        .save_state(&large_state, large_state.items.len())
        .unwrap();
    let large_bytes = std::fs::read(large.state_path()).unwrap();
    let small_bytes = std::fs::read(small.state_path()).unwrap();
    assert!(large_bytes.len() > 20 * small_bytes.len());
    for _ in 0..2 {
        let loaded = large.load_state().unwrap();
        assert_eq!(loaded.items, large_state.items);
        let loaded = small.load_state().unwrap();
        assert_eq!(loaded.items, small_state.items);
        small.save_state(&loaded, loaded.items.len()).unwrap();
        assert_eq!(std::fs::read(small.state_path()).unwrap(), small_bytes);
        let loaded = large.load_state().unwrap();
        large.save_state(&loaded, loaded.items.len()).unwrap();
        assert_eq!(std::fs::read(large.state_path()).unwrap(), large_bytes);
    }
}
