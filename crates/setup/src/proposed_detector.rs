//! One detector `init` proposes: the `detectors` entry of `.self-repair/config.json`, and why.

use serde_json::{Map, Value, json};

/// A detector for `.self-repair/config.json`, with the evidence it was chosen on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProposedDetector {
    /// Its `name` (what `detect --only`, `fix --detector` and `verify-task --detector` take).
    pub name: String,
    /// Run as given, never through a shell.
    pub argv: Vec<String>,
    /// The folder it runs in, relative to the project root (`None`: the root); its output's
    /// relative paths are read under it.
    pub cwd: Option<String>,
    /// The exit codes the tool uses when it ran fine, findings or not.
    pub ok_exit_codes: Vec<i32>,
    /// The input format of its output (`start --format`).
    pub format: String,
    /// Why: the file that showed the tool is used here.
    pub reason: String,
    /// What its exit codes mean, for the printed summary.
    pub exit_codes_meaning: String,
}

impl ProposedDetector {
    /// The `detectors` entry, in the keys `detect` reads (`name`, `argv`, `cwd` for a
    /// subfolder, `ok_exit_codes`, `format`; `timeout_secs` keeps its default).
    pub fn to_json(&self) -> Value {
        let mut entry = Map::new();
        entry.insert("name".to_owned(), json!(self.name));
        entry.insert("argv".to_owned(), json!(self.argv));
        if let Some(cwd) = &self.cwd {
            entry.insert("cwd".to_owned(), json!(cwd));
        }
        entry.insert("ok_exit_codes".to_owned(), json!(self.ok_exit_codes));
        entry.insert("format".to_owned(), json!(self.format));
        Value::Object(entry)
    }

    /// The argv as one line, with the folder it runs in (for the summary; never run through a
    /// shell).
    pub fn command_line(&self) -> String {
        match &self.cwd {
            Some(cwd) => format!("{} (in {cwd}/)", self.argv.join(" ")),
            None => self.argv.join(" "),
        }
    }

    /// The same detector for the project's subfolder `folder`: its name gets the folder
    /// (`ruff-py`, `clippy-crates-core`), so a project's detectors keep distinct names.
    #[must_use]
    pub(crate) fn in_folder(mut self, folder: &str) -> ProposedDetector {
        if !folder.is_empty() {
            self.name = format!("{}-{}", self.name, folder.replace('/', "-"));
            self.cwd = Some(folder.to_owned());
        }
        self
    }
}

/// Builds a detector from string slices.
pub(crate) fn detector(
    name: &str,
    argv: &[&str],
    ok_exit_codes: &[i32],
    format: &str,
    reason: String,
    exit_codes_meaning: &str,
) -> ProposedDetector {
    ProposedDetector {
        name: name.to_owned(),
        argv: argv.iter().map(|a| (*a).to_owned()).collect(),
        cwd: None,
        ok_exit_codes: ok_exit_codes.to_vec(),
        format: format.to_owned(),
        reason,
        exit_codes_meaning: exit_codes_meaning.to_owned(),
    }
}
