//! The programs `self-repair doctor` looks for: `self-repair` itself as the hooks and the agents
//! find it, the client's version, git with a commit, the `backlog` CLI, the configured
//! detectors. Every program it runs is bounded by `PROBE_TIMEOUT`.

use std::path::{Path, PathBuf};

use self_repair_process::{Git, GitError};

use super::setup_check::{PROBE_TIMEOUT, SetupCheck, SetupScene, is_executable, version_of};
use crate::hooks::session_notices::{ClientVersion, TESTED_CLIENTS};
use crate::run::project_config::load_project_config;

/// Where the plugin's launcher (`plugin/hooks/self-repair-hook.sh`) looks when `self-repair`
/// is not on `PATH`, under `HOME`: `uv tool`, `pipx` and `pip --user` install into the first,
/// `cargo install` into the second.
const FALLBACK_DIRS: [&str; 2] = [".local/bin", ".cargo/bin"];

/// How to install the program today (README.md, "Install").
pub(crate) const INSTALL: &str = "install it from a clone of \
     https://github.com/self-repair/self-repair with `cargo install --locked --path .` (Rust \
     1.89 or newer; it goes into ~/.cargo/bin), put that folder on the PATH Claude Code starts \
     with, then start a new session";

/// `self-repair` on `PATH`, of this version: the hooks find it there (else in the launcher's
/// fallback folders), the agents only there.
pub(crate) fn binary_check(scene: &SetupScene<'_>, version: &str) -> SetupCheck {
    let Some(found) = scene.find_on_path("self-repair") else {
        return not_on_path(scene);
    };
    let answer = version_of(&found, &scene.root);
    let theirs = answer
        .as_deref()
        .ok()
        .and_then(|text| text.split_whitespace().nth(1))
        .unwrap_or_default();
    match answer {
        Ok(_) if theirs == version => SetupCheck::ok(
            "binary",
            format!("self-repair {version} on PATH ({})", found.display()),
        ),
        Ok(_) => SetupCheck::fail(
            "binary",
            format!(
                "the self-repair on PATH ({}) is version {theirs}, this one is {version}",
                found.display()
            ),
            "the hooks and the agents run the one on PATH: install this version over it \
             (`cargo install --locked --path .` in the clone), or remove the other",
        ),
        Err(why) => SetupCheck::fail(
            "binary",
            format!(
                "the self-repair on PATH ({}) does not answer `--version`: {why}",
                found.display()
            ),
            INSTALL,
        ),
    }
}

/// `self-repair` not on `PATH`: found only where the launcher falls back to, or nowhere.
fn not_on_path(scene: &SetupScene<'_>) -> SetupCheck {
    let fallback = scene.home.and_then(|home| {
        FALLBACK_DIRS
            .iter()
            .map(|dir| home.join(dir).join("self-repair"))
            .find(|candidate| is_executable(candidate))
    });
    match fallback {
        Some(found) => {
            let dir = found.parent().unwrap_or(&found).display().to_string();
            SetupCheck::fail(
                "binary",
                format!(
                    "self-repair is not on PATH: the plugin's hooks find {}, but the agents \
                     call `self-repair` by name and fail with command not found",
                    found.display()
                ),
                format!(
                    "put {dir} on the PATH Claude Code starts with (`export PATH=\"{dir}:$PATH\"` \
                     in your shell's profile, or the IDE's environment), then start a new session"
                ),
            )
        }
        None => SetupCheck::fail(
            "binary",
            "self-repair is not on PATH, nor in ~/.local/bin or ~/.cargo/bin",
            INSTALL,
        ),
    }
}

/// `claude --version` against the tested range; skipped when `claude` is not on `PATH`.
pub(crate) fn client_check(scene: &SetupScene<'_>) -> SetupCheck {
    let Some(claude) = scene.find_on_path("claude") else {
        return SetupCheck::skipped(
            "client",
            "claude not found on PATH: the client's version not checked",
        );
    };
    let range = format!("{} to {}", TESTED_CLIENTS.start(), TESTED_CLIENTS.end());
    let answer = match version_of(&claude, &scene.root) {
        Ok(answer) => answer,
        Err(why) => {
            return SetupCheck::fail(
                "client",
                format!("`{} --version` failed: {why}", claude.display()),
                "check that `claude --version` works in a terminal",
            );
        }
    };
    match answer
        .split_whitespace()
        .next()
        .and_then(ClientVersion::parse)
    {
        Some(version) if TESTED_CLIENTS.contains(&version) => {
            SetupCheck::ok("client", format!("Claude Code {version} (tested: {range})"))
        }
        Some(version) => SetupCheck::fail(
            "client",
            format!("Claude Code {version} is outside the tested versions, {range}"),
            format!(
                "install a tested one: `npm install -g @anthropic-ai/claude-code@{}`",
                TESTED_CLIENTS.end()
            ),
        ),
        None => SetupCheck::fail(
            "client",
            format!("`claude --version` printed `{answer}`, not a version"),
            "check that `claude` on PATH is Claude Code",
        ),
    }
}

/// A git work tree with at least one commit: `fix` and `apply-fixes` need one.
pub(crate) fn git_check(root: &Path) -> SetupCheck {
    let git = Git::at(root).within(PROBE_TIMEOUT);
    if let Err(e) = git.text(&["rev-parse", "--is-inside-work-tree"]) {
        return match e {
            GitError::NotRun(why) => SetupCheck::fail(
                "git",
                format!("git: {why}"),
                "install git (`fix` and `apply-fixes` need a git work tree with a commit)",
            ),
            GitError::Failed { .. } => SetupCheck::fail(
                "git",
                format!("{} is not a git work tree", root.display()),
                "`git init`, then commit: `fix` and `apply-fixes` need a commit to compare with",
            ),
        };
    }
    match git.text(&[
        "rev-parse",
        "--short",
        "--verify",
        "--quiet",
        "HEAD^{commit}",
    ]) {
        Ok(head) => SetupCheck::ok(
            "git",
            format!("a git work tree with commits (HEAD {})", head.trim()),
        ),
        Err(_) => SetupCheck::fail(
            "git",
            "a git work tree with no commit yet",
            "commit once (`git add -A && git commit -m 'first commit'`): `fix` and \
             `apply-fixes` need a commit to compare with",
        ),
    }
}

/// The `backlog` CLI, which reads the tasks a run writes (`backlog task list`).
pub(crate) fn backlog_check(scene: &SetupScene<'_>) -> SetupCheck {
    match scene.find_on_path("backlog") {
        Some(found) => SetupCheck::ok(
            "backlog",
            format!("backlog CLI on PATH ({})", found.display()),
        ),
        None => SetupCheck::fail(
            "backlog",
            "backlog CLI not found on PATH (the tasks are written as files; it lists and edits \
             them)",
            "`npm install -g backlog.md`",
        ),
    }
}

/// Each detector of `.self-repair/config.json` with its program installed.
pub(crate) fn detector_checks(scene: &SetupScene<'_>) -> Vec<SetupCheck> {
    let store = scene.root.join(".self-repair");
    let config = match load_project_config(&store, None) {
        Ok(config) => config,
        Err(e) => {
            return vec![SetupCheck::fail(
                "detectors",
                format!("the project's config does not load: {e}"),
                "correct .self-repair/config.json (reference/config.md)",
            )];
        }
    };
    if config.detectors.is_empty() {
        return vec![SetupCheck::skipped(
            "detectors",
            "no detectors configured (`fix` and `start --detect` run them): `self-repair init` \
             writes them",
        )];
    }
    config
        .detectors
        .iter()
        .map(|detector| {
            let program = detector.argv.first().map_or("", String::as_str);
            let cwd = scene.root.join(detector.cwd.as_deref().unwrap_or(""));
            match find_program(scene, program, &cwd) {
                Some(found) => SetupCheck::ok(
                    "detector",
                    format!(
                        "detector {}: {program} found ({})",
                        detector.name,
                        found.display()
                    ),
                ),
                None => SetupCheck::fail(
                    "detector",
                    format!("detector {}: `{program}` not found on PATH", detector.name),
                    format!(
                        "install {program}, or correct the detector's argv in \
                         .self-repair/config.json"
                    ),
                ),
            }
        })
        .collect()
}

/// `program` as a detector's argv runs it: a path (relative to its folder), or a name on `PATH`.
fn find_program(scene: &SetupScene<'_>, program: &str, cwd: &Path) -> Option<PathBuf> {
    if program.contains('/') {
        let path = cwd.join(program);
        return is_executable(&path).then_some(path);
    }
    if program.is_empty() {
        return None;
    }
    scene.find_on_path(program)
}
