//! Cases the crate's mutation run found untested (reference/mutants.md): git's text answer and
//! its timeout, and a program that exists but cannot be run.
#![cfg(test)]

use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use self_repair_process::{Captured, Git, GitError, ProcessRequest, SpawnError, run_process};

#[test]
fn git_text_is_stdout_trimmed() {
    let dir = tempfile::tempdir().unwrap();
    let text = Git::at(dir.path()).text(&["--version"]).unwrap();
    assert!(text.starts_with("git version "), "{text:?}");
    assert_eq!(text, text.trim(), "the answer keeps its newline");
}

#[test]
fn git_within_a_timeout_is_killed_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    // An alias that runs `sleep`: a git command that gives no answer for 20 s.
    let err = Git::at(dir.path())
        .within(Duration::from_millis(300))
        .output(&["-c", "alias.nap=!sleep 20", "nap"])
        .unwrap_err();
    let GitError::Failed { stderr, .. } = &err else {
        panic!("expected a failed git command, got {err}");
    };
    assert!(stderr.contains("(killed)"), "{stderr}");
}

#[test]
fn a_program_that_is_not_executable_is_permission_denied_with_code_126() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("not-executable");
    std::fs::write(&script, "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o644)).unwrap();
    let err = run_process(&ProcessRequest {
        argv: &[script.display().to_string()],
        cwd: dir.path(),
        stdin: None,
        timeout: None,
        output: Captured::Separately,
    })
    .unwrap_err();
    assert!(matches!(err, SpawnError::PermissionDenied { .. }), "{err}");
    assert_eq!(err.shell_exit_code(), 126);
}

#[test]
fn an_empty_argv_is_refused_with_the_not_found_code() {
    let dir = tempfile::tempdir().unwrap();
    let err = run_process(&ProcessRequest {
        argv: &[],
        cwd: dir.path(),
        stdin: None,
        timeout: None,
        output: Captured::Separately,
    })
    .unwrap_err();
    assert!(matches!(err, SpawnError::EmptyArgv), "{err}");
    assert_eq!(err.shell_exit_code(), 127);
}
