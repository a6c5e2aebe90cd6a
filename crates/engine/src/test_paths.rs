//! Which files are test code: the documented, configurable path rule (`test_paths`,
//! reference/config.md) applied in code, never left to a model's reading of a path. A security
//! finding in a file the rule names is out of scope (unless `security_in_scope` has `tests`) and
//! is settled without an agent; an agent's "out of scope: test code" answer stands only for a
//! file the rule names.

/// The default `test_paths`: test folders and the test-file names of the common test runners.
/// A folder such as `testing/`, `testutils/` or `fixtures/` is not among them: projects ship
/// production code under such names.
pub const DEFAULT_TEST_PATHS: [&str; 17] = [
    "tests/",
    "test/",
    "__tests__/",
    "test_*.py",
    "*_test.py",
    "conftest.py",
    "*_test.go",
    "*.test.js",
    "*.test.jsx",
    "*.test.ts",
    "*.test.tsx",
    "*.spec.js",
    "*.spec.jsx",
    "*.spec.ts",
    "*.spec.tsx",
    "*_spec.rb",
    "*Test.java",
];

/// Most patterns `test_paths` may hold.
pub const MOST_TEST_PATHS: usize = 100;

/// The first of `patterns` that puts `path` (project-relative, `/`-separated) in test code, or
/// `None`. A pattern ending in `/` names a folder: `tests/` any folder of that name, at any depth;
/// `src/it/` that path of folders from the project root. A pattern without `/` names a file,
/// in any folder (`test_*.py`). Any other pattern is matched against the whole path from the
/// root, `**` standing for any number of folders (`pkg/**/fixtures/*.py`). `*` matches within
/// one name, `?` one character.
pub fn test_code_pattern<'p>(patterns: &'p [String], path: &str) -> Option<&'p str> {
    let path = path.trim_start_matches("./");
    let names: Vec<&str> = path.split('/').filter(|n| !n.is_empty()).collect();
    patterns
        .iter()
        .map(String::as_str)
        .find(|pattern| matches_path(pattern, &names))
}

/// Whether the path's `names` (folders, then the file) match one pattern.
fn matches_path(pattern: &str, names: &[&str]) -> bool {
    let Some((file, folders)) = names.split_last() else {
        return false;
    };
    if let Some(folder) = pattern.strip_suffix('/') {
        let parts: Vec<&str> = folder.split('/').filter(|p| !p.is_empty()).collect();
        if parts.is_empty() {
            return false;
        }
        if parts.len() == 1 {
            return folders.iter().any(|f| matches_name(parts[0], f));
        }
        // A path of folders from the root, then anything below it.
        return (0..=folders.len()).any(|end| matches_names(&parts, &folders[..end]));
    }
    if !pattern.contains('/') {
        return matches_name(pattern, file);
    }
    let parts: Vec<&str> = pattern.split('/').filter(|p| !p.is_empty()).collect();
    matches_names(&parts, names)
}

/// Whether `names` match `parts` one to one, `**` standing for any number of names.
fn matches_names(parts: &[&str], names: &[&str]) -> bool {
    match parts.split_first() {
        None => names.is_empty(),
        Some((&"**", rest)) => (0..=names.len()).any(|skip| matches_names(rest, &names[skip..])),
        Some((part, rest)) => names
            .split_first()
            .is_some_and(|(name, others)| matches_name(part, name) && matches_names(rest, others)),
    }
}

/// Whether one name matches one pattern of `*` (any characters) and `?` (one character).
fn matches_name(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    // The classic two-pointer wildcard match with one backtrack point: linear in practice.
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == n[ni]) {
            pi += 1;
            ni += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ni));
            pi += 1;
        } else if let Some((sp, sn)) = star {
            pi = sp + 1;
            ni = sn + 1;
            star = Some((sp, sn + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// Whether a dismissal's `reason` claims the finding is out of scope as test code: it starts
/// with "out of scope:" (as the security template asks) and names tests, fixtures or mocks.
pub fn claims_test_code(reason: &str) -> bool {
    let reason = reason.trim_start().to_ascii_lowercase();
    let Some(rest) = reason.strip_prefix("out of scope") else {
        return false;
    };
    ["test", "fixture", "mock"]
        .iter()
        .any(|word| rest.contains(word))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defaults() -> Vec<String> {
        DEFAULT_TEST_PATHS.iter().map(|p| (*p).to_owned()).collect()
    }

    #[test]
    fn default_test_paths_known_answers() {
        let rule = defaults();
        for (path, expected) in [
            ("tests/test_login.py", Some("tests/")),
            ("pkg/tests/helpers.py", Some("tests/")),
            ("src/test/java/AppTest.java", Some("test/")),
            ("web/__tests__/app.js", Some("__tests__/")),
            ("app/test_views.py", Some("test_*.py")),
            ("app/views_test.py", Some("*_test.py")),
            ("conftest.py", Some("conftest.py")),
            ("server/handler_test.go", Some("*_test.go")),
            ("ui/button.test.tsx", Some("*.test.tsx")),
            ("ui/button.spec.ts", Some("*.spec.ts")),
            ("spec/models/user_spec.rb", Some("*_spec.rb")),
            ("src/main/java/LoginTest.java", Some("*Test.java")),
            // Production code under test-like names: the review's `testing/loader.py`.
            ("testing/loader.py", None),
            ("testutils/server.py", None),
            ("app/fixtures/seed.py", None),
            ("mock_server.py", None),
            ("app/web.py", None),
            ("app/contest.py", None),
            ("app/latest/views.py", None),
            ("tests", None),
        ] {
            assert_eq!(test_code_pattern(&rule, path), expected, "{path}");
        }
    }

    #[test]
    fn configured_test_paths_known_answers() {
        let rule: Vec<String> = ["testing/", "src/it/", "pkg/**/fixtures/*.py", "*.feature"]
            .iter()
            .map(|p| (*p).to_owned())
            .collect();
        for (path, expected) in [
            ("testing/loader.py", Some("testing/")),
            ("lib/testing/x.py", Some("testing/")),
            ("src/it/deep/Case.java", Some("src/it/")),
            ("other/src/it/Case.java", None),
            ("pkg/fixtures/a.py", Some("pkg/**/fixtures/*.py")),
            ("pkg/a/b/fixtures/a.py", Some("pkg/**/fixtures/*.py")),
            ("pkg/a/b/fixtures/a.txt", None),
            ("login.feature", Some("*.feature")),
            ("tests/test_login.py", None),
        ] {
            assert_eq!(test_code_pattern(&rule, path), expected, "{path}");
        }
        assert_eq!(test_code_pattern(&[], "tests/a.py"), None);
    }

    #[test]
    fn wildcards_match_within_one_name() {
        assert!(matches_name("test_*.py", "test_.py"));
        assert!(matches_name("*_test.go", "a_b_test.go"));
        assert!(matches_name("a?c", "abc"));
        assert!(!matches_name("a?c", "ac"));
        assert!(matches_name("*", ""));
        assert!(!matches_name("test_*.py", "test_a.pyc"));
        assert!(matches_name("**", "anything"));
    }

    #[test]
    fn out_of_scope_test_code_claims_are_recognised() {
        for claim in [
            "out of scope: test code (tests/)",
            "Out of scope: a test fixture",
            "  out of scope - mock server used by tests",
        ] {
            assert!(claims_test_code(claim), "{claim}");
        }
        for other in [
            "out of scope: denial of service",
            "the test of the value is done above: out of scope",
            "parameterized query; not a test",
        ] {
            assert!(!claims_test_code(other), "{other}");
        }
    }
}
