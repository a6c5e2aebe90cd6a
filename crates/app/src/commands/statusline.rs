//! `self-repair statusline`: the command Claude Code's `statusLine` setting runs. It reads the
//! client's JSON object on stdin, finds the project from `workspace.project_dir` (else
//! `workspace.current_dir`, else `cwd`), and prints one line about the active run there, or
//! nothing at all (exit 0) when there is none or anything cannot be read: the client blanks the
//! row on empty output, and an error line would sit in the user's status bar.

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;
use self_repair_install::REFRESH_SECONDS;
use self_repair_process::{Captured, ProcessRequest, run_process};
use self_repair_store::Project;
use serde::Deserialize;

use crate::app_error::AppError;
use crate::command_env::CommandEnv;
use crate::output::Output;

/// `self-repair statusline`.
#[derive(Debug, Args)]
pub struct StatuslineArgs {
    /// Run this status-line command first (through `sh -c`, with the same stdin) and print its
    /// rows above ours: how `install` keeps a status line you already had. It is stopped after
    /// half the refresh interval (2.5 s), and then only our row is printed.
    #[arg(long, value_name = "COMMAND")]
    pub compose: Option<String>,
}

/// What the client sends (only what is read; every field optional, unknown ones ignored).
#[derive(Debug, Default, Deserialize)]
struct ClientInput {
    #[serde(default)]
    cwd: Option<PathBuf>,
    #[serde(default)]
    workspace: Option<Workspace>,
}

#[derive(Debug, Default, Deserialize)]
struct Workspace {
    #[serde(default)]
    current_dir: Option<PathBuf>,
    #[serde(default)]
    project_dir: Option<PathBuf>,
}

/// Runs `statusline`: the composed command's rows, then the run's line; always exit 0.
pub fn run(env: &CommandEnv, args: &StatuslineArgs) -> Result<Output, AppError> {
    let input = crate::commands::piped_stdin().ok().flatten();
    let mut rows = String::new();
    if let Some(command) = &args.compose {
        let input = input.as_deref().unwrap_or_default();
        // A working folder that could not be read is no reason to drop the user's rows.
        let cwd = if env.cwd.as_os_str().is_empty() {
            Path::new(".")
        } else {
            &env.cwd
        };
        rows.push_str(&their_rows(command, input, cwd));
    }
    let client: ClientInput = input
        .as_deref()
        .and_then(|text| serde_json::from_str(text).ok())
        .unwrap_or_default();
    if let Some(project) = project_of(env, &client)
        && let Some(row) = crate::run::status_line::cached_row(&project, env.now)
    {
        rows.push_str(&row);
    }
    Ok(Output::text(rows))
}

/// `--root`, else the client's project folder, else its working folder, else this process's.
fn project_of(env: &CommandEnv, client: &ClientInput) -> Option<Project> {
    if let Some(root) = &env.project {
        return Some(env.pin(Project::at(root.clone())));
    }
    let workspace = client.workspace.as_ref();
    let start = workspace
        .and_then(|w| w.project_dir.clone())
        .or_else(|| workspace.and_then(|w| w.current_dir.clone()))
        .or_else(|| client.cwd.clone())
        .unwrap_or_else(|| env.start_dir().to_path_buf());
    Project::find(&start).map(|project| env.pin(project))
}

/// How long the user's own status-line command may run: half the refresh interval `install`
/// sets, so our row still reaches the client before its next refresh. A command that runs longer
/// is stopped with every process it started, and only our row is printed.
pub const COMPOSE_TIMEOUT: Duration = Duration::from_millis(REFRESH_SECONDS * 1000 / 2);

/// The rows the user's own status-line command prints for `input`, each ending in a newline;
/// nothing when it cannot start, fails, exits non-zero (the client would have blanked them too)
/// or runs past [`COMPOSE_TIMEOUT`] (its status bar would have hung).
fn their_rows(command: &str, input: &str, cwd: &Path) -> String {
    let argv = ["sh".to_owned(), "-c".to_owned(), command.to_owned()];
    let Ok(outcome) = run_process(&ProcessRequest {
        argv: &argv,
        cwd,
        stdin: Some(input.as_bytes()),
        timeout: Some(COMPOSE_TIMEOUT),
        output: Captured::Separately,
    }) else {
        return String::new();
    };
    if !outcome.succeeded() {
        return String::new();
    }
    let text = outcome.stdout_text();
    let text = text.trim_end_matches('\n');
    if text.is_empty() {
        String::new()
    } else {
        format!("{text}\n")
    }
}
