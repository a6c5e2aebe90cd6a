//! A user install with `CLAUDE_CONFIG_DIR` set: Claude Code reads the user's settings, agents
//! and skills from that folder instead of `~/.claude`, so every `.claude/...` file goes there,
//! the home is left alone, and uninstall removes exactly what install added there.

use std::path::PathBuf;

use self_repair_install::{
    InstallRoot, InstallSpec, Scope, plan_install, plan_status_line_install,
    plan_status_line_uninstall, plan_uninstall,
};

use crate::harness::{FAKE_BIN, Project, TEST_BUNDLE};

/// A home and, outside it, a config folder holding the client's own file and the user's
/// settings.
fn home_and_config() -> (Project, Project, InstallRoot) {
    let home = Project::with_scope(Scope::User);
    let config = Project::with_scope(Scope::User);
    config.write(".claude.json", "{\"numStartups\": 3}\n");
    config.write("settings.json", "{\n  \"model\": \"opus\"\n}\n");
    let root = InstallRoot::user(home.root(), Some(config.root()));
    (home, config, root)
}

fn user_spec() -> InstallSpec {
    InstallSpec {
        binary: PathBuf::from(FAKE_BIN),
        scope: Scope::User,
        binary_on_path: false,
    }
}

#[test]
fn install_user_under_claude_config_dir_writes_there_and_uninstall_leaves_it_as_it_was() {
    let (home, config, root) = home_and_config();
    let before = config.tree();
    let plan = plan_install(&root, &user_spec(), TEST_BUNDLE).unwrap();
    plan.apply().unwrap();
    assert_eq!(home.tree(), Vec::<String>::new(), "nothing in the home");
    let settings: serde_json::Value = serde_json::from_str(&config.read("settings.json")).unwrap();
    assert_eq!(
        settings["hooks"]["Stop"][0]["hooks"][0]["command"],
        FAKE_BIN
    );
    assert_eq!(settings["model"], "opus");
    for file in [
        "self-repair-install.json",
        "agents/triage-investigator.md",
        "skills/self-repair/SKILL.md",
    ] {
        assert!(config.path(file).is_file(), "{file}");
    }
    // The messages name the files written, not `~/.claude`.
    let config_shown = config.root().display().to_string();
    assert!(
        plan.summary()
            .contains(&format!("updated {config_shown}/settings.json")),
        "{}",
        plan.summary()
    );
    assert!(!plan.summary().contains("~/.claude"), "{}", plan.summary());
    // The manifest keeps the logical paths: the folder it is in stands for `.claude`.
    let manifest = config.read("self-repair-install.json");
    assert!(manifest.contains("\".claude/agents/triage-investigator.md\""));
    assert!(!manifest.contains(&config_shown), "{manifest}");

    let undo = plan_uninstall(&root, Scope::User).unwrap();
    undo.apply().unwrap();
    assert_eq!(config.tree(), before);
    assert_eq!(
        config.read("settings.json"),
        "{\n  \"model\": \"opus\"\n}\n"
    );
    assert_eq!(home.tree(), Vec::<String>::new());
}

#[test]
fn install_user_into_a_missing_claude_config_dir_creates_it_and_uninstall_removes_it() {
    let home = Project::with_scope(Scope::User);
    let config = home.path("elsewhere/config");
    let root = InstallRoot::user(home.root(), Some(&config));
    plan_install(&root, &user_spec(), TEST_BUNDLE)
        .unwrap()
        .apply()
        .unwrap();
    assert!(config.join("settings.json").is_file());
    assert!(!home.path(".claude").exists());
    plan_uninstall(&root, Scope::User).unwrap().apply().unwrap();
    assert!(!config.exists(), "the config folder install made is gone");
}

#[test]
fn install_status_line_under_claude_config_dir_writes_there_and_uninstall_restores_the_bytes() {
    let (home, config, root) = home_and_config();
    let before = config.tree();
    let plan = plan_status_line_install(&root, "self-repair").unwrap();
    plan.apply().unwrap();
    let settings: serde_json::Value = serde_json::from_str(&config.read("settings.json")).unwrap();
    assert_eq!(settings["statusLine"]["command"], "self-repair statusline");
    assert!(config.path("self-repair-status-line.json").is_file());
    assert_eq!(home.tree(), Vec::<String>::new());
    assert!(
        plan.summary().contains(&format!(
            "updated {}/settings.json",
            config.root().display()
        )),
        "{}",
        plan.summary()
    );
    plan_status_line_uninstall(&root).unwrap().apply().unwrap();
    assert_eq!(config.tree(), before);
    assert_eq!(
        config.read("settings.json"),
        "{\n  \"model\": \"opus\"\n}\n"
    );
}

#[test]
fn an_install_in_home_claude_is_not_seen_under_claude_config_dir() {
    let (home, _config, root) = home_and_config();
    home.install();
    let plan = plan_uninstall(&root, Scope::User).unwrap();
    assert!(plan.is_empty());
    assert!(
        plan.notes()[0].contains("no ") && plan.notes()[0].contains("self-repair-install.json"),
        "{:?}",
        plan.notes()
    );
}

#[test]
fn a_path_outside_claude_is_shown_relative_in_a_project_and_whole_in_the_home() {
    let project = Project::new();
    let root = InstallRoot::project(project.root());
    assert_eq!(root.display(".self-repair/x.json"), ".self-repair/x.json");
    assert_eq!(
        root.display(".claude/settings.json"),
        ".claude/settings.json"
    );
    let home = Project::with_scope(Scope::User);
    let user = InstallRoot::user(home.root(), None);
    assert_eq!(user.display(".claude"), "~/.claude");
    assert_eq!(
        user.display(".claude/settings.json"),
        "~/.claude/settings.json"
    );
    assert_eq!(
        user.display(".self-repair/x.json"),
        home.path(".self-repair/x.json").display().to_string()
    );
}
