//! The `self-repair` binary: parses arguments, builds the command environment from the process,
//! runs the command, exits with its status (see reference/cli.md for the table).

mod args;
mod drive_args;
mod fix_args;
mod run_command;

use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use clap::Parser;
use self_repair_app::CommandEnv;

fn main() -> ExitCode {
    // The hooks run on every stop of every session: answer them before building clap's command
    // tree, which is a third of the start-up cost (reference/benchmarks.md).
    if let Some(event) = hook_event() {
        let env = command_env(None);
        return ExitCode::from(run_command::run_hook(&event, &env).code());
    }
    let cli = args::Cli::parse();
    let env = command_env(cli.root.clone());
    ExitCode::from(run_command::run_command(cli, &env).code())
}

/// `hook stop`, `hook stop-failure`, `hook session-start`, `hook pre-tool-use` or
/// `hook post-tool-use`, given exactly.
fn hook_event() -> Option<args::HookEvent> {
    let mut argv = std::env::args_os().skip(1);
    let (Some(first), Some(second), None) = (argv.next(), argv.next(), argv.next()) else {
        return None;
    };
    if first != "hook" {
        return None;
    }
    match second.to_str()? {
        "stop" => Some(args::HookEvent::Stop),
        "stop-failure" => Some(args::HookEvent::StopFailure),
        "session-start" => Some(args::HookEvent::SessionStart),
        "pre-tool-use" => Some(args::HookEvent::PreToolUse),
        "post-tool-use" => Some(args::HookEvent::PostToolUse),
        _ => None,
    }
}

fn command_env(project: Option<std::path::PathBuf>) -> CommandEnv {
    CommandEnv {
        cwd: std::env::current_dir().unwrap_or_default(),
        now: now(),
        session: non_empty_env("CLAUDE_CODE_SESSION_ID"),
        project_dir: non_empty_env("CLAUDE_PROJECT_DIR").map(Into::into),
        home: std::env::var_os("HOME").map(Into::into),
        project,
    }
}

/// Unix seconds; `SELF_REPAIR_NOW` pins it for reproducible tests and demos.
fn now() -> u64 {
    non_empty_env("SELF_REPAIR_NOW")
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs())
        })
}

fn non_empty_env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}
