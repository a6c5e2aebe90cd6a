//! Uninstall removes exactly what install added, and nothing the user made or changed.

use serde_json::{Value, json};

use self_repair_install::{Scope, SettingsOutcome, plan_uninstall};

use crate::harness::{BUSY, HAND_FORMATTED, Project, our_entries};

#[test]
fn uninstall_after_user_edit_removes_only_our_entries() {
    let project = Project::with_settings(BUSY);
    project.install();
    let mut edited = project.settings_json();
    edited["permissions"]["allow"]
        .as_array_mut()
        .unwrap()
        .push(json!("Bash(ls:*)"));
    edited["added_later"] = json!(true);
    project.write(
        ".claude/settings.json",
        &serde_json::to_string_pretty(&edited).unwrap(),
    );

    let plan = project.uninstall();
    assert_eq!(
        plan.settings_outcome(),
        SettingsOutcome::RemovedStructurally
    );
    assert!(
        plan.notes()
            .iter()
            .any(|n| n.contains("changed since install"))
    );

    let mut expected: Value = serde_json::from_str(BUSY).unwrap();
    expected["permissions"]["allow"]
        .as_array_mut()
        .unwrap()
        .push(json!("Bash(ls:*)"));
    expected["added_later"] = json!(true);
    let after = project.settings_json();
    assert_eq!(after, expected);
    // Order too (Value equality ignores object order).
    assert_eq!(
        serde_json::to_string(&after).unwrap(),
        serde_json::to_string(&expected).unwrap()
    );
}

#[test]
fn structural_uninstall_keeps_rules_the_user_had_before_install() {
    let project = Project::with_settings(HAND_FORMATTED);
    project.install();
    let mut edited = project.settings_json();
    edited["model"] = json!("sonnet");
    project.write(".claude/settings.json", &edited.to_string());
    project.uninstall();
    let after = project.settings_json();
    assert_eq!(
        after["permissions"]["allow"],
        json!(["Bash(git status:*)", "Bash(self-repair show:*)"])
    );
    assert!(our_entries(&after, "Stop", "stop").is_empty());
    assert!(after["hooks"].get("StopFailure").is_none());
    assert!(after["hooks"].get("SessionStart").is_none());
    assert_eq!(after["hooks"]["Stop"].as_array().unwrap().len(), 1);
    assert_eq!(after["model"], "sonnet");
}

#[test]
fn structural_uninstall_of_a_created_file_drops_the_keys_install_created() {
    let project = Project::new();
    project.install();
    let mut edited = project.settings_json();
    edited["model"] = json!("haiku");
    project.write(".claude/settings.json", &edited.to_string());
    project.uninstall();
    assert_eq!(project.settings_json(), json!({"model": "haiku"}));
}

#[test]
fn reinstall_after_user_edit_does_not_restore_stale_bytes_on_uninstall() {
    let project = Project::with_settings(BUSY);
    project.install_with("/old/bin/self-repair", crate::harness::TEST_BUNDLE);
    let mut edited = project.settings_json();
    edited["added_between_installs"] = json!(1);
    project.write(".claude/settings.json", &edited.to_string());
    project.install();
    let plan = project.uninstall();
    assert_eq!(
        plan.settings_outcome(),
        SettingsOutcome::RemovedStructurally
    );
    let after = project.settings_json();
    assert_eq!(after["added_between_installs"], 1);
    assert!(our_entries(&after, "Stop", "stop").is_empty());
    assert_eq!(after["permissions"]["allow"].as_array().unwrap().len(), 3);
}

#[test]
fn edited_bundle_file_is_kept_and_reported() {
    let project = Project::new();
    project.install();
    project.write(".claude/agents/triage-investigator.md", "my tweaks\n");
    let plan = project.uninstall();
    assert_eq!(plan.kept_files(), [".claude/agents/triage-investigator.md"]);
    assert!(
        plan.summary()
            .contains("kept .claude/agents/triage-investigator.md")
    );
    assert_eq!(
        project.tree(),
        [
            ".claude/",
            ".claude/agents/",
            ".claude/agents/triage-investigator.md",
        ]
    );
    assert_eq!(
        project.read(".claude/agents/triage-investigator.md"),
        "my tweaks\n"
    );
}

#[test]
fn uninstall_without_install_plans_nothing() {
    let project = Project::with_settings(BUSY);
    let plan = plan_uninstall(&project.install_root(), Scope::Project).unwrap();
    assert!(plan.is_empty());
    assert!(plan.summary().contains("not installed here"));
    plan.apply().unwrap();
    assert_eq!(project.settings(), BUSY);
}

#[test]
fn uninstall_refuses_corrupt_settings_it_must_edit() {
    let project = Project::with_settings(BUSY);
    project.install();
    project.write(".claude/settings.json", "{ broken");
    let err = plan_uninstall(&project.install_root(), Scope::Project).unwrap_err();
    assert!(err.to_string().contains("is not valid JSON"), "{err}");
    assert_eq!(project.settings(), "{ broken");
}

/// Only an entry with both our command and our arguments is ours: a hook of another tool that
/// takes the same arguments, one of our binary with other arguments, and a group the user left
/// empty all stay.
#[test]
fn uninstall_removes_only_entries_with_our_command_and_our_arguments() {
    let before = json!({"hooks": {"Stop": [
        {"hooks": [
            {"type": "command", "command": "/usr/local/bin/other-tool", "args": ["hook", "stop"]},
            {"type": "command", "command": crate::harness::FAKE_BIN, "args": ["report"]}
        ]},
        {"matcher": "kept", "hooks": []}
    ]}});
    let project = Project::with_settings(&serde_json::to_string_pretty(&before).unwrap());
    project.install();
    let mut edited = project.settings_json();
    edited["added_later"] = json!(true);
    project.write(
        ".claude/settings.json",
        &serde_json::to_string_pretty(&edited).unwrap(),
    );
    let plan = project.uninstall();
    assert_eq!(
        plan.settings_outcome(),
        SettingsOutcome::RemovedStructurally
    );
    let mut expected = before;
    expected["added_later"] = json!(true);
    assert_eq!(project.settings_json(), expected);
}

/// A settings file install created holds nothing else once ours is out: uninstall deletes it,
/// also when the user reformatted it. One that was there before, empty, stays.
#[test]
fn a_settings_file_install_created_goes_and_one_that_was_there_stays() {
    let project = Project::new();
    project.install();
    let compact = project.settings_json().to_string();
    project.write(".claude/settings.json", &compact);
    let plan = project.uninstall();
    assert_eq!(plan.settings_outcome(), SettingsOutcome::Deleted);
    assert!(!project.path(".claude/settings.json").exists());

    let project = Project::with_settings("{}\n");
    project.install();
    let compact = project.settings_json().to_string();
    project.write(".claude/settings.json", &compact);
    let plan = project.uninstall();
    assert_eq!(
        plan.settings_outcome(),
        SettingsOutcome::RemovedStructurally
    );
    assert_eq!(project.settings_json(), json!({}));
}

#[test]
fn an_uninstall_plan_is_empty_only_where_nothing_was_installed() {
    let project = Project::new();
    assert!(
        plan_uninstall(&project.install_root(), Scope::Project)
            .unwrap()
            .is_empty()
    );
    project.install();
    let plan = plan_uninstall(&project.install_root(), Scope::Project).unwrap();
    assert!(!plan.is_empty());
    // Each file install wrote is in the plan, deleted (the settings file install created too).
    let deleted: Vec<&str> = plan
        .changes()
        .iter()
        .filter(|c| c.after.is_none())
        .map(|c| c.rel_path.as_str())
        .collect();
    for rel in [
        ".claude/settings.json",
        ".claude/agents/triage-investigator.md",
        ".claude/skills/self-repair/SKILL.md",
    ] {
        assert!(deleted.contains(&rel), "{rel} not in {deleted:?}");
    }
}
