//! The plugin's hook launcher (`hooks/self-repair-hook.sh`) and what a session start says about
//! the installation: no binary, a plugin and binary of different versions.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::harness::{TestProject, binary, filters};
use self_repair_test_support::Bounded;

const EVENTS: [&str; 5] = [
    "stop",
    "stop-failure",
    "session-start",
    "pre-tool-use",
    "post-tool-use",
];

fn launcher() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("plugin/hooks/self-repair-hook.sh")
}

/// The launcher as hooks/hooks.json runs it: `sh LAUNCHER EVENT`, hook input on stdin.
fn launch(event: &str, stdin: &str, path: &str, home: &Path, plugin_root: &Path) -> Outcome {
    let mut command = Command::new("/bin/sh");
    command
        .arg(launcher())
        .arg(event)
        .env_clear()
        .env("PATH", path)
        .env("HOME", home)
        .env("CLAUDE_PLUGIN_ROOT", plugin_root)
        .env("SELF_REPAIR_NOW", "1700000000")
        .current_dir(home);
    let out = Bounded::new(command).stdin(stdin).run();
    assert!(!out.timed_out, "the launcher ran past its limit");
    Outcome {
        code: out.code.unwrap_or(-1),
        stdout: out.stdout_text(),
        stderr: out.stderr_text(),
    }
}

struct Outcome {
    code: i32,
    stdout: String,
    stderr: String,
}

fn session_start(source: &str) -> String {
    format!(r#"{{"session_id":"s1","hook_event_name":"SessionStart","source":"{source}"}}"#)
}

/// A plugin folder whose manifest says `version`.
fn plugin_of_version(project: &TestProject, version: &str) -> PathBuf {
    project.write(
        "plugin/.claude-plugin/plugin.json",
        &format!(r#"{{"name": "self-repair", "version": "{version}"}}"#),
    );
    project.path().join("plugin")
}

/// A folder holding only a `self-repair` link to the binary under test.
fn bin_dir_with_binary(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    std::os::unix::fs::symlink(binary(), dir.join("self-repair")).unwrap();
    dir.to_path_buf()
}

#[test]
fn the_plugin_without_the_binary_says_once_at_session_start_how_to_install_it() {
    let project = TestProject::new();
    let home = project.path().join("empty-home");
    std::fs::create_dir_all(&home).unwrap();
    let plugin = plugin_of_version(&project, env!("CARGO_PKG_VERSION"));
    // A PATH without self-repair, as an IDE-launched client has without ~/.cargo/bin.
    let path = "/usr/bin:/bin";
    assert!(!Path::new("/usr/bin/self-repair").exists() && !Path::new("/bin/self-repair").exists());

    let started = launch(
        "session-start",
        &session_start("startup"),
        path,
        &home,
        &plugin,
    );
    assert_eq!((started.code, started.stderr.as_str()), (0, ""));
    let answer: Value = serde_json::from_str(&started.stdout).unwrap();
    let message = answer["systemMessage"].as_str().unwrap();
    filters(&project).bind(|| {
        insta::assert_snapshot!("launcher_without_binary_session_start", started.stdout);
    });
    for named in [
        "cargo install --locked --path .",
        "https://github.com/self-repair/self-repair",
        "on the PATH Claude Code starts with",
        "start a new session",
        "self-repair doctor",
    ] {
        assert!(message.contains(named), "{named}: {message}");
    }
    assert_eq!(
        answer["hookSpecificOutput"]["hookEventName"],
        "SessionStart"
    );
    assert!(
        answer["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .contains("do not try to run it")
    );

    // Every other event, and the session start after a compaction: no output, no error.
    let stop = r#"{"session_id":"s1","hook_event_name":"Stop","stop_hook_active":false}"#;
    for event in EVENTS.iter().filter(|e| **e != "session-start") {
        let quiet = launch(event, stop, path, &home, &plugin);
        assert_eq!(
            (quiet.code, quiet.stdout.as_str(), quiet.stderr.as_str()),
            (0, "", ""),
            "{event}"
        );
    }
    let compact = launch(
        "session-start",
        &session_start("compact"),
        path,
        &home,
        &plugin,
    );
    assert_eq!((compact.code, compact.stdout.as_str()), (0, ""));
}

#[test]
fn the_launcher_runs_the_binary_from_path_else_from_the_user_bin_folders() {
    let project = TestProject::new();
    // A plugin of another version: the binary's session start says so, which shows it ran.
    let plugin = plugin_of_version(&project, "0.0.0-other");
    let on_path = bin_dir_with_binary(&project.path().join("on-path"));
    let home = project.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let from_path = launch(
        "session-start",
        &session_start("startup"),
        &format!("{}:/usr/bin:/bin", on_path.display()),
        &home,
        &plugin,
    );
    assert!(
        from_path.stdout.contains("plugin is version 0.0.0-other"),
        "{}",
        from_path.stdout
    );

    for user_bin in [".local/bin", ".cargo/bin"] {
        let home = project
            .path()
            .join(format!("home-{}", user_bin.replace('/', "-")));
        bin_dir_with_binary(&home.join(user_bin));
        let from_home = launch(
            "session-start",
            &session_start("startup"),
            "/usr/bin:/bin",
            &home,
            &plugin,
        );
        assert!(
            from_home.stdout.contains("plugin is version 0.0.0-other"),
            "{user_bin}: {} {}",
            from_home.stdout,
            from_home.stderr
        );
    }
}

#[test]
fn the_session_start_warns_when_the_launcher_found_the_binary_only_in_a_fallback_folder() {
    let project = TestProject::new();
    let plugin = plugin_of_version(&project, env!("CARGO_PKG_VERSION"));
    let home = project.path().join("home");
    let cargo_bin = bin_dir_with_binary(&home.join(".cargo/bin"));
    let started = launch(
        "session-start",
        &session_start("startup"),
        "/usr/bin:/bin",
        &home,
        &plugin,
    );
    assert_eq!(started.code, 0, "{}", started.stderr);
    let answer: Value = serde_json::from_str(&started.stdout).unwrap();
    let message = answer["systemMessage"].as_str().unwrap();
    assert!(
        message.contains(&format!(
            "found the self-repair program only in {}, which is not on the PATH",
            cargo_bin.display()
        )),
        "{message}"
    );
    assert!(
        message.contains(&format!(
            "Put {} on the PATH Claude Code starts with",
            cargo_bin.display()
        )),
        "{message}"
    );
    // Not after a compaction, and not when the binary is on PATH.
    let compact = launch(
        "session-start",
        &session_start("compact"),
        "/usr/bin:/bin",
        &home,
        &plugin,
    );
    assert!(!compact.stdout.contains("only in"), "{}", compact.stdout);
    let on_path = launch(
        "session-start",
        &session_start("startup"),
        &format!("{}:/usr/bin:/bin", cargo_bin.display()),
        &home,
        &plugin,
    );
    assert!(!on_path.stdout.contains("only in"), "{}", on_path.stdout);
}

#[test]
fn a_plugin_of_another_version_than_the_binary_gets_one_message_at_session_start() {
    let project = TestProject::new();
    let plugin = plugin_of_version(&project, "9.0.0");
    let hook = |source: &str| {
        project
            .cmd(&["hook", "session-start"])
            .env("CLAUDE_PLUGIN_ROOT", &plugin)
            .env("AI_AGENT", "claude-code_2-1-330_harness")
            .stdin(session_start(source))
            .run()
            .success()
    };
    let started = hook("startup");
    let answer: Value = serde_json::from_str(&started.stdout).unwrap();
    let message = answer["systemMessage"].as_str().unwrap();
    let mut settings = filters(&project);
    settings.add_filter(env!("CARGO_PKG_VERSION"), "[VERSION]");
    settings.bind(|| insta::assert_snapshot!("session_start_version_mismatch", message));
    assert_eq!(message.matches("self-repair:").count(), 1, "{message}");
    assert!(
        message.contains(&format!(
            "the plugin is version 9.0.0 but the self-repair program is {}",
            env!("CARGO_PKG_VERSION")
        )),
        "{message}"
    );
    assert_eq!(hook("compact").stdout, "");

    // The same version: nothing.
    let same = plugin_of_version(&project, env!("CARGO_PKG_VERSION"));
    let quiet = project
        .cmd(&["hook", "session-start"])
        .env("CLAUDE_PLUGIN_ROOT", &same)
        .env("AI_AGENT", "claude-code_2-1-332_harness")
        .stdin(session_start("startup"))
        .run()
        .success();
    assert_eq!(quiet.stdout, "");
}

#[test]
fn a_client_outside_the_tested_range_gets_one_message_at_session_start() {
    let project = TestProject::new();
    let hook = |agent: &str, source: &str| {
        project
            .cmd(&["hook", "session-start"])
            .env("AI_AGENT", agent)
            .stdin(session_start(source))
            .run()
            .success()
            .stdout
    };
    let newer = hook("claude-code_2-1-340_harness", "startup");
    let answer: Value = serde_json::from_str(&newer).unwrap();
    let message = answer["systemMessage"].as_str().unwrap();
    filters(&project).bind(|| {
        insta::assert_snapshot!("session_start_client_outside_tested_range", newer);
    });
    assert!(
        message.starts_with("self-repair: Claude Code 2.1.340 is outside the versions"),
        "{message}"
    );
    assert_eq!(hook("claude-code_2-1-340_harness", "compact"), "");
    assert_eq!(hook("claude-code_2-1-331_harness", "startup"), "");
}
