//! The input formats `start --format` accepts, with their command-line spellings.

use std::fmt;
use std::str::FromStr;

use crate::ingest_error::IngestError;

/// An analyzer output format. `Auto` sniffs the content (and the file name) instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    /// Sniff the format from the file name and content; `Parsed::format` says which was chosen.
    Auto,
    /// The generic form: JSON Lines of `Finding` objects.
    Jsonl,
    /// SARIF 2.1.0 (any tool).
    Sarif,
    /// `cargo clippy --message-format=json` / `cargo build --message-format=json` stream.
    Clippy,
    /// `ruff check --output-format json`.
    Ruff,
    /// `eslint -f json`.
    Eslint,
    /// `knip --reporter json`.
    Knip,
    /// `vulture` text output.
    Vulture,
    /// `bandit -f json`.
    Bandit,
    /// `ts-prune` text output.
    TsPrune,
    /// GitHub code scanning alerts as `gh api --paginate .../code-scanning/alerts` prints them.
    GithubAlerts,
}

impl Format {
    /// Every format, in the order help texts list them.
    pub const ALL: [Format; 11] = [
        Format::Auto,
        Format::Jsonl,
        Format::Sarif,
        Format::Clippy,
        Format::Ruff,
        Format::Eslint,
        Format::Knip,
        Format::Vulture,
        Format::Bandit,
        Format::TsPrune,
        Format::GithubAlerts,
    ];

    /// The kebab-case name used on the command line and in messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Auto => "auto",
            Format::Jsonl => "jsonl",
            Format::Sarif => "sarif",
            Format::Clippy => "clippy",
            Format::Ruff => "ruff",
            Format::Eslint => "eslint",
            Format::Knip => "knip",
            Format::Vulture => "vulture",
            Format::Bandit => "bandit",
            Format::TsPrune => "ts-prune",
            Format::GithubAlerts => "github-alerts",
        }
    }

    /// One line describing what the format is, for help texts.
    pub fn describe(self) -> &'static str {
        match self {
            Format::Auto => "sniff the format from the file name and content",
            Format::Jsonl => "generic JSON Lines, one finding object a line",
            Format::Sarif => "SARIF 2.1.0 from any tool",
            Format::Clippy => "cargo clippy/build --message-format=json stream",
            Format::Ruff => "ruff check --output-format json",
            Format::Eslint => "eslint -f json",
            Format::Knip => "knip --reporter json",
            Format::Vulture => "vulture text output",
            Format::Bandit => "bandit -f json",
            Format::TsPrune => "ts-prune text output",
            Format::GithubAlerts => {
                "GitHub code scanning alerts: gh api --paginate repos/OWNER/REPO/code-scanning/alerts"
            }
        }
    }

    /// The names joined with `|`, for "expected one of" messages.
    pub(crate) fn names() -> String {
        Format::ALL
            .iter()
            .map(|format| format.as_str())
            .collect::<Vec<_>>()
            .join("|")
    }

    /// The formats `--format` can name once sniffing failed: every one but `auto`.
    pub(crate) fn named() -> String {
        Format::ALL
            .iter()
            .filter(|format| **format != Format::Auto)
            .map(|format| format.as_str())
            .collect::<Vec<_>>()
            .join("|")
    }
}

impl fmt::Display for Format {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_str())
    }
}

impl FromStr for Format {
    type Err = IngestError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let wanted = text.trim().to_ascii_lowercase();
        let alias = match wanted.as_str() {
            "json-lines" | "generic" => Some(Format::Jsonl),
            "cargo" | "cargo-json" | "rustc" => Some(Format::Clippy),
            "tsprune" | "ts_prune" => Some(Format::TsPrune),
            "code-scanning" | "code-scanning-alerts" | "github" => Some(Format::GithubAlerts),
            _ => None,
        };
        alias
            .or_else(|| {
                Format::ALL
                    .into_iter()
                    .find(|format| format.as_str() == wanted)
            })
            .ok_or_else(|| IngestError::UnknownFormatName {
                name: text.to_owned(),
                expected: Format::names(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_round_trips() {
        for (alias, format) in [
            ("cargo", Format::Clippy),
            ("cargo-json", Format::Clippy),
            ("rustc", Format::Clippy),
            ("generic", Format::Jsonl),
            ("json-lines", Format::Jsonl),
            ("tsprune", Format::TsPrune),
            ("ts_prune", Format::TsPrune),
            ("code-scanning", Format::GithubAlerts),
            ("code-scanning-alerts", Format::GithubAlerts),
            ("github", Format::GithubAlerts),
            (" TS_Prune ", Format::TsPrune),
        ] {
            assert_eq!(alias.parse::<Format>().ok(), Some(format), "{alias}");
        }
        for format in Format::ALL {
            assert_eq!(format.as_str().parse::<Format>().ok(), Some(format));
            assert_eq!(format.to_string(), format.as_str());
        }
    }

    /// Each format has its own line for the help text.
    #[test]
    fn every_format_is_described_in_a_line_of_its_own() {
        let lines: Vec<&str> = Format::ALL.into_iter().map(Format::describe).collect();
        let distinct: std::collections::BTreeSet<&str> = lines.iter().copied().collect();
        assert_eq!(distinct.len(), lines.len(), "{lines:?}");
        assert!(
            lines
                .iter()
                .all(|line| !line.is_empty() && !line.contains('\n')),
            "{lines:?}"
        );
        assert_eq!(Format::Sarif.describe(), "SARIF 2.1.0 from any tool");
    }

    #[test]
    fn unknown_name_lists_the_choices() {
        let error = "sariff".parse::<Format>().err().map(|e| e.to_string());
        insta::assert_snapshot!(error.unwrap_or_default(), @"unknown input format `sariff`; use one of auto|jsonl|sarif|clippy|ruff|eslint|knip|vulture|bandit|ts-prune|github-alerts");
    }
}
