//! `install --project` writes no path of this machine into a file a team commits: `self-repair`
//! from PATH in `.claude/settings.json`, or the absolute path in `.claude/settings.local.json`;
//! installs of the old shape (the absolute path in `.claude/settings.json`) move and uninstall.

use std::path::PathBuf;

use self_repair_install::{InstallSpec, Scope, plan_install, plan_uninstall};
use serde_json::Value;

use crate::harness::{BUSY, FAKE_BIN, Project, TEST_BUNDLE, our_entries};

const LOCAL: &str = ".claude/settings.local.json";

fn project_spec(binary_on_path: bool) -> InstallSpec {
    InstallSpec {
        binary: PathBuf::from(FAKE_BIN),
        scope: Scope::Project,
        binary_on_path,
    }
}

fn install(project: &Project, binary_on_path: bool) -> Vec<String> {
    let plan = plan_install(
        &project.install_root(),
        &project_spec(binary_on_path),
        TEST_BUNDLE,
    )
    .unwrap();
    plan.apply().unwrap();
    plan.notes().to_vec()
}

fn uninstall(project: &Project) {
    plan_uninstall(&project.install_root(), Scope::Project)
        .unwrap()
        .apply()
        .unwrap();
}

/// Every file under the project that holds `text`.
fn files_holding(project: &Project, text: &str) -> Vec<String> {
    project
        .tree()
        .into_iter()
        .filter(|rel| !rel.ends_with('/'))
        .filter(|rel| project.read(rel).contains(text))
        .collect()
}

/// What an install made before issue 23 left: our hooks running the absolute path in
/// `.claude/settings.json`, and the project manifest recording that file (made with the user
/// scope's writer, which still writes that shape, then put where a project install keeps it).
fn old_shape_install(settings: &str) -> Project {
    let project = Project::with_scope(Scope::User);
    project.write(".claude/settings.json", settings);
    project.install();
    let mut manifest: Value =
        serde_json::from_str(&project.read(".claude/self-repair-install.json")).unwrap();
    manifest["scope"] = Value::from("project");
    std::fs::remove_file(project.path(".claude/self-repair-install.json")).unwrap();
    project.write(".self-repair/install.json", &manifest.to_string());
    assert_eq!(
        our_entries(&project.settings_json(), "Stop", "stop")[0]["command"],
        FAKE_BIN
    );
    Project {
        dir: project.dir,
        scope: Scope::Project,
    }
}

#[test]
fn install_project_with_the_binary_on_path_writes_no_machine_path_in_any_file() {
    let project = Project::with_settings(BUSY);
    install(&project, true);
    assert_eq!(files_holding(&project, "/opt/fake"), Vec::<String>::new());
    let settings = project.settings_json();
    for (event, sub) in [
        ("Stop", "stop"),
        ("StopFailure", "stop-failure"),
        ("SessionStart", "session-start"),
        ("PreToolUse", "pre-tool-use"),
        ("PostToolUse", "post-tool-use"),
    ] {
        let entries = our_entries(&settings, event, sub);
        assert_eq!(entries.len(), 1, "{event}");
        assert_eq!(entries[0]["command"], "self-repair", "{event}");
    }
    assert!(!project.path(LOCAL).exists());
    uninstall(&project);
    assert_eq!(project.settings(), BUSY);
}

#[test]
fn install_project_without_the_binary_on_path_keeps_its_path_in_settings_local() {
    let project = Project::with_settings(BUSY);
    let notes = install(&project, false);
    // The committed settings file is untouched; the path is in this machine's files only.
    assert_eq!(project.settings(), BUSY);
    assert_eq!(
        files_holding(&project, "/opt/fake"),
        vec![LOCAL.to_owned(), ".self-repair/install.json".to_owned()]
    );
    let local: Value = serde_json::from_str(&project.read(LOCAL)).unwrap();
    assert_eq!(our_entries(&local, "Stop", "stop")[0]["command"], FAKE_BIN);
    assert!(
        notes.iter().any(|n| n.contains(LOCAL)),
        "the note says where the path went: {notes:?}"
    );
    uninstall(&project);
    assert!(!project.path(LOCAL).exists());
    assert_eq!(project.settings(), BUSY);
}

#[test]
fn an_install_of_the_old_shape_is_pointed_at_path_in_place_and_uninstalls_byte_for_byte() {
    let project = old_shape_install(BUSY);
    install(&project, true);
    assert_eq!(files_holding(&project, "/opt/fake"), Vec::<String>::new());
    let settings = project.settings_json();
    let stops = our_entries(&settings, "Stop", "stop");
    assert_eq!(stops.len(), 1);
    assert_eq!(stops[0]["command"], "self-repair");
    uninstall(&project);
    assert_eq!(project.settings(), BUSY);
}

#[test]
fn an_install_of_the_old_shape_moves_to_settings_local_when_the_binary_is_not_on_path() {
    let project = old_shape_install(BUSY);
    let notes = install(&project, false);
    assert_eq!(
        project.settings(),
        BUSY,
        "its hooks left the committed file"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.contains("moved self-repair's hooks from .claude/settings.json")),
        "{notes:?}"
    );
    let local: Value = serde_json::from_str(&project.read(LOCAL)).unwrap();
    assert_eq!(our_entries(&local, "Stop", "stop")[0]["command"], FAKE_BIN);
    uninstall(&project);
    assert!(!project.path(LOCAL).exists());
    assert_eq!(project.settings(), BUSY);
}

#[test]
fn an_install_of_the_old_shape_still_uninstalls() {
    let project = old_shape_install(BUSY);
    uninstall(&project);
    assert_eq!(project.settings(), BUSY);
    assert!(!project.path(".self-repair/install.json").exists());
}
