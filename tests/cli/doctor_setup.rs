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
        "✓ the client's settings parse (1 file(s) read)".to_owned(),
        "✓ hooks registered by the plugin self-repair@self-repair (installed, enabled)".to_owned(),
        format!("✓ plugin {VERSION}, program {VERSION}"),
        "✓ Claude Code 2.1.331 (tested: 2.1.330 to 2.1.337)".to_owned(),
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
            "settings",
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
            "Claude Code 2.1.340 is outside the tested versions, 2.1.330 to 2.1.337",
            "fix: install a tested one: `npm install -g @anthropic-ai/claude-code@2.1.337`",
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

#[test]
fn doctor_names_the_fix_for_a_disabled_plugin() {
    let setup = Setup::healthy();
    write_json(
        &setup.home().join(".claude/settings.json"),
        &json!({"enabledPlugins": {"self-repair@self-repair": false}}),
    );
    one_failure(
        &setup,
        &[
            "the plugin self-repair@self-repair is installed but not enabled",
            "fix: `claude plugin enable self-repair@self-repair`",
        ],
    );
}

#[test]
fn doctor_names_the_fix_for_a_repository_without_a_commit() {
    let setup = Setup::healthy();
    std::fs::remove_dir_all(setup.project.path().join(".git")).unwrap();
    git(setup.project.path(), &["init", "-q"]);
    one_failure(
        &setup,
        &["a git work tree with no commit yet", "fix: commit once"],
    );
}

/// The marketplace the plugin was added from, as `claude plugin marketplace add DIR` records
/// it (Claude Code 2.1.332).
fn marketplace_from(setup: &Setup, dir: &Path) {
    write_json(
        &setup.home().join(".claude/plugins/known_marketplaces.json"),
        &json!({"self-repair": {"source": {"source": "directory", "path": dir},
            "installLocation": dir, "lastUpdated": "2026-12-07T01:15:39.565Z"}}),
    );
}

/// Review top 10 #5: the clone moved; `claude plugin list` says "failed to load ... cache-miss"
/// while doctor said "✓ hooks registered by the plugin". Asked of the client's files (no
/// client that answers `plugin list`).
#[test]
fn doctor_says_the_plugin_fails_to_load_when_its_clone_moved() {
    let setup = Setup::healthy();
    let clone = setup.project.path().join(".home/clone");
    std::fs::create_dir_all(&clone).unwrap();
    marketplace_from(&setup, &clone);
    setup.doctor(&[]).success();
    std::fs::rename(&clone, setup.project.path().join(".home/moved")).unwrap();
    let failed = one_failure(
        &setup,
        &[
            "the client fails to load it",
            &format!("{}, which no longer exists", clone.display()),
            "fix: the clone it was added from",
            "`claude plugin marketplace remove self-repair`, then `claude plugin marketplace add \
             PATH-TO-YOUR-CLONE` and `claude plugin install self-repair@self-repair`",
        ],
    );
    assert!(!failed.contains("✓ hooks registered"), "{failed}");
}

/// The same, asked of the client itself: `claude plugin list --json` as 2.1.332 prints it for
/// a moved clone.
#[test]
fn doctor_asks_the_client_whether_the_plugin_loads() {
    let setup = Setup::healthy();
    let listed = json!([{"id": "self-repair@self-repair", "version": VERSION, "scope": "user",
        "enabled": true, "errors": ["Marketplace self-repair failed to load: cache-miss"],
        "errorDetails": [{"type": "marketplace-load-failed", "marketplace": "self-repair"}]}]);
    setup.script(
        "claude",
        &format!(
            "if [ \"$1\" = plugin ]; then echo '{listed}'; else echo '2.1.331 (Claude Code)'; fi"
        ),
    );
    one_failure(
        &setup,
        &[
            "`claude plugin list` says: Marketplace self-repair failed to load: cache-miss",
            "fix: install it again",
        ],
    );
}

/// Review top 10 #5: an invalid `.claude/settings.json` got "fix: `self-repair install
/// --project`", which refuses the file.
#[test]
fn doctor_names_a_fix_that_works_for_an_invalid_settings_file() {
    let setup = Setup::healthy();
    setup
        .project
        .write(".claude/settings.json", "{\"hooks\": {\n");
    let failed = one_failure(
        &setup,
        &[
            ".claude/settings.json is not valid JSON",
            "fix: correct",
            "at line 2 column 0",
            "or move it aside",
        ],
    );
    assert!(!failed.contains("install --project"), "{failed}");
    // The fix works: moved aside, doctor passes again.
    let file = setup.project.path().join(".claude/settings.json");
    std::fs::rename(&file, file.with_extension("json.bad")).unwrap();
    setup.doctor(&[]).success();
}

/// Review top 10 #5: a deleted agent file went unnoticed though `install` recorded its sha256.
#[test]
fn doctor_names_an_installed_file_deleted_since_and_install_puts_it_back() {
    let setup = Setup::healthy();
    std::fs::remove_dir_all(setup.home().join(".claude")).unwrap();
    let install = || {
        setup
            .project
            .terminal(&["install", "--project"])
            .env("PATH", setup.bin())
            .run()
            .success()
    };
    install();
    let out = setup.doctor(&[]).success();
    assert!(
        out.stdout
            .contains("files `self-repair install --project` wrote are in place"),
        "{}",
        out.stdout
    );
    std::fs::remove_file(setup.project.path().join(".claude/agents/fixer.md")).unwrap();
    one_failure(
        &setup,
        &[
            "are gone (.claude/agents/fixer.md)",
            "fix: `self-repair install --project`: it writes them again",
        ],
    );
    install();
    setup.doctor(&[]).success();
}

/// Review: plugin and program are both "0.1.0" on every commit, so "the same version" could not
/// catch a `git pull` without a rebuild. The commit tells them apart.
#[test]
fn doctor_tells_a_plugin_of_another_commit_from_this_program() {
    let setup = Setup::healthy();
    let record = setup.home().join(".claude/plugins/installed_plugins.json");
    let mut value: Value =
        serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    value["plugins"]["self-repair@self-repair"][0]["gitCommitSha"] =
        json!("0000000aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    write_json(&record, &value);
    let version = std::process::Command::new(binary())
        .arg("--version")
        .output()
        .unwrap();
    let version = String::from_utf8_lossy(&version.stdout);
    // The tests run from the clone, so the build knows its commit (build.rs).
    assert!(version.contains('('), "{version}");
    one_failure(
        &setup,
        &[
            "the plugin is commit 0000000 and the program commit",
            &format!("(both version {VERSION})"),
            "fix: build the program from the plugin's clone",
        ],
    );
}
