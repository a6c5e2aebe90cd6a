//! The `self-repair` binary: parses arguments, builds the command environment from the process,
//! runs the command, exits with its status (see reference/cli.md for the table).

mod args;
mod run_command;

use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use clap::Parser;
use self_repair_app::CommandEnv;

fn main() -> ExitCode {
    let cli = args::Cli::parse();
    let env = CommandEnv {
        cwd: std::env::current_dir().unwrap_or_default(),
        now: now(),
        session: non_empty_env("CLAUDE_CODE_SESSION_ID"),
        project_dir: non_empty_env("CLAUDE_PROJECT_DIR").map(Into::into),
        home: std::env::var_os("HOME").map(Into::into),
        project: cli.root.clone(),
    };
    ExitCode::from(run_command::run_command(cli, &env).code())
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
