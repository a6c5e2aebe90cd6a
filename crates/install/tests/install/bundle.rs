//! Copying the agents and skill, and upgrading them on a later install.

use self_repair_install::BundleFile;

use crate::harness::{FAKE_BIN, Project, TEST_BUNDLE};

#[test]
fn bundle_lands_in_claude_agents_and_skills() {
    let project = Project::new();
    project.install();
    for file in TEST_BUNDLE {
        let target = format!(".claude/{}", file.rel_path.replacen("skill/", "skills/", 1));
        assert_eq!(project.read(&target), file.contents, "{target}");
    }
}

#[test]
fn new_bundle_version_replaces_unedited_files_and_drops_removed_ones() {
    let project = Project::new();
    project.install();
    let v2 = [
        BundleFile {
            rel_path: "agents/triage-investigator.md",
            contents: "version 2\n",
        },
        TEST_BUNDLE[1],
    ];
    let plan = project.install_with(FAKE_BIN, &v2);
    let summary = plan.summary();
    assert!(
        summary.contains("updated .claude/agents/triage-investigator.md"),
        "{summary}"
    );
    assert!(
        summary.contains("removed .claude/skills/self-repair/templates/generic.md"),
        "{summary}"
    );
    assert_eq!(
        project.read(".claude/agents/triage-investigator.md"),
        "version 2\n"
    );
    assert!(project.plan_with(FAKE_BIN, &v2).unwrap().is_empty());
    project.uninstall();
    assert_eq!(project.tree(), Vec::<String>::new());
}

#[test]
fn edited_file_is_kept_on_upgrade_with_a_note() {
    let project = Project::new();
    project.install();
    project.write(".claude/agents/triage-investigator.md", "mine now\n");
    let v2 = [BundleFile {
        rel_path: "agents/triage-investigator.md",
        contents: "version 2\n",
    }];
    let plan = project.install_with(FAKE_BIN, &v2);
    assert!(
        plan.notes()
            .iter()
            .any(|n| n.contains("kept .claude/agents/triage-investigator.md"))
    );
    assert_eq!(
        project.read(".claude/agents/triage-investigator.md"),
        "mine now\n"
    );
}

#[test]
fn identical_file_already_present_is_left_by_uninstall() {
    let project = Project::new();
    project.write(
        ".claude/agents/triage-investigator.md",
        TEST_BUNDLE[0].contents,
    );
    project.install();
    project.uninstall();
    assert_eq!(
        project.tree(),
        [
            ".claude/",
            ".claude/agents/",
            ".claude/agents/triage-investigator.md",
        ]
    );
}
