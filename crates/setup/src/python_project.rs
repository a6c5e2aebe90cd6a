//! A Python project (pyproject.toml, ruff.toml, setup.cfg): Ruff as its detector, and pytest as
//! its test command when pytest is configured.

use std::path::Path;

use crate::project_setup::ProjectSetup;
use crate::proposed_detector::detector;
use crate::proposed_test::ProposedTest;

/// The files that make a folder a Python project, in the order they are named as the reason.
const MARKERS: [&str; 4] = ["pyproject.toml", "ruff.toml", ".ruff.toml", "setup.cfg"];

/// Adds Ruff (and pytest when configured) when `root` holds a Python project.
pub(crate) fn propose(root: &Path, setup: &mut ProjectSetup) {
    let Some(marker) = MARKERS.iter().find(|m| root.join(m).is_file()) else {
        return;
    };
    let pyproject = read(root, "pyproject.toml");
    let reason = if let Some(file) = ["ruff.toml", ".ruff.toml"]
        .iter()
        .find(|f| root.join(f).is_file())
    {
        format!("{file} configures Ruff")
    } else if has_section(&pyproject, "tool.ruff") {
        "pyproject.toml configures Ruff ([tool.ruff])".to_owned()
    } else {
        format!("{marker}: a Python project (Ruff runs with its default rules)")
    };
    setup.detectors.push(detector(
        "ruff",
        // `--no-fix`: a `fix = true` in the project's Ruff settings must not edit files when
        // `detect` only looks.
        &["ruff", "check", "--no-fix", "--output-format", "json", "."],
        &[0, 1],
        "ruff",
        reason,
        "0 no findings, 1 findings; 2 (bad configuration, a crash) stays an error",
    ));
    match pytest_configuration(root, &pyproject) {
        Some(reason) => setup.tests.push(ProposedTest::new(&["pytest", "-q"], reason)),
        None => setup.notes.push(
            "no pytest configuration ([tool.pytest.ini_options] in pyproject.toml, pytest.ini, [tool:pytest] in setup.cfg, [pytest] in tox.ini, conftest.py): no Python test command; set checks.test.command yourself if the tests run another way".to_owned(),
        ),
    }
}

/// Where pytest is configured, if it is.
fn pytest_configuration(root: &Path, pyproject: &str) -> Option<String> {
    if has_section(pyproject, "tool.pytest") {
        return Some("pyproject.toml configures pytest ([tool.pytest...])".to_owned());
    }
    if root.join("pytest.ini").is_file() {
        return Some("pytest.ini configures pytest".to_owned());
    }
    if has_section(&read(root, "setup.cfg"), "tool:pytest") {
        return Some("setup.cfg configures pytest ([tool:pytest])".to_owned());
    }
    if has_section(&read(root, "tox.ini"), "pytest") {
        return Some("tox.ini configures pytest ([pytest])".to_owned());
    }
    root.join("conftest.py")
        .is_file()
        .then(|| "conftest.py: pytest fixtures at the root".to_owned())
}

/// The file's text, empty when it is absent or unreadable.
fn read(root: &Path, name: &str) -> String {
    std::fs::read_to_string(root.join(name)).unwrap_or_default()
}

/// True when a TOML or INI table header `[name]` or `[name.sub]` starts a line of `text`.
pub(crate) fn has_section(text: &str, name: &str) -> bool {
    text.lines().any(|line| {
        let line = line.trim();
        let Some(header) = line
            .strip_prefix('[')
            .filter(|h| !h.starts_with('['))
            .and_then(|h| h.split(']').next())
        else {
            return false;
        };
        let header = header.trim();
        header == name
            || header
                .strip_prefix(name)
                .is_some_and(|rest| rest.starts_with('.'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_header_counts_with_its_subtables_and_not_a_longer_name() {
        let text = "[project]\nname = \"x\"\n\n[ tool.ruff.lint ]\nselect = [\"E\"]\n";
        assert!(has_section(text, "tool.ruff"));
        assert!(!has_section("[tool.ruffle]\n", "tool.ruff"));
        assert!(!has_section("[[tool.ruff]]\n", "tool.ruff"));
        assert!(!has_section("# [tool.ruff]\n", "tool.ruff"));
        assert!(has_section("[tool:pytest]\naddopts = -q\n", "tool:pytest"));
    }
}
