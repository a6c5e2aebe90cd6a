//! `installed_file_states`: what `doctor` says of each file `install` wrote, held against the
//! manifest's sums and this binary's bundle.

use self_repair_install::{BundleFile, InstalledFileState, embedded_bundle, installed_file_states};

use crate::harness::{FAKE_BIN, Project};

fn states(project: &Project) -> Option<Vec<(String, InstalledFileState)>> {
    installed_file_states(&project.install_root(), project.scope).unwrap()
}

fn state_of(states: &[(String, InstalledFileState)], path: &str) -> Option<InstalledFileState> {
    states
        .iter()
        .find(|(p, _)| p == path)
        .map(|(_, state)| *state)
}

const AGENT: &str = ".claude/agents/triage-investigator.md";
const SKILL: &str = ".claude/skills/self-repair/SKILL.md";

#[test]
fn no_install_has_no_files_and_a_fresh_one_has_every_file_current() {
    let project = Project::new();
    assert_eq!(states(&project), None);
    project.install_with(FAKE_BIN, embedded_bundle());
    let states = states(&project).unwrap();
    assert_eq!(states.len(), embedded_bundle().len(), "{states:?}");
    assert!(
        states
            .iter()
            .all(|(_, state)| *state == InstalledFileState::Current),
        "{states:?}"
    );
    assert_eq!(state_of(&states, AGENT), Some(InstalledFileState::Current));
}

#[test]
fn a_deleted_file_is_missing_and_an_edited_one_edited() {
    let project = Project::new();
    project.install_with(FAKE_BIN, embedded_bundle());
    std::fs::remove_file(project.path(AGENT)).unwrap();
    let skill = project.read(SKILL);
    project.write(SKILL, &format!("{skill}\nA line of my own.\n"));
    let states = states(&project).unwrap();
    assert_eq!(state_of(&states, AGENT), Some(InstalledFileState::Missing));
    assert_eq!(state_of(&states, SKILL), Some(InstalledFileState::Edited));
}

#[test]
fn a_file_of_another_version_is_outdated_and_one_this_bundle_lacks_is_current() {
    let project = Project::new();
    let older: &[BundleFile] = &[
        BundleFile {
            rel_path: "agents/triage-investigator.md",
            contents: "---\nname: triage-investigator\n---\n\nAn older text.\n",
        },
        BundleFile {
            rel_path: "agents/retired-helper.md",
            contents: "---\nname: retired-helper\n---\n\nGone from newer bundles.\n",
        },
    ];
    project.install_with(FAKE_BIN, older);
    let states = states(&project).unwrap();
    assert_eq!(states.len(), 2, "{states:?}");
    assert_eq!(state_of(&states, AGENT), Some(InstalledFileState::Outdated));
    assert_eq!(
        state_of(&states, ".claude/agents/retired-helper.md"),
        Some(InstalledFileState::Current)
    );
}
