//! `self-repair install` and `uninstall`: register the hooks, agents, skill and permissions
//! without the plugin manager, and remove exactly what was added.

use std::path::PathBuf;

use clap::Args;
use self_repair_install::{InstallSpec, Scope, plan_install, plan_uninstall};
use self_repair_store::Project;

use crate::app_error::AppError;
use crate::command_env::CommandEnv;
use crate::output::Output;

/// Options of `install` and `uninstall`.
#[derive(Debug, Args)]
pub struct InstallArgs {
    /// Into the project's `.claude/` (default).
    #[arg(long = "project", conflicts_with = "user")]
    pub project_scope: bool,
    /// Into `~/.claude/`.
    #[arg(long)]
    pub user: bool,
    /// Print the diff of every change and write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Only Claude Code's status line (`self-repair statusline`), in `~/.claude/settings.json`:
    /// for the plugin, which cannot set it. A status line you have keeps its rows.
    #[arg(long, conflicts_with_all = ["project_scope", "user"])]
    pub status_line: bool,
}

/// Runs `install`: this binary is registered by name when `PATH` finds it, else by its path
/// in a file of this machine only.
pub fn install(env: &CommandEnv, args: &InstallArgs) -> Result<Output, AppError> {
    let (scope, root) = scope_root(env, args)?;
    let binary = env
        .exe
        .as_deref()
        .ok_or_else(|| std::io::Error::other("the operating system did not say"))
        .and_then(std::path::Path::canonicalize)
        .map_err(|e| AppError::Usage(format!("cannot find the running binary: {e}")))?;
    let binary_on_path =
        self_repair_install::binary_resolves_from_path(&binary, env.path_var.as_deref());
    let plan = if args.status_line {
        let command = if binary_on_path {
            "self-repair".to_owned()
        } else {
            binary.display().to_string()
        };
        self_repair_install::plan_status_line_install(&root, &command)?
    } else {
        let spec = InstallSpec {
            binary_on_path,
            binary,
            scope,
        };
        plan_install(&root, &spec, self_repair_install::embedded_bundle())?
    };
    if args.dry_run {
        return Ok(Output::text(format!(
            "{}{}",
            plan.render_diff(),
            plan.summary()
        )));
    }
    plan.apply()?;
    Ok(Output::text(plan.summary()))
}

/// Runs `uninstall`.
pub fn uninstall(env: &CommandEnv, args: &InstallArgs) -> Result<Output, AppError> {
    let (scope, root) = scope_root(env, args)?;
    let plan = if args.status_line {
        self_repair_install::plan_status_line_uninstall(&root)?
    } else {
        plan_uninstall(&root, scope)?
    };
    if args.dry_run {
        return Ok(Output::text(format!(
            "{}{}",
            plan.render_diff(),
            plan.summary()
        )));
    }
    plan.apply()?;
    Ok(Output::text(plan.summary()))
}

fn scope_root(env: &CommandEnv, args: &InstallArgs) -> Result<(Scope, PathBuf), AppError> {
    if args.user || args.status_line {
        let home = env
            .home
            .clone()
            .ok_or_else(|| AppError::Usage("--user needs HOME to be set".to_owned()))?;
        return Ok((Scope::User, home));
    }
    let root = Project::find_or_choose(env.start_dir())
        .root()
        .to_path_buf();
    Ok((Scope::Project, root))
}
