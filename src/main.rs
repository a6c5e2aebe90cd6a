//! The `self-repair` binary: parses arguments, runs the command the library names, prints its
//! output and exits with its status (see reference/cli.md for the table). Hooks are answered
//! before the argument parser is even built: they run at every stop of every session.

mod cli;

use std::io::{Read, Write};
use std::process::ExitCode;

use clap::FromArgMatches;
use self_repair_app::commands::{
    audit, check, demo, detect, doctor, drive, eval, export, finalize, fix, init, install, known,
    merge, next, refs, rules, runs, show, start, status, statusline, steer, submit,
};
use self_repair_app::hooks::{self, HookEvent};
use self_repair_app::{AppError, CommandEnv, ExitStatus, Output};

use crate::cli::{Cli, Command};

/// Largest hook input read; the client sends a few kilobytes.
const MAX_HOOK_INPUT: u64 = 64 * 1024 * 1024;

fn main() -> ExitCode {
    // clap's command tree is a third of the start-up cost (reference/benchmarks.md).
    if let Some(event) = hook_event() {
        return ExitCode::from(run_hook(event, &CommandEnv::from_process(None)).code());
    }
    let cli = Cli::from_arg_matches(&cli::command().get_matches()).unwrap_or_else(|e| e.exit());
    let mut env = CommandEnv::from_process(cli.root.clone());
    env.installation.binary_commit = cli::build_commit();
    let status = match dispatch(cli.command, &env) {
        Ok(output) => print(&output),
        Err(e) => {
            let _ = writeln!(std::io::stderr().lock(), "self-repair: {e}");
            e.exit_status()
        }
    };
    ExitCode::from(status.code())
}

/// One arm per command: the library runs it.
fn dispatch(command: Command, env: &CommandEnv) -> Result<Output, AppError> {
    match command {
        Command::Start(args) => start::run(env, args),
        Command::Status(args) => status::run(env, &args),
        Command::Statusline(args) => statusline::run(env, &args),
        Command::Init(args) => init::run(env, &args),
        Command::Detect(args) => detect::run(env, &args),
        Command::Rules { action } => rules::run(env, action),
        Command::Known { action } => known::run(env, action),
        Command::Next(args) => next::run(env, &args),
        Command::Show(args) | Command::Item(args) => show::run(env, args),
        Command::Submit(args) => submit::run(env, &args),
        Command::Pause(args) => steer::pause(env, &args),
        Command::Resume(args) => steer::resume(env, &args),
        Command::Cancel(args) => steer::cancel(env, &args),
        Command::Adopt(args) => steer::adopt(env, args),
        Command::Drive(args) => drive::run(env, args),
        Command::VerifyTask(args) => fix::verify_task::run(env, args),
        Command::ApplyFixes(args) => fix::apply_fixes::run(env, &args),
        Command::Fix(args) => fix::run(env, args),
        Command::PullRequests(args) => fix::pull_requests::run(env, &args),
        Command::Errors(args) => drive::errors(env, &args),
        Command::Timeline(args) => drive::timeline_command(env, &args),
        Command::Runs(args) => runs::run(env, &args),
        Command::Doctor(args) => doctor::run(env, &args),
        Command::Finalize(args) => finalize::run(env, &args),
        Command::Export(args) => export::run(env, args),
        Command::Eval(args) => eval::run(env, &args),
        Command::Audit(args) => audit::run(env, &args),
        Command::Merge(args) => merge::run(env, &args),
        Command::Refs(args) => refs::run(env, &args),
        Command::Demo(args) => demo::run(env, args),
        Command::Check(args) => check::run(env, args),
        Command::Tick { run } => check::tick(env, &check::TickArgs { run }),
        Command::Hook { event } => Ok(Output::with_status(String::new(), run_hook(event, env))),
        Command::Install(args) => install::install(env, &args),
        Command::Uninstall(args) => install::uninstall(env, &args),
        Command::Completions { shell } => Ok(Output::text(cli::completions(shell))),
        Command::Man => Ok(Output::text(cli::man_page())),
    }
}

/// Prints a command's output, a newline added when it lacks one, then its notes on standard
/// error; returns its status.
fn print(output: &Output) -> ExitStatus {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(output.text.as_bytes());
    if !output.text.is_empty() && !output.text.ends_with('\n') {
        let _ = stdout.write_all(b"\n");
    }
    drop(stdout);
    let mut stderr = std::io::stderr().lock();
    for note in &output.notes {
        let _ = writeln!(stderr, "self-repair: note: {note}");
    }
    output.status
}

/// `hook EVENT`, given exactly.
fn hook_event() -> Option<HookEvent> {
    let mut argv = std::env::args_os().skip(1);
    let (Some(first), Some(second), None) = (argv.next(), argv.next(), argv.next()) else {
        return None;
    };
    if first != "hook" {
        return None;
    }
    HookEvent::from_name(second.to_str()?)
}

/// Runs a hook: reads stdin, prints at most one JSON object, always exit 0 (a non-zero exit
/// would be shown as an error or a block by the client).
fn run_hook(event: HookEvent, env: &CommandEnv) -> ExitStatus {
    let mut stdin = Vec::new();
    let _ = std::io::stdin()
        .take(MAX_HOOK_INPUT)
        .read_to_end(&mut stdin);
    let answer = hooks::run(event, env, &stdin);
    let mut stderr = std::io::stderr().lock();
    for line in &answer.stderr {
        let _ = writeln!(stderr, "{line}");
    }
    if let Some(json) = answer.stdout {
        let _ = writeln!(std::io::stdout().lock(), "{json}");
    }
    ExitStatus::Success
}
