//! What a second install records about the settings file it finds: the pre-install bytes are
//! kept while the file is ours or unchanged, and given up once the user edited it and the
//! install rewrites it; the note about a reformatting JSON writer only when it rewrites a file
//! laid out by hand.

use self_repair_install::Scope;
use serde_json::Value;

use crate::harness::{BUSY, HAND_FORMATTED, Project};

const MANIFEST: &str = ".claude/self-repair-install.json";
const OTHER_BIN: &str = "/opt/other/bin/self-repair";

/// A user install over `BUSY` settings (the hooks run the absolute binary).
fn installed_over_busy() -> Project {
    let project = Project::with_scope(Scope::User);
    project.write(".claude/settings.json", BUSY);
    project.install();
    project
}

fn settings_record(project: &Project) -> Value {
    let manifest: Value = serde_json::from_str(&project.read(MANIFEST)).unwrap();
    manifest["settings"].clone()
}

/// The settings with one key of the user's own added, hooks untouched.
fn edit_settings(project: &Project) {
    let mut settings = project.settings_json();
    settings["model"] = Value::from("opus");
    project.write(
        ".claude/settings.json",
        &format!("{}\n", serde_json::to_string_pretty(&settings).unwrap()),
    );
}

fn reformat_notes(project: &Project, binary: &str) -> usize {
    let plan = project.install_with(binary, crate::harness::TEST_BUNDLE);
    plan.notes()
        .iter()
        .filter(|n| n.contains("rewritten by a JSON writer"))
        .count()
}

#[test]
fn an_edited_settings_file_install_leaves_alone_keeps_its_original_and_its_written_hash() {
    let project = installed_over_busy();
    let first = settings_record(&project);
    assert_eq!(first["original"]["state"], "text");
    edit_settings(&project);
    project.install();
    let second = settings_record(&project);
    assert_eq!(second["original"], first["original"]);
    assert_eq!(second["written_sha256"], first["written_sha256"]);
}

#[test]
fn an_unedited_settings_file_install_rewrites_keeps_its_original_with_the_new_hash() {
    let project = installed_over_busy();
    let first = settings_record(&project);
    project.install_with(OTHER_BIN, crate::harness::TEST_BUNDLE);
    let second = settings_record(&project);
    assert_eq!(second["original"], first["original"]);
    assert_ne!(second["written_sha256"], first["written_sha256"]);
}

#[test]
fn an_edited_settings_file_install_rewrites_loses_its_original() {
    let project = installed_over_busy();
    edit_settings(&project);
    project.install_with(OTHER_BIN, crate::harness::TEST_BUNDLE);
    assert_eq!(settings_record(&project)["original"]["state"], "unknown");
}

#[test]
fn the_reformatting_note_comes_only_when_a_hand_laid_out_file_is_rewritten() {
    let project = Project::with_scope(Scope::User);
    project.write(".claude/settings.json", HAND_FORMATTED);
    assert_eq!(reformat_notes(&project, crate::harness::FAKE_BIN), 1);
    // Nothing to rewrite: no note, however the file is laid out.
    project.write(
        ".claude/settings.json",
        &project.settings().replace('\n', "\n\n"),
    );
    assert_eq!(reformat_notes(&project, crate::harness::FAKE_BIN), 0);
    // Rewritten, but laid out as the writer lays it out: no note.
    let fresh = Project::with_scope(Scope::User);
    fresh.install();
    assert_eq!(reformat_notes(&fresh, OTHER_BIN), 0);
}

#[test]
fn a_file_dropped_from_the_bundle_goes_unless_the_user_edited_it() {
    let bundle = crate::harness::TEST_BUNDLE;
    let template = ".claude/skills/self-repair/templates/generic.md";
    let agent = ".claude/agents/triage-investigator.md";
    let project = Project::new();
    project.install();
    project.write(template, "my own template\n");
    let plan = project.install_with(crate::harness::FAKE_BIN, &bundle[1..2]);
    assert_eq!(project.read(template), "my own template\n");
    assert!(!project.path(agent).exists(), "the unedited agent goes");
    assert!(
        plan.notes()
            .iter()
            .any(|n| n.contains("no longer part of self-repair, but you edited it")),
        "{:?}",
        plan.notes()
    );
}
