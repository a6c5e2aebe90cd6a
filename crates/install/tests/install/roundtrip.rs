//! install -> install -> uninstall gives back the exact bytes.

use crate::harness::{BUSY, HAND_FORMATTED, Project};
use self_repair_install::SettingsOutcome;

#[test]
fn install_install_uninstall_restores_busy_settings_byte_for_byte() {
    for text in [BUSY, HAND_FORMATTED, "{\r\n\t\"a\": 1\r\n}"] {
        let project = Project::with_settings(text);
        project.install();
        project.install();
        let plan = project.uninstall();
        assert_eq!(plan.settings_outcome(), SettingsOutcome::RestoredExactly);
        assert_eq!(project.settings(), text);
        assert_eq!(project.tree(), [".claude/", ".claude/settings.json"]);
    }
}

#[test]
fn reinstall_from_new_path_then_uninstall_still_restores_the_original() {
    let project = Project::with_settings(HAND_FORMATTED);
    project.install_with("/old/bin/self-repair", crate::harness::TEST_BUNDLE);
    project.install();
    let plan = project.uninstall();
    assert_eq!(plan.settings_outcome(), SettingsOutcome::RestoredExactly);
    assert_eq!(project.settings(), HAND_FORMATTED);
}

#[test]
fn install_then_uninstall_on_empty_project_leaves_nothing() {
    let project = Project::new();
    project.install();
    let plan = project.uninstall();
    assert_eq!(plan.settings_outcome(), SettingsOutcome::Deleted);
    assert_eq!(project.tree(), Vec::<String>::new());
}

#[test]
fn uninstall_keeps_a_claude_dir_it_did_not_create() {
    let project = Project::new();
    project.write(".claude/commands/mine.md", "mine\n");
    project.write(".self-repair/config.json", "{}\n");
    project.install();
    project.uninstall();
    assert_eq!(
        project.tree(),
        [
            ".claude/",
            ".claude/commands/",
            ".claude/commands/mine.md",
            ".self-repair/",
            ".self-repair/config.json",
        ]
    );
}
