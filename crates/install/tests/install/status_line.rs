//! Issue 24: `install` sets Claude Code's `statusLine` to `self-repair statusline`, composing
//! with a status line the user has, and `uninstall` puts back exactly what was there, also after
//! the user edited the file; `install --status-line` does it alone in `~/.claude/settings.json`.

use serde_json::{Value, json};

use crate::harness::{Project, TEST_BUNDLE};
use self_repair_install::{SettingsOutcome, plan_status_line_install, plan_status_line_uninstall};

const THEIRS: &str = r#"{
  "model": "opus",
  "statusLine": {
    "type": "command",
    "command": "~/.claude/statusline.sh --short",
    "padding": 0
  }
}
"#;

#[test]
fn install_composes_with_the_users_status_line_and_uninstall_restores_it_after_an_edit() {
    let project = Project::with_settings(THEIRS);
    let plan = project.install();
    let line = &project.settings_json()["statusLine"];
    assert_eq!(
        *line,
        json!({"type": "command",
               "command": "self-repair statusline --compose '~/.claude/statusline.sh --short'",
               "padding": 0, "refreshInterval": 5})
    );
    assert!(
        plan.summary()
            .contains("your status line `~/.claude/statusline.sh --short` now runs through"),
        "{}",
        plan.summary()
    );
    // Installing again from another binary keeps composing with theirs, not with ours.
    project.install_with("/other/bin/self-repair", TEST_BUNDLE);
    assert_eq!(
        project.settings_json()["statusLine"]["command"],
        "self-repair statusline --compose '~/.claude/statusline.sh --short'"
    );
    // The user edits another key: only a structural removal is possible, and theirs comes back.
    let mut edited = project.settings_json();
    edited["model"] = Value::from("sonnet");
    project.write(".claude/settings.json", &edited.to_string());
    let undo = project.uninstall();
    assert_eq!(
        undo.settings_outcome(),
        SettingsOutcome::RemovedStructurally
    );
    let after = project.settings_json();
    let before: Value = serde_json::from_str(THEIRS).unwrap();
    assert_eq!(after["statusLine"], before["statusLine"]);
    assert_eq!(after["model"], "sonnet");
}

#[test]
fn install_then_uninstall_without_a_status_line_leaves_none() {
    let project = Project::with_settings("{\n  \"model\": \"opus\"\n}\n");
    project.install();
    assert_eq!(
        project.settings_json()["statusLine"]["command"],
        "self-repair statusline"
    );
    project.write(
        ".claude/settings.json",
        &project.settings().replace("\"opus\"", "\"sonnet\""),
    );
    project.uninstall();
    assert_eq!(
        project.settings_json(),
        json!({"model": "sonnet"}),
        "our hooks and status line gone, the edit kept"
    );
}

#[test]
fn install_status_line_sets_only_the_status_line_in_the_users_settings_and_uninstall_restores_the_bytes()
 {
    let home = Project::with_scope(self_repair_install::Scope::User);
    home.write(".claude/settings.json", THEIRS);
    let plan = plan_status_line_install(&home.install_root(), "self-repair").unwrap();
    plan.apply().unwrap();
    let settings = home.settings_json();
    assert_eq!(
        settings["statusLine"]["command"],
        "self-repair statusline --compose '~/.claude/statusline.sh --short'"
    );
    assert!(
        settings.get("hooks").is_none(),
        "no hooks: the plugin has them"
    );
    assert!(
        plan_status_line_install(&home.install_root(), "self-repair")
            .unwrap()
            .is_empty(),
        "a second time changes nothing"
    );
    let undo = plan_status_line_uninstall(&home.install_root()).unwrap();
    assert_eq!(undo.settings_outcome(), SettingsOutcome::RestoredExactly);
    undo.apply().unwrap();
    assert_eq!(home.settings(), THEIRS);
    assert_eq!(home.tree(), [".claude/", ".claude/settings.json"]);
}

/// A second `install --status-line` (from another binary) after the user edited the file no
/// longer knows the bytes from before the first: uninstall then takes out only the status
/// line, and the edit stays.
#[test]
fn a_status_line_reinstalled_after_an_edit_is_removed_structurally_keeping_the_edit() {
    let home = Project::with_scope(self_repair_install::Scope::User);
    home.write(".claude/settings.json", THEIRS);
    plan_status_line_install(&home.install_root(), "self-repair")
        .unwrap()
        .apply()
        .unwrap();
    home.write(
        ".claude/settings.json",
        &home.settings().replace("\"opus\"", "\"sonnet\""),
    );
    plan_status_line_install(&home.install_root(), "/other/bin/self-repair")
        .unwrap()
        .apply()
        .unwrap();
    let undo = plan_status_line_uninstall(&home.install_root()).unwrap();
    assert_eq!(
        undo.settings_outcome(),
        SettingsOutcome::RemovedStructurally
    );
    undo.apply().unwrap();
    let after = home.settings_json();
    let before: Value = serde_json::from_str(THEIRS).unwrap();
    assert_eq!(after["model"], "sonnet", "the edit stays");
    assert_eq!(after["statusLine"], before["statusLine"]);
}

/// `install --status-line` again from another binary, the file untouched in between: the
/// bytes from before the first install are still known, and uninstall puts them back.
#[test]
fn a_status_line_reinstalled_from_another_binary_still_restores_the_first_bytes() {
    let home = Project::with_scope(self_repair_install::Scope::User);
    home.write(".claude/settings.json", THEIRS);
    for binary in ["self-repair", "/other/bin/self-repair"] {
        plan_status_line_install(&home.install_root(), binary)
            .unwrap()
            .apply()
            .unwrap();
    }
    assert!(
        home.settings()
            .contains("\"/other/bin/self-repair statusline --compose"),
        "{}",
        home.settings()
    );
    let undo = plan_status_line_uninstall(&home.install_root()).unwrap();
    assert_eq!(undo.settings_outcome(), SettingsOutcome::RestoredExactly);
    undo.apply().unwrap();
    assert_eq!(home.settings(), THEIRS);
}

/// The file edited after `install --status-line`: uninstall takes out the status line only.
#[test]
fn a_status_line_uninstalled_after_an_edit_keeps_the_edit() {
    let home = Project::with_scope(self_repair_install::Scope::User);
    home.write(".claude/settings.json", THEIRS);
    plan_status_line_install(&home.install_root(), "self-repair")
        .unwrap()
        .apply()
        .unwrap();
    home.write(
        ".claude/settings.json",
        &home.settings().replace("\"opus\"", "\"sonnet\""),
    );
    let undo = plan_status_line_uninstall(&home.install_root()).unwrap();
    assert_eq!(
        undo.settings_outcome(),
        SettingsOutcome::RemovedStructurally
    );
    undo.apply().unwrap();
    let after = home.settings_json();
    let before: Value = serde_json::from_str(THEIRS).unwrap();
    assert_eq!(after["model"], "sonnet");
    assert_eq!(after["statusLine"], before["statusLine"]);
}
