//! The result of reading one analyzer output.

use self_repair_engine::Finding;

use crate::format::Format;

/// Findings read from one input, with the format actually used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    /// The format used; for `Format::Auto` the one the sniffer chose (never `Auto`).
    pub format: Format,
    /// The findings, in input order, paths relative to the project root with `/`.
    pub findings: Vec<Finding>,
    /// The folder the analyzer ran in, when its absolute paths were outside the project and
    /// no `--base` was given: inferred from the project's files (`/home/runner/work/app/app`).
    pub inferred_base: Option<String>,
}
