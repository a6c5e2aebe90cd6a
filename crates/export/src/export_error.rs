//! Why an export could not be written.

/// An export failed; every message names the input and what to do next.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The verbatim copy of a SARIF input no longer parses (edited or truncated by hand).
    #[error(
        "the copy of {input} kept in the run ({copy}) is not a SARIF log any more: {problem}. \
         Delete {copy} to export that input's findings from findings.json instead (the analyzer's \
         own fields such as partialFingerprints are then lost), or start a new run from the report"
    )]
    BadCopy {
        input: String,
        copy: String,
        problem: String,
    },
    /// `inputs/index.json` does not parse.
    #[error(
        "{path} is damaged ({problem}): delete it to export the run's findings from findings.json \
         (the analyzer's own SARIF fields such as partialFingerprints are then not copied)"
    )]
    BadIndex { path: String, problem: String },
    /// `merge` could not write the merged run's kept inputs.
    #[error("cannot write {path}: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
}
