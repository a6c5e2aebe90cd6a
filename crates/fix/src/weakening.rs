//! The guard against a fix that weakens the check instead of fixing the code: a test file
//! edited or deleted (or a `conftest.py` added), an analyzer's configuration edited, or an
//! inline suppression added. A new test module is allowed: it adds checks.

use crate::{ChangeKind, ChangedFile};

/// Comments and attributes that silence an analyzer for one line, block or file. Matched
/// case-insensitively in the lines a fix added; a file gaining more of one than it lost is a
/// suppression (a reformatted line that keeps its `# noqa` is not).
const SUPPRESSIONS: [&str; 17] = [
    "# noqa",
    "#noqa",
    "# ruff: noqa",
    "# type: ignore",
    "# pyright: ignore",
    "# pragma: no cover",
    "# pylint: disable",
    "# pylint:disable",
    "# nosec",
    "#[allow(",
    "#![allow(",
    "#[expect(",
    "#![expect(",
    "eslint-disable",
    "@ts-ignore",
    "@ts-expect-error",
    "@ts-nocheck",
];

/// Files that only configure an analyzer (or a vulture whitelist).
const CONFIG_FILES: [&str; 17] = [
    "ruff.toml",
    ".ruff.toml",
    ".flake8",
    ".pylintrc",
    "pylintrc",
    "mypy.ini",
    ".mypy.ini",
    "pyrightconfig.json",
    ".bandit",
    "clippy.toml",
    ".clippy.toml",
    ".eslintignore",
    "knip.json",
    "knip.jsonc",
    ".knip.json",
    "whitelist.py",
    "vulture_whitelist.py",
];

/// Files that configure many things, analyzers and test runners among them: a change there is
/// a weakening when a changed line mentions one of [`SHARED_CONFIG_WORDS`].
const SHARED_CONFIG_FILES: [&str; 6] = [
    "pyproject.toml",
    "setup.cfg",
    "tox.ini",
    "Cargo.toml",
    "package.json",
    "pytest.ini",
];

const SHARED_CONFIG_WORDS: [&str; 22] = [
    "ruff",
    "flake8",
    "pylint",
    "mypy",
    "pyright",
    "vulture",
    "bandit",
    "eslint",
    "knip",
    "clippy",
    "lints",
    "ignore",
    "exclude",
    "select",
    "disable",
    "allow",
    "noqa",
    "per-file",
    "addopts",
    "deselect",
    "testpaths",
    "python_files",
];

/// One way a fix weakened the check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Weakening {
    pub path: String,
    pub reason: String,
}

/// Every weakening among `changed`. With `config_allowed` (the group's decided fix is a
/// configuration change), analyzer configuration and suppressions are the fix itself; test
/// files are never.
pub fn find_weakenings(changed: &[ChangedFile], config_allowed: bool) -> Vec<Weakening> {
    let mut found = Vec::new();
    for file in changed {
        let name = file.path.rsplit('/').next().unwrap_or(&file.path);
        let reason = if is_test_file(&file.path) {
            match file.kind {
                ChangeKind::Deleted => Some("test file deleted".to_owned()),
                ChangeKind::Modified => Some("test file edited".to_owned()),
                // A new test module adds checks and cannot change how the others run; a new
                // conftest.py can (collection hooks, fixtures overriding the project's).
                ChangeKind::Added if name == "conftest.py" => {
                    Some("conftest.py added (it can change how every test runs)".to_owned())
                }
                ChangeKind::Added => None,
            }
        } else if config_allowed {
            None
        } else if is_analyzer_config(&file.path) {
            Some("analyzer configuration edited".to_owned())
        } else if is_shared_config(&file.path) {
            shared_config_change(file)
        } else {
            added_suppression(file)
        };
        if let Some(reason) = reason {
            found.push(Weakening {
                path: file.path.clone(),
                reason,
            });
        }
    }
    found
}

/// A test file by the conventions of pytest, unittest, Go, Jest/Vitest/Mocha, `RSpec` and
/// Cargo: under a `tests`/`test`/`__tests__`/`spec` folder, or named `test_*.py`, `*_test.*`,
/// `*.test.*`, `*.spec.*`, `*_spec.rb`, `conftest.py`.
pub fn is_test_file(path: &str) -> bool {
    let mut parts = path.split('/').collect::<Vec<_>>();
    let name = parts.pop().unwrap_or_default();
    if parts
        .iter()
        .any(|p| matches!(*p, "tests" | "test" | "__tests__" | "spec" | "testing"))
    {
        return true;
    }
    let stem = name.split('.').next().unwrap_or_default();
    name == "conftest.py"
        || (name.starts_with("test_")
            && std::path::Path::new(name)
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("py")))
        || stem.ends_with("_test")
        || stem.ends_with("_spec")
        || name.contains(".test.")
        || name.contains(".spec.")
}

/// A file that only configures an analyzer (`ruff.toml`, `.eslintrc.json`, `eslint.config.js`,
/// a vulture whitelist, ...).
pub fn is_analyzer_config(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    CONFIG_FILES.contains(&name)
        || name.starts_with(".eslintrc")
        || name.starts_with("eslint.config.")
        || name.ends_with("_whitelist.py")
}

fn is_shared_config(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    SHARED_CONFIG_FILES.contains(&name)
}

fn shared_config_change(file: &ChangedFile) -> Option<String> {
    let line = file.added.iter().chain(&file.removed).find(|line| {
        let lower = line.to_ascii_lowercase();
        SHARED_CONFIG_WORDS.iter().any(|w| lower.contains(w))
    })?;
    Some(format!(
        "analyzer or test configuration edited: `{}`",
        one_line(line)
    ))
}

fn added_suppression(file: &ChangedFile) -> Option<String> {
    let count = |lines: &[String], marker: &str| {
        lines
            .iter()
            .filter(|l| l.to_ascii_lowercase().contains(marker))
            .count()
    };
    SUPPRESSIONS.iter().find_map(|marker| {
        (count(&file.added, marker) > count(&file.removed, marker)).then(|| {
            let line = file
                .added
                .iter()
                .find(|l| l.to_ascii_lowercase().contains(marker))
                .map(|l| one_line(l))
                .unwrap_or_default();
            format!("inline suppression added (`{}`): `{line}`", marker.trim())
        })
    })
}

fn one_line(line: &str) -> String {
    let trimmed = line.trim();
    if trimmed.chars().count() > 100 {
        format!("{}…", trimmed.chars().take(100).collect::<String>())
    } else {
        trimmed.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quoted_line_is_trimmed_and_cut_past_100_characters() {
        let hundred = "é".repeat(100);
        // (line, as quoted)
        let cases = [
            (format!("  {hundred}  "), hundred.clone()),
            (format!("{hundred}x"), format!("{hundred}…")),
            ("  x = 1 # noqa ".to_owned(), "x = 1 # noqa".to_owned()),
        ];
        for (line, quoted) in cases {
            assert_eq!(one_line(&line), quoted, "{line}");
        }
    }

    fn changed(path: &str, kind: ChangeKind, added: &[&str], removed: &[&str]) -> ChangedFile {
        ChangedFile {
            path: path.to_owned(),
            kind,
            added: added.iter().map(|s| (*s).to_owned()).collect(),
            removed: removed.iter().map(|s| (*s).to_owned()).collect(),
        }
    }

    #[test]
    fn deleting_the_failing_test_is_a_weakening_even_when_config_changes_are_allowed() {
        let files = [changed(
            "tests/test_mod.py",
            ChangeKind::Deleted,
            &[],
            &["def test_used(): assert used(None)"],
        )];
        for allowed in [false, true] {
            assert_eq!(
                find_weakenings(&files, allowed),
                [Weakening {
                    path: "tests/test_mod.py".to_owned(),
                    reason: "test file deleted".to_owned()
                }]
            );
        }
    }

    #[test]
    fn adding_the_rule_to_the_ignore_list_is_a_weakening_unless_the_fix_is_that_change() {
        let files = [changed(
            "pyproject.toml",
            ChangeKind::Modified,
            &["ignore = [\"F401\"]"],
            &[],
        )];
        let found = find_weakenings(&files, false);
        assert_eq!(found.len(), 1);
        assert_eq!(
            found[0].reason,
            "analyzer or test configuration edited: `ignore = [\"F401\"]`"
        );
        assert!(find_weakenings(&files, true).is_empty());
        let ruff = [changed("ruff.toml", ChangeKind::Added, &["[lint]"], &[])];
        assert_eq!(
            find_weakenings(&ruff, false)[0].reason,
            "analyzer configuration edited"
        );
    }

    #[test]
    fn a_new_test_module_is_not_a_weakening_but_a_new_conftest_is() {
        let new_test = [changed(
            "tests/test_none.py",
            ChangeKind::Added,
            &["def test_none(): assert used(None)"],
            &[],
        )];
        assert!(find_weakenings(&new_test, false).is_empty());
        let conftest = [changed(
            "tests/conftest.py",
            ChangeKind::Added,
            &["collect_ignore = ['test_mod.py']"],
            &[],
        )];
        assert_eq!(
            find_weakenings(&conftest, true)[0].reason,
            "conftest.py added (it can change how every test runs)"
        );
    }

    #[test]
    fn a_version_bump_in_pyproject_is_not_a_weakening() {
        let files = [changed(
            "pyproject.toml",
            ChangeKind::Modified,
            &["version = \"0.2.0\""],
            &["version = \"0.1.0\""],
        )];
        assert!(find_weakenings(&files, false).is_empty());
    }

    #[test]
    fn inline_suppressions_count_only_when_the_fix_adds_them() {
        for (line, marker) in [
            ("import os  # noqa: F401", "# noqa"),
            ("x = f()  # type: ignore[arg-type]", "# type: ignore"),
            ("def dead():  # pragma: no cover", "# pragma: no cover"),
            ("#[allow(dead_code)]", "#[allow("),
            (
                "// eslint-disable-next-line no-unused-vars",
                "eslint-disable",
            ),
        ] {
            let found = find_weakenings(
                &[changed("src/mod.py", ChangeKind::Modified, &[line], &[])],
                false,
            );
            assert_eq!(
                found[0].reason,
                format!("inline suppression added (`{marker}`): `{line}`"),
                "{line}"
            );
        }
        let kept = [changed(
            "src/mod.py",
            ChangeKind::Modified,
            &["import os, sys  # noqa: F401"],
            &["import os  # noqa: F401"],
        )];
        assert!(find_weakenings(&kept, false).is_empty());
    }

    #[test]
    fn test_files_are_recognised_by_the_usual_conventions() {
        for path in [
            "tests/test_mod.py",
            "pkg/test_mod.py",
            "pkg/mod_test.go",
            "src/app.test.ts",
            "src/app.spec.js",
            "conftest.py",
            "crates/x/tests/cli.rs",
        ] {
            assert!(is_test_file(path), "{path}");
        }
        for path in [
            "pkg/mod.py",
            "src/contest.py",
            "src/latest.rs",
            "testament.md",
        ] {
            assert!(!is_test_file(path), "{path}");
        }
    }
}
