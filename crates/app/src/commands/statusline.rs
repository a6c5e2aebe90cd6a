//! `self-repair statusline`: the command Claude Code's `statusLine` setting runs. It reads the
//! client's JSON object on stdin, finds the project from `workspace.project_dir` (else
//! `workspace.current_dir`, else `cwd`), and prints one line about the active run there, or
//! nothing at all (exit 0) when there is none or anything cannot be read: the client blanks the
//! row on empty output, and an error line would sit in the user's status bar.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use clap::Args;
use self_repair_store::Project;
use serde::Deserialize;

use crate::app_error::AppError;
use crate::command_env::CommandEnv;
use crate::output::Output;

/// `self-repair statusline`.
#[derive(Debug, Args)]
pub struct StatuslineArgs {
    /// Run this status-line command first (through `sh -c`, with the same stdin) and print its
    /// rows above ours: how `install` keeps a status line you already had.
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
        rows.push_str(&their_rows(command, input.as_deref().unwrap_or_default()));
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

/// The rows the user's own status-line command prints for `input`, each ending in a newline;
/// nothing when it fails or exits non-zero (the client would have blanked them too).
fn their_rows(command: &str, input: &str) -> String {
    let Ok(mut child) = Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    else {
        return String::new();
    };
    if let Some(mut stdin) = child.stdin.take() {
        // A command that does not read its input closes the pipe early: not a failure.
        let _ = stdin.write_all(input.as_bytes());
    }
    let Ok(output) = child.wait_with_output() else {
        return String::new();
    };
    if !output.status.success() {
        return String::new();
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let text = text.trim_end_matches('\n');
    if text.is_empty() {
        String::new()
    } else {
        format!("{text}\n")
    }
}
