//! `init`: `.self-repair/config.json`'s detectors and test command from what a small project
//! has (one per ecosystem), merged into a config the user wrote without losing a key, printed
//! with `--dry-run`; the config it writes is the one `detect` reads (`tests/cli/init_real_ruff.rs`
//! runs it with the real Ruff).

use serde_json::{Value, json};

use crate::harness::{TestProject, filters};
use self_repair_app::ExitStatus;

const CONFIG: &str = ".self-repair/config.json";

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
    let out = project.terminal(&["init"]).run().success();
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
    let out = project.terminal(&["init"]).run().success();
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
    let out = project.terminal(&["init"]).run().success();
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
    let out = project.terminal(&["init"]).run().success();
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
    let out = project.terminal(&["init"]).run().success();
    assert_eq!(project.read(CONFIG), before);
    assert!(out.stdout.contains("nothing written"), "{}", out.stdout);

    let out = project.terminal(&["init", "--force"]).run().success();
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
    let out = project.terminal(&["init", "--dry-run"]).run().success();
    assert!(!project.path().join(".self-repair").exists());
    assert!(
        out.stdout.contains(
            "--dry-run: nothing written; .self-repair/config.json would be (a new file):"
        ) && out
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
    let out = project.terminal(&["init"]).run().code(ExitStatus::Usage);
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
    let out = project
        .terminal(&["init", "--force"])
        .run()
        .code(ExitStatus::Usage);
    assert_eq!(project.read(CONFIG), broken);
    assert!(
        out.stderr.contains("config.json") && out.stderr.contains("argv"),
        "{}",
        out.stderr
    );
}
