//! What a session start says about the plugin's installation, on the real client: with no
//! `self-repair` anywhere the launcher looks (an IDE-launched client without `~/.cargo/bin` on
//! PATH), one message naming the install command and no hook error at any later event (design
//! note 40); with a plugin of another version than the binary, one message saying so (note 41).

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::e2e::claude_run::ClaudeOptions;
use crate::e2e::e2e_error::E2eError;
use crate::e2e::e2e_project::{E2eProject, InstallMode};
use crate::e2e::scenarios::ScenarioContext;
use crate::mock_server::MockServer;
use crate::scenario::Scenario;

/// What the one message must name.
const INSTALL_COMMAND: &str = "cargo install --locked --path .";

/// The transcript of `session` under the scenario's `CLAUDE_CONFIG_DIR`.
fn transcript_of(config: &Path, session: &str) -> Option<PathBuf> {
    let projects = config.join("projects");
    fs::read_dir(&projects)
        .ok()?
        .filter_map(Result::ok)
        .map(|dir| dir.path().join(format!("{session}.jsonl")))
        .find(|path| path.is_file())
}

/// The `attachment.type` of every transcript row that has one, with its row.
fn attachments(transcript: &Path) -> Result<Vec<(String, Value)>, E2eError> {
    let text = fs::read_to_string(transcript).map_err(E2eError::io(transcript))?;
    Ok(text
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter_map(|row| {
            let kind = row.pointer("/attachment/type")?.as_str()?.to_owned();
            Some((kind, row))
        })
        .collect())
}

pub(crate) fn without_binary(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let project = E2eProject::new(&ctx.tools, "plugin-without-binary", InstallMode::Plugin, 2)?;
    let link = project.root().join("bin/self-repair");
    fs::remove_file(&link).map_err(E2eError::io(&link))?;
    // The client and the system's tools only: no inherited PATH that might hold a self-repair.
    let claude_dir = ctx.tools.claude.parent().unwrap_or(Path::new("/"));
    let path = format!("{}:/usr/bin:/bin", claude_dir.display());
    for dir in std::env::split_paths(&path) {
        ctx.checks.that(!dir.join("self-repair").exists(), || {
            format!(
                "{} holds a self-repair: the scenario needs none",
                dir.display()
            )
        });
    }

    let server = MockServer::start_recording(Scenario::new(), &project.records_path(1))?;
    let options = ClaudeOptions {
        env: vec![("PATH".to_owned(), path)],
        ..ClaudeOptions::default()
    };
    // Two Bash calls (the PreToolUse hook runs for each) and a stop.
    let prompt = "Run these:\n$ self-repair start findings.jsonl\n$ self-repair status\n";
    let outcome = project
        .claude(&server.base_url(), prompt, &options)?
        .wait(ctx.claude_timeout())?;
    ctx.checks.that(outcome.succeeded(), || {
        format!("claude -p: {}", outcome.describe())
    });

    let hooks = outcome.hooks();
    let count = |event: &str| hooks.iter().filter(|h| h.event == event).count();
    ctx.checks
        .equal("SessionStart hook runs", &count("SessionStart"), &1);
    ctx.checks
        .that(count("Stop") >= 1, || "no Stop hook ran".to_owned());
    ctx.checks.that(count("PreToolUse") >= 1, || {
        "no PreToolUse hook ran (the prompt's Bash calls)".to_owned()
    });
    for hook in &hooks {
        ctx.checks.equal(
            &format!("exit status of {} [{}]", hook.event, hook.command),
            &hook.status,
            &0,
        );
        let says_install = hook.output.contains(INSTALL_COMMAND);
        ctx.checks.equal(
            &format!(
                "{} [{}] names the install command",
                hook.event, hook.command
            ),
            &says_install,
            &(hook.event == "SessionStart"),
        );
    }
    let debug = fs::read_to_string(&outcome.debug).unwrap_or_default();
    let spawn_failures = debug.matches("Hook command failed").count();
    ctx.checks
        .equal("hook spawn failures in the debug log", &spawn_failures, &0);

    let Some(session) = outcome.session_id() else {
        ctx.checks.fail("claude -p printed no session_id");
        return Ok(());
    };
    let Some(transcript) = transcript_of(&project.root().join("config"), &session) else {
        ctx.checks
            .fail(format!("no transcript for session {session}"));
        return Ok(());
    };
    let rows = attachments(&transcript)?;
    let of_kind = |kind: &str| rows.iter().filter(|(k, _)| k == kind).collect::<Vec<_>>();
    ctx.checks.equal(
        "hook_non_blocking_error rows in the transcript",
        &of_kind("hook_non_blocking_error").len(),
        &0,
    );
    let messages = of_kind("hook_system_message");
    ctx.checks.equal(
        "hook_system_message rows in the transcript",
        &messages.len(),
        &1,
    );
    if let Some((_, row)) = messages.first() {
        let text = row
            .pointer("/attachment/content")
            .and_then(Value::as_str)
            .unwrap_or_default();
        ctx.checks.that(text.contains(INSTALL_COMMAND), || {
            format!("the session's message does not name `{INSTALL_COMMAND}`: {text}")
        });
        ctx.notes.push(format!("the one message: {text}"));
    }
    Ok(())
}

/// The plugin's files (manifest, hooks, agents, skill) copied to `to`, its manifest saying
/// `version`.
fn plugin_copy(from: &Path, to: &Path, version: &str) -> Result<(), E2eError> {
    fn copy_tree(from: &Path, to: &Path) -> Result<(), E2eError> {
        fs::create_dir_all(to).map_err(E2eError::io(to))?;
        for entry in fs::read_dir(from).map_err(E2eError::io(from))? {
            let path = entry.map_err(E2eError::io(from))?.path();
            let target = to.join(path.file_name().unwrap_or_default());
            if path.is_dir() {
                copy_tree(&path, &target)?;
            } else {
                fs::copy(&path, &target).map_err(E2eError::io(&target))?;
            }
        }
        Ok(())
    }
    for part in [".claude-plugin", "hooks", "agents", "skill"] {
        copy_tree(&from.join(part), &to.join(part))?;
    }
    let manifest_path = to.join(".claude-plugin/plugin.json");
    let text = fs::read_to_string(&manifest_path).map_err(E2eError::io(&manifest_path))?;
    let mut manifest: Value = serde_json::from_str(&text).unwrap_or_default();
    manifest["version"] = Value::from(version);
    fs::write(&manifest_path, manifest.to_string()).map_err(E2eError::io(&manifest_path))
}

pub(crate) fn version_mismatch(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    const PLUGIN_VERSION: &str = "0.0.0-e2e-older";
    let mut tools = ctx.tools.clone();
    tools.plugin_dir = tools.work.join("plugin-version-mismatch-plugin");
    plugin_copy(&ctx.tools.plugin_dir, &tools.plugin_dir, PLUGIN_VERSION)?;
    let project = E2eProject::new(&tools, "plugin-version-mismatch", InstallMode::Plugin, 2)?;
    let server = MockServer::start_recording(Scenario::new(), &project.records_path(1))?;
    let outcome = project
        .claude(
            &server.base_url(),
            "Hello; nothing to run.",
            &ClaudeOptions::default(),
        )?
        .wait(ctx.claude_timeout())?;
    ctx.checks.that(outcome.succeeded(), || {
        format!("claude -p: {}", outcome.describe())
    });
    let Some(session) = outcome.session_id() else {
        ctx.checks.fail("claude -p printed no session_id");
        return Ok(());
    };
    let Some(transcript) = transcript_of(&project.root().join("config"), &session) else {
        ctx.checks
            .fail(format!("no transcript for session {session}"));
        return Ok(());
    };
    let messages: Vec<String> = attachments(&transcript)?
        .into_iter()
        .filter(|(kind, _)| kind == "hook_system_message")
        .filter_map(|(_, row)| {
            row.pointer("/attachment/content")
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .collect();
    ctx.checks.equal(
        "hook_system_message rows in the transcript",
        &messages.len(),
        &1,
    );
    if let Some(text) = messages.first() {
        let wanted =
            format!("the plugin is version {PLUGIN_VERSION} but the self-repair program is");
        ctx.checks.that(
            text.contains(&wanted) && text.contains("claude plugin update"),
            || format!("the message does not say the versions and what to do: {text}"),
        );
        ctx.notes.push(format!("the one message: {text}"));
    }
    // The client is inside the tested range: nothing about it.
    ctx.checks.that(
        messages.iter().all(|m| !m.contains("outside the versions")),
        || format!("a tested client was called untested: {messages:?}"),
    );
    Ok(())
}
