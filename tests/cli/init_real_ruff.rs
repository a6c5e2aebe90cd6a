//! The config `init` writes, run by `detect` with the real Ruff (scripts/install-tools.sh
//! installs it): the detector block works end to end on a small real Python file. Compiled with
//! the feature `real-tools` only (scripts/e2e.sh runs it); a missing Ruff fails the test, it is
//! never skipped.

use std::path::Path;

use crate::export_multitool::installed;
use crate::harness::TestProject;

#[test]
fn the_ruff_detector_init_writes_runs_the_real_ruff_and_reads_its_findings() {
    let ruff = installed("RUFF_BIN");
    let bin_dir = ruff.parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let project = TestProject::new();
    project.write("pyproject.toml", "[project]\nname = \"shop\"\n");
    // F401 (unused import) and F841 (unused local variable): Ruff's default rules (E711 is not
    // one of them in 0.17.6).
    let source = "import os\n\n\ndef total(x):\n    rest = x - 1\n    return x\n";
    project.write("shop/cart.py", source);
    project.terminal(&["init"]).run().success();

    let out = project
        .terminal(&["detect"])
        .env("PATH", &path)
        .run()
        .success();
    assert!(
        out.stdout.starts_with("ruff: exit 1, ") && out.stdout.contains(" 2 finding(s) as ruff"),
        "{}",
        out.stdout
    );
    // `--no-fix`: the project's file is as it was.
    assert_eq!(project.read("shop/cart.py"), source);
    let saved = std::fs::read_dir(project.path().join(".self-repair/detect"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect::<Vec<_>>();
    assert!(!saved.is_empty(), "detect saved nothing");

    // The same findings start a run (`start --detect` runs the detectors again).
    let out = project
        .terminal(&["start", "--detect", "--dry-run"])
        .env("PATH", &path)
        .run()
        .success();
    assert!(out.stdout.contains("2 finding(s)"), "{}", out.stdout);
    assert!(Path::new(&ruff).is_file());
}

/// A monorepo's Python part, one folder down: the detector `init` writes for it (`ruff-py`,
/// `cwd: py`) runs the real Ruff there, and its findings are read with their paths under
/// `py/`, as files of the project.
#[test]
fn the_ruff_detector_init_writes_for_a_subfolder_runs_there_and_its_paths_are_the_project_s() {
    let ruff = installed("RUFF_BIN");
    let path = format!(
        "{}:{}",
        ruff.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let project = TestProject::new();
    project.write("py/pyproject.toml", "[project]\nname = \"shop\"\n");
    project.write(
        "py/shop/cart.py",
        "import os\n\n\ndef total(x):\n    return x\n",
    );
    project.write("README.md", "a monorepo\n");
    project
        .terminal(&["init"])
        .env("PATH", &path)
        .run()
        .success();
    let out = project
        .terminal(&["detect"])
        .env("PATH", &path)
        .run()
        .success();
    assert!(
        out.stdout.starts_with("ruff-py: exit 1, ") && out.stdout.contains(" 1 finding(s) as ruff"),
        "{}",
        out.stdout
    );
    project
        .terminal(&["start", "--detect", "--run-id", "r-mono"])
        .env("PATH", &path)
        .run()
        .success();
    let findings = project.read(".self-repair/runs/r-mono/findings.json");
    assert!(
        findings.contains("\"py/shop/cart.py\""),
        "{}",
        &findings[..findings.len().min(2000)]
    );
}
