//! Running install twice changes nothing the second time.

use crate::harness::{BUSY, HAND_FORMATTED, Project};

#[test]
fn second_install_plans_nothing_on_an_empty_project() {
    let project = Project::new();
    project.install();
    let tree = project.tree();
    let settings = project.settings();
    let manifest = project.read(".self-repair/install.json");

    let second = project.plan().unwrap();
    assert!(second.is_empty(), "{}", second.render_diff());
    assert_eq!(second.render_diff(), "");
    assert_eq!(
        second.summary(),
        "self-repair is already installed in .claude/settings.json; nothing to change\n"
    );
    second.apply().unwrap();
    assert_eq!(project.tree(), tree);
    assert_eq!(project.settings(), settings);
    assert_eq!(project.read(".self-repair/install.json"), manifest);
}

#[test]
fn second_install_plans_nothing_on_busy_and_hand_formatted_settings() {
    for text in [BUSY, HAND_FORMATTED] {
        let project = Project::with_settings(text);
        project.install();
        let second = project.plan().unwrap();
        assert!(second.is_empty(), "{}", second.render_diff());
    }
}

#[test]
fn dry_run_plan_writes_nothing() {
    let project = Project::with_settings(BUSY);
    let plan = project.plan().unwrap();
    assert!(!plan.render_diff().is_empty());
    assert_eq!(project.tree(), [".claude/", ".claude/settings.json"]);
    assert_eq!(project.settings(), BUSY);
}
