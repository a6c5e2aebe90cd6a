//! Install refuses what it must not touch, and leaves the files as they were.

use std::path::PathBuf;

use self_repair_install::{InstallError, InstallSpec, Scope, plan_install};

use crate::harness::{BUSY, Project, TEST_BUNDLE, regex_escape};

#[test]
fn corrupt_settings_is_refused_with_file_and_position_and_left_untouched() {
    let corrupt = "{\n  \"model\": \"opus\",\n  \"hooks\": {\n}\n";
    let project = Project::with_settings(corrupt);
    let err = project.plan().unwrap_err();
    assert!(
        matches!(err, InstallError::InvalidSettings { line: 5, .. }),
        "{err:?}"
    );
    let root = regex_escape(&project.root().display().to_string());
    insta::with_settings!({filters => vec![(root.as_str(), "[PROJECT]")]}, {
        insta::assert_snapshot!(err.to_string());
    });
    assert_eq!(project.settings(), corrupt);
    assert_eq!(project.tree(), [".claude/", ".claude/settings.json"]);
}

#[test]
fn settings_that_are_not_an_object_are_refused() {
    let project = Project::with_settings("[1, 2]\n");
    let err = project.plan().unwrap_err();
    assert!(err.to_string().contains("should be an object"), "{err}");
}

#[test]
fn relative_binary_is_refused() {
    let project = Project::new();
    let spec = InstallSpec {
        binary: PathBuf::from("target/debug/self-repair"),
        scope: Scope::Project,
        binary_on_path: true,
    };
    let err = plan_install(&project.install_root(), &spec, TEST_BUNDLE).unwrap_err();
    assert!(matches!(err, InstallError::BinaryPath { .. }), "{err:?}");
}

#[test]
fn foreign_file_where_an_agent_goes_is_refused() {
    let project = Project::with_settings(BUSY);
    project.write(".claude/agents/triage-investigator.md", "my own agent\n");
    let err = project.plan().unwrap_err();
    assert!(
        matches!(err, InstallError::BundleConflict { .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("Move it aside"));
    assert_eq!(project.settings(), BUSY);
}

#[test]
fn file_changed_between_plan_and_apply_is_not_overwritten() {
    let project = Project::with_settings(BUSY);
    let plan = project.plan().unwrap();
    project.write(".claude/settings.json", "{\"edited\": true}\n");
    let err = plan.apply().unwrap_err();
    assert!(
        matches!(err, InstallError::ChangedSincePlan { .. }),
        "{err:?}"
    );
    assert_eq!(project.settings(), "{\"edited\": true}\n");
    assert!(!project.path(".claude/agents").exists());
}

#[test]
fn corrupt_manifest_is_refused() {
    let project = Project::new();
    project.write(".self-repair/install.json", "{\"schema_version\": 1}");
    let err = project.plan().unwrap_err();
    assert!(
        matches!(err, InstallError::InvalidManifest { .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("Delete it"));
}
