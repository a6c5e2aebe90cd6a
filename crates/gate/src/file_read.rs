//! The `PreToolUse` decision for the client's own file tools (`Read`, `Grep`, `Glob`): our
//! read-only agents read inside the project only, as their Bash commands do; every other call
//! is left to the client's permission rules (reference/permissions.md).

use std::path::Path;

use crate::command_line::stays_inside;
use crate::gate_decision::{Caller, GateDecision};

/// The client's tools that read files, each with the input field naming what it reads.
pub const FILE_TOOLS: [(&str, &str); 3] =
    [("Read", "file_path"), ("Grep", "path"), ("Glob", "path")];

/// Decides a call of `tool` (one of [`FILE_TOOLS`]) reading `path` (none: the session's
/// folder). Denied for our read-only agents when `path` lies outside `project`; else no
/// opinion.
pub fn decide_file_read(
    tool: &str,
    path: Option<&str>,
    caller: Caller,
    project: Option<&Path>,
) -> GateDecision {
    match path {
        Some(path) if caller == Caller::ReadOnlyAgent && !stays_inside(path, project) => {
            GateDecision::Deny(format!(
                "self-repair's permission gate refused this {tool} call: `{path}` is outside the \
                 project. A self-repair agent reads the project's files only; what it needs of \
                 the run is in `self-repair show`."
            ))
        }
        _ => GateDecision::Abstain,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROJECT: &str = "/home/dev/app";
    const INVESTIGATOR: Option<&str> = Some("self-repair:triage-investigator");

    fn decide(tool: &str, path: Option<&str>, agent: Option<&str>) -> GateDecision {
        decide_file_read(
            tool,
            path,
            Caller::from_agent_type(agent),
            Some(Path::new(PROJECT)),
        )
    }

    #[test]
    fn an_agent_reading_outside_the_project_is_denied_and_inside_left_to_the_client() {
        for (tool, path) in [
            ("Read", "/home/dev/corpus/labels.csv"),
            ("Grep", "/home/dev"),
            ("Glob", "../"),
            ("Read", "~/.aws/credentials"),
        ] {
            assert!(
                matches!(
                    decide(tool, Some(path), INVESTIGATOR),
                    GateDecision::Deny(_)
                ),
                "{tool} {path}"
            );
        }
        for (tool, path) in [
            ("Read", Some("/home/dev/app/src/a.py")),
            ("Grep", Some("src")),
            ("Glob", None),
        ] {
            assert_eq!(decide(tool, path, INVESTIGATOR), GateDecision::Abstain);
        }
        // The main session and other agents: the client's own rules.
        assert_eq!(
            decide("Read", Some("/etc/hosts"), None),
            GateDecision::Abstain
        );
        assert_eq!(
            decide("Read", Some("/etc/hosts"), Some("Explore")),
            GateDecision::Abstain
        );
    }
}
