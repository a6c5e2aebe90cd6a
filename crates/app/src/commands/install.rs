//! `self-repair install` and `uninstall`: register the hooks, agents, skill and status line
//! without the plugin manager, and remove what was added (the team files of `.self-repair/`
//! only while unedited and alone there: a store in use keeps them).

use std::path::Path;

use clap::Args;
use self_repair_install::{
    InstallRoot, InstallSpec, STATUS_LINE_MANIFEST, Scope, merge_driver_attributes,
    merge_driver_command, merge_driver_registered, plan_install, plan_uninstall,
    register_merge_driver, unregister_merge_driver,
};
use self_repair_store::{Project, TeamFiles, TeamFilesLeft};

use crate::app_error::AppError;
use crate::command_env::CommandEnv;
use crate::output::Output;

/// Options of `install` and `uninstall`.
#[derive(Debug, Args)]
pub struct InstallArgs {
    /// The project's `.claude/` (default): `install` writes there, `uninstall` removes from there.
    #[arg(long = "project", conflicts_with = "user")]
    pub project_scope: bool,
    /// `~/.claude/` instead of the project's (`$CLAUDE_CONFIG_DIR` when set).
    #[arg(long)]
    pub user: bool,
    /// Print the diff of every change and write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Only Claude Code's status line (`self-repair statusline`), in `~/.claude/settings.json`
    /// (`$CLAUDE_CONFIG_DIR/settings.json` when set): for the plugin, which cannot set it. A
    /// status line you have keeps its rows.
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
    let config_notes = config_dir_notes(&root, record_rel_path(args));
    if args.dry_run {
        let mut text = format!(
            "{}{}{config_notes}",
            plan.render_diff(),
            plan.dry_run_summary()
        );
        if scope == Scope::Project
            && let Some(attributes) = merge_driver_attributes(root.root())?
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
    let mut text = format!("{}{config_notes}", plan.summary());
    if scope == Scope::Project {
        text.push_str(&team_registry(root.root(), &driver_command)?);
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

/// Runs `uninstall`. A user install is looked for where `install` would put it now; when
/// `CLAUDE_CONFIG_DIR` is set and nothing is installed there, an install made in `~/.claude`
/// (before the variable was set) is removed instead, and the output says so.
pub fn uninstall(env: &CommandEnv, args: &InstallArgs) -> Result<Output, AppError> {
    let (scope, mut root) = scope_root(env, args)?;
    let record = record_rel_path(args);
    let mut notes = String::new();
    if scope == Scope::User && root.claude_dir_moved() && !root.resolve(record).exists() {
        let home = InstallRoot::user(root.root(), None);
        if home.resolve(record).exists() {
            notes.push_str(&format!(
                "note: nothing is installed in CLAUDE_CONFIG_DIR (no {}): removing the install in \
                 {}, made while CLAUDE_CONFIG_DIR was not set\n",
                root.display(record),
                home.display(".claude")
            ));
            root = home;
        }
    }
    let plan = if args.status_line {
        self_repair_install::plan_status_line_uninstall(&root)?
    } else {
        plan_uninstall(&root, scope)?
    };
    if scope == Scope::User && !root.claude_dir_moved() && !root.resolve(record).exists() {
        notes.push_str(
            "note: an install made while CLAUDE_CONFIG_DIR was set is in that folder, not here: \
             to remove one, run this again with CLAUDE_CONFIG_DIR set to it\n",
        );
    }
    let project = scope == Scope::Project && !args.status_line;
    let store = Project::at(root.root().to_path_buf()).store_dir();
    // Only an uninstall of an install: without its record, the team files are `start`'s.
    let installed = root.resolve(Scope::Project.manifest_rel_path()).exists();
    let team = if project && installed {
        TeamFiles::left_behind(&store, &[PROJECT_RECORD])?
    } else {
        TeamFilesLeft::Absent
    };
    if args.dry_run {
        let mut text = format!("{}{}{notes}", plan.render_diff(), plan.dry_run_summary());
        if project && merge_driver_registered(root.root()) {
            text.push_str(
                "would remove the registries' merge driver from .git/config and .git/info/attributes\n",
            );
        }
        text.push_str(&team_files_fate(&team, true));
        return Ok(Output::text(text));
    }
    plan.apply()?;
    let mut text = format!("{}{notes}", plan.summary());
    if project && unregister_merge_driver(root.root())? {
        text.push_str(
            "removed the registries' merge driver from .git/config and .git/info/attributes\n",
        );
    }
    if let TeamFilesLeft::Unused(files) = &team {
        TeamFiles::remove(&store, files)?;
    }
    text.push_str(&team_files_fate(&team, false));
    Ok(Output::text(text))
}

/// The install record's name in `.self-repair/` (`Scope::Project`'s): it goes with the
/// uninstall, so it does not keep the team files.
const PROJECT_RECORD: &str = "install.json";

/// What `uninstall` does with `.self-repair/.gitignore` and `.gitattributes`, which `install`
/// (and `start`) writes: one line, empty when there are none.
fn team_files_fate(team: &TeamFilesLeft, dry_run: bool) -> String {
    let names = |files: &[std::path::PathBuf]| {
        files
            .iter()
            .filter_map(|p| p.file_name())
            .map(|n| format!(".self-repair/{}", n.to_string_lossy()))
            .collect::<Vec<_>>()
            .join(" and ")
    };
    match team {
        TeamFilesLeft::Absent => String::new(),
        TeamFilesLeft::Unused(files) => format!(
            "{} {} (as self-repair wrote them, and .self-repair/ holds nothing else)\n",
            if dry_run { "would remove" } else { "removed" },
            names(files)
        ),
        TeamFilesLeft::Kept { files, reason } => format!("kept {}: {reason}\n", names(files)),
    }
}

/// The scope asked for and where it goes: the project, or the home with `.claude/` in
/// `CLAUDE_CONFIG_DIR` when set (Claude Code reads the user's settings, agents and skills
/// there: "the Claude Code config directory (`$CLAUDE_CONFIG_DIR` or `~/.claude`)", the 2.1.332
/// client's own words).
fn scope_root(env: &CommandEnv, args: &InstallArgs) -> Result<(Scope, InstallRoot), AppError> {
    if args.user || args.status_line {
        let flag = if args.status_line {
            "--status-line"
        } else {
            "--user"
        };
        let root = env
            .user_install_root()
            .ok_or_else(|| AppError::Usage(format!("{flag} needs HOME to be set")))?;
        return Ok((Scope::User, root));
    }
    let root = Project::find_or_choose(env.start_dir())
        .root()
        .to_path_buf();
    Ok((Scope::Project, InstallRoot::project(root)))
}

/// The install record `args` work with, relative to the root.
fn record_rel_path(args: &InstallArgs) -> &'static str {
    if args.status_line {
        STATUS_LINE_MANIFEST
    } else if args.user {
        Scope::User.manifest_rel_path()
    } else {
        Scope::Project.manifest_rel_path()
    }
}

/// Said by a user install into `CLAUDE_CONFIG_DIR`: where the files went and why, and an
/// earlier install in `~/.claude` that stays (the client does not read it while the variable is
/// set).
fn config_dir_notes(root: &InstallRoot, record: &str) -> String {
    if !root.claude_dir_moved() {
        return String::new();
    }
    let mut text = format!(
        "note: CLAUDE_CONFIG_DIR is set: written into {}, where Claude Code reads your settings \
         instead of ~/.claude\n",
        root.claude_dir().display()
    );
    let home = InstallRoot::user(root.root(), None);
    if home.resolve(record).exists() {
        text.push_str(&format!(
            "note: the install in ~/.claude stays ({} is its record) and Claude Code does not read \
             it while CLAUDE_CONFIG_DIR is set; `env -u CLAUDE_CONFIG_DIR self-repair uninstall \
             {}` removes it\n",
            home.display(record),
            if record == STATUS_LINE_MANIFEST {
                "--status-line"
            } else {
                "--user"
            }
        ));
    }
    text
}
