//! `git` in a project folder, through the one process runner: every caller gets the same
//! error shape (git missing, or the command failing with its stderr).

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::process_run::{Captured, ProcessRequest, SpawnError, run_process};

/// Why a git command gave no answer.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("cannot run git: {0}")]
    NotRun(#[from] SpawnError),
    #[error("`git {args}` failed in {root} (exit {code}): {stderr}")]
    Failed {
        args: String,
        root: PathBuf,
        code: i32,
        stderr: String,
    },
}

/// git, run with `-C root`.
#[derive(Debug, Clone, Copy)]
pub struct Git<'a> {
    root: &'a Path,
    timeout: Option<Duration>,
}

impl<'a> Git<'a> {
    /// git for the work tree (or any folder inside it) at `root`.
    pub fn at(root: &'a Path) -> Git<'a> {
        Git {
            root,
            timeout: None,
        }
    }

    /// The same git, its commands killed once `timeout` has passed (a push that waits on the
    /// network or on credentials).
    #[must_use]
    pub fn within(self, timeout: Duration) -> Git<'a> {
        Git {
            timeout: Some(timeout),
            ..self
        }
    }

    /// Runs `git args`; its stdout when it exits 0.
    pub fn output(&self, args: &[&str]) -> Result<Vec<u8>, GitError> {
        self.output_accepting(args, &[0])
    }

    /// Runs `git args`; its stdout when it exits with one of `ok_codes` (`git diff --no-index`
    /// exits 1 when the files differ).
    pub fn output_accepting(&self, args: &[&str], ok_codes: &[i32]) -> Result<Vec<u8>, GitError> {
        let mut command = vec!["git".to_owned(), "-C".to_owned()];
        command.push(self.root.display().to_string());
        command.extend(args.iter().map(|a| (*a).to_owned()));
        let outcome = run_process(&ProcessRequest {
            argv: &command,
            cwd: self.root,
            stdin: None,
            timeout: self.timeout,
            output: Captured::Separately,
        })?;
        if outcome.timed_out {
            return Err(GitError::Failed {
                args: args.join(" "),
                root: self.root.to_path_buf(),
                code: outcome.exit_code,
                stderr: format!(
                    "no answer within {} s (killed)",
                    self.timeout.map_or(0, |t| t.as_secs())
                ),
            });
        }
        if ok_codes.contains(&outcome.exit_code) {
            return Ok(outcome.stdout);
        }
        Err(GitError::Failed {
            args: args.join(" "),
            root: self.root.to_path_buf(),
            code: outcome.exit_code,
            stderr: outcome.stderr_text().trim().to_owned(),
        })
    }

    /// Runs `git args`; its stdout as text, trimmed.
    pub fn text(&self, args: &[&str]) -> Result<String, GitError> {
        self.output(args)
            .map(|out| String::from_utf8_lossy(&out).trim().to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failing_git_command_names_itself_and_its_stderr() {
        let dir = tempfile::tempdir().unwrap();
        let err = Git::at(dir.path())
            .output(&["rev-parse", "--verify", "HEAD"])
            .unwrap_err();
        let GitError::Failed {
            args, code, stderr, ..
        } = &err
        else {
            panic!("expected a failed git command, got {err}");
        };
        assert_eq!(args, "rev-parse --verify HEAD");
        assert_ne!(*code, 0);
        assert!(!stderr.is_empty());
    }

    #[test]
    fn output_accepting_takes_the_codes_it_is_given() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a"), "x\n").unwrap();
        std::fs::write(dir.path().join("b"), "y\n").unwrap();
        let git = Git::at(dir.path());
        let diff = git
            .output_accepting(&["diff", "--no-index", "--", "a", "b"], &[0, 1])
            .unwrap();
        assert!(String::from_utf8_lossy(&diff).contains("+y"));
        assert!(git.output(&["diff", "--no-index", "--", "a", "b"]).is_err());
    }
}
