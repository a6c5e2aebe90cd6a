//! `self-repair doctor` checks the setup, with or without a run: a healthy one all `✓`, and each
//! of the commonest broken setups one `✗` line naming its fix. Every setup is built in the test's
//! own folder (a fake home with the client's files as Claude Code 2.1.330 writes them, a `PATH`
//! of links and scripts); nothing of the machine's own client is read.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::harness::{Outcome, TestProject, binary, filters, git};
use self_repair_app::ExitStatus;

const VERSION: &str = env!("CARGO_PKG_VERSION");

/// A project with everything doctor checks in place: git with a commit, the plugin installed
/// and enabled, trust accepted, and on its `PATH` only self-repair, git, a `claude` of the
/// tested range, `backlog` and the configured detector.
struct Setup {
    project: TestProject,
}

impl Setup {
    fn healthy() -> Setup {
        let project = TestProject::new();
        std::fs::remove_dir(project.path().join(".git")).unwrap();
        project.write("README.md", "a project\n");
        git(project.path(), &["init", "-q"]);
        git(project.path(), &["add", "README.md"]);
        git(project.path(), &["commit", "-q", "-m", "first"]);
        project.write(
            ".self-repair/config.json",
            r#"{"detectors": [{"name": "ruff", "argv": ["ruff", "check", "--output-format", "json", "."]}]}"#,
        );
        let setup = Setup { project };
        std::os::unix::fs::symlink(binary(), setup.bin().join("self-repair")).unwrap();
        std::os::unix::fs::symlink(which("git"), setup.bin().join("git")).unwrap();
        setup.script("claude", "echo '2.1.331 (Claude Code)'");
        setup.script("backlog", "echo 1.52.0");
        setup.script("ruff", "echo '[]'");
        setup.plugin(VERSION);
        setup.trust(true);
        setup
    }

    fn home(&self) -> PathBuf {
        self.project.path().join(".home")
    }

    /// The folder that is the whole `PATH`.
    fn bin(&self) -> PathBuf {
        let bin = self.project.path().join(".home/test-bin");
        std::fs::create_dir_all(&bin).unwrap();
        bin
    }

    /// An executable `sh` script on the `PATH`.
    fn script(&self, name: &str, body: &str) {
        use std::os::unix::fs::PermissionsExt as _;
        let path = self.bin().join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// `claude plugin install self-repair@self-repair` of `version`, enabled in the user's
    /// settings: the two files the client writes.
    fn plugin(&self, version: &str) {
        let claude = self.home().join(".claude");
        let record = json!({"version": 2, "plugins": {"self-repair@self-repair": [{
            "scope": "user",
            "installPath": claude.join("plugins/cache/self-repair/self-repair").join(version),
            "version": version,
            "installedAt": "2026-11-29T08:44:40.306Z",
            "lastUpdated": "2026-11-29T08:44:40.306Z",
        }]}});
        write_json(&claude.join("plugins/installed_plugins.json"), &record);
        write_json(
            &claude.join("settings.json"),
            &json!({"enabledPlugins": {"self-repair@self-repair": true}}),
        );
    }

    /// The client's config, the project's trust dialog accepted or not.
    fn trust(&self, accepted: bool) {
        let mut projects = serde_json::Map::new();
        if accepted {
            projects.insert(
                self.project.path().display().to_string(),
                json!({"hasTrustDialogAccepted": true}),
            );
        }
        projects.insert(
            "/somewhere/else".to_owned(),
            json!({"hasTrustDialogAccepted": true}),
        );
        write_json(
            &self.home().join(".claude.json"),
            &json!({"numStartups": 3, "projects": projects}),
        );
    }

    fn doctor(&self, flags: &[&str]) -> Outcome {
        let mut command = vec!["doctor"];
        command.extend_from_slice(flags);
        self.project
            .terminal(&command)
            .env("PATH", self.bin())
            .run()
    }
}

fn write_json(path: &Path, value: &Value) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, format!("{value:#}\n")).unwrap();
}

/// `name` on the test's own `PATH`.
fn which(name: &str) -> PathBuf {
    std::env::split_paths(&std::env::var_os("PATH").unwrap())
        .map(|dir| dir.join(name))
        .find(|path| path.is_file())
        .unwrap_or_else(|| panic!("{name} is not on PATH"))
}

/// The `✗` lines of doctor's text, each with the `fix:` line under it.
fn failures(stdout: &str) -> Vec<String> {
    let lines: Vec<&str> = stdout.lines().collect();
    lines
        .iter()
        .enumerate()
        .filter(|(_, line)| line.trim_start().starts_with('✗'))
        .map(|(i, line)| {
            format!(
                "{}\n{}",
                line.trim(),
                lines.get(i + 1).unwrap_or(&"").trim()
            )
        })
        .collect()
}

/// Doctor on `setup` fails with one `✗` line, holding every one of `said`.
#[track_caller]
fn one_failure(setup: &Setup, said: &[&str]) -> String {
    let out = setup.doctor(&[]).code(ExitStatus::SetupIncomplete);
    let failed = failures(&out.stdout);
    assert_eq!(failed.len(), 1, "{}", out.stdout);
    for words in said {
        assert!(failed[0].contains(words), "{words}: {}", failed[0]);
    }
    assert!(failed[0].contains("\nfix: "), "{}", failed[0]);
    failed[0].clone()
}

#[test]
fn doctor_on_a_healthy_setup_prints_every_check_passed() {
    let setup = Setup::healthy();
    let out = setup.doctor(&[]).success();
    assert!(failures(&out.stdout).is_empty(), "{}", out.stdout);
    for check in [
        format!("✓ self-repair {VERSION} on PATH"),
        "✓ built in the clone ".to_owned(),
        "upgrade: `git pull` in ".to_owned(),
        "then `claude plugin marketplace update self-repair`".to_owned(),
        "✓ hooks registered by the plugin self-repair@self-repair (installed, enabled)".to_owned(),
        format!("✓ plugin {VERSION}, program {VERSION}"),
        "✓ Claude Code 2.1.331 (tested: 2.1.330 to 2.1.332)".to_owned(),
        "✓ the project is trusted".to_owned(),
        "✓ a git work tree with commits".to_owned(),
        "✓ backlog CLI on PATH".to_owned(),
        "✓ detector ruff: ruff found".to_owned(),
        "every check of the setup passed".to_owned(),
    ] {
        assert!(out.stdout.contains(&check), "{check}: {}", out.stdout);
    }
    let mut settings = filters(&setup.project);
    settings.add_filter(&regex_escape_version(), "[VERSION]");
    settings.add_filter(r"HEAD [0-9a-f]{7,}", "HEAD [COMMIT]");
    // The test binary's clone (the checkout under test, wherever it is).
    settings.add_filter(r"the clone [^;]+;", "the clone [CLONE];");
    settings.add_filter(r"`git pull` in [^,]+,", "`git pull` in [CLONE],");
    settings.bind(|| insta::assert_snapshot!("doctor_setup_healthy", out.stdout));

    let json = setup.doctor(&["--json"]).success().json();
    assert_eq!(json["schema_version"], 1);
    assert_eq!(json["healthy"], true);
    let checks = json["setup"].as_array().unwrap();
    let names: Vec<&str> = checks
        .iter()
        .map(|c| c["check"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "binary",
            "install",
            "hooks",
            "plugin_version",
            "client",
            "trust",
            "git",
            "backlog",
            "detector"
        ]
    );
    assert!(checks.iter().all(|c| c["outcome"] == "ok"), "{json:#}");
    // No run yet: the runs' part says so.
    assert_eq!(json["runs"]["lines"], json!([]));
}

#[test]
fn doctor_names_the_installer_and_its_upgrade_when_its_receipt_names_the_binary_on_path() {
    let setup = Setup::healthy();
    let on_path = setup.bin().join("self-repair");
    write_json(
        &setup
            .home()
            .join(".config/self-repair/install-receipt.json"),
        &json!({
            "installed_by": "self-repair-installer.sh",
            "version": VERSION,
            "binary": on_path.display().to_string(),
            "source": "http://127.0.0.1:9/v0.1.0",
        }),
    );
    let json = setup.doctor(&["--json"]).success().json();
    let install = json["setup"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "install")
        .unwrap()
        .clone();
    let found = install["found"].as_str().unwrap();
    assert_eq!(install["outcome"], "ok", "{install:#}");
    for said in [
        format!("installed by self-repair-installer.sh (version {VERSION}, from http://127.0.0.1:9/v0.1.0)"),
        "upgrade: `curl -LsSf https://github.com/self-repair/self-repair/releases/latest/download/self-repair-installer.sh | sh`".to_owned(),
    ] {
        assert!(found.contains(&said), "{said}: {found}");
    }

    // A receipt of another binary (an old install elsewhere) does not name this one.
    write_json(
        &setup
            .home()
            .join(".config/self-repair/install-receipt.json"),
        &json!({"installed_by": "self-repair-installer.sh", "version": VERSION,
                "binary": "/elsewhere/self-repair", "source": "s"}),
    );
    let out = setup.doctor(&[]).success();
    assert!(
        !out.stdout.contains("installed by self-repair-installer.sh"),
        "{}",
        out.stdout
    );
}

#[test]
fn doctor_names_the_fix_when_the_binary_is_only_where_the_launcher_falls_back() {
    let setup = Setup::healthy();
    std::fs::remove_file(setup.bin().join("self-repair")).unwrap();
    let cargo_bin = setup.home().join(".cargo/bin");
    std::fs::create_dir_all(&cargo_bin).unwrap();
    std::os::unix::fs::symlink(binary(), cargo_bin.join("self-repair")).unwrap();
    one_failure(
        &setup,
        &[
            "self-repair is not on PATH",
            "the agents call `self-repair` by name",
            &format!(
                "fix: put {} on the PATH Claude Code starts with",
                cargo_bin.display()
            ),
        ],
    );

    // Nowhere at all: how to install it.
    std::fs::remove_file(cargo_bin.join("self-repair")).unwrap();
    one_failure(
        &setup,
        &[
            "self-repair is not on PATH, nor in ~/.local/bin or ~/.cargo/bin",
            "`cargo install --locked --path .`",
        ],
    );
}

#[test]
fn doctor_names_the_fix_when_no_hooks_are_registered() {
    let setup = Setup::healthy();
    std::fs::remove_dir_all(setup.home().join(".claude")).unwrap();
    one_failure(
        &setup,
        &[
            "no hooks registered",
            "fix: in the project, `self-repair install --project`",
            "claude plugin install self-repair@self-repair",
        ],
    );

    // `install --project` registers them in the project's settings: that counts.
    setup
        .project
        .terminal(&["install", "--project"])
        .env("PATH", setup.bin())
        .run()
        .success();
    let out = setup.doctor(&[]).success();
    assert!(
        out.stdout
            .contains("✓ hooks registered by `self-repair install` in"),
        "{}",
        out.stdout
    );
    // And with the plugin enabled too, every hook would run twice.
    setup.plugin(VERSION);
    one_failure(&setup, &["hooks registered twice", "fix: keep one"]);
}

#[test]
fn doctor_names_the_fix_for_a_plugin_of_another_version() {
    let setup = Setup::healthy();
    setup.plugin("0.0.1");
    one_failure(
        &setup,
        &[
            &format!("the plugin is version 0.0.1 but the program is {VERSION}"),
            "fix: bring the older one up to date: `claude plugin update self-repair@self-repair`",
        ],
    );
}

#[test]
fn doctor_names_the_fix_for_a_client_outside_the_tested_range() {
    let setup = Setup::healthy();
    setup.script("claude", "echo '2.1.340 (Claude Code)'");
    one_failure(
        &setup,
        &[
            "Claude Code 2.1.340 is outside the tested versions, 2.1.330 to 2.1.332",
            "fix: install a tested one: `npm install -g @anthropic-ai/claude-code@2.1.332`",
        ],
    );
    // No claude on PATH: said, not failed.
    std::fs::remove_file(setup.bin().join("claude")).unwrap();
    let out = setup.doctor(&[]).success();
    assert!(
        out.stdout
            .contains("- claude not found on PATH: the client's version not checked"),
        "{}",
        out.stdout
    );
}

#[test]
fn doctor_names_the_fix_for_an_untrusted_project() {
    let setup = Setup::healthy();
    setup.trust(false);
    one_failure(
        &setup,
        &[
            "is not trusted in the client's config",
            "fix: start `claude` in",
            "accept its trust dialog",
        ],
    );
    // The client's files under CLAUDE_CONFIG_DIR, as the client reads them when it is set.
    let config_dir = setup.project.path().join(".home/elsewhere");
    std::fs::rename(setup.home().join(".claude"), &config_dir).unwrap();
    write_json(
        &config_dir.join(".claude.json"),
        &json!({"projects": {setup.project.path().display().to_string(): {"hasTrustDialogAccepted": true}}}),
    );
    setup
        .project
        .terminal(&["doctor"])
        .env("PATH", setup.bin())
        .env("CLAUDE_CONFIG_DIR", &config_dir)
        .run()
        .success();
}

#[test]
fn doctor_with_no_run_checks_the_setup_instead_of_failing_on_the_missing_run() {
    let setup = Setup::healthy();
    std::fs::remove_dir_all(setup.project.path().join(".self-repair")).unwrap();
    std::fs::remove_file(setup.bin().join("backlog")).unwrap();
    let out = setup.doctor(&[]).code(ExitStatus::SetupIncomplete);
    assert!(
        out.stdout.contains("no self-repair project here"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("fix: `npm install -g backlog.md`"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("- no detectors configured") && out.stdout.contains("self-repair init"),
        "{}",
        out.stdout
    );
    let json = setup
        .doctor(&["--json"])
        .code(ExitStatus::SetupIncomplete)
        .json();
    assert_eq!(
        (json["healthy"].clone(), json["runs"].clone()),
        (json!(false), Value::Null)
    );
    let backlog = json["setup"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "backlog")
        .unwrap();
    assert_eq!(backlog["outcome"], "fail");
    assert_eq!(backlog["fix"], "`npm install -g backlog.md`");
}

#[test]
fn doctor_names_a_detector_that_is_not_installed() {
    let setup = Setup::healthy();
    std::fs::remove_file(setup.bin().join("ruff")).unwrap();
    one_failure(
        &setup,
        &[
            "detector ruff: `ruff` not found on PATH",
            "fix: install ruff",
        ],
    );
}

fn regex_escape_version() -> String {
    crate::harness::regex_escape(VERSION)
}
