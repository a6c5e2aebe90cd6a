//! The files `self-repair install` wrote, against the SHA-256 sums its manifest recorded: a
//! deleted agent or skill file, or one left by another version, is a `✗` whose fix is the same
//! `install` again (it writes what is missing and keeps the user's edits).

use self_repair_install::{InstallRoot, InstalledFileState, Scope, installed_file_states};

use super::setup_check::{SetupCheck, SetupScene};

/// Most files named in one line; the rest are counted.
const NAMED: usize = 5;

/// One check per install found (project, then user); none without an install.
pub(crate) fn install_files_checks(scene: &SetupScene<'_>) -> Vec<SetupCheck> {
    let project = InstallRoot::project(&scene.root);
    let installs = [
        (Some(project), Scope::Project, "--project"),
        (scene.user_install.clone(), Scope::User, "--user"),
    ];
    installs
        .into_iter()
        .filter_map(|(root, scope, flag)| {
            let root = root?;
            match installed_file_states(&root, scope) {
                Ok(Some(states)) => Some(files_check(&root, flag, &states)),
                Ok(None) => None,
                Err(e) => Some(SetupCheck::fail(
                    "installed_files",
                    format!("the record of `self-repair install {flag}` cannot be read: {e}"),
                    format!("run `self-repair install {flag}` again: it writes a new record"),
                )),
            }
        })
        .collect()
}

fn files_check(
    root: &InstallRoot,
    flag: &str,
    states: &[(String, InstalledFileState)],
) -> SetupCheck {
    let with = |wanted: InstalledFileState| -> Vec<String> {
        states
            .iter()
            .filter(|(_, state)| *state == wanted)
            .map(|(path, _)| root.display(path))
            .collect()
    };
    let (missing, outdated, edited) = (
        with(InstalledFileState::Missing),
        with(InstalledFileState::Outdated),
        with(InstalledFileState::Edited),
    );
    let kept = if edited.is_empty() {
        String::new()
    } else {
        format!("; {} edited since, kept as you made them", edited.len())
    };
    if !missing.is_empty() || !outdated.is_empty() {
        let mut found = Vec::new();
        if !missing.is_empty() {
            found.push(format!(
                "{} of the {} files `self-repair install {flag}` wrote are gone ({}): the \
                 client has no such agent or skill",
                missing.len(),
                states.len(),
                named(&missing)
            ));
        }
        if !outdated.is_empty() {
            found.push(format!(
                "{} are another version's ({})",
                outdated.len(),
                named(&outdated)
            ));
        }
        return SetupCheck::fail(
            "installed_files",
            format!("{}{kept}", found.join("; ")),
            format!(
                "`self-repair install {flag}`: it writes them again (your edits are kept); then \
                 start a new session"
            ),
        );
    }
    SetupCheck::ok(
        "installed_files",
        format!(
            "the {} files `self-repair install {flag}` wrote are in place{kept}",
            states.len()
        ),
    )
}

/// The first [`NAMED`] paths, and how many more.
fn named(paths: &[String]) -> String {
    let mut out = paths
        .iter()
        .take(NAMED)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if paths.len() > NAMED {
        out.push_str(&format!(" and {} more", paths.len() - NAMED));
    }
    out
}
