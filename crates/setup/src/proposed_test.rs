//! The test command `init` proposes: `checks.test.command`, which `fix` and `verify-task` run.

/// A test command, with the evidence it was chosen on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProposedTest {
    /// Run as given in the project root, never through a shell; exit 0 passes. A subfolder's
    /// test command is `sh -c "cd FOLDER && ..."`.
    pub command: Vec<String>,
    /// The command as a shell line (`pytest -q`, `(cd py && pytest -q)`): the summary, and the
    /// parts of a combined command.
    line: String,
    /// Why: the file that showed the test runner is configured here.
    pub reason: String,
}

impl ProposedTest {
    /// Builds one from string slices.
    pub(crate) fn new(command: &[&str], reason: String) -> ProposedTest {
        ProposedTest {
            command: command.iter().map(|a| (*a).to_owned()).collect(),
            line: command.join(" "),
            reason,
        }
    }

    /// The same command run in the project's subfolder `folder` (the config's test command runs
    /// in the root, so through `sh -c "cd FOLDER && ..."`).
    #[must_use]
    pub(crate) fn in_folder(self, folder: &str) -> ProposedTest {
        if folder.is_empty() {
            return self;
        }
        let inner = format!("cd {folder} && {}", self.line);
        ProposedTest {
            command: vec!["sh".to_owned(), "-c".to_owned(), inner.clone()],
            line: format!("({inner})"),
            reason: self.reason,
        }
    }

    /// The command as one line (for the summary).
    pub fn command_line(&self) -> String {
        self.line.clone()
    }
}
