//! `init`: `.self-repair/config.json`'s detectors and test command from what a small project
//! has (one per ecosystem), merged into a config the user wrote without losing a key, printed
//! with `--dry-run`; the config it writes is the one `detect` reads (`tests/cli/init_real_ruff.rs`
//! runs it with the real Ruff).

use serde_json::{Value, json};

use crate::harness::{TestProject, filters};
use self_repair_app::ExitStatus;

const CONFIG: &str = ".self-repair/config.json";

/// `self-repair init ARGS` from a terminal with a `PATH` holding only `programs` (empty
/// executables): what `init` finds installed does not depend on the machine.
fn init(project: &TestProject, args: &[&str], programs: &[&str]) -> crate::harness::Cmd {
    let bin = project.path().join(".bin");
    std::fs::create_dir_all(&bin).unwrap();
    for program in programs {
        let path = bin.join(program);
        std::fs::write(&path, "#!/bin/sh\n").unwrap();
        let mut mode = std::fs::metadata(&path).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut mode, 0o755);
        std::fs::set_permissions(&path, mode).unwrap();
    }
    let mut all = vec!["init"];
    all.extend(args);
    project.terminal(&all).env("PATH", &bin)
}

const PYTHON_TOOLS: [&str; 2] = ["ruff", "pytest"];

fn config(project: &TestProject) -> Value {
    serde_json::from_str(&project.read(CONFIG)).unwrap()
}

fn python_project() -> TestProject {
    let project = TestProject::new();
    project.write(
        "pyproject.toml",
        "[project]\nname = \"shop\"\n\n[tool.ruff]\nline-length = 100\n\n[tool.pytest.ini_options]\naddopts = \"-q\"\n",
    );
    project.write(
        "shop/cart.py",
        "import os\n\n\ndef total(x):\n    return x == None\n",
    );
    project
}

#[test]
fn init_writes_ruff_and_pytest_for_a_python_project() {
    let project = python_project();
    let out = init(&project, &[], &PYTHON_TOOLS).run().success();
    assert_eq!(
        config(&project),
        json!({"detectors": [{"name": "ruff", "argv": ["ruff", "check", "--no-fix", "--output-format", "json", "."],
                              "ok_exit_codes": [0, 1], "format": "ruff"}],
               "checks": {"test": {"command": ["pytest", "-q"]}}})
    );
    let settings = filters(&project);
    let _guard = settings.bind_to_scope();
    insta::assert_snapshot!("init_python", out.stdout);
    insta::assert_snapshot!("init_python_config", project.read(CONFIG));
}

#[test]
fn init_writes_eslint_and_npm_test_for_an_npm_project() {
    let project = TestProject::new();
    project.write(
        "package.json",
        r#"{"name": "web", "scripts": {"test": "node --test"}, "devDependencies": {"eslint": "^9.39.0"}}"#,
    );
    project.write(
        "eslint.config.mjs",
        "import js from \"@eslint/js\";\nexport default [js.configs.recommended];\n",
    );
    let out = init(&project, &[], &["npx", "npm"]).run().success();
    assert_eq!(
        config(&project)["detectors"],
        json!([{"name": "eslint", "argv": ["npx", "--no", "--", "eslint", "--format", "json", "."],
                "ok_exit_codes": [0, 1], "format": "eslint"}])
    );
    assert_eq!(
        config(&project)["checks"]["test"]["command"],
        json!(["npm", "test"])
    );
    let settings = filters(&project);
    let _guard = settings.bind_to_scope();
    insta::assert_snapshot!("init_npm", out.stdout);
}

#[test]
fn init_writes_clippy_and_cargo_test_for_a_cargo_project() {
    let project = TestProject::new();
    project.write(
        "Cargo.toml",
        "[package]\nname = \"calc\"\nversion = \"0.1.0\"\nedition = \"2024\"\n",
    );
    project.write("src/main.rs", "fn main() {}\n");
    let out = init(&project, &[], &["cargo"]).run().success();
    assert_eq!(
        config(&project),
        json!({"detectors": [{"name": "clippy", "argv": ["cargo", "clippy", "--all-targets", "--message-format=json"],
                              "ok_exit_codes": [0, 101], "format": "clippy"}],
               "checks": {"test": {"command": ["cargo", "test"]}}})
    );
    let settings = filters(&project);
    let _guard = settings.bind_to_scope();
    insta::assert_snapshot!("init_cargo", out.stdout);
}

#[test]
fn init_merges_into_the_user_s_config_keeping_every_key_and_force_replaces_only_its_own() {
    let project = python_project();
    let mine = r#"{"fan_out": 4,
 "detectors": [{"name": "vulture", "argv": ["vulture", "."], "ok_exit_codes": [0, 3]}],
 "checks": {"test": {"command": ["make", "test"], "retry": 2}}}
"#;
    project.write(CONFIG, mine);
    let out = init(&project, &[], &PYTHON_TOOLS).run().success();
    let merged = config(&project);
    assert_eq!(merged["fan_out"], 4);
    assert_eq!(merged["detectors"][0]["name"], "vulture");
    assert_eq!(merged["detectors"][1]["name"], "ruff");
    assert_eq!(
        merged["checks"]["test"],
        json!({"command": ["make", "test"], "retry": 2})
    );
    let settings = filters(&project);
    let _guard = settings.bind_to_scope();
    insta::assert_snapshot!("init_merge", out.stdout);

    // Run again: everything is there; nothing is written.
    let before = project.read(CONFIG);
    let out = init(&project, &[], &PYTHON_TOOLS).run().success();
    assert_eq!(project.read(CONFIG), before);
    assert!(out.stdout.contains("nothing written"), "{}", out.stdout);

    let out = init(&project, &["--force"], &PYTHON_TOOLS).run().success();
    let forced = config(&project);
    assert_eq!(forced["fan_out"], 4);
    assert_eq!(forced["detectors"][0]["name"], "vulture");
    assert_eq!(
        forced["checks"]["test"],
        json!({"command": ["pytest", "-q"], "retry": 2})
    );
    assert!(
        out.stdout.contains("replaced (--force): checks.test"),
        "{}",
        out.stdout
    );
}

#[test]
fn init_dry_run_prints_the_config_and_writes_nothing() {
    let project = python_project();
    let out = init(&project, &["--dry-run"], &PYTHON_TOOLS)
        .run()
        .success();
    assert!(!project.path().join(".self-repair").exists());
    assert!(
        out.stdout.contains("would add: detector `ruff`")
            && !out.stdout.contains("\nadded:")
            && out.stdout.contains(
                "--dry-run: nothing written; .self-repair/config.json would be (a new file):"
            )
            && out
                .stdout
                .contains("\"argv\": [\"ruff\", \"check\", \"--no-fix\""),
        "{}",
        out.stdout
    );
}

#[test]
fn init_with_no_manifest_exits_2_says_what_to_do_and_writes_nothing() {
    let project = TestProject::new();
    project.write("notes.txt", "hello\n");
    let out = init(&project, &[], &[]).run().code(ExitStatus::Usage);
    assert!(!project.path().join(".self-repair").exists());
    let settings = filters(&project);
    let _guard = settings.bind_to_scope();
    insta::assert_snapshot!("init_nothing_found", out.stderr);
}

#[test]
fn init_refuses_a_config_that_does_not_load_and_leaves_it_as_it_was() {
    let project = python_project();
    let broken = "{\"detectors\": [{\"name\": \"ruff\"}]}\n";
    project.write(CONFIG, broken);
    let out = init(&project, &["--force"], &PYTHON_TOOLS)
        .run()
        .code(ExitStatus::Usage);
    assert_eq!(project.read(CONFIG), broken);
    assert!(
        out.stderr.contains("config.json") && out.stderr.contains("argv"),
        "{}",
        out.stderr
    );
}

/// Found by a review: `init` wrote a `ruff` detector without a word while Ruff was not
/// installed, and `detect` then said "fix its argv".
#[test]
fn init_warns_with_the_install_command_when_a_tool_it_writes_is_not_on_path() {
    let project = python_project();
    let out = init(&project, &[], &["pytest"]).run().success();
    assert!(
        out.stdout.contains(
            "note: `ruff` is not on PATH: install it (`pip install ruff` or `uv tool install ruff`) before `self-repair detect`"
        ) && !out.stdout.contains("`pytest` is not on PATH"),
        "{}",
        out.stdout
    );
    // The config is written all the same; `detect` then names the install too.
    assert_eq!(config(&project)["detectors"][0]["name"], "ruff");
    let detect = project
        .terminal(&["detect"])
        .env("PATH", project.path().join(".bin"))
        .run()
        .code(ExitStatus::Usage);
    assert!(
        detect.stderr.contains(
            "detector `ruff`: cannot run `ruff`: command not found: install it (`pip install ruff` or `uv tool install ruff`), or put its folder on PATH"
        ),
        "{}",
        detect.stderr
    );
}

/// Found by a review on the bundled demo's layout: `init` read only the root, so a project
/// whose Python, npm and Cargo parts sit in subfolders got "found no pyproject.toml ...".
#[test]
fn init_reads_a_monorepo_s_subfolders_and_runs_each_detector_in_its_folder() {
    let project = TestProject::new();
    project.write(
        "py/pyproject.toml",
        "[project]\nname = \"shop\"\n\n[tool.pytest.ini_options]\n",
    );
    project.write("py/shop/cart.py", "import os\n");
    project.write(
        "rs/Cargo.toml",
        "[package]\nname = \"calc\"\nversion = \"0.1.0\"\nedition = \"2024\"\n",
    );
    project.write("rs/src/main.rs", "fn main() {}\n");
    let out = init(&project, &[], &["ruff", "pytest", "cargo"])
        .run()
        .success();
    let written = config(&project);
    assert_eq!(
        written["detectors"],
        json!([{"name": "ruff-py", "argv": ["ruff", "check", "--no-fix", "--output-format", "json", "."],
                "cwd": "py", "ok_exit_codes": [0, 1], "format": "ruff"},
               {"name": "clippy-rs", "argv": ["cargo", "clippy", "--all-targets", "--message-format=json"],
                "cwd": "rs", "ok_exit_codes": [0, 101], "format": "clippy"}])
    );
    assert_eq!(
        written["checks"]["test"]["command"],
        json!(["sh", "-c", "cd py && pytest -q"])
    );
    let settings = filters(&project);
    let _guard = settings.bind_to_scope();
    insta::assert_snapshot!("init_monorepo", out.stdout);
}

/// Found by a review: with a package.json that gave nothing (no `ESLint`, npm's placeholder
/// test), `init` said it found no package.json.
#[test]
fn init_on_a_package_json_that_gives_nothing_says_why_not_that_there_is_none() {
    let project = TestProject::new();
    project.write(
        "package.json",
        r#"{"name": "x", "scripts": {"test": "echo \"Error: no test specified\" && exit 1"}}"#,
    );
    let out = init(&project, &[], &[]).run().code(ExitStatus::Usage);
    assert!(
        out.stderr
            .contains("found no detector or test command to propose")
            && !out.stderr.contains("package.json or Cargo.toml")
            && out.stderr.contains("note: package.json: no ESLint"),
        "{}",
        out.stderr
    );
}
