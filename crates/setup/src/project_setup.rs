//! Everything `init` proposes for one project: its detectors, its test command and the notes
//! on what it left out and why.

use std::path::Path;

use crate::proposed_detector::ProposedDetector;
use crate::proposed_test::ProposedTest;
use crate::{cargo_project, node_project, python_project};

/// The detectors and test commands a project's files call for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProjectSetup {
    /// One per tool found, in the order Python, npm, Cargo.
    pub detectors: Vec<ProposedDetector>,
    /// Every test command found; the config holds one, the first.
    pub tests: Vec<ProposedTest>,
    /// What was looked at and left out, and why (one line each).
    pub notes: Vec<String>,
}

impl ProjectSetup {
    /// Reads the manifests and tool configuration at `root` (not below it).
    pub fn detect(root: &Path) -> ProjectSetup {
        let mut setup = ProjectSetup::default();
        python_project::propose(root, &mut setup);
        node_project::propose(root, &mut setup);
        cargo_project::propose(root, &mut setup);
        if setup.tests.len() > 1 {
            let all: Vec<String> = setup.tests.iter().map(ProposedTest::command_line).collect();
            setup.notes.push(format!(
                "{} test commands found ({}); the config holds one, so `{}` is written: to run them all, set checks.test.command to [\"sh\", \"-c\", \"{}\"]",
                all.len(),
                all.join(", "),
                all[0],
                all.join(" && ")
            ));
        }
        setup
    }

    /// The test command the config gets: the first one found.
    pub fn test(&self) -> Option<&ProposedTest> {
        self.tests.first()
    }

    /// True when nothing was found to propose.
    pub fn is_empty(&self) -> bool {
        self.detectors.is_empty() && self.tests.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text).unwrap_or_else(|e| panic!("{e}"));
        }
        dir
    }

    fn names(setup: &ProjectSetup) -> Vec<&str> {
        setup.detectors.iter().map(|d| d.name.as_str()).collect()
    }

    #[test]
    fn a_pyproject_with_pytest_options_gets_ruff_and_pytest() {
        let dir = project(&[(
            "pyproject.toml",
            "[project]\nname = \"x\"\n\n[tool.pytest.ini_options]\naddopts = \"-q\"\n",
        )]);
        let setup = ProjectSetup::detect(dir.path());
        assert_eq!(names(&setup), ["ruff"]);
        assert_eq!(setup.detectors[0].ok_exit_codes, [0, 1]);
        assert!(setup.detectors[0].reason.contains("default rules"));
        assert_eq!(
            setup.test().map(ProposedTest::command_line).as_deref(),
            Some("pytest -q")
        );
    }

    #[test]
    fn a_python_project_without_pytest_configuration_gets_no_test_command_and_says_so() {
        let dir = project(&[("ruff.toml", "line-length = 100\n")]);
        let setup = ProjectSetup::detect(dir.path());
        assert_eq!(names(&setup), ["ruff"]);
        assert_eq!(setup.detectors[0].reason, "ruff.toml configures Ruff");
        assert!(setup.test().is_none());
        assert!(
            setup.notes[0].contains("no pytest configuration"),
            "{:?}",
            setup.notes
        );
    }

    #[test]
    fn setup_cfg_with_a_pytest_section_gives_pytest() {
        let dir = project(&[("setup.cfg", "[metadata]\nname = x\n[tool:pytest]\n")]);
        let setup = ProjectSetup::detect(dir.path());
        assert_eq!(
            setup.test().map(|t| t.reason.as_str()),
            Some("setup.cfg configures pytest ([tool:pytest])")
        );
    }

    #[test]
    fn package_json_with_eslint_and_a_test_script_gets_eslint_and_npm_test() {
        let dir = project(&[(
            "package.json",
            r#"{"scripts": {"test": "node --test"}, "devDependencies": {"eslint": "^9"}}"#,
        )]);
        let setup = ProjectSetup::detect(dir.path());
        assert_eq!(names(&setup), ["eslint"]);
        assert_eq!(setup.detectors[0].ok_exit_codes, [0, 1]);
        assert_eq!(
            setup.test().map(ProposedTest::command_line).as_deref(),
            Some("npm test")
        );
        assert!(
            setup.notes.iter().any(|n| n.contains("npm install")),
            "{:?}",
            setup.notes
        );
    }

    #[test]
    fn npm_init_s_placeholder_test_script_is_not_a_test_command() {
        let dir = project(&[(
            "package.json",
            r#"{"scripts": {"test": "echo \"Error: no test specified\" && exit 1"}}"#,
        )]);
        let setup = ProjectSetup::detect(dir.path());
        assert!(setup.is_empty(), "{setup:?}");
        assert!(
            setup.notes.iter().any(|n| n.contains("no ESLint")),
            "{:?}",
            setup.notes
        );
        assert!(
            setup.notes.iter().any(|n| n.contains("placeholder")),
            "{:?}",
            setup.notes
        );
    }

    #[test]
    fn cargo_gets_clippy_with_exit_101_accepted_and_cargo_test() {
        let dir = project(&[("Cargo.toml", "[package]\nname = \"x\"\n")]);
        let setup = ProjectSetup::detect(dir.path());
        assert_eq!(names(&setup), ["clippy"]);
        assert_eq!(setup.detectors[0].ok_exit_codes, [0, 101]);
        assert_eq!(
            setup.test().map(ProposedTest::command_line).as_deref(),
            Some("cargo test")
        );
    }

    #[test]
    fn two_ecosystems_give_both_detectors_one_test_command_and_a_note_on_the_other() {
        let dir = project(&[
            ("Cargo.toml", "[package]\nname = \"x\"\n"),
            ("pyproject.toml", "[tool.pytest.ini_options]\n"),
        ]);
        let setup = ProjectSetup::detect(dir.path());
        assert_eq!(names(&setup), ["ruff", "clippy"]);
        assert_eq!(
            setup.test().map(ProposedTest::command_line).as_deref(),
            Some("pytest -q")
        );
        assert!(
            setup
                .notes
                .iter()
                .any(|n| n.contains("pytest -q && cargo test")),
            "{:?}",
            setup.notes
        );
    }

    #[test]
    fn an_empty_folder_proposes_nothing() {
        let dir = project(&[]);
        assert!(ProjectSetup::detect(dir.path()).is_empty());
    }
}
