//! Install adds our hooks and rules and keeps everything else, in order.

use serde_json::{Value, json};

use crate::harness::{BUSY, FAKE_BIN, Project, our_entries};

/// What a project install's hooks run when the binary is on PATH (`team_settings.rs`).
const FROM_PATH: &str = "self-repair";

#[test]
fn install_on_empty_project_registers_four_exec_form_hooks_and_no_permission_rule() {
    let project = Project::new();
    project.install();
    let settings = project.settings_json();
    assert_eq!(
        settings["hooks"]["Stop"],
        json!([{"hooks": [{"type": "command", "command": FROM_PATH, "args": ["hook", "stop"], "timeout": 30}]}])
    );
    assert_eq!(
        settings["hooks"]["StopFailure"][0]["hooks"][0]["args"],
        json!(["hook", "stop-failure"])
    );
    // Every session start: a new session hears about a waiting run.
    assert!(
        settings["hooks"]["SessionStart"][0]
            .get("matcher")
            .is_none()
    );
    assert_eq!(
        settings["hooks"]["SessionStart"][0]["hooks"][0]["args"],
        json!(["hook", "session-start"])
    );
    assert_eq!(
        settings["hooks"]["PreToolUse"][0]["matcher"],
        "Bash|Read|Grep|Glob"
    );
    assert_eq!(
        settings["hooks"]["PreToolUse"][0]["hooks"][0]["args"],
        json!(["hook", "pre-tool-use"])
    );
    // The permission gate decides our agents' commands: no allow rule is written.
    assert!(settings.get("permissions").is_none(), "{settings}");
    assert!(project.settings().ends_with("}\n"));
}

#[test]
fn an_upgrade_removes_the_allow_rules_an_older_install_wrote() {
    let project = Project::with_settings(BUSY);
    project.install();
    let manifest_path = ".self-repair/install.json";
    let mut manifest: Value = serde_json::from_str(&project.read(manifest_path)).unwrap();
    manifest["settings"]["permissions"] = json!(["Bash(self-repair show:*)"]);
    let mut settings = project.settings_json();
    settings["permissions"]["allow"]
        .as_array_mut()
        .unwrap()
        .push(json!("Bash(self-repair show:*)"));
    project.write(manifest_path, &manifest.to_string());
    project.write(".claude/settings.json", &settings.to_string());
    project.install();
    let before: Value = serde_json::from_str(BUSY).unwrap();
    assert_eq!(
        project.settings_json()["permissions"]["allow"],
        before["permissions"]["allow"]
    );
}

#[test]
fn install_on_busy_settings_keeps_every_key_hook_and_rule_in_order() {
    let project = Project::with_settings(BUSY);
    project.install();
    let before: Value = serde_json::from_str(BUSY).unwrap();
    let after = project.settings_json();

    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    let mut expected = keys(&before);
    expected.push("statusLine".to_owned());
    assert_eq!(
        keys(&after),
        expected,
        "top-level keys and their order, the status line added last"
    );
    assert_eq!(
        keys(&after["hooks"]),
        [
            "PreToolUse",
            "Stop",
            "StopFailure",
            "SessionStart",
            "PostToolUse"
        ]
    );
    // The user's PreToolUse group stays first and untouched; our gate is a group after it.
    assert_eq!(
        after["hooks"]["PreToolUse"][0],
        before["hooks"]["PreToolUse"][0]
    );
    assert_eq!(after["hooks"]["PreToolUse"].as_array().unwrap().len(), 2);
    // The user's Stop group stays first and untouched; ours is a separate group after it.
    assert_eq!(after["hooks"]["Stop"][0], before["hooks"]["Stop"][0]);
    assert_eq!(after["hooks"]["Stop"][1]["hooks"][0]["command"], FROM_PATH);
    assert_eq!(after["hooks"]["Stop"].as_array().unwrap().len(), 2);
    // The user's permissions are untouched: we add no rule.
    assert_eq!(after["permissions"], before["permissions"]);
    assert_eq!(after["permissions"]["defaultMode"], "acceptEdits");
    assert_eq!(after["env"], before["env"]);
    assert_eq!(after["zz_team_notes"], "keep this key last");
    // The user's 4-space indent is kept.
    assert!(project.settings().contains("\n    \"model\": \"opus\",\n"));
}

#[test]
fn previous_install_from_other_path_is_updated_in_place_without_duplicates() {
    // The user scope: its hooks run the binary's absolute path.
    let project = Project::with_scope(self_repair_install::Scope::User);
    project.write(".claude/settings.json", BUSY);
    project.install_with(
        "/home/dev/old/target/release/self-repair",
        crate::harness::TEST_BUNDLE,
    );
    let plan = project.install();
    assert!(!plan.is_empty());
    let settings = project.settings_json();
    for (event, sub) in [
        ("Stop", "stop"),
        ("StopFailure", "stop-failure"),
        ("SessionStart", "session-start"),
    ] {
        let entries = our_entries(&settings, event, sub);
        assert_eq!(entries.len(), 1, "{event}");
        assert_eq!(entries[0]["command"], FAKE_BIN, "{event}");
    }
    assert_eq!(settings["hooks"]["Stop"].as_array().unwrap().len(), 2);
}

#[test]
fn hand_added_hook_without_manifest_is_pointed_at_the_binary_not_duplicated() {
    let project = Project::with_settings(
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/usr/local/bin/self-repair", "args": ["hook", "stop"]}]}]}}"#,
    );
    project.install();
    let settings = project.settings_json();
    let entries = our_entries(&settings, "Stop", "stop");
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0]["command"], FROM_PATH);
}

#[test]
fn binary_not_on_path_adds_a_note() {
    let project = Project::new();
    let mut spec = project.spec(FAKE_BIN);
    spec.binary_on_path = false;
    let plan = self_repair_install::plan_install(
        &project.install_root(),
        &spec,
        crate::harness::TEST_BUNDLE,
    )
    .unwrap();
    plan.apply().unwrap();
    assert!(
        plan.notes()
            .iter()
            .any(|n| n.contains("not /opt/fake/bin/self-repair"))
    );
    let local: serde_json::Value =
        serde_json::from_str(&project.read(".claude/settings.local.json")).unwrap();
    assert!(local.get("permissions").is_none());
}

#[test]
fn enabled_plugin_is_reported() {
    let project =
        Project::with_settings(r#"{"enabledPlugins": {"self-repair@self-repair": true}}"#);
    let plan = project.plan().unwrap();
    assert!(
        plan.notes()
            .iter()
            .any(|n| n.contains("plugin is also enabled")),
        "{:?}",
        plan.notes()
    );
}

#[test]
fn a_disabled_or_other_plugin_is_not_reported() {
    for settings in [
        r#"{"enabledPlugins": {"self-repair@self-repair": false}}"#,
        r#"{"enabledPlugins": {"other@self-repair": true, "self-repair-x@m": true}}"#,
        r#"{"enabledPlugins": ["self-repair@self-repair"]}"#,
    ] {
        let plan = Project::with_settings(settings).plan().unwrap();
        assert!(
            !plan
                .notes()
                .iter()
                .any(|n| n.contains("plugin is also enabled")),
            "{settings}: {:?}",
            plan.notes()
        );
    }
}

#[test]
fn user_scope_writes_home_settings_and_its_own_manifest() {
    let home = Project::with_scope(self_repair_install::Scope::User);
    home.install();
    assert!(home.path(".claude/settings.json").is_file());
    assert!(home.path(".claude/self-repair-install.json").is_file());
    assert!(home.path(".claude/agents/triage-investigator.md").is_file());
    assert!(home.path(".claude/skills/self-repair/SKILL.md").is_file());
    assert!(!home.path(".self-repair").exists());
    home.uninstall();
    assert_eq!(home.tree(), Vec::<String>::new());
}
