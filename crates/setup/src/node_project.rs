//! An npm project (package.json): `ESLint` as its detector when the project uses `ESLint`, and
//! `npm test` when package.json has a real test script.

use std::path::Path;

use serde_json::Value;

use crate::project_setup::ProjectSetup;
use crate::proposed_detector::detector;
use crate::proposed_test::ProposedTest;

/// `ESLint`'s configuration files (flat config first, then the legacy ones).
const ESLINT_CONFIGS: [&str; 12] = [
    "eslint.config.js",
    "eslint.config.mjs",
    "eslint.config.cjs",
    "eslint.config.ts",
    "eslint.config.mts",
    "eslint.config.cts",
    ".eslintrc.js",
    ".eslintrc.cjs",
    ".eslintrc.json",
    ".eslintrc.yml",
    ".eslintrc.yaml",
    ".eslintrc",
];

/// The test script `npm init` writes: it always fails.
const NPM_INIT_TEST: &str = "no test specified";

/// Adds `ESLint` and `npm test` when `root` holds an npm project that has them.
pub(crate) fn propose(root: &Path, setup: &mut ProjectSetup) {
    let path = root.join("package.json");
    if !path.is_file() {
        return;
    }
    let package: Value = match std::fs::read_to_string(&path)
        .map_err(|e| e.to_string())
        .and_then(|text| serde_json::from_str(&text).map_err(|e| e.to_string()))
    {
        Ok(package) => package,
        Err(e) => {
            setup.notes.push(format!(
                "package.json does not read ({e}): nothing proposed for it; fix it and run init again"
            ));
            return;
        }
    };
    match eslint_evidence(root, &package) {
        Some(reason) => {
            setup.detectors.push(detector(
                "eslint",
                // `npx --no`: run the project's own ESLint, never download one.
                &["npx", "--no", "--", "eslint", "--format", "json", "."],
                &[0, 1],
                "eslint",
                reason,
                "0 no errors (warnings only), 1 errors; 2 (no configuration, a crash) stays an error",
            ));
            if !root.join("node_modules/.bin/eslint").exists() {
                setup.notes.push(
                    "node_modules/.bin/eslint is missing: run `npm install` before `self-repair detect` (npx --no does not download it)".to_owned(),
                );
            }
        }
        None => setup.notes.push(
            "package.json: no ESLint (no eslint.config.js or .eslintrc, no eslint dependency): no JavaScript detector; add ESLint (`npm init @eslint/config`) and run init again".to_owned(),
        ),
    }
    let script = package["scripts"]["test"].as_str().unwrap_or_default();
    if script.trim().is_empty() {
        setup
            .notes
            .push("package.json has no `test` script: no npm test command".to_owned());
    } else if script.contains(NPM_INIT_TEST) {
        setup.notes.push(
            "package.json's `test` script is npm init's placeholder (it always fails): no npm test command".to_owned(),
        );
    } else {
        setup.tests.push(ProposedTest::new(
            &["npm", "test"],
            format!("package.json's `test` script: {script}"),
        ));
    }
}

/// Why the project uses `ESLint`: its configuration file, `eslintConfig`, or the dependency.
fn eslint_evidence(root: &Path, package: &Value) -> Option<String> {
    if let Some(file) = ESLINT_CONFIGS.iter().find(|f| root.join(f).is_file()) {
        return Some(format!("{file} configures ESLint"));
    }
    if package.get("eslintConfig").is_some() {
        return Some("package.json configures ESLint (eslintConfig)".to_owned());
    }
    ["devDependencies", "dependencies"]
        .iter()
        .find(|section| package[section].get("eslint").is_some())
        .map(|section| format!("package.json's {section} has eslint"))
}
