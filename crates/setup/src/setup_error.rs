//! Why a setup could not be merged into an existing config.

/// An existing `config.json` whose shape leaves no place for the proposal.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SetupError {
    /// The file is not a JSON object, or a section is not what the config reader expects.
    #[error(
        "{0}; fix it by hand (reference/config.md, \"Detectors\") or remove it, then run `self-repair init` again"
    )]
    Shape(String),
}
