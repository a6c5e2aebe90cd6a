//! Why an analyzer output could not be turned into findings, and what to do about it.

use crate::format::Format;

/// An input that could not be read. Every message names the input, where in it the problem is
/// (a 1-based line number or a JSON path such as `runs[0].results[12].locations[0]`) and what
/// was expected; nothing partial is ever returned alongside one.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum IngestError {
    /// `--format` named no known format.
    #[error("unknown input format `{name}`; use one of {expected}")]
    UnknownFormatName {
        /// What was given.
        name: String,
        /// The accepted names joined with `|`.
        expected: String,
    },

    /// A line of a line-oriented format (JSONL, clippy stream, vulture, ts-prune) is malformed.
    #[error("{input}: line {line}: {problem}\n  expected {format} input: {expected}")]
    BadLine {
        /// The input's name (file name or `stdin`).
        input: String,
        /// The format being read.
        format: Format,
        /// 1-based line number.
        line: usize,
        /// What is wrong with the line.
        problem: String,
        /// The shape a line must have.
        expected: &'static str,
    },

    /// A whole-document format (SARIF, Ruff, `ESLint`, knip, Bandit) is malformed.
    #[error(
        "{input}: not a valid {format} document: {problem} (at {location})\n  expected: {expected}"
    )]
    BadDocument {
        /// The input's name.
        input: String,
        /// The format being read.
        format: Format,
        /// JSON path (`runs[0].results[3]`) or `line L column C` where the problem is.
        location: String,
        /// What is wrong.
        problem: String,
        /// The shape the document must have.
        expected: &'static str,
    },

    /// A finding's file path cannot be made relative to the project root.
    #[error(
        "{input}: {location}: path `{path}` {refusal} (project root: {root})\n  fix: {fix}",
        fix = .refusal.fix()
    )]
    PathOutsideProject {
        /// The input's name.
        input: String,
        /// Line number or JSON path of the finding.
        location: String,
        /// The path as the tool wrote it.
        path: String,
        /// Why it was refused.
        refusal: PathRefusal,
        /// The project root it had to stay under, as displayed.
        root: String,
    },

    /// `--new-only` on an input that says nothing of what is new.
    #[error(
        "{input} (read as {format}): --new-only keeps SARIF results whose `baselineState` is `new`, and {detail}\n  fix: give SARIF compared with a baseline (GitHub code scanning's, or `sarif match-results-forward` of @microsoft/sarif-multitool between the base branch's log and this one), or use --changed-since REF to keep the findings on the lines changed since REF"
    )]
    NoBaselineState {
        /// The input's name.
        input: String,
        /// The format it was read as.
        format: Format,
        /// Why nothing in it tells what is new.
        detail: String,
    },

    /// JSON that ends before its value does: a report cut short.
    #[error(
        "{input}: the JSON ends before it is complete ({location}): the report was cut short (the analyzer was stopped, the disk was full, or the file was copied in part). Run the analyzer again and give its whole report"
    )]
    Truncated {
        /// The input's name.
        input: String,
        /// `line L column C` where the text ends.
        location: String,
    },

    /// `--format auto` could not tell what the input is.
    #[error(
        "{input}: cannot tell which analyzer wrote this input ({clue}); pass --format with one of {expected}. If it is not an analyzer's report, run the analyzer with JSON output and give that file instead (e.g. `ruff check --output-format json . > .self-repair/ruff.json`, then `self-repair start .self-repair/ruff.json`; `self-repair start --help` lists the formats)"
    )]
    Unrecognized {
        /// The input's name.
        input: String,
        /// What the sniffer saw.
        clue: String,
        /// The accepted names joined with `|`.
        expected: String,
    },
}

/// Why a finding's path was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathRefusal {
    /// A relative path whose `..` climbs above the project root.
    EscapesRoot,
    /// An absolute path under neither the project root nor `--base`, and (without `--base`)
    /// no tail of it names a file of the project.
    AbsoluteOutside,
    /// An absolute path outside the project and outside the base inferred from the input's
    /// earlier paths: no one base fits them all.
    OutsideInferredBase,
    /// A URI with a scheme other than `file:`.
    NotAFileUri,
}

impl PathRefusal {
    /// What the user should do about it.
    pub fn fix(self) -> &'static str {
        match self {
            PathRefusal::EscapesRoot => {
                "run the analyzer from the project root (relative paths are read relative to it), and give `start` only findings inside the project"
            }
            PathRefusal::AbsoluteOutside => {
                "pass --base DIR naming the directory the analyzer ran in (absolute paths under it are made relative to the project root), or run the analyzer inside the project"
            }
            PathRefusal::OutsideInferredBase => {
                "pass --base DIR naming the directory the analyzer ran in; without it, the paths of one input must all lie under one folder whose layout matches the project's files"
            }
            PathRefusal::NotAFileUri => {
                "only `file:` URIs and relative references name project files; re-run the analyzer so it reports file paths"
            }
        }
    }
}

impl std::fmt::Display for PathRefusal {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(match self {
            PathRefusal::EscapesRoot => "climbs out of the project root with `..`",
            PathRefusal::AbsoluteOutside => {
                "is absolute and lies neither under the project root nor under --base"
            }
            PathRefusal::OutsideInferredBase => {
                "is absolute and lies neither under the project root nor under the base inferred from this input's earlier paths"
            }
            PathRefusal::NotAFileUri => "is a URI whose scheme is not `file:`",
        })
    }
}
