//! What `install --dry-run` and `uninstall --dry-run` print.

use crate::harness::{BUSY, Project, regex_escape};

fn snapshot_settings(project: &Project) -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(
        &regex_escape(&project.root().display().to_string()),
        "[PROJECT]",
    );
    settings
}

#[test]
fn dry_run_on_empty_project() {
    let project = Project::new();
    let plan = project.plan().unwrap();
    snapshot_settings(&project).bind(|| {
        insta::assert_snapshot!(plan.render_diff());
        insta::assert_snapshot!(plan.dry_run_summary());
    });
    // What the same plan says once applied.
    assert!(
        plan.summary()
            .starts_with("created .claude/settings.json\n"),
        "{}",
        plan.summary()
    );
}

#[test]
fn dry_run_on_busy_settings() {
    let project = Project::with_settings(BUSY);
    let plan = project.plan().unwrap();
    snapshot_settings(&project).bind(|| {
        insta::assert_snapshot!(plan.render_diff());
    });
}

#[test]
fn uninstall_dry_run_after_install_on_busy_settings() {
    let project = Project::with_settings(BUSY);
    project.install();
    let plan = self_repair_install::plan_uninstall(&project.install_root(), project.scope).unwrap();
    snapshot_settings(&project).bind(|| {
        insta::assert_snapshot!(plan.render_diff());
    });
    let said = plan.dry_run_summary();
    assert!(
        said.contains("would remove .claude/agents/triage-investigator.md")
            && !said.contains("\nremoved "),
        "{said}"
    );
}

#[test]
fn manifest_after_install_on_hand_formatted_settings() {
    let project = Project::with_settings(crate::harness::HAND_FORMATTED);
    project.install();
    insta::assert_snapshot!(project.read(".self-repair/install.json"));
}
