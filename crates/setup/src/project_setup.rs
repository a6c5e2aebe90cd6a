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

/// One ecosystem's reader: proposes what the folder it is given holds (its manifests read
/// there, not below).
type Reader = fn(&Path, &mut ProjectSetup);

/// The ecosystems, in the order their detectors are proposed.
const READERS: [Reader; 3] = [
    python_project::propose,
    node_project::propose,
    cargo_project::propose,
];

/// Folders never read for manifests: dependencies, build outputs, environments, our own.
const SKIPPED_FOLDERS: [&str; 9] = [
    "node_modules",
    "target",
    "venv",
    "env",
    "__pycache__",
    "dist",
    "build",
    "vendor",
    "backlog",
];

impl ProjectSetup {
    /// Reads the manifests and tool configuration at `root`; for an ecosystem whose detector
    /// the root does not give (no manifest there, or a package.json without `ESLint`), the
    /// folders one and two levels down (a monorepo's `py/`, a workspace's `packages/web/`),
    /// each proposal then running in its folder (`cwd`).
    pub fn detect(root: &Path) -> ProjectSetup {
        let folders = subfolders(root);
        let mut setup = ProjectSetup::default();
        for read in READERS {
            let mut at_root = ProjectSetup::default();
            read(root, &mut at_root);
            if !at_root.detectors.is_empty() {
                setup.absorb(at_root, "");
                continue;
            }
            let mut below = ProjectSetup::default();
            let mut taken: Vec<&str> = Vec::new();
            for folder in &folders {
                if taken.iter().any(|t| folder.starts_with(&format!("{t}/"))) {
                    continue;
                }
                let mut found = ProjectSetup::default();
                read(&root.join(folder), &mut found);
                if !found.detectors.is_empty() {
                    taken.push(folder);
                    below.absorb(found, folder);
                }
            }
            if below.detectors.is_empty() {
                setup.absorb(at_root, "");
            } else {
                // The root's test command stays (a workspace's `npm test`); its note that it
                // has no detector does not.
                at_root.notes.clear();
                setup.absorb(at_root, "");
                setup.absorb(below, "");
            }
        }
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

    /// Adds what was found in `folder` (`""`: the root), each detector and test command made
    /// to run there and each reason and note naming it.
    fn absorb(&mut self, found: ProjectSetup, folder: &str) {
        let named = |text: String| {
            if folder.is_empty() {
                text
            } else {
                format!("{folder}/: {text}")
            }
        };
        for mut detector in found.detectors {
            detector.reason = named(detector.reason);
            self.detectors.push(detector.in_folder(folder));
        }
        for mut test in found.tests {
            test.reason = named(test.reason);
            self.tests.push(test.in_folder(folder));
        }
        self.notes.extend(found.notes.into_iter().map(named));
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

/// The folders one and two levels below `root` a manifest may sit in, relative, sorted:
/// neither hidden nor a dependency or build folder, and named plainly (letters, digits, `.`,
/// `_`, `-`), so a test command can `cd` there without quoting.
fn subfolders(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for first in plain_folders(root) {
        let seconds = plain_folders(&root.join(&first));
        out.push(first.clone());
        out.extend(
            seconds
                .into_iter()
                .map(|second| format!("{first}/{second}")),
        );
    }
    out
}

/// The plain subfolders of `dir` (see [`subfolders`]), sorted.
fn plain_folders(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
        .filter(|name| {
            !name.starts_with('.')
                && !SKIPPED_FOLDERS.contains(&name.as_str())
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        })
        .collect();
    names.sort();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        for (name, text) in files {
            let path = dir.path().join(name);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
            }
            std::fs::write(path, text).unwrap_or_else(|e| panic!("{e}"));
        }
        dir
    }

    /// Found with the bundled demo's layout (py/, js/, rs/): `init` read the root only and
    /// proposed nothing for a monorepo.
    #[test]
    fn a_monorepo_s_subfolders_get_their_detectors_each_run_in_its_folder() {
        let dir = project(&[
            ("py/pyproject.toml", "[tool.pytest.ini_options]\n"),
            (
                "js/package.json",
                r#"{"devDependencies": {"eslint": "^9"}}"#,
            ),
            ("rs/Cargo.toml", "[workspace]\nmembers = [\"crates/*\"]\n"),
            ("rs/crates/core/Cargo.toml", "[package]\nname = \"core\"\n"),
            (
                "js/node_modules/left-pad/package.json",
                r#"{"eslintConfig": {}}"#,
            ),
            (".venv/pyproject.toml", ""),
        ]);
        let setup = ProjectSetup::detect(dir.path());
        assert_eq!(names(&setup), ["ruff-py", "eslint-js", "clippy-rs"]);
        let ruff = setup.detectors[0].to_json();
        assert_eq!(ruff["cwd"], "py", "{ruff}");
        assert!(setup.detectors[0].reason.starts_with("py/: "), "{setup:?}");
        assert_eq!(
            setup.test().map(|t| t.command.clone()),
            Some(vec![
                "sh".to_owned(),
                "-c".to_owned(),
                "cd py && pytest -q".to_owned()
            ])
        );
        assert!(
            setup
                .notes
                .iter()
                .any(|n| n.contains("(cd py && pytest -q) && (cd rs && cargo test)")),
            "{:?}",
            setup.notes
        );
    }

    #[test]
    fn a_workspace_root_without_eslint_gets_its_members_eslint_and_keeps_its_own_tests() {
        let dir = project(&[
            (
                "package.json",
                r#"{"workspaces": ["packages/*"], "scripts": {"test": "vitest run"}}"#,
            ),
            ("packages/web/package.json", "{}"),
            ("packages/web/eslint.config.js", "export default [];\n"),
            ("packages/api/package.json", "{}"),
        ]);
        let setup = ProjectSetup::detect(dir.path());
        assert_eq!(names(&setup), ["eslint-packages-web"]);
        assert_eq!(setup.detectors[0].cwd.as_deref(), Some("packages/web"));
        assert_eq!(
            setup.test().map(ProposedTest::command_line).as_deref(),
            Some("npm test")
        );
        assert!(
            !setup
                .notes
                .iter()
                .any(|n| n.starts_with("package.json: no ESLint")),
            "{:?}",
            setup.notes
        );
    }

    #[test]
    fn a_root_python_project_covers_its_subfolders() {
        let dir = project(&[
            ("pyproject.toml", "[project]\n"),
            ("tools/pyproject.toml", "[project]\n"),
        ]);
        assert_eq!(names(&ProjectSetup::detect(dir.path())), ["ruff"]);
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
