//! Arguments of `drive`, `errors` and `timeline`, and how `drive`'s outcome is printed.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use self_repair_app::{AppError, CommandEnv, DriveRequest, ExitStatus, drive};

/// `self-repair drive`.
#[derive(Debug, Args)]
pub struct DriveArgs {
    /// Run id (default: the project's active run).
    pub run: Option<String>,
    /// The Claude Code executable (default: `claude` on PATH).
    #[arg(long, value_name = "PATH")]
    pub claude: Option<PathBuf>,
    /// Stop after this many sessions.
    #[arg(long, value_name = "N")]
    pub max_sessions: Option<u32>,
    /// Stop once the sessions' summed `total_cost_usd` reaches this many US dollars.
    #[arg(long, value_name = "USD")]
    pub budget: Option<f64>,
    /// Start a run that waits for the user's go (its likely cost is above `confirm_above_usd`)
    /// without a budget; without it or `--budget`, `drive` refuses such a run (exit 23).
    #[arg(long)]
    pub yes: bool,
    /// Start no session after TIME: Unix seconds, `2026-11-24T06:00:00Z`, or `06:00` (UTC).
    #[arg(long, value_name = "TIME")]
    pub until: Option<String>,
    /// Arguments for every `claude` session (after `--`: `--plugin-dir DIR`, `--model M`, ...).
    #[arg(last = true, value_name = "CLAUDE_ARGS")]
    pub claude_args: Vec<String>,
}

/// Runs `drive`: progress lines on stderr as sessions end, the final message on stdout.
pub fn run_drive(env: &CommandEnv, args: DriveArgs) -> Result<(String, ExitStatus), AppError> {
    let request = DriveRequest {
        run: args.run,
        claude: args.claude,
        max_sessions: args.max_sessions,
        budget: args.budget,
        yes: args.yes,
        until: args.until,
        claude_args: args.claude_args,
        backoff_scale: std::env::var(self_repair_app::BACKOFF_SCALE_VAR)
            .ok()
            .filter(|v| !v.is_empty()),
        path_var: std::env::var_os("PATH"),
    };
    drive(env, &request, &mut |line| {
        let _ = writeln!(std::io::stderr().lock(), "{line}");
    })
}
