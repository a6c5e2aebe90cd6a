//! `self-repair install` / `uninstall` through the binary.

use crate::harness::{TestProject, binary, filters};

/// A `PATH` whose first `self-repair` is the binary under test (a link in the project's `.bin/`).
fn path_with_binary(project: &TestProject) -> String {
    let dir = project.path().join(".bin");
    if !dir.join("self-repair").exists() {
        std::fs::create_dir_all(&dir).unwrap();
        std::os::unix::fs::symlink(binary(), dir.join("self-repair")).unwrap();
    }
    format!("{}:/usr/bin:/bin", dir.display())
}

/// Every file under the project (but the `.bin/` link) whose text holds `text`.
fn files_holding(project: &TestProject, text: &str) -> Vec<String> {
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(project.path(), &mut files);
    let mut holding: Vec<String> = files
        .iter()
        .filter(|path| !path.starts_with(project.path().join(".bin")))
        .filter(|path| std::fs::read_to_string(path).is_ok_and(|t| t.contains(text)))
        .map(|path| {
            path.strip_prefix(project.path())
                .unwrap()
                .display()
                .to_string()
        })
        .collect();
    holding.sort();
    holding
}

#[test]
fn install_project_writes_no_path_of_this_machine_into_a_file_a_team_commits() {
    let machine_paths = |project: &TestProject| {
        let mut found = files_holding(project, &project.path().display().to_string());
        found.extend(files_holding(
            project,
            &binary().canonicalize().unwrap().display().to_string(),
        ));
        found.sort();
        found.dedup();
        found
    };
    // The binary on PATH: `self-repair` in .claude/settings.json, no machine path anywhere.
    let on_path = TestProject::new();
    on_path
        .cmd(&["install", "--project"])
        .env("PATH", path_with_binary(&on_path))
        .run()
        .success();
    assert_eq!(machine_paths(&on_path), Vec::<String>::new());
    assert!(
        on_path
            .read(".claude/settings.json")
            .contains("\"command\": \"self-repair\"")
    );

    // Not on PATH: the absolute path goes to this machine's settings.local.json (and the
    // install's own record), never to the committed settings.json, agents or skill.
    let off_path = TestProject::new();
    let out = off_path
        .cmd(&["install", "--project"])
        .env("PATH", "/usr/bin:/bin")
        .run()
        .success();
    assert_eq!(
        machine_paths(&off_path),
        vec![
            ".claude/settings.local.json".to_owned(),
            ".self-repair/install.json".to_owned()
        ]
    );
    assert!(!off_path.path().join(".claude/settings.json").exists());
    assert!(
        out.stdout
            .contains(".claude/settings.local.json, this machine's own settings"),
        "{}",
        out.stdout
    );
    off_path
        .cmd(&["uninstall", "--project"])
        .env("PATH", "/usr/bin:/bin")
        .run()
        .success();
    assert!(!off_path.path().join(".claude").exists());
}

const BUSY: &str = r#"{
    "model": "opus",
    "permissions": {
        "allow": ["Bash(cargo test:*)", "Read(./src/**)"],
        "deny": ["Bash(rm -rf:*)"]
    },
    "hooks": {
        "Stop": [{"hooks": [{"type": "command", "command": "/usr/local/bin/notify-done", "timeout": 5}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}]
    },
    "env": {"FOO": "bar"}
}
"#;

#[test]
fn install_twice_then_uninstall_returns_a_busy_settings_file_byte_for_byte() {
    let project = TestProject::new();
    project.write(".claude/settings.json", BUSY);
    let path = path_with_binary(&project);
    let first = project
        .cmd(&["install", "--project"])
        .env("PATH", &path)
        .run()
        .success();
    let installed = project.read(".claude/settings.json");
    assert!(
        installed.contains("\"hook\"")
            && installed.contains("pre-tool-use")
            && !installed.contains("Bash(self-repair"),
        "{installed}"
    );
    assert!(
        installed.contains("\"command\": \"self-repair\""),
        "{installed}"
    );
    assert!(installed.contains("notify-done") && installed.contains("guard.sh"));
    assert!(
        project
            .path()
            .join(".claude/agents/triage-investigator.md")
            .is_file()
    );
    assert!(
        project
            .path()
            .join(".claude/skills/self-repair/SKILL.md")
            .is_file()
    );
    assert!(!first.stdout.is_empty());

    let second = project
        .cmd(&["install", "--project"])
        .env("PATH", &path)
        .run()
        .success();
    assert!(
        second.stdout.contains("already installed"),
        "{}",
        second.stdout
    );
    assert_eq!(
        project.read(".claude/settings.json"),
        installed,
        "the second install changed nothing"
    );

    project.cmd(&["uninstall", "--project"]).run().success();
    assert_eq!(project.read(".claude/settings.json"), BUSY);
    assert!(
        !project
            .path()
            .join(".claude/agents/triage-investigator.md")
            .exists()
    );
}

#[test]
fn a_corrupt_settings_file_is_left_untouched_with_a_non_zero_exit() {
    let project = TestProject::new();
    let corrupt = "{\"hooks\": {\"Stop\": [}\n";
    project.write(".claude/settings.json", corrupt);
    let out = project
        .cmd(&["install", "--project"])
        .env("PATH", path_with_binary(&project))
        .run();
    assert_ne!(out.code, 0);
    assert!(out.stderr.contains("settings.json"), "{}", out.stderr);
    assert_eq!(project.read(".claude/settings.json"), corrupt);
    assert!(!project.path().join(".claude/agents").exists());
}

#[test]
fn dry_run_prints_the_diff_and_writes_nothing() {
    let project = TestProject::new();
    let out = project
        .cmd(&["install", "--project", "--dry-run"])
        .env("PATH", path_with_binary(&project))
        .run()
        .success();
    assert!(!project.path().join(".claude").exists());
    // Nothing was written, and the lines say so.
    assert!(
        out.stdout.contains("would create .claude/settings.json\n")
            && !out.stdout.contains("\ncreated "),
        "{}",
        out.stdout
    );
    let mut settings = filters(&project);
    settings.add_filter(
        &crate::harness::regex_escape(&binary().canonicalize().unwrap().display().to_string()),
        "[BINARY]",
    );
    settings.bind(|| {
        let settings_part: String = out
            .stdout
            .split("\n+++ ")
            .find(|part| {
                part.starts_with(".claude/settings.json") || part.contains("settings.json\n")
            })
            .unwrap_or(&out.stdout)
            .to_owned();
        insta::assert_snapshot!("install_dry_run_settings", settings_part);
    });
    // Starting a run in an installed project uses the bare agent names.
    project.cmd(&["install", "--project"]).run().success();
    project.write("f.jsonl", &crate::harness::jsonl_findings(1));
    project
        .cmd(&["start", "f.jsonl", "--run-id", "r-i"])
        .run()
        .success();
    let shown = project
        .cmd(&["show", "t-00001", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(shown["agent"], "triage-investigator");
}

/// Every file under `dir`, relative, sorted, with its text.
fn files_under(dir: &std::path::Path) -> Vec<(String, String)> {
    fn walk(root: &std::path::Path, dir: &std::path::Path, out: &mut Vec<(String, String)>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let rel = path.strip_prefix(root).unwrap().display().to_string();
                out.push((rel, std::fs::read_to_string(&path).unwrap_or_default()));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// Claude Code reads the user's settings, agents and skills from `CLAUDE_CONFIG_DIR` when it is
/// set: `install --user` and `install --status-line` write there (they used to refuse), the
/// output names the files written, `~/.claude` is never made, and `uninstall` leaves the folder
/// byte for byte as it was.
#[test]
fn install_user_or_status_line_under_claude_config_dir_writes_there_and_uninstall_removes_exactly_that()
 {
    let project = TestProject::new();
    let config = project.path().join("elsewhere");
    project.write("elsewhere/settings.json", "{\n  \"model\": \"opus\"\n}\n");
    project.write("elsewhere/.claude.json", "{}\n");
    let before = files_under(&config);
    let mut outputs = Vec::new();
    for flag in ["--user", "--status-line"] {
        let out = project
            .terminal(&["install", flag])
            .env("CLAUDE_CONFIG_DIR", &config)
            .env("PATH", path_with_binary(&project))
            .run()
            .success();
        let settings: serde_json::Value =
            serde_json::from_str(&project.read("elsewhere/settings.json")).unwrap();
        assert!(
            settings["statusLine"]["command"]
                .as_str()
                .is_some_and(|command| command.ends_with("self-repair statusline")),
            "{flag}: {settings}"
        );
        assert_eq!(settings["model"], "opus", "{flag}");
        if flag == "--user" {
            assert!(config.join("agents/triage-investigator.md").is_file());
            assert!(config.join("skills/self-repair/SKILL.md").is_file());
            assert!(config.join("self-repair-install.json").is_file());
        } else {
            assert!(config.join("self-repair-status-line.json").is_file());
        }
        assert!(
            !project.path().join(".home/.claude").exists(),
            "{flag} made ~/.claude"
        );
        outputs.push(format!("$ self-repair install {flag}\n{}", out.stdout));
        let out = project
            .terminal(&["uninstall", flag])
            .env("CLAUDE_CONFIG_DIR", &config)
            .run()
            .success();
        outputs.push(format!("$ self-repair uninstall {flag}\n{}", out.stdout));
        assert_eq!(
            files_under(&config),
            before,
            "{flag}: uninstall left a change"
        );
        assert!(!project.path().join(".home/.claude").exists());
    }
    let mut settings = filters(&project);
    settings.add_filter(
        &crate::harness::regex_escape(&binary().canonicalize().unwrap().display().to_string()),
        "[BINARY]",
    );
    settings.bind(|| {
        insta::assert_snapshot!("install_under_claude_config_dir", outputs.join("\n"));
    });
}

/// `CLAUDE_CONFIG_DIR` set after an install into `~/.claude`: `uninstall` finds nothing in the
/// config folder, removes the install in `~/.claude` and says so; `install` into the config
/// folder says the one in `~/.claude` stays and the command that removes it.
#[test]
fn uninstall_under_claude_config_dir_removes_an_install_made_in_home_claude_before_it_was_set() {
    let project = TestProject::new();
    let config = project.path().join("elsewhere");
    std::fs::create_dir_all(&config).unwrap();
    project
        .terminal(&["install", "--status-line"])
        .run()
        .success();
    assert!(project.path().join(".home/.claude/settings.json").is_file());
    let out = project
        .terminal(&["install", "--status-line", "--dry-run"])
        .env("CLAUDE_CONFIG_DIR", &config)
        .run()
        .success();
    assert!(
        out.stdout
            .contains("`env -u CLAUDE_CONFIG_DIR self-repair uninstall --status-line` removes it"),
        "{}",
        out.stdout
    );
    let out = project
        .terminal(&["uninstall", "--status-line"])
        .env("CLAUDE_CONFIG_DIR", &config)
        .run()
        .success();
    assert!(
        out.stdout.contains("removing the install in ~/.claude")
            && out.stdout.contains("removed ~/.claude/settings.json"),
        "{}",
        out.stdout
    );
    assert_eq!(files_under(&project.path().join(".home")), Vec::new());
    assert_eq!(files_under(&config), Vec::new());
    // Without the variable and nothing in ~/.claude: where an install made under it would be.
    let out = project.terminal(&["uninstall", "--user"]).run().success();
    assert!(
        out.stdout.contains("no ~/.claude/self-repair-install.json")
            && out
                .stdout
                .contains("run this again with CLAUDE_CONFIG_DIR set to it"),
        "{}",
        out.stdout
    );
}

/// `uninstall` said it removed exactly what `install` added, and left the `.self-repair/`
/// team files `install` wrote. Unedited and alone in `.self-repair/`, they go (and the folder);
/// a store in use keeps them, and the output says which and why.
#[test]
fn uninstall_takes_the_team_files_install_wrote_unless_the_store_is_in_use() {
    let project = TestProject::new();
    std::fs::remove_dir_all(project.path().join(".git")).unwrap();
    crate::harness::git(project.path(), &["init", "-q"]);
    let path = path_with_binary(&project);
    let installed = project
        .cmd(&["install", "--project"])
        .env("PATH", &path)
        .run()
        .success()
        .stdout;
    assert!(
        installed.contains("wrote .self-repair/.gitignore"),
        "{installed}"
    );
    let dry = project
        .cmd(&["uninstall", "--project", "--dry-run"])
        .env("PATH", &path)
        .run()
        .success()
        .stdout;
    assert!(
        dry.contains("would remove .self-repair/.gitignore and .self-repair/.gitattributes"),
        "{dry}"
    );
    assert!(project.path().join(".self-repair/.gitignore").exists());
    let gone = project
        .cmd(&["uninstall", "--project"])
        .env("PATH", &path)
        .run()
        .success()
        .stdout;
    assert!(
        gone.contains("removed .self-repair/.gitignore and .self-repair/.gitattributes"),
        "{gone}"
    );
    assert!(!project.path().join(".self-repair").exists(), "{gone}");

    // A store in use: the files decide what of it git shares, so they stay.
    project
        .cmd(&["install", "--project"])
        .env("PATH", &path)
        .run()
        .success();
    project.write(".self-repair/known.json", "{\"schema_version\":2}\n");
    let kept = project
        .cmd(&["uninstall", "--project"])
        .env("PATH", &path)
        .run()
        .success()
        .stdout;
    assert!(
        kept.contains(
            "kept .self-repair/.gitignore and .self-repair/.gitattributes: .self-repair/ also \
             holds known.json"
        ),
        "{kept}"
    );
    assert!(project.path().join(".self-repair/.gitattributes").exists());
    assert!(!project.path().join(".self-repair/install.json").exists());

    // Nothing installed: the team files are `start`'s, and stay even alone.
    std::fs::remove_file(project.path().join(".self-repair/known.json")).unwrap();
    let nothing = project
        .cmd(&["uninstall", "--project"])
        .env("PATH", &path)
        .run()
        .success()
        .stdout;
    assert!(nothing.contains("not installed here"), "{nothing}");
    assert!(project.path().join(".self-repair/.gitignore").exists());
}
