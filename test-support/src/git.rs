//! `git` for fixtures: a fixed identity, no signing, and none of the user's or the system's
//! configuration, so a test reads the same on every machine.

use std::path::Path;
use std::process::Command;

use crate::bounded_run::{Bounded, FIXTURE_LIMIT};

/// `git ARGS` in `dir`, isolated from the user's and the system's configuration, with a fixed
/// identity; for a test that looks at a failure itself ([`git`] asserts success).
pub fn git_command(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new("git");
    command
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@localhost",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null");
    command
}

/// Runs `git ARGS` in `dir` ([`git_command`]); asserts it succeeded within the fixture limit
/// and returns its standard output.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let done = Bounded::new(git_command(dir, args))
        .limit(FIXTURE_LIMIT)
        .run();
    assert!(
        done.succeeded(),
        "git {args:?} in {}: {}",
        dir.display(),
        done.stderr_text()
    );
    done.stdout_text()
}
