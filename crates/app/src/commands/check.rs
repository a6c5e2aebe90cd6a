//! `self-repair check` and `self-repair tick`: a repair run reruns a failing check until it
//! passes, bounded and escalating (reference/repair.md); `tick` advances one by one step.

use clap::Args;
use self_repair_repair::{CheckRequest, RepairEnv, RepairReply};

use crate::app_error::AppError;
use crate::command_env::CommandEnv;
use crate::commands::RunArg;
use crate::output::Output;
use crate::run::in_progress::{cancel_replaced, run_to_replace};
use crate::run::project_config::load_project_config;

/// `self-repair check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// A named check in `.self-repair/config.json` (`checks.<name>`): its options and command.
    pub name: Option<String>,
    /// Run id (default `check-YYYYMMDD-HHMM`).
    #[arg(long, value_name = "ID")]
    pub run_id: Option<String>,
    /// Fix attempts before giving up (default 5; `retry: N` in the config means N+1).
    #[arg(long, value_name = "N")]
    pub max_attempts: Option<u32>,
    /// Seconds one run of the check may take (default 120); past it, exit 124 `timeout`.
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
    /// Identical failures in a row that open the circuit (default 3).
    #[arg(long, value_name = "K")]
    pub circuit_breaker: Option<u32>,
    /// The first `--`-separated command is a mechanical fixer (e.g. `cargo fmt`) run by
    /// self-repair once before the first fix attempt: `--autofix -- FIX... -- CHECK...`.
    #[arg(long)]
    pub autofix: bool,
    /// Who makes attempts 1, 2, ...: `main` (this session) or a fixer tier (default main,sonnet,opus).
    #[arg(long, value_name = "LIST")]
    pub tiers: Option<String>,
    /// First wait before rerunning a transient failure, in seconds (doubles, cap 60; default 2).
    #[arg(long, value_name = "SECS")]
    pub backoff: Option<f64>,
    /// Cancel the active run if it is still in progress (without it, `check` refuses).
    #[arg(long)]
    pub replace: bool,
    /// Seconds the Stop hook may spend running the check itself (default 25); a longer check is
    /// run by `self-repair tick`.
    #[arg(long, value_name = "SECS")]
    pub hook_budget: Option<f64>,
    /// The check command and its arguments (argv, never a shell string), after `--`.
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

/// `self-repair tick`.
#[derive(Debug, Args)]
pub struct TickArgs {
    #[command(flatten)]
    pub run: RunArg,
}

/// Runs `check`: with `--autofix`, the words after `--` are `FIX... -- CHECK...`. Exit 6 when
/// the run gave up.
pub fn run(env: &CommandEnv, args: CheckArgs) -> Result<Output, AppError> {
    let (autofix, command) = if args.autofix {
        let Some(split) = args.command.iter().position(|w| w == "--") else {
            return Err(AppError::Usage(
                "--autofix takes the fixer and the check, each after `--`: `self-repair check --autofix -- cargo fmt -- cargo test`"
                    .to_owned(),
            ));
        };
        (
            Some(args.command[..split].to_vec()),
            args.command[split + 1..].to_vec(),
        )
    } else {
        (None, args.command)
    };
    let request = CheckRequest {
        name: args.name,
        run_id: args.run_id,
        command,
        autofix,
        max_attempts: args.max_attempts,
        timeout_secs: args.timeout,
        circuit_breaker: args.circuit_breaker,
        tiers: args.tiers,
        backoff_secs: args.backoff,
        hook_budget_secs: args.hook_budget,
        exclude: Vec::new(),
    };
    let project = env.project_or_new();
    let replaced = run_to_replace(&project, args.replace, &check_again(env))?;
    let settings = load_project_config(&project.store_dir(), None)?.checks;
    let mut reply =
        self_repair_repair::start_check(&project, &repair_env(env), &request, &settings)?;
    // The old run is cancelled only once the new one exists.
    if let Some(old) = replaced {
        let line = cancel_replaced(&project, old, env.now)?;
        reply.text = format!("{line}\n{}", reply.text);
    }
    Ok(repair_output(reply))
}

/// Runs `tick`; a task of `self-repair fix` whose run just ended is recorded and the next one
/// started. Exit 6 when the run gave up.
pub fn tick(env: &CommandEnv, args: &TickArgs) -> Result<Output, AppError> {
    let project = env.find_project()?;
    let run = args.run.run.as_deref();
    let mut reply = self_repair_repair::tick(&project, &repair_env(env), run)?;
    if let Some(line) =
        crate::run::fix_queue::continue_fix_after_tick(&project, &repair_env(env), run)
    {
        reply.text = format!("{}\n{line}\n", reply.text.trim_end());
    }
    Ok(repair_output(reply))
}

/// What the repair pipeline needs of the command's environment.
pub(crate) fn repair_env(env: &CommandEnv) -> RepairEnv {
    RepairEnv {
        now: env.now,
        session: env.session.clone(),
        user_install: env.user_install_root(),
    }
}

fn repair_output(reply: RepairReply) -> Output {
    Output::gave_up_unless(reply.text, !reply.gave_up)
}

/// This `check` command line with `--replace` added before its `--`.
fn check_again(env: &CommandEnv) -> String {
    let mut words = env.argv.clone();
    if !words.iter().any(|w| w == "--replace") {
        let at = words.iter().position(|w| w == "--").unwrap_or(words.len());
        words.insert(at, "--replace".to_owned());
    }
    format!("self-repair {}", words.join(" "))
}
