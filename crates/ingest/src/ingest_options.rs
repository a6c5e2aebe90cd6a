//! What a parser needs to know besides the text: the input's name and where the project is.

use std::path::PathBuf;

/// How to read one analyzer output.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct IngestOptions {
    /// The input's name (file name, or `stdin`), used in messages and as a sniffing hint.
    pub source: String,
    /// The project root, absolute. Relative paths in findings are taken relative to it and
    /// absolute paths under it are made relative.
    pub project_root: PathBuf,
    /// Another absolute prefix to strip from absolute paths that are not under `project_root`,
    /// e.g. the directory the analyzer ran in on another machine (`/home/dev/samples`).
    pub base: Option<PathBuf>,
    /// The project-relative folder the analyzer ran in: relative paths in its output are taken
    /// relative to it (cargo in `rs/` prints `src/main.rs` for `rs/src/main.rs`).
    pub relative_to: Option<String>,
    /// Keep the edits of each finding's safe fix, read against its file under the project
    /// root (`start` does, for `apply-fixes`); off, the files are not read for them.
    pub fix_edits: bool,
    /// `start --new-only`: keep only SARIF results whose `baselineState` is `new`; refused for
    /// formats that carry no baseline state.
    pub new_only: bool,
}

impl IngestOptions {
    /// Options for an input named `source` in the project at `project_root`, without a base.
    pub fn new(source: impl Into<String>, project_root: impl Into<PathBuf>) -> IngestOptions {
        IngestOptions {
            source: source.into(),
            project_root: project_root.into(),
            base: None,
            relative_to: None,
            fix_edits: false,
            new_only: false,
        }
    }

    /// The same options keeping safe fixes' edits.
    #[must_use]
    pub fn with_fix_edits(mut self) -> IngestOptions {
        self.fix_edits = true;
        self
    }

    /// The same options keeping only new results (SARIF `baselineState: new`).
    #[must_use]
    pub fn with_new_only(mut self) -> IngestOptions {
        self.new_only = true;
        self
    }

    /// The same options with relative paths taken under the project folder `dir`.
    #[must_use]
    pub fn with_relative_to(mut self, dir: impl Into<String>) -> IngestOptions {
        let dir: String = dir.into();
        let trimmed = dir.trim_matches('/');
        self.relative_to = (!trimmed.is_empty() && trimmed != ".").then(|| trimmed.to_owned());
        self
    }

    /// The same options with `base` set.
    #[must_use]
    pub fn with_base(mut self, base: impl Into<PathBuf>) -> IngestOptions {
        self.base = Some(base.into());
        self
    }
}
