//! `self-repair install` / `uninstall` through the binary.

use crate::harness::{TestProject, binary, filters};

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
    let first = project.cmd(&["install", "--project"]).run().success();
    let installed = project.read(".claude/settings.json");
    assert!(
        installed.contains("\"hook\"")
            && installed.contains("pre-tool-use")
            && !installed.contains("Bash(self-repair"),
        "{installed}"
    );
    assert!(installed.contains(&binary().canonicalize().unwrap().display().to_string()));
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

    let second = project.cmd(&["install", "--project"]).run().success();
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
    let out = project.cmd(&["install", "--project"]).run();
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
        .run()
        .success();
    assert!(!project.path().join(".claude").exists());
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
