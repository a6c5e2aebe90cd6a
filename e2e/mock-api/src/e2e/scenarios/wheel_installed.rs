//! The wheel route (issue 23): the `self-repair` that `pip install <the repo's wheel>` put into a
//! fresh venv is the only `self-repair` on the scenario's PATH, no Rust toolchain is there, and
//! it takes a project through the full pipeline on the real client by both routes: `self-repair
//! install --project` (timed from the end of `pip install` to the first dispatch, as a new user
//! waits) and the plugin (`--plugin-dir`).

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::e2e::e2e_error::E2eError;
use crate::e2e::e2e_project::{E2eProject, InstallMode};
use crate::e2e::scenarios::ScenarioContext;
use crate::e2e::scenarios::full_pipeline::full_pipeline;
use crate::e2e::wheel_install::WheelInstall;

/// Programs of a Rust toolchain: none may be on the scenario's PATH.
const TOOLCHAIN: [&str; 3] = ["cargo", "rustc", "rustup"];

/// Checks the scenario's PATH, then runs the full pipeline installed and as a plugin.
pub(crate) fn run(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let Some(wheel) = ctx.tools.wheel.clone() else {
        return Err(E2eError::MissingTool(
            "wheel-installed needs the venv the wheel was installed into: no --wheel-venv was given"
                .to_owned(),
        ));
    };
    let probe = E2eProject::new(&ctx.tools, "wheel-installed-path", InstallMode::Plugin, 0)?;
    check_no_toolchain(ctx, &probe)?;
    check_only_the_venv_binary(ctx, &probe, &wheel);
    check_version(ctx, &probe, &wheel)?;

    let first = full_pipeline(ctx, "wheel-installed", InstallMode::Project, true)?;
    relabel_last_figures(ctx, "wheel, install --project");
    match first.map(|at| at.duration_since(wheel.installed_at)) {
        Some(Ok(waited)) => ctx.notes.push(format!(
            "wheel installed -> first dispatch (install --project, then claude -p): {:.1} s",
            waited.as_secs_f64()
        )),
        other => ctx.checks.fail(format!(
            "no first dispatch after the wheel install: {other:?}"
        )),
    }
    let plugin_started = SystemTime::now();
    let first = full_pipeline(ctx, "wheel-installed-plugin", InstallMode::Plugin, true)?;
    relabel_last_figures(ctx, "wheel, plugin");
    if let Some(Ok(waited)) = first.map(|at| at.duration_since(plugin_started)) {
        ctx.notes.push(format!(
            "plugin session start -> first dispatch: {:.1} s",
            waited.as_secs_f64()
        ));
    } else {
        ctx.checks
            .fail("no first dispatch in the plugin session".to_owned());
    }
    Ok(())
}

/// `command -v cargo` (rustc, rustup) finds nothing in the scenario's environment.
fn check_no_toolchain(ctx: &mut ScenarioContext, project: &E2eProject) -> Result<(), E2eError> {
    for program in TOOLCHAIN {
        let out = project.program("sh", &["-c", &format!("command -v {program}")])?;
        ctx.checks.that(!out.status.success(), || {
            format!(
                "{program} is on the scenario's PATH ({}): the wheel must run without a Rust toolchain",
                String::from_utf8_lossy(&out.stdout).trim()
            )
        });
    }
    Ok(())
}

/// Every `self-repair` on the scenario's PATH is the venv's (the project's `bin/` links to it).
fn check_only_the_venv_binary(
    ctx: &mut ScenarioContext,
    project: &E2eProject,
    wheel: &WheelInstall,
) {
    let venv_binary = canonical(&wheel.binary());
    let found: Vec<PathBuf> = std::env::split_paths(&project.path_var())
        .map(|dir| dir.join("self-repair"))
        .filter(|candidate| candidate.is_file())
        .collect();
    ctx.checks.that(!found.is_empty(), || {
        "no self-repair on the scenario's PATH".to_owned()
    });
    for candidate in found {
        ctx.checks.that(canonical(&candidate) == venv_binary, || {
            format!(
                "{} on the scenario's PATH is not the venv's {}",
                candidate.display(),
                venv_binary.display()
            )
        });
    }
}

/// `self-repair --version`, found on PATH, names the version pip installed.
fn check_version(
    ctx: &mut ScenarioContext,
    project: &E2eProject,
    wheel: &WheelInstall,
) -> Result<(), E2eError> {
    let python = wheel.python();
    let python = python.to_string_lossy();
    let installed = project.program(
        &python,
        &[
            "-c",
            "import importlib.metadata as m; print(m.version('self-repair'))",
        ],
    )?;
    let installed = String::from_utf8_lossy(&installed.stdout).trim().to_owned();
    let printed = project.program("sh", &["-c", "self-repair --version"])?;
    let printed = String::from_utf8_lossy(&printed.stdout).trim().to_owned();
    ctx.checks.that(
        // The semver first; the commit and its date follow when built in a git clone.
        !installed.is_empty()
            && (printed == format!("self-repair {installed}")
                || printed.starts_with(&format!("self-repair {installed} ("))),
        || {
            format!(
                "self-repair --version printed {printed:?}; pip installed version {installed:?}"
            )
        },
    );
    Ok(())
}

fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_owned())
}

/// Names the last measured row after the wheel route, apart from the suite's own rows.
fn relabel_last_figures(ctx: &mut ScenarioContext, label: &str) {
    if let Some(figures) = ctx.figures.last_mut() {
        figures.label = format!("full pipeline, foreground agents ({label})");
    }
}
