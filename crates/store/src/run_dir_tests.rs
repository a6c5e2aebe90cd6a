//! A run folder outside the commit protocol: its paths, `run.json`, what `create` writes, a
//! `state.json` that does not parse or contradicts itself kept aside, abandoned temporary files,
//! item input files, and the two JSON writers.

use std::path::Path;
use std::time::Duration;

use self_repair_engine::{
    Config, Intake, ItemInput, ItemKind, RoutedFinding, RunState, STATE_SCHEMA_VERSION, Tier,
    create_run, item_input,
};

use crate::{RunDir, RunKind, StoreError, write_json, write_json_rows};

/// A run of 40 findings in `folder/r-dir`, created with the default config: the 6 of one rule
/// are surveyed (`rs-00001`), the others, of rules too small to survey, batched (`tb-…`).
fn created(folder: &Path) -> (RunDir, RunState) {
    let dir = RunDir::at(folder.join("r-dir"));
    std::fs::create_dir_all(dir.items_dir()).unwrap();
    let routed: Vec<RoutedFinding> = (0..40)
        .map(|i| RoutedFinding {
            finding: i,
            route: "generic".into(),
            tier: Tier::Haiku,
            rule: if i < 6 {
                "ruff F401".into()
            } else {
                format!("ruff E{}", i % 9)
            },
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
    let state = create_run("r-dir".into(), 7, Config::default(), intake, None, &routed);
    dir.create(&state).unwrap();
    (dir, state)
}

fn first_of(state: &RunState, kind: ItemKind) -> String {
    state
        .items
        .iter()
        .find(|i| i.kind == kind)
        .unwrap_or_else(|| panic!("no {kind:?} item"))
        .id
        .to_string()
}

#[test]
fn a_run_folder_names_its_files_and_its_id() {
    let folder = tempfile::tempdir().unwrap();
    let root = folder.path().join("r-20261207-1");
    let dir = RunDir::at(root.clone());
    assert_eq!(dir.path(), root);
    assert_eq!(dir.id(), "r-20261207-1");
    assert_eq!(dir.state_path(), root.join("state.json"));
    assert_eq!(dir.head_path(), root.join("state.head.json"));
    assert_eq!(dir.initial_path(), root.join("state.initial.json"));
    assert_eq!(dir.findings_path(), root.join("findings.json"));
    assert_eq!(dir.manifest_path(), root.join("run.json"));
    assert_eq!(dir.items_dir(), root.join("items"));
    assert_eq!(
        dir.item_file("t-00001", "md"),
        Some(root.join("items").join("t-00001.md"))
    );
    assert_eq!(dir.item_file("../escape", "md"), None);
}

#[test]
fn a_folder_holds_a_run_with_either_its_state_or_its_manifest() {
    let folder = tempfile::tempdir().unwrap();
    let dir = RunDir::at(folder.path().to_path_buf());
    assert!(!dir.exists(), "an empty folder");
    std::fs::write(dir.manifest_path(), "{}").unwrap();
    assert!(dir.exists(), "run.json alone");
    std::fs::remove_file(dir.manifest_path()).unwrap();
    std::fs::write(dir.state_path(), "{}").unwrap();
    assert!(dir.exists(), "state.json alone");
}

#[test]
fn create_writes_the_manifest_states_head_lock_and_journal_path() {
    let folder = tempfile::tempdir().unwrap();
    let (dir, state) = created(folder.path());
    let manifest = dir.manifest().unwrap();
    assert_eq!(manifest.schema_version, STATE_SCHEMA_VERSION);
    assert_eq!(manifest.run, "r-dir");
    assert_eq!(manifest.created_at, 7);
    assert_eq!(manifest.kind, RunKind::Triage);
    assert_eq!(manifest.triage_items, 40);
    assert!(dir.path().join("lock").is_file());
    assert_eq!(
        std::fs::read(dir.state_path()).unwrap(),
        std::fs::read(dir.initial_path()).unwrap()
    );
    assert_eq!(dir.load_state().unwrap().items, state.items);
    assert!(dir.load_head().is_some());
    assert_eq!(dir.journal().byte_len().unwrap(), 0);
    drop(dir.lock().unwrap());
}

#[test]
fn a_manifest_that_does_not_parse_is_corrupt() {
    let folder = tempfile::tempdir().unwrap();
    let (dir, _state) = created(folder.path());
    std::fs::write(dir.manifest_path(), "{\"run\":").unwrap();
    match dir.manifest() {
        Err(StoreError::CorruptState { path, kept, .. }) => {
            assert_eq!((path.clone(), kept), (dir.manifest_path(), path));
        }
        other => panic!("expected a corrupt manifest, got {other:?}"),
    }
}

#[test]
fn a_state_that_does_not_parse_is_kept_aside_as_it_was() {
    let folder = tempfile::tempdir().unwrap();
    let (dir, _state) = created(folder.path());
    let torn = b"{\"schema_version\": 2, \"run\": ";
    std::fs::write(dir.state_path(), torn).unwrap();
    match dir.load_state() {
        Err(StoreError::CorruptState { path, kept, .. }) => {
            assert_eq!(path, dir.state_path());
            assert_eq!(kept, dir.path().join("state.json.corrupt"));
            assert_eq!(std::fs::read(kept).unwrap(), torn);
        }
        other => panic!("expected a corrupt state, got {other:?}"),
    }
}

#[test]
fn a_state_that_parses_but_contradicts_itself_is_kept_aside_with_why() {
    let folder = tempfile::tempdir().unwrap();
    let (dir, state) = created(folder.path());
    let mut value = serde_json::to_value(&state).unwrap();
    value["triage_items"] = 39.into();
    let text = value.to_string();
    std::fs::write(dir.state_path(), &text).unwrap();
    match dir.load_state() {
        Err(StoreError::CorruptState { reason, kept, .. }) => {
            assert!(reason.contains("`triage_items` is 39"), "{reason}");
            assert_eq!(std::fs::read_to_string(kept).unwrap(), text);
        }
        other => panic!("expected a corrupt state, got {other:?}"),
    }
    // The initial state is checked the same way, and never copied aside.
    std::fs::write(dir.initial_path(), &text).unwrap();
    std::fs::remove_file(dir.path().join("state.json.corrupt")).unwrap();
    match dir.rebuild() {
        Err(StoreError::InitialStateUnusable { reason, .. }) => {
            assert!(reason.contains("`triage_items` is 39"), "{reason}");
        }
        other => panic!("expected an unusable initial state, got {other:?}"),
    }
    assert!(!dir.path().join("state.json.corrupt").exists());
}

#[test]
fn an_initial_state_of_an_unknown_layout_is_unusable() {
    let folder = tempfile::tempdir().unwrap();
    let (dir, state) = created(folder.path());
    let mut value = serde_json::to_value(&state).unwrap();
    value["schema_version"] = (STATE_SCHEMA_VERSION + 1).into();
    std::fs::write(dir.initial_path(), value.to_string()).unwrap();
    match dir.load_initial_as::<RunState>() {
        Err(StoreError::InitialStateUnusable { reason, .. }) => {
            assert!(reason.contains("schema_version"), "{reason}");
        }
        other => panic!("expected an unusable initial state, got {other:?}"),
    }
}

#[test]
fn abandoned_temporary_files_go_and_others_stay() {
    let folder = tempfile::tempdir().unwrap();
    let (dir, _state) = created(folder.path());
    let state_temp = dir.path().join(".tmp-state.json-abc");
    let head_temp = dir.path().join(".tmp-state.head.json-abc");
    let other_temp = dir.path().join(".tmp-run.json-abc");
    let item_temp = dir.items_dir().join(".tmp-t-00001.md-abc");
    // A name a state's temporary would have, in `items/`: only `doctor`'s age rule takes it.
    let item_state_temp = dir.items_dir().join(".tmp-state.json-abc");
    let plain = dir.path().join("notes.txt");
    for path in [
        &state_temp,
        &head_temp,
        &other_temp,
        &item_temp,
        &item_state_temp,
        &plain,
    ] {
        std::fs::write(path, b"x").unwrap();
    }

    let mut removed = dir.remove_abandoned_temps(None);
    removed.sort();
    assert_eq!(removed, [head_temp.clone(), state_temp.clone()]);
    assert!(other_temp.exists() && item_temp.exists() && item_state_temp.exists());

    // Fresh files are younger than an hour: `doctor` leaves them.
    assert_eq!(
        dir.remove_abandoned_temps(Some(Duration::from_hours(1))),
        Vec::<std::path::PathBuf>::new()
    );
    let mut removed = dir.remove_abandoned_temps(Some(Duration::ZERO));
    removed.sort();
    let mut expected = vec![other_temp, item_temp, item_state_temp];
    expected.sort();
    assert_eq!(removed, expected);
    assert!(plain.exists());
}

#[test]
fn create_writes_the_inputs_of_items_other_than_triage_and_batches() {
    let folder = tempfile::tempdir().unwrap();
    let (dir, state) = created(folder.path());
    let survey = first_of(&state, ItemKind::RuleSurvey);
    let batch = first_of(&state, ItemKind::TriageBatch);
    assert!(dir.item_file(&survey, "input.json").unwrap().is_file());
    assert!(!dir.item_file(&batch, "input.json").unwrap().exists());
    assert!(!dir.item_file("t-00001", "input.json").unwrap().exists());
}

#[test]
fn ensure_input_writes_a_batch_input_once_and_never_a_triage_items() {
    let folder = tempfile::tempdir().unwrap();
    let (dir, state) = created(folder.path());
    let batch = first_of(&state, ItemKind::TriageBatch);
    let path = dir.item_file(&batch, "input.json").unwrap();
    dir.ensure_input(&state, &batch).unwrap();
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert!(written.is_object(), "{written}");

    std::fs::write(&path, b"kept").unwrap();
    dir.ensure_input(&state, &batch).unwrap();
    assert_eq!(
        std::fs::read(&path).unwrap(),
        b"kept",
        "an input is never rewritten"
    );

    dir.ensure_input(&state, "t-00001").unwrap();
    assert!(!dir.item_file("t-00001", "input.json").unwrap().exists());
    dir.ensure_input(&state, "tb-99999").unwrap();
    assert!(!dir.item_file("tb-99999", "input.json").unwrap().exists());
}

#[test]
fn rewrite_inputs_writes_every_input_and_those_of_dispatched_batches_only() {
    let folder = tempfile::tempdir().unwrap();
    let (dir, mut state) = created(folder.path());
    let survey = first_of(&state, ItemKind::RuleSurvey);
    std::fs::remove_file(dir.item_file(&survey, "input.json").unwrap()).unwrap();
    let batches: Vec<usize> = (0..state.items.len())
        .filter(|&i| state.items[i].kind == ItemKind::TriageBatch)
        .collect();
    assert!(batches.len() >= 3, "{batches:?}");
    state.items[batches[0]].dispatches = 1;
    state.items[batches[1]].dispatches = 2;
    dir.rewrite_inputs(&state).unwrap();
    let has_input = |i: usize| {
        dir.item_file(&state.items[i].id, "input.json")
            .unwrap()
            .is_file()
    };
    assert!(dir.item_file(&survey, "input.json").unwrap().is_file());
    assert!(has_input(batches[0]) && has_input(batches[1]));
    assert!(
        batches[2..].iter().all(|&i| !has_input(i)),
        "a batch never dispatched has no input yet"
    );
}

#[test]
fn the_inputs_one_stop_dispatches_are_one_file_that_lists_them() {
    let folder = tempfile::tempdir().unwrap();
    let (dir, state) = created(folder.path());
    let batches: Vec<String> = state
        .items
        .iter()
        .filter(|i| i.kind == ItemKind::TriageBatch)
        .map(|i| i.id.to_string())
        .collect();
    assert!(batches.len() >= 3, "{batches:?}");
    let survey = first_of(&state, ItemKind::RuleSurvey);
    let input = |id: &str| dir.item_file(id, "input.json").unwrap();
    let survey_input = std::fs::read_to_string(input(&survey)).unwrap();
    // A triage item has no input file; the survey's, written at start, is left as it is.
    let ids = [
        batches[0].as_str(),
        batches[1].as_str(),
        "t-00001",
        survey.as_str(),
    ];
    dir.ensure_inputs(&state, ids).unwrap();
    assert!(!input("t-00001").exists());
    assert_eq!(
        std::fs::read_to_string(input(&survey)).unwrap(),
        survey_input
    );
    let listed: Vec<ItemInput> =
        serde_json::from_str(&std::fs::read_to_string(input(&batches[0])).unwrap()).unwrap();
    let want: Vec<ItemInput> = batches[..2]
        .iter()
        .map(|id| item_input(&state, state.item(id).unwrap()))
        .collect();
    assert_eq!(listed, want);
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let ino = |id: &str| std::fs::metadata(input(id)).unwrap().ino();
        assert_eq!(ino(&batches[0]), ino(&batches[1]), "one file, two names");
    }
    // One input missing alone is written on its own, as before.
    dir.ensure_inputs(&state, [batches[2].as_str(), batches[0].as_str()])
        .unwrap();
    let alone: ItemInput =
        serde_json::from_str(&std::fs::read_to_string(input(&batches[2])).unwrap()).unwrap();
    assert_eq!(alone, item_input(&state, state.item(&batches[2]).unwrap()));
}

#[test]
fn write_json_is_pretty_and_write_json_rows_puts_one_element_a_line() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("a.json");
    write_json(&path, &serde_json::json!({"a": [1]})).unwrap();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "{\n  \"a\": [\n    1\n  ]\n}\n"
    );
    let rows = folder.path().join("findings.json");
    write_json_rows(&rows, &serde_json::json!([{"a": [1]}, {"b": 2}])).unwrap();
    assert_eq!(
        std::fs::read_to_string(&rows).unwrap(),
        "[\n  {\"a\":[1]},\n  {\"b\":2}\n]\n"
    );
    // A list of plain values closes on its own line too.
    write_json_rows(&rows, &[1, 2]).unwrap();
    assert_eq!(std::fs::read_to_string(&rows).unwrap(), "[\n  1,\n  2\n]\n");
}
