//! `self-repair doctor`: check the setup (the binary, the hooks, the plugin and client versions,
//! trust, git, the `backlog` CLI, the detectors), one `✓`/`✗` line each with what to do, then
//! every run's files, repairing what can be repaired.

mod client_setup;
mod install_files;
mod install_route;
mod plugin_load;
mod program_checks;
mod run_checks;
mod setup_check;

use clap::Args;
use serde::Serialize;
use serde_json::json;

use crate::app_error::{AppError, ExitStatus};
use crate::command_env::CommandEnv;
use crate::commands::RunArg;
use crate::output::Output;

pub use run_checks::doctor;
use setup_check::SetupScene;
pub use setup_check::{CheckOutcome, SetupCheck};

/// The version of `doctor --json`'s object.
const SCHEMA_VERSION: u32 = 1;

/// `self-repair doctor`.
#[derive(Debug, Args)]
pub struct DoctorArgs {
    #[command(flatten)]
    pub run: RunArg,
    /// Check only the runs (repair their files), not the setup.
    #[arg(long)]
    pub runs_only: bool,
    /// Print the checks as JSON.
    #[arg(long)]
    pub json: bool,
}

/// What the runs' check found: one line per finding, and whether they are all fine now.
#[derive(Debug, Serialize)]
struct RunsReport {
    lines: Vec<String>,
    healthy: bool,
}

/// Runs `doctor`: exit 5 when a run is still damaged after what it could repair, else 10 when
/// a check of the setup failed, else 0.
pub fn run(env: &CommandEnv, args: &DoctorArgs) -> Result<Output, AppError> {
    let setup = if args.runs_only {
        Vec::new()
    } else {
        setup_checks(env)
    };
    let runs = runs_report(env, args)?;
    let status = if runs.as_ref().is_some_and(|r| !r.healthy) {
        ExitStatus::Conflict
    } else if setup.iter().any(|c| c.outcome == CheckOutcome::Fail) {
        ExitStatus::SetupIncomplete
    } else {
        ExitStatus::Success
    };
    let text = if args.json {
        let value = json!({
            "schema_version": SCHEMA_VERSION,
            "healthy": status == ExitStatus::Success,
            "setup": setup,
            "runs": runs,
        });
        serde_json::to_string_pretty(&value).unwrap_or_default()
    } else {
        render(&setup, runs.as_ref(), args.runs_only)
    };
    Ok(Output::with_status(text, status))
}

/// The runs' check: every run, or the one `--run` names; `None` outside a project (no run to
/// check), unless `--run` or `--runs-only` asked for one.
fn runs_report(env: &CommandEnv, args: &DoctorArgs) -> Result<Option<RunsReport>, AppError> {
    let project = match env.find_project() {
        Ok(project) => project,
        Err(_) if args.run.run.is_none() && !args.runs_only => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let (lines, healthy) = doctor(&project, args.run.run.as_deref())?;
    Ok(Some(RunsReport { lines, healthy }))
}

/// Every check of the setup, in the order they are printed.
pub fn setup_checks(env: &CommandEnv) -> Vec<SetupCheck> {
    let scene = scene(env);
    let binary = env!("CARGO_PKG_VERSION");
    let plugin = client_setup::plugin_install(&scene);
    let load = plugin
        .as_ref()
        .map(|p| plugin_load::plugin_load(&scene, &p.key));
    let settings = client_setup::settings_check(&scene);
    let hooks = client_setup::hooks_check(&scene, plugin.as_ref(), load.as_ref(), &settings);
    let mut checks = vec![
        program_checks::binary_check(&scene, binary),
        install_route::install_check(&scene, plugin.is_some()),
        settings,
        hooks,
    ];
    checks.extend(install_files::install_files_checks(&scene));
    checks.extend([
        client_setup::plugin_version_check(
            plugin.as_ref(),
            load.as_ref(),
            binary,
            env.installation.binary_commit.as_deref(),
        ),
        program_checks::client_check(&scene),
        client_setup::trust_check(&scene),
        program_checks::git_check(&scene.root),
        program_checks::backlog_check(&scene),
    ]);
    checks.extend(program_checks::detector_checks(&scene));
    checks
}

/// Where the checks look: the project's root, and the client's files as the client finds them
/// (`CLAUDE_CONFIG_DIR` when set, relative to the working folder, else the home).
fn scene(env: &CommandEnv) -> SetupScene<'_> {
    let config_dir = env.claude_config_dir.as_ref().map(|dir| env.cwd.join(dir));
    SetupScene {
        root: env.project_or_new().root().to_path_buf(),
        path_var: env.path_var.as_deref(),
        home: env.home.as_deref(),
        client_dir: config_dir
            .clone()
            .or_else(|| env.home.as_ref().map(|home| home.join(".claude"))),
        client_config: match config_dir {
            Some(dir) => Some(dir.join(".claude.json")),
            None => env.home.as_ref().map(|home| home.join(".claude.json")),
        },
        user_install: env.user_install_root(),
    }
}

/// The text: the setup's lines, then the runs', then one line that sums up.
fn render(setup: &[SetupCheck], runs: Option<&RunsReport>, runs_only: bool) -> String {
    let mut out = String::new();
    if !runs_only {
        out.push_str("setup:\n");
        for check in setup {
            out.push_str(&format!("  {}\n", check.render().replace('\n', "\n  ")));
        }
        out.push_str("runs:\n");
    }
    let indent = if runs_only { "" } else { "  " };
    match runs {
        Some(report) if report.lines.is_empty() => {
            out.push_str(&format!("{indent}no run yet\n"));
        }
        Some(report) => {
            for line in &report.lines {
                out.push_str(&format!("{indent}{line}\n"));
            }
        }
        None => out.push_str(&format!(
            "{indent}no self-repair project here: no run to check\n"
        )),
    }
    if !runs_only {
        let failed = setup
            .iter()
            .filter(|c| c.outcome == CheckOutcome::Fail)
            .count();
        out.push_str(&match failed {
            0 => "every check of the setup passed".to_owned(),
            n => format!("{n} check(s) of the setup failed: each `✗` line says what to do"),
        });
    }
    out.trim_end().to_owned()
}
