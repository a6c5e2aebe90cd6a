//! The test command `init` proposes: `checks.test.command`, which `fix` and `verify-task` run.

/// A test command, with the evidence it was chosen on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProposedTest {
    /// Run as given in the project root, never through a shell; exit 0 passes.
    pub command: Vec<String>,
    /// Why: the file that showed the test runner is configured here.
    pub reason: String,
}

impl ProposedTest {
    /// Builds one from string slices.
    pub(crate) fn new(command: &[&str], reason: String) -> ProposedTest {
        ProposedTest {
            command: command.iter().map(|a| (*a).to_owned()).collect(),
            reason,
        }
    }

    /// The command as one line (for the summary).
    pub fn command_line(&self) -> String {
        self.command.join(" ")
    }
}
