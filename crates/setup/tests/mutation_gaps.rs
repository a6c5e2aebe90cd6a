//! Cases the crate's mutation run found untested (reference/mutants.md): a test entry of
//! another shape under `--force`, a list of several objects, a single test command, a setup
//! with a detector and no test command, and the detector's command line.
#![cfg(test)]

use std::path::Path;

use self_repair_setup::{
    ConfigChange, ProjectSetup, ProposedDetector, config_text, merge_into_config,
};
use serde_json::json;

fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap_or(Path::new("."))).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

#[test]
fn a_test_entry_that_is_not_an_object_is_replaced_only_with_force() {
    let dir = project(&[("Cargo.toml", "[package]\nname = \"x\"\n")]);
    let setup = ProjectSetup::detect(dir.path());
    let existing = json!({"detectors": [], "checks": {"test": "make test"}});
    let cases = [
        (
            false,
            json!("make test"),
            ConfigChange::Kept("checks.test".to_owned()),
        ),
        (
            true,
            json!({"command": ["cargo", "test"]}),
            ConfigChange::Replaced("checks.test".to_owned()),
        ),
    ];
    for (force, test, change) in cases {
        let merged = merge_into_config(Some(existing.clone()), &setup, force).unwrap();
        assert_eq!(merged.config["checks"]["test"], test, "force {force}");
        assert_eq!(merged.changes.last(), Some(&change), "force {force}");
    }
}

#[test]
fn a_setup_with_nothing_proposed_leaves_the_config_as_it_was() {
    let existing = json!({"fan_out": 4});
    let merged = merge_into_config(Some(existing.clone()), &ProjectSetup::default(), true).unwrap();
    assert_eq!(merged.config, existing);
    assert_eq!(merged.changes, []);
    assert!(!merged.changed());
}

#[test]
fn a_list_of_several_objects_gets_a_comma_after_each_but_the_last() {
    let value = json!({"detectors": [{"name": "a"}, {"name": "b"}, {"name": "c"}]});
    assert_eq!(
        config_text(&value),
        "{\n  \"detectors\": [\n    {\n      \"name\": \"a\"\n    },\n    {\n      \"name\": \"b\"\n    },\n    {\n      \"name\": \"c\"\n    }\n  ]\n}\n"
    );
}

#[test]
fn one_test_command_gets_no_note_about_several() {
    let dir = project(&[("Cargo.toml", "[package]\nname = \"x\"\n")]);
    let setup = ProjectSetup::detect(dir.path());
    assert_eq!(setup.tests.len(), 1);
    assert!(
        !setup
            .notes
            .iter()
            .any(|n| n.contains("test commands found")),
        "{:?}",
        setup.notes
    );
}

#[test]
fn a_detector_without_a_test_command_is_not_an_empty_setup() {
    let dir = project(&[("ruff.toml", "line-length = 100\n")]);
    let setup = ProjectSetup::detect(dir.path());
    assert_eq!((setup.detectors.len(), setup.tests.len()), (1, 0));
    assert!(!setup.is_empty());
}

#[test]
fn the_command_line_names_the_folder_a_detector_runs_in() {
    let detector = |cwd: Option<&str>| ProposedDetector {
        name: "ruff".to_owned(),
        argv: vec!["ruff".to_owned(), "check".to_owned()],
        cwd: cwd.map(str::to_owned),
        ok_exit_codes: vec![0, 1],
        format: "ruff".to_owned(),
        reason: String::new(),
        exit_codes_meaning: String::new(),
    };
    assert_eq!(detector(None).command_line(), "ruff check");
    assert_eq!(detector(Some("py")).command_line(), "ruff check (in py/)");
}

#[test]
fn every_proposed_tool_has_its_own_install_command() {
    let cases = [
        ("ruff", Some("pip install ruff")),
        ("pytest", Some("pip install pytest")),
        ("vulture", Some("pip install vulture")),
        ("bandit", Some("pip install bandit")),
        ("npx", Some("Node.js")),
        ("npm", Some("Node.js")),
        ("node", Some("Node.js")),
        ("cargo", Some("rustup")),
        ("/usr/bin/cargo-clippy", Some("rustup")),
        ("eslint", None),
        ("/", None),
    ];
    for (program, hint) in cases {
        let got = self_repair_setup::install_hint(program);
        match hint {
            Some(words) => assert!(got.is_some_and(|h| h.contains(words)), "{program}: {got:?}"),
            None => assert_eq!(got, None, "{program}"),
        }
    }
}
