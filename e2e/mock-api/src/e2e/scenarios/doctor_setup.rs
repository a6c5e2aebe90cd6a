//! `self-repair doctor` on a healthy plugin setup made by the real client: the plugin added and
//! installed with `claude plugin marketplace add` and `claude plugin install` into the scenario's
//! `CLAUDE_CONFIG_DIR`, the project trusted and committed, `claude` and `backlog` on the PATH.
//! Every check passes (`✓`, exit 0): doctor reads the client's files as the client wrote them.

use crate::e2e::e2e_error::E2eError;
use crate::e2e::e2e_project::{E2eProject, InstallMode};
use crate::e2e::scenarios::ScenarioContext;

/// The `✓` lines a healthy setup prints, by their start.
const PASSED: [&str; 7] = [
    "✓ self-repair ",
    "✓ hooks registered by the plugin self-repair@self-repair (installed, enabled)",
    "✓ plugin ",
    "✓ Claude Code ",
    "✓ the project is trusted",
    "✓ a git work tree with commits",
    "✓ backlog CLI on PATH",
];

pub(crate) fn healthy_plugin(ctx: &mut ScenarioContext) -> Result<(), E2eError> {
    let project = E2eProject::new(&ctx.tools, "doctor-plugin-setup", InstallMode::Plugin, 2)?;
    let git = |args: &[&str]| -> Result<(), E2eError> {
        let mut all = vec!["-c", "user.name=e2e", "-c", "user.email=e2e@localhost"];
        all.extend_from_slice(args);
        let out = project.program("git", &all)?;
        ctx_ok(
            out.status.success(),
            &format!("git {}", args.join(" ")),
            &out,
        )
    };
    git(&["init", "-q"])?;
    git(&["add", "findings.jsonl"])?;
    git(&["commit", "-q", "-m", "first"])?;

    let claude = ctx.tools.claude.display().to_string();
    let repo = ctx.tools.repo.display().to_string();
    for args in [
        vec!["plugin", "marketplace", "add", repo.as_str()],
        vec!["plugin", "install", "self-repair@self-repair"],
    ] {
        let out = project.program(&claude, &args)?;
        ctx_ok(
            out.status.success(),
            &format!("claude {}", args.join(" ")),
            &out,
        )?;
    }

    let out = project.self_repair(&["doctor"])?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    ctx.checks
        .equal("doctor's exit code", &out.status.code(), &Some(0));
    ctx.checks.that(!stdout.contains('✗'), || {
        format!("a check failed:\n{stdout}")
    });
    for line in PASSED {
        ctx.checks.that(
            stdout.lines().any(|l| l.trim_start().starts_with(line)),
            || format!("no line `{line}`:\n{stdout}"),
        );
    }
    ctx.checks
        .that(stdout.contains("every check of the setup passed"), || {
            format!("no summary line:\n{stdout}")
        });
    Ok(())
}

/// Fails the scenario with what a setup step printed when it did not succeed.
fn ctx_ok(ok: bool, what: &str, out: &std::process::Output) -> Result<(), E2eError> {
    if ok {
        return Ok(());
    }
    Err(E2eError::Command {
        command: what.to_owned(),
        code: out.status.code(),
        stderr: format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    })
}
