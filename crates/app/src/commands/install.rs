//! `self-repair install` and `uninstall`: register the hooks, agents, skill and status line
//! without the plugin manager, and remove exactly what was added.

use std::path::{Path, PathBuf};

use clap::Args;
use self_repair_install::{
    InstallSpec, Scope, merge_driver_attributes, merge_driver_command, merge_driver_registered,
    plan_install, plan_uninstall, register_merge_driver, unregister_merge_driver,
};
use self_repair_store::{Project, TeamFiles};

use crate::app_error::AppError;
use crate::command_env::CommandEnv;
use crate::output::Output;

/// Options of `install` and `uninstall`.
#[derive(Debug, Args)]
pub struct InstallArgs {
    /// The project's `.claude/` (default): `install` writes there, `uninstall` removes from there.
    #[arg(long = "project", conflicts_with = "user")]
    pub project_scope: bool,
    /// `~/.claude/` instead of the project's.
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
    if scope == Scope::User {
        refuse_other_config_dir(env, &root, args)?;
    }
    let binary = env
        .exe
        .as_deref()
        .ok_or_else(|| std::io::Error::other("the operating system did not say"))
        .and_then(std::path::Path::canonicalize)
        .map_err(|e| AppError::Usage(format!("cannot find the running binary: {e}")))?;
    let binary_on_path =
        self_repair_install::binary_resolves_from_path(&binary, env.path_var.as_deref());
    // How settings and git call this binary: by name when PATH finds it.
    let driver_command = if binary_on_path {
        "self-repair".to_owned()
    } else {
        binary.display().to_string()
    };
    let plan = if args.status_line {
        self_repair_install::plan_status_line_install(&root, &driver_command)?
    } else {
        let spec = InstallSpec {
            binary_on_path,
            binary,
            scope,
        };
        plan_install(&root, &spec, self_repair_install::embedded_bundle())?
    };
    if args.dry_run {
        let mut text = format!("{}{}", plan.render_diff(), plan.summary());
        if scope == Scope::Project
            && let Some(attributes) = merge_driver_attributes(&root)?
        {
            text.push_str(&format!(
                "would register the registries' merge driver ({}) in .git/config and {}, and \
                 write .self-repair/.gitignore and .gitattributes where absent\n",
                merge_driver_command(&driver_command),
                attributes.display()
            ));
        }
        return Ok(Output::text(text));
    }
    plan.apply()?;
    let mut text = plan.summary();
    if scope == Scope::Project {
        text.push_str(&team_registry(&root, &driver_command)?);
    }
    Ok(Output::text(text))
}

/// In a git work tree: `.self-repair/.gitignore` and `.gitattributes` where absent, and the
/// `self-repair-known` merge driver in this clone (reference/state-file.md, "The registry in
/// git"). Outside git, nothing: there is no team to share the registry with through it.
fn team_registry(root: &Path, driver_command: &str) -> Result<String, AppError> {
    let Some(registration) = register_merge_driver(root, driver_command)? else {
        return Ok(String::new());
    };
    let written = TeamFiles::ensure(&Project::at(root.to_path_buf()).store_dir())?;
    let mut text = String::new();
    if registration.changed {
        text.push_str(&format!(
            "registered the registries' merge driver `{}` in .git/config and {}: git merges \
             .self-repair/known.json and rules.json by key\n",
            registration.command,
            registration.attributes.display()
        ));
    }
    for path in written {
        text.push_str(&format!(
            "wrote {} (commit it: README.md, \"Team and CI\")\n",
            path.strip_prefix(root).unwrap_or(&path).display()
        ));
    }
    Ok(text)
}

/// Runs `uninstall`.
pub fn uninstall(env: &CommandEnv, args: &InstallArgs) -> Result<Output, AppError> {
    let (scope, root) = scope_root(env, args)?;
    let plan = if args.status_line {
        self_repair_install::plan_status_line_uninstall(&root)?
    } else {
        plan_uninstall(&root, scope)?
    };
    let project = scope == Scope::Project && !args.status_line;
    if args.dry_run {
        let mut text = format!("{}{}", plan.render_diff(), plan.summary());
        if project && merge_driver_registered(&root) {
            text.push_str(
                "would remove the registries' merge driver from .git/config and .git/info/attributes\n",
            );
        }
        return Ok(Output::text(text));
    }
    plan.apply()?;
    let mut text = plan.summary();
    if project && unregister_merge_driver(&root)? {
        text.push_str(
            "removed the registries' merge driver from .git/config and .git/info/attributes\n",
        );
    }
    Ok(Output::text(text))
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

/// A user-scope change goes to `~/.claude/settings.json`; Claude Code reads the user's settings
/// from `CLAUDE_CONFIG_DIR` instead when it is set ("the Claude Code config directory
/// (`$CLAUDE_CONFIG_DIR` or `~/.claude`)", the 2.1.332 client's own words). Writing where the
/// client never reads would report success for a change that does nothing: refused, saying what
/// works instead.
fn refuse_other_config_dir(
    env: &CommandEnv,
    home: &Path,
    args: &InstallArgs,
) -> Result<(), AppError> {
    let Some(config_dir) = &env.claude_config_dir else {
        return Ok(());
    };
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    };
    if same(config_dir, &home.join(".claude")) {
        return Ok(());
    }
    let flag = if args.status_line {
        "--status-line"
    } else {
        "--user"
    };
    let instead = if args.status_line {
        format!(
            "add {{\"statusLine\": {{\"type\": \"command\", \"command\": \"self-repair statusline\", \"refreshInterval\": {}}}}} to {} yourself, or `self-repair install --project` (this project's .claude/settings.json gets it)",
            self_repair_install::REFRESH_SECONDS,
            config_dir.join("settings.json").display()
        )
    } else {
        "use `self-repair install --project` in each project, or the plugin (README.md, \"Install\")".to_owned()
    };
    Err(AppError::Usage(format!(
        "install {flag} writes {}, but CLAUDE_CONFIG_DIR is set: Claude Code reads your settings from {} and would never see the change; nothing was written. Instead, {instead}",
        home.join(".claude/settings.json").display(),
        config_dir.join("settings.json").display()
    )))
}
